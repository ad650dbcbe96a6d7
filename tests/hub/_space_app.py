"""Running a built Space's app for a browser test: headless Debian chromium's path and flags,
the app started on a free port (offline, its caches in tmp), and screenshots kept for a
person to look at."""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_app(space: Path, tmp_path: Path, start_s: float = 60):
    """The URL of ``space``'s app, started in a process of its own, stopped on leaving."""
    port = _free_port()
    env = {**os.environ, "GRADIO_SERVER_NAME": "127.0.0.1", "GRADIO_SERVER_PORT": str(port),
           "GRADIO_ANALYTICS_ENABLED": "False", "HF_HUB_OFFLINE": "1",
           "HF_HOME": str(tmp_path / "hf"), "MPLCONFIGDIR": str(tmp_path / "mpl")}
    log = open(tmp_path / "app.log", "w")
    proc = subprocess.Popen([sys.executable, str(space / "app.py")], env=env, cwd=tmp_path,
                            stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + start_s
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the app did not start:\n" + (tmp_path / "app.log").read_text())
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def screenshot(page, tmp_path: Path, name: str) -> None:
    """Keep a full-page screenshot for a person: in tmp_path, and HF_INDUCTION_SCREENSHOTS."""
    page.screenshot(path=str(tmp_path / name), full_page=True)
    if os.environ.get("HF_INDUCTION_SCREENSHOTS"):
        target = Path(os.environ["HF_INDUCTION_SCREENSHOTS"])
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy(tmp_path / name, target / name)
