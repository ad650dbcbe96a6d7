"""A saved checkpoint carries its code: a fresh process loads it without hf_induction."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

from hf_induction.models import build_model

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
    torch.set_num_threads(int(sys.argv[4]))
    model = AutoModelForCausalLM.from_pretrained(sys.argv[1], trust_remote_code=True).eval()
    ids = torch.load(sys.argv[2])
    with torch.no_grad():
        torch.save(model(input_ids=ids).logits, sys.argv[3])
    print(type(model).__name__)
    """
)


@pytest.mark.parametrize("name", ["dense_ssm", "lstm", "gpt2_offset", "gated_deltanet_neg"])
def test_checkpoint_loads_with_trust_remote_code_in_a_fresh_process(name, tmp_path):
    torch.manual_seed(0)
    model = build_model(name, vocab_size=9).eval()
    model.save_pretrained(tmp_path / "ckpt")
    assert "auto_map" in (tmp_path / "ckpt" / "config.json").read_text()
    ids = torch.randint(0, 9, (2, 5))
    torch.save(ids, tmp_path / "ids.pt")

    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(HF_HUB_OFFLINE="1", HF_MODULES_CACHE=str(tmp_path / "modules"))
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            LOADER,
            str(tmp_path / "ckpt"),
            str(tmp_path / "ids.pt"),
            str(tmp_path / "out.pt"),
            str(torch.get_num_threads()),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(type(model).__name__)
    with torch.no_grad():
        torch.testing.assert_close(
            torch.load(tmp_path / "out.pt"), model(input_ids=ids).logits, rtol=0, atol=0
        )
