"""The real clients (huggingface_hub, datasets, transformers) against the Hub stand-in.

They read HF_ENDPOINT at import time, so each test runs its client code in a subprocess.
"""

import json

import pytest
from _hub_clients import run_client

# End to end: each client runs in a process of its own.
pytestmark = pytest.mark.slow

MAKE_FOLDER = """
folder = Path("upload"); (folder / "sub").mkdir(parents=True, exist_ok=True)
(folder / "notes.txt").write_text("hello hub\\n")
(folder / "config.json").write_text(json.dumps({"model_type": "gpt2", "n_layer": 2}))
(folder / "sub" / "results.json").write_text(json.dumps({"kappa": 1.5}))
(folder / "model.safetensors").write_bytes(os.urandom(1536 * 1024))  # 1.5 MB, goes through LFS
"""


def test_model_repo_push_list_download(hub_server):
    out = run_client(
        hub_server,
        MAKE_FOLDER
        + """
from huggingface_hub import HfApi, hf_hub_download
api = HfApi()
assert api.whoami()["name"] == "user"
url = api.create_repo("org/model", exist_ok=True)
again = api.create_repo("org/model", exist_ok=True)        # 409 from the server, accepted
info = api.upload_folder(repo_id="org/model", folder_path=folder, commit_message="push 1")
files = sorted(api.list_repo_files("org/model"))
n_commits = len(api.list_repo_commits("org/model"))
same = {}
for name in ["notes.txt", "model.safetensors", "sub/results.json"]:
    p = hf_hub_download("org/model", name)
    same[name] = Path(p).read_bytes() == (folder / name).read_bytes()
lfs = {f.path: (f.lfs.sha256 if f.lfs else None)
       for f in api.get_paths_info("org/model", ["model.safetensors", "notes.txt"])}
tree = {f.path: getattr(f, "blob_id", None)
        for f in api.list_repo_tree("org/model", recursive=True)}
# pushing the same folder again
info2 = api.upload_folder(repo_id="org/model", folder_path=folder, commit_message="push 2")
n_commits2 = len(api.list_repo_commits("org/model"))
# one changed file: a new commit that carries only that file
(folder / "notes.txt").write_text("changed\\n")
info3 = api.upload_folder(repo_id="org/model", folder_path=folder, commit_message="push 3")
result(url=str(url), again=str(again), oid=info.oid, oid2=info2.oid, oid3=info3.oid, files=files,
       n_commits=n_commits, n_commits2=n_commits2,
       n_commits3=len(api.list_repo_commits("org/model")), same=same, lfs=lfs,
       local_sha=sha256(folder / "model.safetensors"), tree=tree)
""",
    )
    assert out["url"] == out["again"] == f"{hub_server.url}/org/model"
    assert out["files"] == [
        ".gitattributes",
        "config.json",
        "model.safetensors",
        "notes.txt",
        "sub/results.json",
    ]
    assert out["n_commits"] == 2  # "initial commit" (made by create_repo) + the upload
    assert all(out["same"].values()), out["same"]
    assert out["lfs"] == {"model.safetensors": out["local_sha"], "notes.txt": None}
    assert out["tree"]["sub"] is None and len(out["tree"]["notes.txt"]) == 40
    # huggingface_hub 2.4 skips unchanged files (preupload returns the remote oid) and makes
    # no commit at all when nothing changed: it returns the current head instead.
    assert out["oid2"] == out["oid"] and out["n_commits2"] == 2
    assert out["oid3"] != out["oid"] and out["n_commits3"] == 3

    # the binary went through the LFS batch API + PUT, and is stored as an LFS file
    paths = [(r["method"], r["path"]) for r in hub_server.requests]
    assert ("POST", "/org/model.git/info/lfs/objects/batch") in paths
    assert sum(1 for m, p in paths if m == "PUT" and p.startswith("/_lfs/")) == 1  # uploaded once
    commits = sorted((hub_server.root / "repos/model/org/model/commits").glob("*.json"))
    manifests = [json.loads(p.read_text())["files"] for p in commits]
    assert any(m.get("model.safetensors", {}).get("lfs") for m in manifests)
    assert all(not m[k]["lfs"] for m in manifests for k in m if k.endswith((".txt", ".json")))


def test_datasets_and_transformers_round_trip(hub_server):
    out = run_client(
        hub_server,
        """
import pyarrow as pa, pyarrow.parquet as pq
from huggingface_hub import HfApi, hf_hub_download
api = HfApi()
# a model repo with a config, read by transformers
api.create_repo("org/tiny", exist_ok=True)
api.upload_file(path_or_fileobj=json.dumps({"model_type": "gpt2", "n_layer": 3}).encode(),
                path_in_repo="config.json", repo_id="org/tiny")
from transformers import AutoConfig
cfg = AutoConfig.from_pretrained("org/tiny")
cfg_path = hf_hub_download("org/tiny", "config.json")

# a dataset repo with README configs, a jsonl config and a parquet config
api.create_repo("org/results", repo_type="dataset", exist_ok=True)
folder = Path("ds"); (folder / "kappa").mkdir(parents=True); (folder / "runs").mkdir()
(folder / "README.md").write_text('''---
configs:
- config_name: kappa
  data_files:
  - split: train
    path: kappa/*.parquet
- config_name: runs
  data_files:
  - split: train
    path: runs/*.parquet
---
# results
''')
pq.write_table(pa.table({"model": ["a", "b"], "kappa": [0.5, 2.0]}), folder / "kappa" / "k.parquet")
pq.write_table(pa.table({"n": [1, 2, 3]}), folder / "runs" / "r.parquet")
api.upload_folder(repo_id="org/results", repo_type="dataset", folder_path=folder)
import datasets
kappa = datasets.load_dataset("org/results", "kappa", split="train")
runs = datasets.load_dataset("org/results", "runs")
# a second dataset repo with a jsonl config
api.create_repo("org/jsonl", repo_type="dataset", exist_ok=True)
readme = b'---\\nconfigs:\\n- config_name: kappa\\n  data_files: "k/*.jsonl"\\n---\\n'
api.upload_file(path_or_fileobj=readme,
                path_in_repo="README.md", repo_id="org/jsonl", repo_type="dataset")
api.upload_file(path_or_fileobj=b'{"x": 1}\\n{"x": 2}\\n', path_in_repo="k/a.jsonl",
                repo_id="org/jsonl", repo_type="dataset")
js = datasets.load_dataset("org/jsonl", "kappa", split="train")
# Dataset.push_to_hub (one commit per call) and back
datasets.Dataset.from_dict({"k": [7, 8]}).push_to_hub("org/pushed", config_name="kappa")
pushed = datasets.load_dataset("org/pushed", "kappa", split="train")
# a tiny transformers model: push_to_hub, then AutoModelForCausalLM.from_pretrained
import torch
from transformers import AutoModelForCausalLM, GPT2Config, GPT2LMHeadModel
model = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=32, n_positions=8,
                                   bos_token_id=0, eos_token_id=0))
model.push_to_hub("org/tinygpt")
loaded = AutoModelForCausalLM.from_pretrained("org/tinygpt")
same_weights = all(torch.equal(a, b) for a, b in
                   zip(model.state_dict().values(), loaded.state_dict().values()))
result(pushed=list(pushed["k"]), same_weights=same_weights,
       model_files=sorted(api.list_repo_files("org/tinygpt")),
       n_layer=cfg.n_layer, cfg=json.loads(Path(cfg_path).read_text()), kappa=kappa.to_dict(),
       runs=list(runs["train"]["n"]), js=list(js["x"]),
       card=api.dataset_info("org/results").card_data.to_dict().get("configs"))
""",
        timeout=180,
    )
    assert out["n_layer"] == 3 and out["cfg"]["model_type"] == "gpt2"
    assert out["kappa"] == {"model": ["a", "b"], "kappa": [0.5, 2.0]}
    assert list(out["runs"]) == [1, 2, 3]
    assert list(out["js"]) == [1, 2]
    assert out["pushed"] == [7, 8]
    assert out["same_weights"] and "model.safetensors" in out["model_files"]
    assert [c["config_name"] for c in out["card"]] == ["kappa", "runs"]
    unknown = [r for r in hub_server.requests if r.get("unknown_endpoint")]
    assert not unknown, unknown


PUSH_TWICE = (
    MAKE_FOLDER
    + """
from huggingface_hub import HfApi, hf_hub_download
from huggingface_hub.errors import HfHubHTTPError
api = HfApi()
api.create_repo("org/flaky", repo_type="dataset")
first = api.upload_folder(repo_id="org/flaky", repo_type="dataset", folder_path=folder).oid
(folder / "notes.txt").write_text("second version\\n")
(folder / "model.safetensors").write_bytes(os.urandom(1024 * 1024))
import urllib.request
urllib.request.urlopen(urllib.request.Request(os.environ["HF_ENDPOINT"] + "/_testing/fail",
    data=json.dumps(FAIL).encode(), method="POST", headers={"Content-Type": "application/json"}))
error = None
try:
    api.upload_folder(repo_id="org/flaky", repo_type="dataset", folder_path=folder)
except Exception as e:
    error = f"{type(e).__module__}.{type(e).__name__}: {e}"
head = api.dataset_info("org/flaky").sha
notes = Path(hf_hub_download("org/flaky", "notes.txt", repo_type="dataset")).read_text()
result(first=first, head=head, error=error, notes=notes,
       n_commits=len(api.list_repo_commits("org/flaky", repo_type="dataset")))
"""
)


def _push_with_failure(hub_server, fail):
    return run_client(hub_server, f"FAIL = {fail!r}\n" + PUSH_TWICE)


def test_commit_500_leaves_previous_commit(hub_server):
    out = _push_with_failure(
        hub_server, {"method": "POST", "path_regex": "/commit/", "kind": "500"}
    )
    assert out["error"] and "500" in out["error"]
    assert out["head"] == out["first"] and out["n_commits"] == 2
    assert out["notes"] == "hello hub\n"


def test_commit_409_and_dropped_connection_surface_as_errors(hub_server):
    out = _push_with_failure(
        hub_server, {"method": "POST", "path_regex": "/commit/", "kind": "409"}
    )
    assert out["error"] and "409" in out["error"]
    assert out["head"] == out["first"] and out["notes"] == "hello hub\n"

    # a fresh repo: the same stand-in, another push
    drop = {"method": "POST", "path_regex": "/commit/", "kind": "drop"}
    out = run_client(
        hub_server, f"FAIL = {drop!r}\n" + PUSH_TWICE.replace("org/flaky", "org/flaky2")
    )
    # the commit POST is not retried by huggingface_hub: the dropped connection is an error
    assert out["error"] and "RemoteProtocolError" in out["error"], out["error"]
    assert out["head"] == out["first"] and out["notes"] == "hello hub\n" and out["n_commits"] == 2


def test_answer_lost_after_commit_and_transient_failures_retried(hub_server):
    # the server makes the commit, then drops the connection: the client sees an error
    # although the commit landed (a pusher must check the head before pushing again)
    out = _push_with_failure(
        hub_server, {"method": "POST", "path_regex": "/commit/", "kind": "drop_after"}
    )
    assert out["error"]
    assert (
        out["head"] != out["first"] and out["n_commits"] == 3 and out["notes"] == "second version\n"
    )

    # preupload, LFS batch and LFS PUT go through http_backoff: one 500 / drop each is retried
    out = run_client(
        hub_server,
        "FAIL = {'method': 'PUT', 'path_regex': '^/_lfs/', 'kind': 'drop'}\n"
        + PUSH_TWICE.replace("org/flaky", "org/retry").replace(
            "error = None",
            "error = None\nurllib.request.urlopen(urllib.request.Request("
            "os.environ['HF_ENDPOINT'] + '/_testing/fail', data=json.dumps({'method': "
            "'POST', 'path_regex': '/preupload/', 'kind': '500'}).encode(), method='POST',"
            " headers={'Content-Type': 'application/json'}))",
        ),
    )
    assert out["error"] is None, out["error"]
    assert out["head"] != out["first"] and out["notes"] == "second version\n"
    statuses = [
        (r["method"], r["path"].split("/")[-2], r["status"])
        for r in hub_server.requests
        if "/org/retry" in r["path"] or r["path"].startswith("/_lfs/")
    ]
    assert ("PUT", "_lfs", "drop") in statuses and ("POST", "preupload", 500) in statuses


def test_tokens(hub_server):
    hub_server.set_bad_token("hf_bad")
    hub_server.set_readonly_token("hf_read")
    out = run_client(
        hub_server,
        """
from huggingface_hub import HfApi
errs = {}
for token in ["hf_bad", "hf_read", False]:
    try:
        HfApi(token=token).create_repo("org/secret")
        errs[str(token)] = None
    except Exception as e:
        response = getattr(e, "response", None)
        errs[str(token)] = [type(e).__name__, getattr(response, "status_code", None)]
result(errs=errs)
""",
    )
    assert out["errs"]["hf_bad"][1] == 401
    assert out["errs"]["hf_read"][1] == 403
    assert out["errs"]["False"][1] == 401
