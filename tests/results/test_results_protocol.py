"""protocol.json: recorded once, another protocol refused unless forced; atomic writes."""

import json
import os

import pytest

from hf_induction.results import ProtocolMismatch, ResultsFolder, diff_protocols
from hf_induction.results.jsonl import atomic_write_text

PROTOCOL = {
    "epsilon": 1e-4,
    "grid": {"lr": (1e-3, 1e-4, 1e-5), "seed": (10, 20, 30, 40, 50)},
    "max_steps": 2000,
    "search": {"mode": "refined", "rtol": 0.1},
    "package_version": "0.1.0",
}


def _no_tmp_files(root):
    return not [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_protocol_is_written_once_and_accepted_again(tmp_path):
    folder = ResultsFolder(tmp_path)
    h = folder.check_protocol(PROTOCOL)
    assert json.loads((tmp_path / "protocol.json").read_text())["epsilon"] == 1e-4
    assert ResultsFolder(tmp_path).check_protocol(dict(PROTOCOL)) == h
    assert _no_tmp_files(tmp_path)


def test_another_protocol_is_refused_with_the_differing_keys(tmp_path):
    ResultsFolder(tmp_path).check_protocol(PROTOCOL)
    other = {**PROTOCOL, "epsilon": 1e-3, "search": {"mode": "paper", "rtol": 0.1}}
    with pytest.raises(ProtocolMismatch) as info:
        ResultsFolder(tmp_path).check_protocol(other)
    assert set(info.value.differences) == {"epsilon", "search.mode"}
    assert "epsilon" in str(info.value) and "search.mode" in str(info.value)
    assert ResultsFolder(tmp_path).read_protocol()["epsilon"] == 1e-4


def test_a_folder_of_the_first_forecast_rule_is_told_how_to_resume(tmp_path):
    rule = {"name": "forecast", "margin": 10.0, "gap": 0.02, "start": 0.1}
    ResultsFolder(tmp_path / "v1").check_protocol(
        {**PROTOCOL, "train": {"early_failure": rule}})
    now = {**PROTOCOL, "train": {"early_failure": {**rule, "whole_pool": False}}}
    with pytest.raises(ProtocolMismatch, match="--early-failure forecast-v1"):
        ResultsFolder(tmp_path / "v1").check_protocol(now)
    # The other way round (a folder of the rule now, run with the first version): no hint.
    ResultsFolder(tmp_path / "now").check_protocol(now)
    with pytest.raises(ProtocolMismatch) as info:
        ResultsFolder(tmp_path / "now").check_protocol(
            {**PROTOCOL, "train": {"early_failure": rule}})
    assert "forecast-v1" not in str(info.value)


@pytest.mark.parametrize("window,flag", [(None, "off"), (500, "500")])
def test_a_folder_from_before_the_rules_is_told_its_own_flag(tmp_path, window, flag):
    # Such folders recorded no rule, or a patience window, as two keys of their own; a run
    # under the default forecast rule was once told to resume them with forecast-v1.
    ResultsFolder(tmp_path).check_protocol(
        {**PROTOCOL, "train": {"patience_steps": window, "min_improvement": 0.5}})
    now = {**PROTOCOL, "train": {"early_failure": {"name": "forecast", "gap": 0.02}}}
    with pytest.raises(ProtocolMismatch) as info:
        ResultsFolder(tmp_path).check_protocol(now)
    assert f"resume it with --early-failure {flag}, or" in str(info.value)
    assert "forecast-v1" not in str(info.value)


def test_force_replaces_the_protocol(tmp_path):
    ResultsFolder(tmp_path).check_protocol(PROTOCOL)
    other = {**PROTOCOL, "max_steps": 10}
    with pytest.warns(UserWarning, match="max_steps"):
        ResultsFolder(tmp_path).check_protocol(other, force=True)
    assert ResultsFolder(tmp_path).read_protocol()["max_steps"] == 10


def test_only_rank_zero_writes_shared_files(tmp_path):
    ResultsFolder(tmp_path, rank=1).check_protocol(PROTOCOL)
    assert not (tmp_path / "protocol.json").exists()
    assert not (tmp_path / "README.md").exists()
    ResultsFolder(tmp_path, rank=0)
    assert (tmp_path / "README.md").exists()


def test_diff_names_added_and_removed_keys():
    diff = diff_protocols({"a": 1, "b": {"c": 2}}, {"a": 1, "b": {"d": 2}})
    assert diff == {"b.c": (2, "<absent>"), "b.d": ("<absent>", 2)}


def test_atomic_write_leaves_old_content_and_no_tmp_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    atomic_write_text(target, "old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert _no_tmp_files(tmp_path)


def test_a_model_joins_a_folder_at_its_own_settings_and_no_key_changes(tmp_path):
    # The folder was made with two models of their own; a later launch names a third.
    mine = {"train": {"lrs": [0.003], "max_steps": 5000}}
    first = {**PROTOCOL, "by_model": {"deltanet": mine, "mamba": {"train": {"max_steps": 3000}}}}
    h = ResultsFolder(tmp_path).check_protocol(first)
    later = {**PROTOCOL, "by_model": {"mamba": {"train": {"max_steps": 3000}},
                                      "xlstm": {"train": {"lrs": [0.01]}}}}
    assert ResultsFolder(tmp_path).check_protocol(later) == h
    held = ResultsFolder(tmp_path).read_protocol()
    assert held["by_model"]["xlstm"] == {"train": {"lrs": [0.01]}}
    assert held["by_model"]["deltanet"] == mine and held["added_models"] == ["xlstm"]
    # The first launch resumes with its hash, and reading the folder back gives it too.
    assert ResultsFolder(tmp_path).check_protocol(first) == h
    assert ResultsFolder(tmp_path).check_protocol(held) == h
    # A joined model's settings are held to from then on, as a recorded model's are.
    with pytest.raises(ProtocolMismatch) as info:
        ResultsFolder(tmp_path).check_protocol(
            {**PROTOCOL, "by_model": {"xlstm": {"train": {"lrs": [0.1]}}}})
    assert set(info.value.differences) == {"by_model.xlstm.train.lrs"}
    with pytest.raises(ProtocolMismatch, match="by_model.mamba.train.max_steps"):
        ResultsFolder(tmp_path).check_protocol(
            {**PROTOCOL, "by_model": {"mamba": {"train": {"max_steps": 100}}}})
    # A shared setting that differs still refuses the launch, whatever model it adds.
    with pytest.raises(ProtocolMismatch, match="max_steps"):
        ResultsFolder(tmp_path).check_protocol(
            {**PROTOCOL, "max_steps": 10, "by_model": {"rope": {"train": {"lrs": [1.0]}}}})
    assert "rope" not in ResultsFolder(tmp_path).read_protocol()["by_model"]


def test_a_folder_without_models_of_their_own_takes_one_and_keeps_its_hash(tmp_path):
    h = ResultsFolder(tmp_path).check_protocol(PROTOCOL)
    assert ResultsFolder(tmp_path).check_protocol(
        {**PROTOCOL, "by_model": {"lstm": {"train": {"max_steps": 5000}}}}) == h
    assert ResultsFolder(tmp_path).read_protocol()["added_models"] == ["lstm"]
    assert "- lstm (added to the folder later): 5,000 steps" in (tmp_path / "README.md").read_text()
    assert ResultsFolder(tmp_path).check_protocol(PROTOCOL) == h
