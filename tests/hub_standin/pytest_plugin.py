"""pytest fixture for the local Hub stand-in.

Use it from a conftest.py::

    pytest_plugins = ["tests.hub_standin.pytest_plugin"]   # root conftest only
    # or, in any conftest.py / test module:
    from tests.hub_standin.pytest_plugin import hub_server  # noqa: F401

and in a test::

    def test_push(hub_server):
        proc = hub_server.run_python("from huggingface_hub import HfApi; HfApi().whoami()")
        assert proc.returncode == 0, proc.stderr
        hub_server.fail_next("POST", r"/commit/", "500")

``huggingface_hub`` and ``datasets`` read ``HF_ENDPOINT`` at import time, so client code runs
in a subprocess started with ``hub_server.env`` (``run_python`` / ``run`` do that).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .hub import HubServer, client_env


class HubHandle:
    """What the ``hub_server`` fixture yields."""

    def __init__(self, server: HubServer, workdir: Path):
        self.server = server
        self.workdir = workdir

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def root(self) -> Path:
        return self.server.root

    @property
    def requests(self) -> list[dict]:
        """Log of requests served: dicts with method, path, status ("drop" if dropped)."""
        return self.server.requests

    @property
    def env(self) -> dict:
        """Environment for a client subprocess (HF_ENDPOINT, HF_HUB_DISABLE_XET=1, HF_TOKEN,
        and an isolated HF_HOME under the test's tmp dir)."""
        return client_env(self.url, home=self.workdir)

    def fail_next(self, method: str, path_regex: str, kind: str = "500", times: int = 1) -> None:
        """Fail the next ``times`` requests matching ``method`` ("*" = any) and ``path_regex``
        (re.search on the raw path, no query string) with kind "500"/"409"/any status,
        "drop" (no answer, connection closed) or "drop_after" (processed, then dropped)."""
        self.server.fail_next(method, path_regex, kind, times)

    def reset_failures(self) -> None:
        self.server.reset_failures()

    def set_bad_token(self, token: str) -> None:
        """Requests with this token get 401 (invalid credentials)."""
        self.server.bad_tokens.add(token)

    def set_readonly_token(self, token: str) -> None:
        """Writes with this token get 403."""
        self.server.readonly_tokens.add(token)

    def run(self, args: list[str], *, env: dict | None = None, timeout: float = 120, **kwargs):
        """Run a command with the client environment; returns CompletedProcess (text mode)."""
        full_env = self.env
        full_env.update(env or {})
        return subprocess.run(
            args, env=full_env, capture_output=True, text=True, timeout=timeout, **kwargs
        )

    def run_python(self, code: str, *, env: dict | None = None, timeout: float = 120, **kwargs):
        """Run ``python -c code`` with the client environment; returns CompletedProcess."""
        return self.run([sys.executable, "-c", code], env=env, timeout=timeout, **kwargs)


@pytest.fixture
def hub_server(tmp_path_factory):
    """A fresh Hub stand-in on 127.0.0.1 (random port), serving from a temporary folder."""
    workdir = tmp_path_factory.mktemp("hub")
    server = HubServer(workdir / "root", port=0).start()
    try:
        yield HubHandle(server, workdir)
    finally:
        server.stop()
