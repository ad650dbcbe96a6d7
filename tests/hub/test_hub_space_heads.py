"""The Space's "Attention heads" tab: the heat maps and patching plots of each source's heads
and patching tables, drawn without torch; the models a folder keeps stay out of the Space."""

import os
import subprocess
import sys

import pytest
from _results_fixture import write_results

pytest.importorskip("gradio")

from hf_induction.commands.space import main  # noqa: E402
from hf_induction.results import HeadsRow, PatchingRow  # noqa: E402

# End to end: the Space run in a process of its own.
pytestmark = pytest.mark.slow


def add_heads(folder) -> None:
    common = {"model": "rope", "checkpoint": "rope-UF_L4-n10", "dataset": "copy",
              "config": "UF_L4", "trained_on": "copy/UF_L4", "n_prompts": 4, "seed": 0,
              "finished_at": "2026-01-01T00:00:00+00:00"}
    for layer in range(2):
        for head in range(2):
            folder.append(HeadsRow(
                key=f"h{layer}{head}", layer=layer, head=head, induction=0.1 * head,
                anti_induction=0.2, previous_token=0.3, duplicate_token=0.4 * layer,
                n_positions=12, **common))
            for rank, kind in enumerate(("induction", "anti_induction"), start=1):
                folder.append(PatchingRow(
                    key=f"p{kind}{layer}{head}", kind=kind, rank=2 * layer + head + 1,
                    layer=layer, head=head, ce=1.0 + rank, exact_match=0.5, base_ce=1.0,
                    base_exact_match=0.5, delta_ce=float(rank), delta_exact_match=0.0,
                    n_edges=12, **common))


def test_the_space_draws_each_sources_heads(tmp_path):
    add_heads(write_results(tmp_path / "a"))
    write_results(tmp_path / "b")  # no heads rows: nothing drawn for it
    kept = tmp_path / "a" / "checkpoints" / "rope-UF_L4-n10"
    kept.mkdir(parents=True)
    (kept / "config.json").write_text("{}")
    out = tmp_path / "space"
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(out)]) == 0
    assert not (out / "results" / "a" / "checkpoints").exists()
    probe = ("import sys, os, app; print(sorted(os.path.basename(p) for p in app.HEAD_FIGURES));"
             " print('torch' in sys.modules)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MPLCONFIGDIR": str(tmp_path / "mpl"),
           "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", probe], cwd=out, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    figures, torch_loaded = done.stdout.strip().splitlines()[-2:]
    assert figures == str(["heads_rope-UF_L4-n10_UF_L4.png", "patching_rope-UF_L4-n10_UF_L4.png"])
    assert torch_loaded == "False"
