"""A saved checkpoint carries its code: a fresh process loads it without hf_induction."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

from hf_induction.models import build_model

# End to end: loads a checkpoint in a fresh process.
pytestmark = pytest.mark.slow

# Mamba-3's folder also carries marked copies of the selective SSM's kernels (its chunked.py
# and naive.py travel with it).
MODELS = ["dense_ssm", "lstm", "gpt2_offset", "gated_deltanet_neg", "mamba3"]

# One fresh process loads every checkpoint (a process start re-imports torch and transformers,
# seconds each): argv is the thread count, then (checkpoint, ids, out) per model.
LOADER = textwrap.dedent(
    """
    import sys

    class RefuseHfInduction:
        def find_spec(self, name, path=None, target=None):
            if name == "hf_induction" or name.startswith("hf_induction."):
                raise ImportError("hf_induction must not be needed to load a checkpoint")

    sys.meta_path.insert(0, RefuseHfInduction())

    import torch
    from transformers import AutoModelForCausalLM

    # The caller's thread count: a matmul's sums are bitwise the same only on as many threads.
    torch.set_num_threads(int(sys.argv[1]))
    args = sys.argv[2:]
    for folder, ids, out in zip(args[0::3], args[1::3], args[2::3]):
        model = AutoModelForCausalLM.from_pretrained(folder, trust_remote_code=True).eval()
        with torch.no_grad():
            torch.save(model(input_ids=torch.load(ids)).logits, out)
        print(folder, type(model).__name__)
    """
)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """{name: (model, ids, logits the fresh process computed, the class name it printed)}."""
    tmp = tmp_path_factory.mktemp("remote_code")
    models, argv = {}, []
    for name in MODELS:
        torch.manual_seed(0)
        model = build_model(name, vocab_size=9).eval()
        folder = tmp / f"ckpt_{name}"
        model.save_pretrained(folder)
        ids = torch.randint(0, 9, (2, 5))
        torch.save(ids, tmp / f"{name}_ids.pt")
        models[name] = (model, ids, folder)
        argv += [str(folder), str(tmp / f"{name}_ids.pt"), str(tmp / f"{name}_out.pt")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_MODULES_CACHE=str(tmp / "modules"))
    result = subprocess.run([sys.executable, "-c", LOADER, str(torch.get_num_threads()), *argv],
                            cwd=tmp, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    printed = dict(line.rsplit(" ", 1) for line in result.stdout.splitlines() if " " in line)
    return {name: (model, ids, folder, torch.load(tmp / f"{name}_out.pt"),
                   printed.get(str(folder)))
            for name, (model, ids, folder) in models.items()}


@pytest.mark.parametrize("name", MODELS)
def test_checkpoint_loads_with_trust_remote_code_in_a_fresh_process(name, loaded):
    model, ids, folder, logits, class_name = loaded[name]
    assert "auto_map" in (folder / "config.json").read_text()
    assert class_name == type(model).__name__
    with torch.no_grad():
        torch.testing.assert_close(logits, model(input_ids=ids).logits, rtol=0, atol=0)
