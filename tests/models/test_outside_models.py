"""A model from outside the package: found by entry point, by ``FILE.py:NAME`` and by
``MODULE:NAME``, trained through ``hf-induction nstar``, and held to the contract."""

import subprocess
import sys
import uuid

import datasets
import pytest
import torch

from hf_induction.models import MODEL_NAMES, build_config, model_config_hash
from hf_induction.models.registry import model_names, model_spec
from hf_induction.tasks import parse
from hf_induction.training.contract import check_model
from tests.runner.helpers import FAST, run_command

from .outside import write_file, write_package

PACKAGE = "outside_models"
# The name the installed package's entry point gives its spec.
INSTALLED = "outside_gru"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder on sys.path holding an installed distribution with entry points, and a file
    with the same model; both taken off again afterwards."""
    site = write_package(tmp_path_factory.mktemp("site"), PACKAGE, INSTALLED)
    write_file(site.parent / "mine.py", "my_gru")
    sys.path.insert(0, str(site))
    yield site
    sys.path.remove(str(site))
    for name in [m for m in sys.modules if m.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def file_name(site, attr="SPEC"):
    return f"{site.parent / 'mine.py'}:{attr}"


FORMS = {"entry point": lambda site: INSTALLED,
         "file": file_name,
         "module": lambda site: f"{PACKAGE}:SPEC"}


def test_entry_points_name_their_models_one_spec_or_a_list(site):
    assert model_names()[:len(MODEL_NAMES)] == MODEL_NAMES
    assert {INSTALLED, f"{INSTALLED}_wide"} <= set(model_names()[len(MODEL_NAMES):])
    assert model_spec(f"{INSTALLED}_wide").presets["tiny"] == {"hidden_size": 24}


@pytest.mark.parametrize("form", FORMS)
def test_an_outside_model_trains_through_nstar(site, form, tmp_path):
    name = FORMS[form](site)
    out = tmp_path / f"results-{uuid.uuid4().hex[:12]}"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L4_m3",
                        "--model", name, *FAST, "--n-max", "8", "--out", str(out)])
    assert done.returncode == 0, done.stderr
    row = datasets.load_dataset(str(out), "nstar", split="train")[0]
    # The row is keyed by the name as given and the hash of the config it built.
    vocab = parse("modadd", "acot_L4_m3").vocab
    assert row["model"] == name
    assert row["model_config_hash"] == model_config_hash(build_config(name, vocab, "tiny"))
    # The report reads the model's sizes from its spec, as for one of ours.
    report = tmp_path / "report"
    done = run_command(["report", str(out), "--out", str(report)])
    assert done.returncode == 0, done.stderr
    assert (f"{name}: preset tiny (hidden_size=16) instead of the paper's (hidden_size=64)"
            in (report / "tables.md").read_text())


def test_an_outside_models_rows_never_share_a_key_with_ours(site, tmp_path):
    # A file whose spec is our GPT-2's, to the letter: the same config, so the same config
    # hash; the name it is given is what tells the rows apart.
    (tmp_path / "copy.py").write_text(
        "from hf_induction.models.gpt2 import SPEC as GPT2\n")
    copied = f"{tmp_path / 'copy.py'}:GPT2"
    assert model_spec(copied).name == copied != "gpt2"
    # An installed package may not take one of our names: ours stays ours.
    clash = tmp_path / "clash"
    write_package(clash, "clash_models", "clash")
    (clash / "clash_models-0.1.dist-info" / "entry_points.txt").write_text(
        "[hf_induction.models]\ngpt2 = hf_induction.models.gpt2:SPEC\n"
        "broken = clash_models.nowhere:SPEC\n")
    sys.path.insert(0, str(clash))
    try:
        assert model_names().count("gpt2") == 1
        with pytest.raises(ValueError) as e:
            model_spec("nothing_of_that_name")
    finally:
        sys.path.remove(str(clash))
    message = str(e.value)
    assert "\n" not in message
    assert "entry point 'gpt2' of clash_models: model name 'gpt2' is taken" in message
    assert ("entry point 'broken' of clash_models failed to load (ModuleNotFoundError"
            in message)


@pytest.mark.parametrize("form", ["entry point", "file", "spec"])
def test_the_contract_passes_on_an_outside_model(site, form):
    # A name, as --model takes it, or the ModelSpec itself.
    model = model_spec(INSTALLED) if form == "spec" else FORMS[form](site)
    report = check_model(model)
    assert report.ok, str(report)
    # A GRU declares no gradient checkpointing: that check does not apply, and says why.
    by_name = {check.name: check for check in report.checks}
    assert by_name["gradient checkpointing"].passed is None
    assert by_name["labels loss"].passed and by_name["generation"].passed


def test_the_contract_names_what_a_broken_model_gets_wrong(site):
    report = check_model(file_name(site, "BROKEN"))
    assert report.failed == ("labels loss",)
    assert "labels loss: FAILED (AssertionError: the model's labels loss is not the " \
           "trainer's" in str(report)
    with pytest.raises(AssertionError, match="labels loss: FAILED"):
        report.raise_if_failed()


def test_the_contract_names_logits_of_another_vocabulary(site):
    report = check_model(file_name(site, "WIDE_HEAD"))
    assert report.failed[0] == "output shape"
    assert "the logits are [6, 14, 12], not [batch, length, vocab_size] = [6, 14, 9]" \
        in str(report)


@pytest.mark.parametrize("attr, says", [
    ("WIDE_HEAD", "output shape: AssertionError: the logits are [6, 14, 12], not [batch, "
                  "length, vocab_size] = [6, 14, 9]"),
    ("BROKEN", "labels loss: AssertionError: the model's labels loss is not the trainer's"),
], ids=["logits", "loss"])
def test_an_outside_model_that_breaks_the_contract_never_trains(site, attr, says, tmp_path):
    # The wide head trained and wrote an N* row: the trainer scores logits as they come.
    model = file_name(site, attr)
    out = tmp_path / "results"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L4_m3",
                        "--model", model, *FAST, "--n-max", "8", "--out", str(out)])
    err = done.stderr.strip()
    assert done.returncode == 2 and len(err.splitlines()) == 1, err
    assert f"--model {model} breaks the contract the trainer relies on ({says}" in err
    assert ("the whole check: python -c \"from hf_induction.training.contract import "
            f"check_model; print(check_model({model!r}))\"") in err
    assert not out.exists()


@pytest.mark.parametrize("model, says", [
    ("nowhere.py:SPEC", "model nowhere.py:SPEC: no such file nowhere.py"),
    ("{file}:NOPE", "has no attribute 'NOPE'; its ModelSpecs: ['BROKEN', 'SPEC', 'WIDE', "
                    "'WIDE_HEAD']"),
    ("{file}:PRESETS", "PRESETS is a dict, not a ModelSpec"),
    ("no_such_module_here:SPEC", "no module named 'no_such_module_here' on the path"),
    ("{raising}:SPEC", "failed (ZeroDivisionError: division by zero)"),
    ("outside_gru_nope", "unknown model 'outside_gru_nope'; allowed: ['dense_ssm'"),
], ids=["no-file", "no-attribute", "not-a-spec", "no-module", "import-fails", "unknown"])
def test_a_bad_outside_name_is_one_line_exit_2_and_nothing_written(site, model, says,
                                                                   tmp_path):
    raising = tmp_path / "raising.py"
    raising.write_text("1 / 0\n")
    model = model.format(file=site.parent / "mine.py", raising=raising)
    out = tmp_path / "results"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L4_m3",
                        "--model", model, "--out", str(out)])
    assert done.returncode == 2
    err = done.stderr.strip()
    assert len(err.splitlines()) == 1 and says in err, err
    assert not out.exists()


@pytest.mark.slow
def test_a_file_models_checkpoint_loads_with_its_code_in_a_fresh_process(site, tmp_path):
    from hf_induction.models import build_model
    from hf_induction.models.build import save_model
    from tests.runner.helpers import env

    model = build_model(file_name(site), vocab_size=9)
    save_model(model, tmp_path / "checkpoint")
    # The saved code is the file, under its own name, and the config says so.
    assert (tmp_path / "checkpoint" / "mine.py").is_file()
    load = ("import sys, torch; from transformers import AutoModelForCausalLM; "
            "m = AutoModelForCausalLM.from_pretrained(sys.argv[1], trust_remote_code=True); "
            "print(type(m).__name__, float(m(input_ids=torch.tensor([[5, 0, 1]])).logits.sum()))")
    done = subprocess.run([sys.executable, "-c", load, str(tmp_path / "checkpoint")],
                          capture_output=True, text=True, timeout=300,
                          env={**env(), "HF_MODULES_CACHE": str(tmp_path / "modules")})
    assert done.returncode == 0, done.stderr
    with torch.no_grad():
        logits = float(model(input_ids=torch.tensor([[5, 0, 1]])).logits.sum())
    name, value = done.stdout.split()
    assert name == "GRUForCausalLM" and float(value) == pytest.approx(logits, rel=1e-6)
