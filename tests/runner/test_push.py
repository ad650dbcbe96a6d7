"""nstar.py --push-to-hub and --push-checkpoints, against the local Hub stand-in."""

import json
import sys
import textwrap

import pytest

from hf_induction.results import PushRow, ResultsFolder
from tests.runner.helpers import NSTAR, ROOT

# End to end: whole campaigns pushed to the Hub stand-in.
pytestmark = pytest.mark.slow

# A budget under which the Dense-SSM does find N* for Z_3 words of length 4.
ARGS = ["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm",
        "--max-steps", "400", "--eval-every", "25", "--lrs", "0.03", "--seeds", "10,20",
        "--n-start", "4", "--no-progress"]


def test_a_failed_push_is_one_line_and_keeps_the_results(hub_server, tmp_path):
    out = tmp_path / "results"
    hub_server.set_bad_token("hf_bad")
    done = hub_server.run([sys.executable, NSTAR, *ARGS, "--max-steps", "10", "--seeds", "10",
                           "--out", str(out),
                           "--push-to-hub", "lab/r"], env={"HF_TOKEN": "hf_bad"},
                          timeout=600, cwd=str(ROOT))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("hf-induction nstar: error:")
    assert (out / "nstar" / "rank0.jsonl").read_text().strip()


def test_a_failed_checkpoint_push_is_retried_and_results_and_checkpoint_reach_the_hub(
        hub_server, tmp_path):
    """One search, three launches: the first's checkpoint push is refused, the rerun pushes
    it, a third pushes nothing; then a fresh process reads the rows and the checkpoint back."""
    out = tmp_path / "results"
    # A loose ε finds an N* (all a checkpoint push needs) in a few seconds.
    args = [sys.executable, NSTAR, *ARGS, "--epsilon", "1e-2", "--out", str(out),
            "--push-to-hub", "lab/retried", "--push-checkpoints"]
    # The model repo's commit is refused (not a transient error): the search has finished,
    # its row is written, and the push is what is left.
    hub_server.fail_next("POST", r"/api/models/lab/retried-.*/commit/", "403", times=1)
    first = hub_server.run(args, timeout=600, cwd=str(ROOT))
    assert first.returncode == 1, first.stderr[-2000:]
    assert first.stderr.strip().splitlines()[-1].startswith("hf-induction nstar: error:")
    row = json.loads((out / "nstar" / "rank0.jsonl").read_text().splitlines()[0])
    assert row["n_star"] is not None, "the budget should let this cell succeed"
    # No push recorded (the table's file is made by its first row).
    assert not ResultsFolder(out, write=False).table(PushRow).read()
    again = hub_server.run(args, timeout=600, cwd=str(ROOT))
    assert again.returncode == 0, again.stderr[-2000:]
    (pushed,) = [json.loads(x) for x in (out / "pushes" / "rank0.jsonl").read_text().splitlines()]
    repo = f"lab/retried-dense_ssm-acot_L4_m3-n{row['n_star']}"
    assert pushed["repo_id"] == repo
    assert f"checkpoint pushed to {repo}" in again.stdout
    # The stand-in's own record of the repo's commits (no client process to start for it).
    commits = (hub_server.root / "repos" / "model" / repo / "commits").glob("*.json")
    assert any("model.safetensors" in json.loads(c.read_text())["files"] for c in commits)
    # A third run pushes nothing again.
    third = hub_server.run(args, timeout=600, cwd=str(ROOT))
    assert third.returncode == 0 and "checkpoint pushed" not in third.stdout
    check = textwrap.dedent(f"""
        import json, torch
        from datasets import load_dataset
        from transformers import AutoModelForCausalLM, AutoTokenizer
        nstar = load_dataset("lab/retried", "nstar", split="train")
        model = AutoModelForCausalLM.from_pretrained("{repo}", trust_remote_code=True)
        tok = AutoTokenizer.from_pretrained("{repo}", trust_remote_code=True)
        ids = torch.tensor([tok("1 2 0 2").input_ids])
        from huggingface_hub import ModelCard
        card = ModelCard.load("{repo}").data
        print("RESULT " + json.dumps({{"n_star": nstar[0]["n_star"], "ids": ids.tolist(),
                          "datasets": card.datasets, "tags": card.tags,
                          "dataset_type": card.eval_results[0].dataset_type,
                          "pred": model(input_ids=ids).logits.argmax(-1).tolist(),
                          "module": type(model).__module__}}))
    """)
    loaded = hub_server.run([sys.executable, "-c", check], timeout=300, cwd=str(tmp_path))
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    (line,) = [x for x in loaded.stdout.splitlines() if x.startswith("RESULT ")]
    got = json.loads(line[len("RESULT "):])
    assert got["n_star"] == row["n_star"]
    # The card names the Hub dataset the rows come from, and the family's own tags.
    assert got["datasets"] == ["induction-bias/modadd"]
    assert got["dataset_type"] == "induction-bias/modadd"
    assert "state-tracking" in got["tags"] and "dense_ssm" in got["tags"]
    assert got["ids"] == [[3, 1, 2, 0, 2]]
    # The code came from the repo (trust_remote_code), not from an installed package.
    assert not got["module"].startswith("hf_induction")
    # States of 1, 2, 0, 2 in Z_3 are 1, 0, 0, 2: a checkpoint at N* predicts them.
    assert got["pred"][0][1:] == [1, 0, 0, 2]


def test_a_push_mirrors_the_folder(hub_server, tmp_path):
    out = tmp_path / "results"
    code = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from huggingface_hub import HfApi
        from datasets import load_dataset
        from hf_induction.hub import push_results
        from hf_induction.results import ResultsFolder
        out = Path({str(out)!r})
        ResultsFolder(out).check_protocol({{"train": {{}}, "search": {{}}}})
        for rank in (0, 1):
            ResultsFolder(out, rank=rank).append_run(f"k{{rank}}", {{"n": rank}})
        push_results(out, "lab/mirror", create=True)
        before = HfApi().list_repo_files("lab/mirror", repo_type="dataset")
        (out / "journal" / "rank1.jsonl").unlink()   # a 1-rank launch's folder, pushed over
        push_results(out, "lab/mirror")
        after = HfApi().list_repo_files("lab/mirror", repo_type="dataset")
        rows = load_dataset("lab/mirror", "journal", split="train").num_rows
        print("RESULT " + json.dumps(dict(before=before, after=after, rows=rows)))
    """)
    done = hub_server.run_python(code, timeout=300, cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    (line,) = [x for x in done.stdout.splitlines() if x.startswith("RESULT ")]
    got = json.loads(line[len("RESULT "):])
    assert "journal/rank1.jsonl" in got["before"] and "journal/rank1.jsonl" not in got["after"]
    assert not any(f.endswith(".lock") or f.startswith("claims/") for f in got["after"])
    assert got["rows"] == 1
