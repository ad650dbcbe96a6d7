"""nstar.py --push-to-hub and --push-checkpoints, against the local Hub stand-in."""

import json
import sys
import textwrap

from tests.runner.helpers import NSTAR, ROOT

# A budget under which the Dense-SSM does find N* for Z_3 words of length 4.
ARGS = ["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm",
        "--max-steps", "400", "--eval-every", "25", "--lrs", "0.03", "--seeds", "10,20",
        "--n-start", "4", "--no-progress"]


def test_results_and_the_nstar_checkpoint_reach_the_hub(hub_server, tmp_path):
    out = tmp_path / "results"
    done = hub_server.run([sys.executable, NSTAR, *ARGS, "--out", str(out), "--push-to-hub",
                           "lab/induction-results", "--push-checkpoints"], timeout=600,
                          cwd=str(ROOT))
    assert done.returncode == 0, done.stderr[-3000:]
    row = json.loads((out / "nstar" / "rank0.jsonl").read_text().splitlines()[0])
    assert row["n_star"] is not None, "the budget should let this cell succeed"
    repo = f"lab/induction-results-dense_ssm-acot_L4_m3-n{row['n_star']}"
    assert f"checkpoint pushed to {repo}" in done.stdout
    check = textwrap.dedent(f"""
        import json, torch
        from datasets import load_dataset
        from transformers import AutoModelForCausalLM, AutoTokenizer
        nstar = load_dataset("lab/induction-results", "nstar", split="train")
        model = AutoModelForCausalLM.from_pretrained("{repo}", trust_remote_code=True)
        tok = AutoTokenizer.from_pretrained("{repo}", trust_remote_code=True)
        ids = torch.tensor([tok("1 2 0 2").input_ids])
        print("RESULT " + json.dumps({{"n_star": nstar[0]["n_star"], "ids": ids.tolist(),
                          "pred": model(input_ids=ids).logits.argmax(-1).tolist(),
                          "module": type(model).__module__}}))
    """)
    loaded = hub_server.run([sys.executable, "-c", check], timeout=300, cwd=str(tmp_path))
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    (line,) = [x for x in loaded.stdout.splitlines() if x.startswith("RESULT ")]
    got = json.loads(line[len("RESULT "):])
    assert got["n_star"] == row["n_star"]
    assert got["ids"] == [[3, 1, 2, 0, 2]]
    # The code came from the repo (trust_remote_code), not from an installed package.
    assert not got["module"].startswith("hf_induction")
    # States of 1, 2, 0, 2 in Z_3 are 1, 0, 0, 2: a checkpoint at N* predicts them.
    assert got["pred"][0][1:] == [1, 0, 0, 2]


def test_a_failed_push_is_one_line_and_keeps_the_results(hub_server, tmp_path):
    out = tmp_path / "results"
    hub_server.set_bad_token("hf_bad")
    done = hub_server.run([sys.executable, NSTAR, *ARGS, "--max-steps", "50", "--out", str(out),
                           "--push-to-hub", "lab/r"], env={"HF_TOKEN": "hf_bad"},
                          timeout=600, cwd=str(ROOT))
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("nstar.py: error:")
    assert (out / "nstar" / "rank0.jsonl").read_text().strip()
