"""`hf-induction space`: a Space folder that runs from itself (the package code beside the
app, no torch), with a card by `huggingface_hub` and every source it was given."""

import os
import subprocess
import sys

import pytest
from _results_fixture import CHECKPOINT_REPO, NSTARS, write_results
from huggingface_hub import SpaceCard

pytest.importorskip("gradio")
import gradio  # noqa: E402

from hf_induction.commands.space import main  # noqa: E402


@pytest.mark.slow
def test_the_space_folder_runs_from_itself_on_every_source(tmp_path):
    write_results(tmp_path / "a")
    write_results(tmp_path / "b")
    out = tmp_path / "space"
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "org/induction-results",
                 "--out", str(out)]) == 0
    card = SpaceCard.load(out / "README.md")
    assert card.data.sdk == "gradio" and card.data.sdk_version == gradio.__version__
    assert card.data.datasets == ["org/induction-results"]
    requirements = [line.split(">=")[0] for line in (out / "requirements.txt").read_text()
                    .splitlines() if line.strip() and not line.startswith("#")]
    assert "gradio" in requirements
    assert not {"hf-induction", "hf_induction", "torch", "transformers"} & set(requirements)
    assert (out / "results.txt").read_text().split() == [
        "./results/a", "./results/b", "org/induction-results"]
    assert (out / "results" / "a" / "protocol.json").exists()
    # The app, run in the folder on its two local copies (the Hub id is offline here), finds
    # the package beside it, not the installed one, and never imports torch.
    probe = ("import sys, app, hf_induction; print(hf_induction.__file__); "
             "print(len(app.TABLE), sorted(set(app.TABLE['results']))); "
             "print('torch' in sys.modules)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MPLCONFIGDIR": str(tmp_path / "mpl"),
           "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", probe, str(out / "results" / "a"),
                           str(out / "results" / "b")], cwd=out, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    path, table, torch_loaded = done.stdout.strip().splitlines()[-3:]
    assert path == str(out / "hf_induction" / "__init__.py")
    # Each row names its source; the folders the Space carries, relative to the app.
    assert table == f"{2 * len(NSTARS)} {['results/a', 'results/b']}"
    assert torch_loaded == "False"


def test_a_space_without_sources_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["--out", str(tmp_path / "s")])
    assert info.value.code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) <= 2


def test_each_source_names_its_protocol_and_pushed_checkpoints(tmp_path):
    from hf_induction.hub.sources import checkpoint_repos, load_protocol, protocol_summary

    write_results(tmp_path / "r")
    assert protocol_summary(load_protocol(tmp_path / "r")) == (
        "10 steps, 1 lr × 2 seeds, ε 0.0001, refined search, every run to its budget")
    assert checkpoint_repos(tmp_path / "r") == {
        ("modadd", "acot_L4_uniform", "lstm"): CHECKPOINT_REPO}
    forecast = {"train": {"max_steps": 1500, "lrs": [0.03, 0.01], "seeds": [10, 20],
                          "epsilon": 1e-4, "early_failure": {"name": "forecast"}},
                "search": {"mode": "paper"}}
    assert protocol_summary(forecast).endswith("paper search, early failure: forecast")
    assert protocol_summary({}) == "?"
    # A model with settings of its own shows them; the others the folder's.
    forecast["by_model"] = {"gpt2": {"train": {"max_steps": 5000, "lrs": [1e-3]}}}
    assert protocol_summary(forecast, "gpt2").startswith("5,000 steps, 1 lr × 2 seeds")
    assert protocol_summary(forecast, "lstm").startswith("1,500 steps, 2 lr × 2 seeds")
