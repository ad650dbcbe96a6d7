"""The Hub stand-in at the HTTP level (no client library): fast checks of the wire format."""

import base64
import hashlib
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.hub_standin.hub import HubServer

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "hf_test"


def call(url, method="GET", body=None, headers=None, token=TOKEN):
    headers = dict(headers or {})
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def commit(url, repo, ops, rev="main", parent=None, repo_type="models"):
    header = {"summary": "test commit", "description": ""}
    if parent:
        header["parentCommit"] = parent
    lines = [{"key": "header", "value": header}, *ops]
    body = b"".join(json.dumps(x).encode() + b"\n" for x in lines)
    return call(
        f"{url}/api/{repo_type}/{repo}/commit/{rev}",
        "POST",
        body,
        {"Content-Type": "application/x-ndjson"},
    )


def file_op(path, data: bytes):
    return {
        "key": "file",
        "value": {"path": path, "encoding": "base64", "content": base64.b64encode(data).decode()},
    }


def test_repo_commit_resolve_range_and_errors(hub_server):
    url = hub_server.url
    st, _, body = call(f"{url}/api/repos/create", "POST", {"name": "m", "organization": "org"})
    assert st == 200 and json.loads(body)["url"] == f"{url}/org/m"
    st, _, body = call(f"{url}/api/repos/create", "POST", {"name": "m", "organization": "org"})
    assert st == 409 and json.loads(body)["url"] == f"{url}/org/m"
    st, _, _ = call(
        f"{url}/api/repos/create", "POST", {"name": "x", "organization": "org"}, token=None
    )
    assert st == 401

    st, _, body = call(f"{url}/api/models/org/m")
    first = json.loads(body)["sha"]
    assert [s["rfilename"] for s in json.loads(body)["siblings"]] == [".gitattributes"]

    data = b"0123456789" * 10
    st, _, body = commit(url, "org/m", [file_op("dir/a.txt", data)], parent=first)
    assert st == 200, body
    oid = json.loads(body)["commitOid"]
    # a stale parentCommit is refused and changes nothing
    st, _, _ = commit(url, "org/m", [file_op("b.txt", b"x")], parent=first)
    assert st == 412
    assert json.loads(call(f"{url}/api/models/org/m")[2])["sha"] == oid

    # resolve: HEAD + GET, by branch and by commit, with a Range
    st, h, body = call(f"{url}/org/m/resolve/main/dir/a.txt", "HEAD")
    assert st == 200 and h["X-Repo-Commit"] == oid and h["Content-Length"] == "100"
    git_oid = hashlib.sha1(b"blob 100\0" + data).hexdigest()
    assert h["ETag"] == f'"{git_oid}"'
    st, h, body = call(f"{url}/org/m/resolve/{oid}/dir/a.txt", headers={"Range": "bytes=10-19"})
    assert st == 206 and body == data[10:20] and h["Content-Range"] == "bytes 10-19/100"
    st, h, body = call(f"{url}/org/m/resolve/main/dir/a.txt", headers={"Range": "bytes=-5"})
    assert st == 206 and body == data[-5:]
    st, h, _ = call(f"{url}/org/m/resolve/main/dir/a.txt", headers={"Range": "bytes=500-"})
    assert st == 416

    # the errors the client maps to exceptions
    assert call(f"{url}/org/m/resolve/main/nope.txt")[1]["X-Error-Code"] == "EntryNotFound"
    assert call(f"{url}/org/m/resolve/nobranch/dir/a.txt")[1]["X-Error-Code"] == "RevisionNotFound"
    assert call(f"{url}/org/zz/resolve/main/a.txt")[1]["X-Error-Code"] == "RepoNotFound"
    st, h, body = call(f"{url}/api/some/unknown/endpoint")
    assert st == 404 and "error" in json.loads(body)

    # tree + paths-info (form-encoded, as huggingface_hub sends it)
    st, _, body = call(f"{url}/api/models/org/m/tree/main?recursive=true")
    assert {(e["type"], e["path"]) for e in json.loads(body)} == {
        ("directory", "dir"),
        ("file", "dir/a.txt"),
        ("file", ".gitattributes"),
    }
    st, _, body = call(f"{url}/api/models/org/m/tree/main/dir")
    assert [e["path"] for e in json.loads(body)] == ["dir/a.txt"]
    st, _, body = call(
        f"{url}/api/models/org/m/paths-info/main",
        "POST",
        b"paths=dir%2Fa.txt&paths=nope&expand=True",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )
    (info,) = json.loads(body)
    assert info["path"] == "dir/a.txt" and info["size"] == 100 and info["lastCommit"]["id"] == oid

    # deleting a missing file fails the whole commit
    st, _, _ = commit(
        url, "org/m", [file_op("c.txt", b"c"), {"key": "deletedFile", "value": {"path": "zz"}}]
    )
    assert st == 404
    st, _, body = call(f"{url}/api/models/org/m/commits/main")
    assert [c["title"] for c in json.loads(body)] == ["test commit", "initial commit"]

    st, _, body = call(
        f"{url}/api/validate-yaml", "POST", {"content": "---\na: [\n---\n", "repoType": "model"}
    )
    assert st == 400 and json.loads(body)["errors"]
    st, _, body = call(
        f"{url}/api/validate-yaml", "POST", {"content": "---\na: 1\n---\n", "repoType": "model"}
    )
    assert st == 200 and json.loads(body) == {"errors": [], "warnings": []}


def test_fail_next_kinds(hub_server):
    url = hub_server.url
    hub_server.fail_next("GET", r"^/api/whoami", "500", times=2)
    assert call(f"{url}/api/whoami-v2")[0] == 500
    assert call(f"{url}/api/whoami-v2")[0] == 500
    assert call(f"{url}/api/whoami-v2")[0] == 200
    hub_server.fail_next("*", r"whoami", "409")
    assert call(f"{url}/api/whoami-v2")[0] == 409
    hub_server.fail_next("GET", r"whoami", "drop")
    with pytest.raises((urllib.error.URLError, ConnectionError, OSError)):
        call(f"{url}/api/whoami-v2")
    assert call(f"{url}/api/whoami-v2")[0] == 200
    assert [r["status"] for r in hub_server.requests] == [500, 500, 200, 409, "drop", 200]
    # the same over HTTP, for a server run as a separate process
    st, _, _ = call(
        f"{url}/_testing/fail", "POST", {"method": "GET", "path_regex": "whoami", "kind": "503"}
    )
    assert st == 200 and call(f"{url}/api/whoami-v2")[0] == 503
    hub_server.set_bad_token("hf_bad")
    assert call(f"{url}/api/whoami-v2", token="hf_bad")[0] == 401
    assert call(f"{url}/api/whoami-v2", token=None)[0] == 401


@pytest.mark.slow
def test_cli_prints_url_serves_and_survives_restart(tmp_path):
    root = tmp_path / "root"

    def start():
        # The stand-in is a test tool, run from the repository root, as the README says.
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.hub_standin", "--port", "0", "--root", str(root)],
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        return proc, url

    proc, url = start()
    try:
        assert call(f"{url}/_testing/health")[0] == 200
        assert (
            call(
                f"{url}/api/repos/create",
                "POST",
                {"name": "d", "organization": "org", "type": "dataset"},
            )[0]
            == 200
        )
        assert commit(url, "org/d", [file_op("x.txt", b"x")], repo_type="datasets")[0] == 200
        call(
            f"{url}/_testing/fail",
            "POST",
            {"method": "GET", "path_regex": "/resolve/", "kind": "500"},
        )
        assert call(f"{url}/datasets/org/d/resolve/main/x.txt")[0] == 500
    finally:
        proc.terminate()
        proc.wait(10)
    proc, url = start()  # same root: the repo is still there
    try:
        st, h, body = call(f"{url}/datasets/org/d/resolve/main/x.txt")
        assert st == 200 and body == b"x"
        st, _, body = call(f"{url}/api/datasets/org/d/commits/main")
        assert len(json.loads(body)) == 2
    finally:
        proc.terminate()
        proc.wait(10)


def test_in_process_server_context_manager(tmp_path):
    with HubServer(tmp_path) as server:
        t0 = time.time()
        assert call(f"{server.url}/api/whoami-v2")[0] == 200
        assert time.time() - t0 < 5
