"""The prepared accelerator check runs end to end on a CPU at tiny sizes."""

import json
import subprocess

import pytest

from tests.runner.helpers import ROOT, env

# End to end: the accelerator check, end to end.
pytestmark = pytest.mark.slow


def test_device_check_runs_on_the_cpu_and_writes_every_figure(tmp_path):
    out = tmp_path / "check.json"
    done = subprocess.run([str(ROOT / "scripts" / "device_check.sh"), "--device", "cpu",
                           "--quick", "--json", str(out)], capture_output=True, text=True,
                          env=env(), timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert not [k for k in figures if k.endswith(("_error", "_skipped"))], figures
    assert figures["preset"] == "tiny"
    from hf_induction.models import MODEL_NAMES

    for name in MODEL_NAMES:
        assert figures[f"{name}_step_s"] > 0 and figures[f"{name}_parameters"] > 0
    for name in ("deltanet", "gated_deltanet"):
        assert figures[f"{name}_chunked_vs_recurrent_T256"] > 0
    for name in ("dense_ssm", "lstm", "gpt2", "rope"):
        assert figures[f"{name}_stacked_15_s"] > 0 and figures[f"{name}_sequential_15_s"] > 0
    assert figures["dense_ssm_free_runs"] >= 1 and figures["gpt2_stacked_1_step_s"] > 0
    # One process and two on the device, each training the 15-run grid.
    assert all(figures[f"dense_ssm_P{p}_run_steps_per_s"] > 0 for p in (1, 2))
    assert figures["dense_ssm_best_processes"] in (1, 2)
    # The probe trained its grid (2 x 2 at the cpu preset) and journaled every run.
    assert figures["paper_probe_runs"] == 4 and figures["paper_probe_steps"] > 0


def test_device_check_refuses_a_missing_gpu_in_one_line(tmp_path, capsys):
    import torch

    from bench.device_check import main

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    # In this process: the script's launch is the test above.
    with pytest.raises(SystemExit) as e:
        main(["--device", "cuda", "--json", str(tmp_path / "x.json")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].endswith("no CUDA device here; use --device cpu")
    assert not (tmp_path / "x.json").exists()
