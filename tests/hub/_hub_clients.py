"""Helpers shared by the Hub stand-in tests: run client code in a subprocess, read its result."""

import json
import textwrap

PRELUDE = """
import hashlib, json, os, sys
from pathlib import Path

def result(**kw):
    print("RESULT " + json.dumps(kw), flush=True)

def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()
"""


def run_client(hub, code: str, *, timeout: float = 120, expect_ok: bool = True) -> dict:
    """Run ``code`` (after PRELUDE) in a subprocess pointed at the stand-in; return the dict it
    passed to ``result(...)`` (last one), plus ``_rc``/``_stderr``."""
    proc = hub.run_python(PRELUDE + textwrap.dedent(code), timeout=timeout, cwd=str(hub.workdir))
    if expect_ok:
        assert proc.returncode == 0, f"client failed (rc={proc.returncode}):\n{proc.stderr[-6000:]}"
    out: dict = {}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            out = json.loads(line[len("RESULT ") :])
    out["_rc"] = proc.returncode
    out["_stderr"] = proc.stderr
    return out
