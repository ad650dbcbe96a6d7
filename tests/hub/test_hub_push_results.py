"""push_results and scripts/push.py against the Hub stand-in: one commit per push, retries,
no-op repeats, interrupted pushes, and one-line errors that leave the local results alone."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _hub_clients import run_client
from _results_fixture import folder_snapshot, write_results

# End to end: each push runs its client in a process of its own.
pytestmark = pytest.mark.slow

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parents[1]
PUSH_SCRIPT = ROOT / "scripts" / "push.py"

SETUP = f"""
sys.path.insert(0, {str(TESTS)!r})
import urllib.request
from huggingface_hub import HfApi, hf_hub_download
from hf_induction.hub import HubError, push_results
from hf_induction.results import ResultsFolder
from _results_fixture import folder_snapshot, nstar_row
api = HfApi()

def fail_next(method, path_regex, kind, times=1):
    body = json.dumps(dict(method=method, path_regex=path_regex, kind=kind, times=times)).encode()
    urllib.request.urlopen(urllib.request.Request(os.environ["HF_ENDPOINT"] + "/_testing/fail",
        data=body, method="POST", headers={{"Content-Type": "application/json"}}))

def commits(repo):
    return len(api.list_repo_commits(repo, repo_type="dataset"))

def head(repo):
    return api.dataset_info(repo).sha

def add_row(folder, name):
    ResultsFolder(folder).append(nstar_row("modadd", "acot_L9", name, 7))
"""


def test_push_round_trip_and_unchanged_repeat(hub_server, tmp_path):
    write_results(tmp_path / "results")
    out = run_client(hub_server, SETUP + f"""
folder = Path({str(tmp_path / "results")!r})
before = folder_snapshot(folder)
first = push_results(folder, "org/results", create=True)
again = push_results(folder, "org/results")
n_after_repeat = commits("org/results")
untouched = folder_snapshot(folder) == before
import datasets
kappa = datasets.load_dataset("org/results", "kappa", split="train")
nstar = datasets.load_dataset("org/results", "nstar", split="train")
add_row(folder, "mamba")
third = push_results(folder, "org/results")
result(first=[first.changed, first.commit], again=[again.changed, again.commit],
       n_after_repeat=n_after_repeat, n_final=commits("org/results"), untouched=untouched,
       third=[third.changed, third.commit, third.attempts], kappa_models=list(kappa["model"]),
       n_nstar=nstar.num_rows,
       files=sorted(api.list_repo_files("org/results", repo_type="dataset")))
""", timeout=180)
    assert out["first"][0] and out["untouched"]
    # a repeated push of unchanged results: no new commit, the same head
    assert out["again"] == [False, out["first"][1]]
    assert out["n_after_repeat"] == 2  # the repo's initial commit + one push
    assert out["third"][0] and out["third"][2] == 1 and out["n_final"] == 3
    assert sorted(out["kappa_models"]) == ["dense_ssm", "gpt2", "gpt2", "lstm", "lstm"]
    assert out["n_nstar"] == 20
    # The tables that hold rows, and no empty file: the card declares those tables only.
    assert out["files"] == [".gitattributes", "README.md", "kappa/rank0.jsonl",
                            "nstar/rank0.jsonl", "protocol.json", "pushes/rank0.jsonl"]
    commit_posts = [r for r in hub_server.requests
                    if r["method"] == "POST" and "/commit/" in r["path"]]
    assert len(commit_posts) == 2  # the unchanged repeat never even posted a commit


def test_interrupted_and_retried_pushes(hub_server, tmp_path):
    write_results(tmp_path / "results")
    out = run_client(hub_server, SETUP + f"""
folder = Path({str(tmp_path / "results")!r})
repo = "org/flaky"
first = push_results(folder, repo, create=True).commit
add_row(folder, "v2")
# 1. the commit fails and retries are off: the repo stays at its previous commit
fail_next("POST", "/commit/", "500")
try:
    push_results(folder, repo, max_retries=0)
    error = None
except HubError as e:
    error = str(e)
nstar_remote = Path(hf_hub_download(repo, "nstar/rank0.jsonl", repo_type="dataset")).read_text()
step1 = dict(error=error, head=head(repo), commits=commits(repo),
             remote_rows=len(nstar_remote.splitlines()))
# 2. a dropped connection on the commit is retried, after re-reading the head
fail_next("POST", "/commit/", "drop")
r2 = push_results(folder, repo, backoff_s=0)
step2 = dict(changed=r2.changed, attempts=r2.attempts, commits=commits(repo), head=head(repo))
# 3. the commit lands but its answer is lost: the retry finds nothing to change
add_row(folder, "v3")
fail_next("POST", "/commit/", "drop_after")
r3 = push_results(folder, repo, backoff_s=0)
step3 = dict(changed=r3.changed, attempts=r3.attempts, commits=commits(repo), head=head(repo))
# 4. a failure that outlasts the retries: a one-line error, the head unchanged
add_row(folder, "v4")
fail_next("POST", "/commit/", "500", times=3)
try:
    push_results(folder, repo, max_retries=2, backoff_s=0)
    error4 = None
except HubError as e:
    error4 = str(e)
step4 = dict(error=error4, commits=commits(repo), head=head(repo))
result(first=first, step1=step1, step2=step2, step3=step3, step4=step4)
""", timeout=180)
    s1, s2, s3, s4 = out["step1"], out["step2"], out["step3"], out["step4"]
    assert s1["error"] and "500" in s1["error"] and "\n" not in s1["error"]
    assert s1["head"] == out["first"] and s1["commits"] == 2 and s1["remote_rows"] == 20
    assert s2 == dict(changed=True, attempts=2, commits=3, head=s2["head"])
    assert s3["changed"] and s3["attempts"] == 2 and s3["commits"] == 4  # one commit, not two
    assert "after 3 attempt(s)" in s4["error"] and "\n" not in s4["error"]
    assert s4["head"] == s3["head"] and s4["commits"] == 4
    drops = [r for r in hub_server.requests if r["status"] == "drop"]
    assert len(drops) == 2


def _cli(hub_server, args, env_changes):
    env = hub_server.env
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, str(PUSH_SCRIPT), *args], env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_push_and_no_token(hub_server, tmp_path):
    folder = tmp_path / "results"
    write_results(folder)
    before = folder_snapshot(folder)
    ok = _cli(hub_server, [str(folder), "org/cli", "--create"], {})
    assert ok.returncode == 0, ok.stderr
    assert "org/cli: pushed" in ok.stdout
    no_token = _cli(hub_server, [str(folder), "org/cli"], {"HF_TOKEN": None})
    assert no_token.returncode == 1
    assert no_token.stderr.strip().splitlines() == [
        "error: no Hugging Face token: set HF_TOKEN or run `hf auth login` "
        "(a write token is needed)"
    ]
    assert folder_snapshot(folder) == before


ERRORS = f"""
sys.path.insert(0, {str(ROOT / "scripts")!r})
import contextlib, io
from push import main
folder = sys.argv[1]
out = {{}}
def case(name, *extra):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = main([folder, *extra])
    out[name] = [rc, err.getvalue()]
case("missing", "org/nothing-here")
case("bad_token", "org/exists", "--token", "hf_bad")
case("readonly", "org/exists", "--token", "hf_read")
fail_next("*", ".", "drop", times=50)
case("network", "org/exists", "--max-retries", "1", "--backoff", "0")
result(**out)
"""


def test_cli_errors_are_one_line_and_leave_results_alone(hub_server, tmp_path):
    folder = tmp_path / "results"
    write_results(folder)
    before = folder_snapshot(folder)
    hub_server.set_bad_token("hf_bad")
    hub_server.set_readonly_token("hf_read")
    code = SETUP + "api.create_repo('org/exists', repo_type='dataset')\n" + ERRORS
    proc = hub_server.run(
        [sys.executable, "-c", "import sys, hashlib, json, os\nfrom pathlib import Path\n"
         "def result(**kw): print('RESULT ' + json.dumps(kw), flush=True)\n" + code, str(folder)],
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    expected = {
        "missing": "dataset repo org/nothing-here does not exist",
        "bad_token": "token was refused (401)",
        "readonly": "may not write to dataset repo org/exists (403)",
        "network": "network failure talking to the Hub",
    }
    for name, fragment in expected.items():
        rc, stderr = out[name]
        lines = stderr.strip().splitlines()
        assert rc == 1 and len(lines) == 1 and lines[0].startswith("error: "), (name, stderr)
        assert fragment in lines[0], (name, lines[0])
    assert folder_snapshot(folder) == before
    assert not (hub_server.root / "repos/dataset/org/nothing-here").exists()
