"""A local stand-in for the Hugging Face Hub HTTP API, for offline tests.

It speaks the part of the Hub API that ``huggingface_hub`` (2.x, legacy LFS path) and
``datasets`` use to create repos, commit (preupload, LFS batch + PUT, NDJSON commit),
list trees and commits, read paths-info and repo info, resolve/download files (with Range),
and validate YAML.  Repos live in a folder; everything is on disk, so a restarted server
sees the same repos.

Point the real clients at it (these are read at import time, so set them before importing
``huggingface_hub`` / ``datasets``, i.e. in a subprocess)::

    HF_ENDPOINT=http://127.0.0.1:PORT HF_HUB_DISABLE_XET=1 HF_TOKEN=anything

``HF_HUB_DISABLE_XET=1`` matters: with ``hf_xet`` installed, huggingface_hub would use the
Xet protocol (which this server does not speak) and ``upload_folder`` would even split an
upload into several commits.

Run it from a shell::

    python -m tests.hub_standin --port 0 --root DIR     # from the repository root
    # prints "http://127.0.0.1:PORT" on the first stdout line, serves until killed

or in-process::

    server = HubServer(root, port=0).start()   # serves in a daemon thread
    server.url; server.fail_next("POST", r"/commit/", "500"); server.stop()

Storage layout (under ``root``)::

    objects/<sha256>                              file contents, content-addressed
    repos/<type>/<namespace>/<name>/repo.json     refs and repo metadata
    repos/<type>/<namespace>/<name>/commits/<oid>.json   one immutable manifest per commit

A commit is validated in full before anything is written; its manifest is written first and
the branch ref is moved last (atomic renames), so a failed or interrupted commit leaves the
branch at its previous commit.

Failure injection: ``fail_next(method, path_regex, kind, times=1)`` makes the next
``times`` matching requests fail; ``kind`` is an HTTP status as a string ("500", "409",
"503", ...), ``"drop"`` (read the request, then close the socket without answering), or
``"drop_after"`` (process the request, e.g. make the commit, then close the socket without
answering: the "did my commit land?" case).  Over HTTP: ``POST /_testing/fail`` with JSON
``{"method": ..., "path_regex": ..., "kind": ..., "times": 1}``; ``POST /_testing/reset``
clears the rules; ``GET /_testing/requests`` returns the request log.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import struct
import sys
import tempfile
import threading
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

__all__ = ["HubServer", "HubError", "client_env", "main"]

DEFAULT_USER = "user"
LFS_SIZE_THRESHOLD = 10 * 1024 * 1024  # the Hub refuses regular files above 10 MB
REPO_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}

# The Hub's default .gitattributes (abridged): files matching these are stored with LFS.
LFS_SUFFIXES = (
    ".7z",
    ".arrow",
    ".bin",
    ".bz2",
    ".ckpt",
    ".ftz",
    ".gz",
    ".h5",
    ".joblib",
    ".lz4",
    ".mds",
    ".mlmodel",
    ".model",
    ".msgpack",
    ".npy",
    ".npz",
    ".onnx",
    ".ot",
    ".parquet",
    ".pb",
    ".pickle",
    ".pkl",
    ".pt",
    ".pth",
    ".rar",
    ".safetensors",
    ".tar",
    ".tflite",
    ".tgz",
    ".wasm",
    ".xz",
    ".zip",
    ".zst",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".mp3",
    ".wav",
    ".ogg",
    ".flac",
    ".mp4",
    ".webm",
    ".pdf",
    ".gguf",
)
GITATTRIBUTES = (
    "".join(f"*{suffix} filter=lfs diff=lfs merge=lfs -text\n" for suffix in LFS_SUFFIXES)
    + "*tfevents* filter=lfs diff=lfs merge=lfs -text\n"
)


class HubError(Exception):
    """An HTTP error answer, with the Hub's X-Error-Code where the client looks at it."""

    def __init__(
        self,
        status: int,
        message: str,
        code: str | None = None,
        extra_headers=None,
        extra_body=None,
    ):
        super().__init__(message)
        self.extra_body = dict(extra_body or {})
        self.status = status
        self.message = message
        self.code = code
        self.extra_headers = dict(extra_headers or {})


def _now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _git_blob_oid(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _lfs_pointer(sha256: str, size: int) -> bytes:
    return (
        f"version https://git-lfs.github.com/spec/v1\noid sha256:{sha256}\nsize {size}\n".encode()
    )


def _atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _wants_lfs(path: str, size: int, sample: bytes) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    if size >= LFS_SIZE_THRESHOLD or name.endswith(LFS_SUFFIXES) or "tfevents" in name:
        return True
    return b"\0" in sample


def _valid_path(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


class _Store:
    """Repos, commits and blobs on disk."""

    def __init__(self, root: Path):
        self.root = Path(root)
        (self.root / "objects").mkdir(parents=True, exist_ok=True)
        (self.root / "repos").mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()

    # -- blobs ---------------------------------------------------------------
    def blob_path(self, sha256: str) -> Path:
        return self.root / "objects" / sha256

    def has_blob(self, sha256: str) -> bool:
        return (
            re.fullmatch(r"[0-9a-f]{64}", sha256 or "") is not None
            and self.blob_path(sha256).exists()
        )

    def put_blob(self, data: bytes) -> str:
        sha = hashlib.sha256(data).hexdigest()
        if not self.blob_path(sha).exists():
            _atomic_write(self.blob_path(sha), data)
        return sha

    def read_blob(self, sha256: str) -> bytes:
        return self.blob_path(sha256).read_bytes()

    # -- repos ---------------------------------------------------------------
    def repo_dir(self, repo_type: str, repo_id: str) -> Path:
        return self.root / "repos" / repo_type / repo_id

    def load_repo(self, repo_type: str, repo_id: str) -> dict:
        path = self.repo_dir(repo_type, repo_id) / "repo.json"
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            raise HubError(404, f"Repository {repo_id} not found", "RepoNotFound") from None

    def save_repo(self, repo_type: str, repo_id: str, meta: dict) -> None:
        _atomic_write(
            self.repo_dir(repo_type, repo_id) / "repo.json", json.dumps(meta, indent=1).encode()
        )

    def load_commit(self, repo_type: str, repo_id: str, oid: str) -> dict:
        path = self.repo_dir(repo_type, repo_id) / "commits" / f"{oid}.json"
        return json.loads(path.read_text())

    def has_commit(self, repo_type: str, repo_id: str, oid: str) -> bool:
        return (
            bool(re.fullmatch(r"[0-9a-f]{40}", oid))
            and (self.repo_dir(repo_type, repo_id) / "commits" / f"{oid}.json").exists()
        )

    def resolve(self, repo_type: str, repo_id: str, revision: str) -> tuple[dict, dict]:
        """(repo meta, commit) for a branch, tag or commit oid."""
        meta = self.load_repo(repo_type, repo_id)
        rev = revision
        for prefix in ("refs/heads/", "refs/tags/"):
            if rev.startswith(prefix):
                rev = rev[len(prefix) :]
        oid = meta["branches"].get(rev) or meta.get("tags", {}).get(rev)
        if oid is None and self.has_commit(repo_type, repo_id, rev):
            oid = rev
        if oid is None:
            raise HubError(404, f"Invalid rev id: {revision}", "RevisionNotFound")
        return meta, self.load_commit(repo_type, repo_id, oid)

    def write_commit(self, repo_type, repo_id, parent, files, title, message, author) -> dict:
        date = _now_iso()
        manifest = json.dumps(files, sort_keys=True)
        oid = hashlib.sha1(
            f"{parent}\n{manifest}\n{title}\n{message}\n{date}\n{uuid.uuid4()}".encode()
        ).hexdigest()
        commit = {
            "id": oid,
            "parents": [parent] if parent else [],
            "title": title,
            "message": message,
            "date": date,
            "authors": [author],
            "files": files,
        }
        _atomic_write(
            self.repo_dir(repo_type, repo_id) / "commits" / f"{oid}.json",
            json.dumps(commit).encode(),
        )
        return commit

    def file_entry(self, data: bytes, lfs: bool) -> dict:
        sha = self.put_blob(data)
        return self.entry_for(sha, len(data), lfs, data if not lfs else None)

    def entry_for(self, sha256: str, size: int, lfs: bool, data: bytes | None = None) -> dict:
        if lfs:
            pointer = _lfs_pointer(sha256, size)
            return {
                "sha256": sha256,
                "size": size,
                "lfs": True,
                "git_oid": _git_blob_oid(pointer),
                "pointer_size": len(pointer),
            }
        if data is None:
            data = self.read_blob(sha256)
        return {"sha256": sha256, "size": size, "lfs": False, "git_oid": _git_blob_oid(data)}

    def history(self, repo_type, repo_id, commit) -> list[dict]:
        out = [commit]
        while out[-1]["parents"]:
            out.append(self.load_commit(repo_type, repo_id, out[-1]["parents"][0]))
        return out


def _tree_oid(files: dict, folder: str) -> str:
    prefix = folder + "/"
    content = json.dumps(
        sorted((p, e["git_oid"]) for p, e in files.items() if p.startswith(prefix))
    )
    return hashlib.sha1(content.encode()).hexdigest()


class _FailRule:
    def __init__(self, method: str, path_regex: str, kind: str, times: int):
        kind = str(kind)
        if kind not in ("drop", "drop_after") and not re.fullmatch(r"[1-5]\d\d", kind):
            raise ValueError(
                f"kind must be an HTTP status like '500', 'drop' or 'drop_after', not {kind!r}"
            )
        self.method = method.upper()
        self.regex = re.compile(path_regex)
        self.kind = kind
        self.remaining = int(times)

    def as_dict(self) -> dict:
        return {
            "method": self.method,
            "path_regex": self.regex.pattern,
            "kind": self.kind,
            "remaining": self.remaining,
        }


class HubServer:
    """The stand-in server. ``HubServer(root).start()`` serves in a daemon thread."""

    def __init__(
        self,
        root,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        user: str = DEFAULT_USER,
        bad_tokens=(),
        readonly_tokens=(),
        quiet: bool = True,
    ):
        self.root = Path(root)
        self.store = _Store(self.root)
        self.user = user
        self.bad_tokens = set(bad_tokens)
        self.readonly_tokens = set(readonly_tokens)
        self.quiet = quiet
        self._rules: list[_FailRule] = []
        self._rules_lock = threading.Lock()
        self.requests: list[dict] = []  # log: method, path, status ("drop" for dropped)
        self.httpd = _HTTPServer((host, port), _Handler)
        self.httpd.hub = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://{self.httpd.server_address[0]}:{self.port}"

    def start(self) -> HubServer:
        self._thread = threading.Thread(
            target=self.httpd.serve_forever, name="hub-stand-in", daemon=True
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self.httpd.serve_forever()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # -- failure injection ---------------------------------------------------
    def fail_next(self, method: str, path_regex: str, kind: str = "500", times: int = 1) -> None:
        """Make the next ``times`` requests whose method is ``method`` ("*" for any) and whose
        path (without query string, percent-encoded as sent) matches ``path_regex``
        (``re.search``) fail with ``kind``: "500", "409" (any status), "drop" or "drop_after"."""
        rule = _FailRule(method, path_regex, kind, times)
        with self._rules_lock:
            self._rules.append(rule)

    def reset_failures(self) -> None:
        with self._rules_lock:
            self._rules.clear()

    def _take_failure(self, method: str, path: str) -> str | None:
        with self._rules_lock:
            for rule in self._rules:
                if rule.remaining > 0 and rule.method in ("*", method) and rule.regex.search(path):
                    rule.remaining -= 1
                    if rule.remaining == 0:
                        self._rules.remove(rule)
                    return rule.kind
        return None

    def log(self, msg: str) -> None:
        print(f"[hub stand-in] {msg}", file=sys.stderr, flush=True)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    hub: HubServer


class _Drop(Exception):
    """Close the connection without answering."""


# --------------------------------------------------------------------------- #
# Request handling
# --------------------------------------------------------------------------- #

_REPO = r"(?P<ns>[^/]+)/(?P<name>[^/]+?)"
_ROUTES: list[tuple[str, re.Pattern, str]] = []


def _route(method: str, pattern: str):
    def deco(fn):
        for m in method.split("|"):
            _ROUTES.append((m, re.compile("^" + pattern + "$"), fn.__name__))
        return fn

    return deco


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "hf-induction-hub-stand-in/0.1"
    server: _HTTPServer

    # quiet default logging; we keep our own log
    def log_message(self, format, *args):  # noqa: A002
        if not self.server.hub.quiet:
            super().log_message(format, *args)

    @property
    def hub(self) -> HubServer:
        return self.server.hub

    @property
    def store(self) -> _Store:
        return self.server.hub.store

    def do_GET(self):
        self._dispatch("GET")

    def do_HEAD(self):
        self._dispatch("HEAD")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def do_DELETE(self):
        self._dispatch("DELETE")

    # -- plumbing ------------------------------------------------------------
    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks = []
            while True:
                line = self.rfile.readline()
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self, method: str):
        split = urlsplit(self.path)
        self.raw_path = split.path
        self.query = parse_qs(split.query, keep_blank_values=True)
        self.body = self._read_body() if method in ("POST", "PUT", "DELETE") else b""
        self.status_sent = None
        entry = {"method": method, "path": self.raw_path, "status": None}
        self._log_entry = entry
        if not self.raw_path.startswith("/_testing/"):
            self.hub.requests.append(entry)
        failure = (
            None
            if self.raw_path.startswith("/_testing/")
            else self.hub._take_failure(method, self.raw_path)
        )
        try:
            if failure == "drop":
                raise _Drop()
            if failure is not None and failure != "drop_after":
                raise HubError(
                    int(failure), f"Injected failure {failure} on {method} {self.raw_path}"
                )
            handler = self._find_route(method)
            if failure == "drop_after":  # run the handler, but its answer goes nowhere
                self.wfile = _NullWriter()
            handler()
            if failure == "drop_after":
                raise _Drop()
        except _Drop:
            entry["status"] = "drop"
            self._drop()
            return
        except HubError as e:
            entry["status"] = e.status
            if e.status == 404 and e.code is None and not getattr(e, "quiet", False):
                self.hub.log(f"404 {method} {self.path}: {e.message}")
            self._send_json({"error": e.message, **e.extra_body}, status=e.status, error=e)
            return
        except Exception as e:  # a bug in the stand-in: say so loudly
            import traceback

            traceback.print_exc()
            entry["status"] = 500
            self._send_json({"error": f"stand-in crashed: {e!r}"}, status=500)
            return
        entry["status"] = self.status_sent

    def _drop(self):
        self.close_connection = True
        try:  # RST rather than FIN: the client sees a broken connection, not a short answer
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        self.wfile = _NullWriter()
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _find_route(self, method: str):
        lookup = "GET" if method == "HEAD" else method
        for m, pattern, name in _ROUTES:
            if m != lookup:
                continue
            match = pattern.match(self.raw_path)
            if match:
                self.match = {
                    k: (unquote(v) if v is not None else None) for k, v in match.groupdict().items()
                }
                return getattr(self, name)
        self._log_entry["unknown_endpoint"] = True
        raise HubError(404, f"stand-in: no such endpoint: {method} {self.raw_path}")

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers=None,
        error: HubError | None = None,
    ):
        self._log_entry["status"] = self.status_sent = status  # before the client can see it
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if error is not None:
            if error.code:
                self.send_header("X-Error-Code", error.code)
            self.send_header("X-Error-Message", error.message.replace("\n", " "))
            headers = {**(headers or {}), **error.extra_headers}
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, obj, status: int = 200, headers=None, error: HubError | None = None):
        self._send(
            status, json.dumps(obj).encode(), "application/json; charset=utf-8", headers, error
        )

    def _json_body(self):
        try:
            return json.loads(self.body or b"{}")
        except ValueError:
            raise HubError(400, "Invalid JSON body") from None

    # -- auth ----------------------------------------------------------------
    def _token(self) -> str | None:
        auth = self.headers.get("Authorization", "")
        if auth.lower().startswith("bearer "):
            return auth[7:].strip() or None
        return None

    def _check_token(self, *, required: bool, write: bool = False) -> str | None:
        token = self._token()
        if token is not None and token in self.hub.bad_tokens:
            raise HubError(401, "Invalid credentials in Authorization header")
        if token is None and required:
            raise HubError(401, "Invalid username or password.")
        if write and token is not None and token in self.hub.readonly_tokens:
            raise HubError(
                403, "You don't have the rights to write to this repository (read-only token)"
            )
        return token

    def _repo(self, *, write: bool = False) -> tuple[str, str, dict]:
        """(repo_type, repo_id, meta) from the matched route, with access checks."""
        repo_type = (
            REPO_TYPES.get(self.match.get("types") or "", None) or self.match.get("type") or "model"
        )
        repo_id = f"{self.match['ns']}/{self.match['name']}"
        token = self._check_token(required=write, write=write)
        meta = self.store.load_repo(repo_type, repo_id)
        if meta.get("private") and token is None:
            raise HubError(401, f"Repository {repo_id} not found", "RepoNotFound")
        return repo_type, repo_id, meta

    # -- testing control -----------------------------------------------------
    @_route("POST", r"/_testing/fail")
    def testing_fail(self):
        body = self._json_body()
        try:
            self.hub.fail_next(
                body.get("method", "*"),
                body["path_regex"],
                str(body.get("kind", "500")),
                int(body.get("times", 1)),
            )
        except (KeyError, ValueError, re.error) as e:
            raise HubError(400, f"bad failure rule: {e}") from None
        self._send_json({"ok": True})

    @_route("POST", r"/_testing/reset")
    def testing_reset(self):
        self.hub.reset_failures()
        self.hub.requests.clear()
        self._send_json({"ok": True})

    @_route("GET", r"/_testing/requests")
    def testing_requests(self):
        self._send_json(self.hub.requests)

    @_route("GET", r"/_testing/health")
    def testing_health(self):
        self._send_json({"ok": True, "root": str(self.hub.root)})

    # -- users ---------------------------------------------------------------
    @_route("GET", r"/api/whoami-v2")
    def whoami(self):
        token = self._check_token(required=True)
        role = "read" if token in self.hub.readonly_tokens else "write"
        self._send_json(
            {
                "type": "user",
                "id": "0" * 24,
                "name": self.hub.user,
                "fullname": "Test User",
                "email": f"{self.hub.user}@example.com",
                "emailVerified": True,
                "isPro": False,
                "canPay": False,
                "orgs": [],
                "periodEnd": None,
                "auth": {
                    "type": "access_token",
                    "accessToken": {"displayName": "stand-in", "role": role},
                },
            }
        )

    @_route("GET", r"/api/agent-harnesses")
    def agent_harnesses(self):
        self._send_json({"standardEnvVars": [], "harnesses": {}})

    @_route("POST", r"/api/validate-yaml")
    def validate_yaml(self):
        body = self._json_body()
        errors = []
        content = body.get("content", "")
        m = re.match(r"^---\s*\n(.*?)\n---\s*(\n|$)", content, re.S)
        if m:
            try:
                import yaml

                data = yaml.safe_load(m.group(1))
                if data is not None and not isinstance(data, dict):
                    errors.append({"message": "metadata must be a YAML mapping"})
            except ImportError:
                pass
            except Exception as e:
                errors.append({"message": f"YAML parse error: {e}"})
        if errors:
            self._send_json({"errors": errors, "warnings": []}, status=400)
        else:
            self._send_json({"errors": [], "warnings": []})

    # -- repos ---------------------------------------------------------------
    @_route("POST", r"/api/repos/create")
    def create_repo(self):
        self._check_token(required=True, write=True)
        body = self._json_body()
        repo_type = body.get("type") or "model"
        if repo_type not in URL_PREFIX:
            raise HubError(400, f"Invalid repo type {repo_type}")
        name = body.get("name")
        ns = body.get("organization") or self.hub.user
        if not name or not re.fullmatch(r"[\w.\-]+", name) or not re.fullmatch(r"[\w.\-]+", ns):
            raise HubError(400, f"Invalid repo name {ns}/{name}")
        repo_id = f"{ns}/{name}"
        url = f"{self._base_url()}/{URL_PREFIX[repo_type]}{repo_id}"
        with self.store.lock:
            if (self.store.repo_dir(repo_type, repo_id) / "repo.json").exists():
                raise _conflict(url, repo_type)
            files = {".gitattributes": self.store.file_entry(GITATTRIBUTES.encode(), lfs=False)}
            commit = self.store.write_commit(
                repo_type, repo_id, None, files, "initial commit", "", self.hub.user
            )
            visibility = body.get("visibility") or ("private" if body.get("private") else "public")
            self.store.save_repo(
                repo_type,
                repo_id,
                {
                    "id": repo_id,
                    "type": repo_type,
                    "private": visibility == "private",
                    "createdAt": commit["date"],
                    "branches": {"main": commit["id"]},
                    "tags": {},
                },
            )
        self._send_json({"url": url, "name": repo_id, "id": uuid.uuid4().hex[:24]})

    @_route("DELETE", r"/api/repos/delete")
    def delete_repo(self):
        self._check_token(required=True, write=True)
        body = self._json_body()
        repo_type = body.get("type") or "model"
        repo_id = f"{body.get('organization') or self.hub.user}/{body.get('name')}"
        with self.store.lock:
            self.store.load_repo(repo_type, repo_id)
            shutil.rmtree(self.store.repo_dir(repo_type, repo_id))
        self._send_json({})

    @_route("GET", r"/api/(?P<types>models|datasets|spaces)/" + _REPO)
    def repo_info(self):
        self._repo_info("main", explicit=False)

    @_route("GET", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/revision/(?P<rev>.+)")
    def repo_info_rev(self):
        self._repo_info(self.match["rev"], explicit=True)

    def _repo_info(self, rev: str, explicit: bool):
        repo_type, repo_id, meta = self._repo()
        _, commit = self.store.resolve(repo_type, repo_id, rev)
        blobs = self.query.get("blobs", ["false"])[0].lower() in ("1", "true")
        siblings = []
        for path, e in sorted(commit["files"].items()):
            sib = {"rfilename": path}
            if blobs:
                sib.update(size=e["size"], blobId=e["git_oid"])
                if e["lfs"]:
                    sib["lfs"] = {
                        "sha256": e["sha256"],
                        "size": e["size"],
                        "pointerSize": e["pointer_size"],
                    }
            siblings.append(sib)
        info = {
            "_id": hashlib.sha1(repo_id.encode()).hexdigest()[:24],
            "id": repo_id,
            "author": repo_id.split("/")[0],
            "sha": commit["id"],
            "lastModified": commit["date"],
            "createdAt": meta.get("createdAt"),
            "private": bool(meta.get("private")),
            "gated": False,
            "disabled": False,
            "downloads": 0,
            "likes": 0,
            "tags": [],
            "siblings": siblings,
        }
        card = self._card_data(commit)
        if card is not None:
            info["cardData"] = card
            if repo_type == "model" and "model-index" in card:
                info["model-index"] = card["model-index"]
        if repo_type == "model":
            info["library_name"] = (card or {}).get("library_name")
            info["pipeline_tag"] = (card or {}).get("pipeline_tag")
        self._send_json(info)

    def _card_data(self, commit) -> dict | None:
        entry = commit["files"].get("README.md")
        if entry is None:
            return None
        text = self.store.read_blob(entry["sha256"]).decode("utf-8", "replace")
        m = re.match(r"^---\s*\n(.*?)\n---\s*(\n|$)", text, re.S)
        if not m:
            return None
        try:
            import yaml

            data = yaml.safe_load(m.group(1))
        except Exception:
            return None
        return data if isinstance(data, dict) else None

    @_route("GET", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/refs")
    def list_refs(self):
        repo_type, repo_id, meta = self._repo()
        self._send_json(
            {
                "branches": [
                    {"name": b, "ref": f"refs/heads/{b}", "targetCommit": oid}
                    for b, oid in sorted(meta["branches"].items())
                ],
                "tags": [
                    {"name": t, "ref": f"refs/tags/{t}", "targetCommit": oid}
                    for t, oid in sorted(meta.get("tags", {}).items())
                ],
                "converts": [],
                "pullRequests": [],
            }
        )

    @_route("POST", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/branch/(?P<branch>.+)")
    def create_branch(self):
        repo_type, repo_id, _ = self._repo(write=True)
        body = self._json_body()
        with self.store.lock:
            meta = self.store.load_repo(repo_type, repo_id)
            branch = self.match["branch"]
            if branch in meta["branches"]:
                raise HubError(409, f"Reference already exists: refs/heads/{branch}")
            _, commit = self.store.resolve(repo_type, repo_id, body.get("startingPoint") or "main")
            meta["branches"][branch] = commit["id"]
            self.store.save_repo(repo_type, repo_id, meta)
        self._send_json({})

    @_route(
        "DELETE", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/branch/(?P<branch>.+)"
    )
    def delete_branch(self):
        repo_type, repo_id, _ = self._repo(write=True)
        with self.store.lock:
            meta = self.store.load_repo(repo_type, repo_id)
            if meta["branches"].pop(self.match["branch"], None) is None:
                raise HubError(404, "Branch not found", "RevisionNotFound")
            self.store.save_repo(repo_type, repo_id, meta)
        self._send_json({})

    @_route("POST", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/tag/(?P<rev>.+)")
    def create_tag(self):
        repo_type, repo_id, _ = self._repo(write=True)
        body = self._json_body()
        with self.store.lock:
            meta = self.store.load_repo(repo_type, repo_id)
            _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
            tag = body.get("tag")
            if not tag:
                raise HubError(400, "missing tag")
            if tag in meta.setdefault("tags", {}):
                raise HubError(409, f"Tag {tag} already exists")
            meta["tags"][tag] = commit["id"]
            self.store.save_repo(repo_type, repo_id, meta)
        self._send_json({})

    # -- commits -------------------------------------------------------------
    @_route("POST", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/preupload/(?P<rev>.+)")
    def preupload(self):
        repo_type, repo_id, _ = self._repo(write=True)
        try:
            _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
            files = commit["files"]
        except HubError:
            if "create_pr" not in self.query:
                raise
            files = {}
        out = []
        for f in self._json_body().get("files", []):
            path = f.get("path", "")
            sample = base64.b64decode(f.get("sample") or b"")
            mode = "lfs" if _wants_lfs(path, int(f.get("size", 0)), sample) else "regular"
            existing = files.get(path)
            oid = None
            if existing is not None:
                oid = existing["sha256"] if existing["lfs"] else existing["git_oid"]
            out.append({"path": path, "uploadMode": mode, "shouldIgnore": False, "oid": oid})
        self._send_json({"files": out, "commitOid": commit["id"] if files else None})

    @_route("POST", "/" + _REPO + r"\.git/info/lfs/objects/batch")
    def lfs_batch_model(self):
        self._lfs_batch("model")

    @_route("POST", r"/(?P<types>datasets|spaces)/" + _REPO + r"\.git/info/lfs/objects/batch")
    def lfs_batch_other(self):
        self._lfs_batch(REPO_TYPES[self.match["types"]])

    def _lfs_batch(self, repo_type):
        self.match["type"] = repo_type
        body = self._json_body()
        write = body.get("operation") == "upload"
        self._repo(write=write)
        objects = []
        base = self._base_url()
        for obj in body.get("objects", []):
            oid, size = obj.get("oid", ""), obj.get("size")
            if not re.fullmatch(r"[0-9a-f]{64}", oid) or not isinstance(size, int):
                objects.append(
                    {
                        "oid": str(oid),
                        "size": int(size or 0),
                        "error": {"code": 422, "message": "invalid object"},
                    }
                )
                continue
            item = {"oid": oid, "size": size, "authenticated": True}
            if write and not self.store.has_blob(oid):
                item["actions"] = {
                    "upload": {
                        "href": f"{base}/_lfs/{oid}?size={size}",
                        "header": {},
                        "expires_in": 86400,
                    },
                    "verify": {"href": f"{base}/_lfs/verify", "header": {}, "expires_in": 86400},
                }
            elif not write:
                if not self.store.has_blob(oid):
                    item["error"] = {"code": 404, "message": "Object does not exist"}
                else:
                    item["actions"] = {"download": {"href": f"{base}/_lfs/{oid}", "header": {}}}
            objects.append(item)
        self._send(
            200,
            json.dumps({"transfer": "basic", "objects": objects, "hash_algo": "sha256"}).encode(),
            "application/vnd.git-lfs+json",
        )

    @_route("PUT", r"/_lfs/(?P<oid>[0-9a-f]{64})")
    def lfs_put(self):
        oid = self.match["oid"]
        actual = hashlib.sha256(self.body).hexdigest()
        if actual != oid:
            raise HubError(400, f"sha256 mismatch: expected {oid}, got {actual}")
        expected_size = self.query.get("size", [None])[0]
        if expected_size is not None and int(expected_size) != len(self.body):
            raise HubError(400, f"size mismatch: expected {expected_size}, got {len(self.body)}")
        self.store.put_blob(self.body)
        self._send(200, b"", "text/plain", headers={"ETag": f'"{oid}"'})

    @_route("GET", r"/_lfs/(?P<oid>[0-9a-f]{64})")
    def lfs_get(self):
        if not self.store.has_blob(self.match["oid"]):
            raise HubError(404, "Object does not exist", "EntryNotFound")
        data = self.store.read_blob(self.match["oid"])
        self._send(200, data, "application/octet-stream")

    @_route("POST", r"/_lfs/verify")
    def lfs_verify(self):
        body = self._json_body()
        oid = body.get("oid", "")
        if not self.store.has_blob(oid):
            raise HubError(404, f"LFS object {oid} was not uploaded")
        if (
            body.get("size") is not None
            and self.store.blob_path(oid).stat().st_size != body["size"]
        ):
            raise HubError(422, f"LFS object {oid} has the wrong size")
        self._send_json({"ok": True})

    @_route("POST", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/commit/(?P<rev>.+)")
    def commit(self):
        repo_type, repo_id, _ = self._repo(write=True)
        if "create_pr" in self.query and self.query["create_pr"][0] not in ("", "0", "false"):
            raise HubError(400, "stand-in: create_pr is not supported")
        lines = [ln for ln in self.body.split(b"\n") if ln.strip()]
        try:
            items = [json.loads(ln) for ln in lines]
        except ValueError:
            raise HubError(400, "Invalid NDJSON commit payload") from None
        if not items or items[0].get("key") != "header":
            raise HubError(400, "Commit payload must start with a header line")
        header = items[0].get("value") or {}
        rev = self.match["rev"]
        branch = rev[len("refs/heads/") :] if rev.startswith("refs/heads/") else rev
        with self.store.lock:
            meta = self.store.load_repo(repo_type, repo_id)
            if branch not in meta["branches"]:
                if self.store.has_commit(repo_type, repo_id, branch) or branch in meta.get(
                    "tags", {}
                ):
                    raise HubError(400, f"Can only commit to a branch, not {rev}")
                raise HubError(404, f"Invalid rev id: {rev}", "RevisionNotFound")
            head = self.store.load_commit(repo_type, repo_id, meta["branches"][branch])
            parent = header.get("parentCommit")
            if parent and parent != head["id"]:
                raise HubError(
                    412,
                    f"A commit has happened since. Please refresh and try again. "
                    f"(parentCommit {parent} is not the head {head['id']} of {branch})",
                )
            files = dict(head["files"])
            for item in items[1:]:
                self._apply_op(files, item.get("key"), item.get("value") or {})
            commit = self.store.write_commit(
                repo_type,
                repo_id,
                head["id"],
                files,
                header.get("summary") or "Update",
                header.get("description") or "",
                self.hub.user,
            )
            meta["branches"][branch] = commit["id"]
            self.store.save_repo(repo_type, repo_id, meta)
        url = f"{self._base_url()}/{URL_PREFIX[repo_type]}{repo_id}/commit/{commit['id']}"
        self._send_json(
            {
                "success": True,
                "commitOid": commit["id"],
                "commitUrl": url,
                "hookOutput": "",
                "pullRequestUrl": None,
            }
        )

    def _apply_op(self, files: dict, key: str, value: dict):
        path = value.get("path", "")
        if key in ("file", "lfsFile") and not _valid_path(path):
            raise HubError(400, f"Invalid path in repo: {path!r}")
        if key == "file":
            if value.get("encoding", "base64") != "base64":
                raise HubError(400, f"Unsupported encoding {value.get('encoding')}")
            data = base64.b64decode(value.get("content", ""))
            if len(data) >= LFS_SIZE_THRESHOLD:
                raise HubError(400, f"{path} is larger than 10 MB: it must be uploaded with LFS")
            files[path] = self.store.file_entry(data, lfs=False)
        elif key == "lfsFile":
            oid = value.get("oid", "")
            if value.get("algo", "sha256") != "sha256" or not self.store.has_blob(oid):
                raise HubError(422, f"LFS object {oid} for {path} was not uploaded")
            size = self.store.blob_path(oid).stat().st_size
            if value.get("size") is not None and value["size"] != size:
                raise HubError(422, f"LFS object {oid} size mismatch for {path}")
            files[path] = self.store.entry_for(oid, size, lfs=True)
        elif key == "deletedFile":
            if path not in files:
                raise HubError(404, f"A file with this name doesn't exist: {path}", "EntryNotFound")
            del files[path]
        elif key == "deletedFolder":
            prefix = path.rstrip("/") + "/"
            doomed = [p for p in files if p.startswith(prefix)]
            if not doomed:
                raise HubError(
                    404, f"A folder with this name doesn't exist: {path}", "EntryNotFound"
                )
            for p in doomed:
                del files[p]
        else:
            raise HubError(400, f"Unknown commit operation {key!r}")

    # -- listing -------------------------------------------------------------
    @_route("GET", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/commits/(?P<rev>.+)")
    def list_commits(self):
        repo_type, repo_id, _ = self._repo()
        _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
        out = []
        for c in self.store.history(repo_type, repo_id, commit):
            item = {
                "id": c["id"],
                "title": c["title"],
                "message": c["message"],
                "date": c["date"],
                "authors": [{"user": a, "avatar": None} for a in c["authors"]],
            }
            if any("formatted" in v for v in self.query.get("expand[]", [])):
                item["formatted"] = {"title": c["title"], "message": c["message"]}
            out.append(item)
        self._send_json(out)

    def _tree_entries(self, repo_type, repo_id, commit, folder: str, recursive: bool, expand: bool):
        files = commit["files"]
        prefix = folder + "/" if folder else ""
        dirs: set[str] = set()
        out = []
        for path in sorted(files):
            if not path.startswith(prefix):
                continue
            rest = path[len(prefix) :]
            parts = rest.split("/")
            for i in range(1, len(parts) if recursive else min(len(parts), 2)):
                dirs.add(prefix + "/".join(parts[:i]))
            if recursive or len(parts) == 1:
                out.append(self._file_entry(repo_type, repo_id, commit, path, expand))
        out = [self._dir_entry(repo_type, repo_id, commit, d, expand) for d in sorted(dirs)] + out
        return out

    def _file_entry(self, repo_type, repo_id, commit, path, expand):
        e = commit["files"][path]
        item = {"type": "file", "oid": e["git_oid"], "size": e["size"], "path": path}
        if e["lfs"]:
            item["lfs"] = {"oid": e["sha256"], "size": e["size"], "pointerSize": e["pointer_size"]}
        if expand:
            item["lastCommit"] = self._last_commit(repo_type, repo_id, commit, path)
            item["securityFileStatus"] = {
                "status": "safe",
                "avScan": None,
                "pickleImportScan": None,
            }
        return item

    def _dir_entry(self, repo_type, repo_id, commit, path, expand):
        item = {
            "type": "directory",
            "oid": _tree_oid(commit["files"], path),
            "size": 0,
            "path": path,
        }
        if expand:
            item["lastCommit"] = self._last_commit(repo_type, repo_id, commit, path)
        return item

    def _last_commit(self, repo_type, repo_id, commit, path):
        def key(c):
            f = c["files"]
            if path in f:
                return f[path]["git_oid"]
            return _tree_oid(f, path)

        current = key(commit)
        last = commit
        for c in self.store.history(repo_type, repo_id, commit)[1:]:
            if key(c) != current:
                break
            last = c
        return {"id": last["id"], "title": last["title"], "date": last["date"]}

    @_route(
        "GET",
        r"/api/(?P<types>models|datasets|spaces)/"
        + _REPO
        + r"/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?",
    )
    def tree(self):
        repo_type, repo_id, _ = self._repo()
        _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
        folder = (self.match.get("path") or "").strip("/")
        recursive = self.query.get("recursive", ["false"])[0].lower() in ("1", "true")
        expand = self.query.get("expand", ["false"])[0].lower() in ("1", "true")
        if folder and folder in commit["files"]:
            raise HubError(400, f"{folder} is a file, not a directory")
        if folder and not any(p.startswith(folder + "/") for p in commit["files"]):
            raise HubError(
                404,
                f"Entry not found: {folder}",
                "EntryNotFound",
                extra_headers={"X-Repo-Commit": commit["id"]},
            )
        self._send_json(self._tree_entries(repo_type, repo_id, commit, folder, recursive, expand))

    @_route("POST", r"/api/(?P<types>models|datasets|spaces)/" + _REPO + r"/paths-info/(?P<rev>.+)")
    def paths_info(self):
        repo_type, repo_id, _ = self._repo()
        _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
        ctype = self.headers.get("Content-Type", "")
        if "json" in ctype:
            body = self._json_body()
            paths, expand = body.get("paths", []), body.get("expand", False)
        else:
            form = parse_qs(self.body.decode(), keep_blank_values=True)
            paths = form.get("paths", [])
            expand = form.get("expand", ["false"])[0]
        if isinstance(paths, str):
            paths = [paths]
        expand = str(expand).lower() in ("1", "true")
        out = []
        for p in paths:
            p = p.strip("/")
            if p in commit["files"]:
                out.append(self._file_entry(repo_type, repo_id, commit, p, expand))
            elif p and any(f.startswith(p + "/") for f in commit["files"]):
                out.append(self._dir_entry(repo_type, repo_id, commit, p, expand))
        self._send_json(out)

    # -- downloads -----------------------------------------------------------
    @_route("GET", "/" + _REPO + r"/resolve/(?P<rev>[^/]+)/(?P<path>.+)")
    def resolve_model(self):
        self.match["type"] = "model"
        self._resolve()

    @_route(
        "GET", r"/(?P<types>datasets|spaces)/" + _REPO + r"/resolve/(?P<rev>[^/]+)/(?P<path>.+)"
    )
    def resolve_other(self):
        self._resolve()

    def _resolve(self):
        repo_type, repo_id, _ = self._repo()
        _, commit = self.store.resolve(repo_type, repo_id, self.match["rev"])
        path = self.match["path"]
        entry = commit["files"].get(path)
        base_headers = {"X-Repo-Commit": commit["id"], "Accept-Ranges": "bytes"}
        if entry is None:
            raise HubError(
                404, f"Entry not found: {path}", "EntryNotFound", extra_headers=base_headers
            )
        if entry["lfs"]:
            etag = f'"{entry["sha256"]}"'
            base_headers.update(
                {"X-Linked-Etag": etag, "X-Linked-Size": str(entry["size"]), "ETag": etag}
            )
        else:
            base_headers["ETag"] = f'"{entry["git_oid"]}"'
        base_headers["Content-Disposition"] = (
            f"inline; filename*=UTF-8''{quote(path.rsplit('/', 1)[-1])}"
        )
        blob = self.store.blob_path(entry["sha256"])
        size = blob.stat().st_size
        range_header = self.headers.get("Range")
        if range_header:
            m = re.fullmatch(r"\s*bytes=(\d*)-(\d*)\s*", range_header)
            if not m or (m.group(1) == "" and m.group(2) == ""):
                raise HubError(
                    416,
                    f"Bad range {range_header}",
                    extra_headers={"Content-Range": f"bytes */{size}"},
                )
            if m.group(1) == "":
                start, end = max(size - int(m.group(2)), 0), size - 1
            else:
                start = int(m.group(1))
                end = min(int(m.group(2)), size - 1) if m.group(2) else size - 1
            if start >= size or start > end:
                raise HubError(
                    416, "Range not satisfiable", extra_headers={"Content-Range": f"bytes */{size}"}
                )
            base_headers["Content-Range"] = f"bytes {start}-{end}/{size}"
            self._send_file(206, blob, start, end + 1, base_headers)
        else:
            self._send_file(200, blob, 0, size, base_headers)

    def _send_file(self, status: int, path: Path, start: int, stop: int, headers: dict):
        """Stream bytes [start, stop) of a stored blob (headers only for HEAD)."""
        self._log_entry["status"] = self.status_sent = status
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(stop - start))
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()
        self.status_sent = status
        if self.command == "HEAD":
            return
        with open(path, "rb") as f:
            f.seek(start)
            remaining = stop - start
            while remaining > 0:
                chunk = f.read(min(remaining, 1 << 20))
                if not chunk:
                    break
                self.wfile.write(chunk)
                remaining -= len(chunk)

    def _base_url(self) -> str:
        host = self.headers.get("Host")
        if host:
            return f"http://{host}"
        h, p = self.server.server_address[:2]
        return f"http://{h}:{p}"


def _conflict(url: str, repo_type: str) -> HubError:
    # the client reads "url" from a 409 answer when create_repo(exist_ok=True)
    return HubError(409, f"You already created this {repo_type} repo", extra_body={"url": url})


class _NullWriter:
    closed = False

    def write(self, *_):
        return 0

    def flush(self):
        pass


def client_env(
    url: str,
    home: str | os.PathLike | None = None,
    token: str = "hf_standin_token",
    base: dict | None = None,
) -> dict:
    """Environment for a client subprocess talking to the stand-in at ``url``.

    ``home`` (a scratch folder) isolates the HF caches; pass ``token=None`` for no token."""
    env = dict(os.environ if base is None else base)
    for key in list(env):
        if key.startswith(("HF_", "HUGGING_FACE_", "HUGGINGFACE_")) or key in (
            "TRANSFORMERS_CACHE",
            "TRANSFORMERS_OFFLINE",
        ):
            del env[key]
    env.update(
        {
            "HF_ENDPOINT": url,
            "HF_HUB_DISABLE_XET": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
            "HF_HUB_DISABLE_PROGRESS_BARS": "1",
            "HF_HUB_DISABLE_IMPLICIT_TOKEN": "0",
            "HF_HUB_ETAG_TIMEOUT": "10",
            "HF_HUB_DOWNLOAD_TIMEOUT": "30",
            "HF_DATASETS_DISABLE_PROGRESS_BARS": "1",
            "TOKENIZERS_PARALLELISM": "false",
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
        }
    )
    for key in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(key, None)
    if token:
        env["HF_TOKEN"] = token
    if home is not None:
        home = Path(home)
        env["HF_HOME"] = str(home / "hf_home")
        env["HF_DATASETS_CACHE"] = str(home / "hf_home" / "datasets")
    return env


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.hub_standin",
        description="Local stand-in for the Hugging Face Hub HTTP API.",
    )
    parser.add_argument("--root", required=True, help="folder where repos are stored")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--user", default=DEFAULT_USER, help="the name whoami answers")
    parser.add_argument(
        "--bad-token", action="append", default=[], help="a token answered with 401"
    )
    parser.add_argument(
        "--readonly-token", action="append", default=[], help="a token answered with 403 on writes"
    )
    parser.add_argument("--verbose", action="store_true", help="log every request to stderr")
    args = parser.parse_args(argv)
    server = HubServer(
        args.root,
        args.host,
        args.port,
        user=args.user,
        bad_tokens=args.bad_token,
        readonly_tokens=args.readonly_token,
        quiet=not args.verbose,
    )
    print(server.url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
