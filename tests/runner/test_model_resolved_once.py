"""A ``--model`` name is looked up once, at the plan (`registry.model_source`), on its way to
the training step: the settings (its CPU budget) and the builder (config, tokenizer, factory,
hash) take the source the plan found, and nothing after the plan parses the name again."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest
from transformers import GPT2Config

from hf_induction.models import registry
from hf_induction.results import ResultsFolder
from hf_induction.results.rows import NstarRow
from tests.runner.helpers import FAST, env, run_command


def counted(monkeypatch, attr: str) -> Counter:
    """Calls of ``registry.<attr>`` by the name asked for; the registry's own calls (and every
    caller that reaches it through the module) go through the counter."""
    calls: Counter = Counter()
    original = getattr(registry, attr, None)

    def counting(name, *args, **kwargs):
        calls[name] += 1
        return original(name, *args, **kwargs)

    monkeypatch.setattr(registry, attr, counting, raising=False)
    return calls


def test_a_campaign_looks_each_model_name_up_once(tmp_path, monkeypatch):
    folder = tmp_path / "tiny_gpt2"
    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(folder)
    named = ["dense_ssm", f"hf:{folder}"]
    lookups = counted(monkeypatch, "model_source")
    specs = counted(monkeypatch, "model_spec")
    out = tmp_path / "out"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L3_m2", "--model",
                        *named, *FAST, "--out", str(out)])
    assert done.returncode == 0, done.stdout + done.stderr
    assert {row.model for row in ResultsFolder(out).read(NstarRow)} == set(named)
    # The plan's lookup, and no other: not by the settings, the builder or the jobs.
    assert specs["dense_ssm"] == 1, specs
    assert {name: lookups[name] for name in named} == dict.fromkeys(named, 1)
    # The models whose budgets the cpu preset records, named or not, once in the process.
    assert all(count == 1 for count in lookups.values()), lookups
    assert all(count == 1 for count in specs.values()), specs


LOOKED_UP_THEN_BUILT = """
import json, pathlib, sys, tempfile
from hf_induction.models.registry import model_source
sources = [model_source(name) for name in ("lstm", "hf:org/name", "pretrained:org/name")]
assert [s.cpu_budget.max_steps > 0 for s in sources] == [True] * 3
assert "torch" not in sys.modules, "a lookup imported torch"
from transformers.models.auto.configuration_auto import CONFIG_MAPPING
import hf_induction.models.build as build
assert "hf_induction_lstm" not in CONFIG_MAPPING, "registered by importing the builder"
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "config.json").write_text(json.dumps({"model_type": "hf_induction_lstm"}))
config = build.build_config(f"hf:{folder}", 9)
assert type(config).__name__ == "LSTMConfig" and config.vocab_size == 9, config
"""


@pytest.mark.slow
def test_a_lookup_is_torch_free_and_registration_waits_for_a_saved_config():
    done = subprocess.run([sys.executable, "-c", LOOKED_UP_THEN_BUILT], capture_output=True,
                          text=True, env=env(), timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
