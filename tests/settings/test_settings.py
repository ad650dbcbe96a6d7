"""Each setting is declared once: its settings object's field, its flag and recipe key, its
value under each preset and its protocol record all come from the declaration."""

import dataclasses
import re
import subprocess
import sys

import pytest

from hf_induction.settings import ALWAYS, SEARCH, SETTINGS, SWEEP_GROUPS, TRAINING, resolve
from tests.runner.helpers import env


def test_every_field_of_the_settings_objects_is_declared_once():
    from hf_induction.search import SearchSettings
    from hf_induction.training import TrainSettings

    names = [s.name for s in SETTINGS]
    assert len(names) == len(set(names))
    assert {f.name for f in dataclasses.fields(TrainSettings)} == {s.name for s in TRAINING}
    assert {f.name for f in dataclasses.fields(SearchSettings)} == {s.name for s in SEARCH}


def test_the_presets_are_read_from_the_declarations():
    from hf_induction.runner.budgets import BUDGETS

    named = {preset for s in SETTINGS for preset in s.presets}
    assert named <= set(BUDGETS)
    # The paper's budget: 250,000 Adam steps at batch 64, lr {1e-3, 1e-4, 1e-5} x seed {10..50},
    # ε = 1e-4, every run to its budget.
    paper = BUDGETS["paper"].values()
    assert (paper["max_steps"], paper["eval_every"], paper["batch_size"], paper["epsilon"]) == (
        250_000, 1000, 64, 1e-4)
    assert paper["lrs"] == (1e-3, 1e-4, 1e-5) and paper["seeds"] == (10, 20, 30, 40, 50)
    assert (paper["early_failure"], paper["weight_decay"], paper["max_grad_norm"]) == (
        "off", 0.0, None)
    finetune = BUDGETS["finetune"].values()
    assert tuple(finetune[name] for name in (
        "lrs", "weight_decay", "warmup", "lr_schedule", "max_grad_norm", "position_offsets",
        "eval_batch_size")) == ((1e-5,), 0.01, 0.15, "linear", 1.0, True, 16)
    assert BUDGETS["cpu"].value("n_start") == 8
    with pytest.raises(ValueError, match="no setting 'max_step'"):
        BUDGETS["paper"].value("max_step")


def test_the_flags_and_the_sweep_keys_are_the_declared_settings():
    import argparse

    from hf_induction.commands.nstar import _budget_actions, build_parser

    parser = build_parser()
    flags = {a.option_strings[0]: a for a in parser.flags if a.option_strings}
    declared = [s for s in SETTINGS if s.option is not None]
    assert all(s.option in flags and flags[s.option].dest == s.dest for s in declared)
    # The settings without a flag: set by the preset, or the search's constants.
    assert {s.name for s in SETTINGS if s.option is None} == {"midpoint", "factor", "growth"}
    sweep_keys = {a.dest for a in _budget_actions(parser)}
    assert sweep_keys == {s.dest for s in declared if s.group in SWEEP_GROUPS}
    assert {"max_steps", "lrs", "rtol", "n_max"} <= sweep_keys
    assert not {"device", "full_grid", "search", "out"} & sweep_keys
    assert isinstance(flags["--full-grid"], argparse._StoreTrueAction)


def test_a_value_given_wins_over_the_models_own_over_the_preset():
    values = resolve(SETTINGS, "cpu", {"lrs": (1e-3,)}, own={"lrs": (5e-3,), "max_steps": 40})
    assert values["lrs"] == (1e-3,) and values["max_steps"] == 40
    # n_max follows the resolved budget unless given; the paper's search trains every run.
    assert values["n_max"] == 40 * 64 and values["early_failure"] == "forecast"
    paper = resolve(SETTINGS, "cpu", {"mode": "paper", "n_max": 7})
    assert paper["n_max"] == 7 and paper["early_failure"] == "off"
    given = resolve(SETTINGS, "cpu", {"mode": "paper", "early_failure": "500"})
    assert given["early_failure"] == "500"


def test_a_setting_added_later_is_recorded_only_away_from_its_plain_value():
    later = [s for s in TRAINING if s.plain is not ALWAYS]
    assert later
    for s in later:
        assert s.protocol_record(s.plain) == {}
    warmup = next(s for s in TRAINING if s.name == "warmup")
    assert warmup.protocol_record(0.15) == {"warmup": 0.15}
    device = next(s for s in TRAINING if s.name == "device")
    assert device.protocol_record("cuda") == {}


def test_the_command_line_is_parsed_and_its_settings_resolved_without_torch(tmp_path):
    code = (
        "import sys\n"
        "from hf_induction.commands.nstar import build_parser, given_settings, parse_args\n"
        "from hf_induction.runner.launch import plan_launch\n"
        "from hf_induction.settings import SETTINGS, resolve\n"
        "parser = build_parser()\n"
        f"args = parse_args(parser, ['--dataset', 'modadd', '--config', 'acot_L4_m3', "
        f"'--model', 'lstm', 'gpt2', '--lrs', '1e-3', '--out', {str(tmp_path / 'o')!r}])\n"
        "plan = plan_launch(args)\n"
        "values = resolve(SETTINGS, args.budget, given_settings(args))\n"
        "assert values['lrs'] == (1e-3,) and len(plan.jobs) == 2\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_setting_outside_the_protocol_is_set_by_its_flag_and_changes_no_hash(tmp_path):
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args

    parser = build_parser()
    base = ["--dataset", "modadd", "--config", "acot_L4_m3", "--preset", "finetune",
            "--out", str(tmp_path / "o")]
    preset = campaign_from_args(parse_args(parser, base), parser)
    given = campaign_from_args(parse_args(parser, [*base, "--eval-batch-size", "4"]), parser)
    assert (preset.train.eval_batch_size, given.train.eval_batch_size) == (16, 4)
    assert given.protocol() == preset.protocol()
    assert "(default: the budget's: cpu 256, finetune 16, paper 256)" in next(
        a.help for a in parser.flags if a.dest == "eval_batch_size")


@pytest.mark.parametrize("holder, declared", [("TrainSettings", "TRAINING"),
                                              ("SearchSettings", "SEARCH"),
                                              ("LaunchOptions", "LAUNCH")])
def test_a_settings_object_holds_exactly_the_declared_settings_at_their_declared_defaults(
        holder, declared):
    """A field without a declaration, or a declaration without a field, fails here; so does a
    default written beside the declaration's."""
    import hf_induction.settings as settings
    from hf_induction.runner.settings import LaunchOptions
    from hf_induction.search import SearchSettings
    from hf_induction.training import TrainSettings

    cls = {"TrainSettings": TrainSettings, "SearchSettings": SearchSettings,
           "LaunchOptions": LaunchOptions}[holder]
    part = getattr(settings, declared)
    fields = {f.name: f.default for f in dataclasses.fields(cls)}
    assert set(fields) == {s.name for s in part}
    assert fields == settings.defaults(part)


@pytest.mark.parametrize("build, message", [
    (lambda T, S: T(batch_size=0), "batch_size: expected an integer >= 1"),
    (lambda T, S: T(lrs=(1e-3, 1e-3)), "lrs: '0.001,0.001' gives 0.001 more than once"),
    (lambda T, S: T(seeds=(-1,)), "seeds: expected an integer >= 0"),
    (lambda T, S: T(warmup=1.5), "warmup: expected a fraction of the steps"),
    (lambda T, S: T(validation="held-out"), "validation must be one of disjoint"),
    (lambda T, S: S(factor=1), "factor: expected an integer >= 2"),
    (lambda T, S: S(n_start=0), "n_start: expected an integer >= 1"),
    (lambda T, S: S(mode="bisect"), "mode must be one of paper, refined"),
])
def test_a_settings_objects_bounds_are_the_declarations(build, message):
    """The Python API refuses what the flags refuse, in the declaration's words."""
    from hf_induction.search import SearchSettings
    from hf_induction.training import TrainSettings

    with pytest.raises(ValueError, match=re.escape(message)) as e:
        build(TrainSettings, SearchSettings)
    assert len(str(e.value).splitlines()) == 1


def test_how_a_launch_runs_never_changes_its_protocol(tmp_path):
    """Every launch option (`settings.LAUNCH`) away from its default leaves the protocol, and
    so the folder's hash, as it was; a new option must be given a value here."""
    from hf_induction.runner.run import Campaign
    from hf_induction.runner.settings import LaunchOptions
    from hf_induction.search import SearchSettings
    from hf_induction.settings import LAUNCH
    from hf_induction.training import TrainSettings

    changed = {"force": True, "reach": True, "keep_checkpoints": True, "threads": 1,
               "schedule": "static", "warm_start": False, "progress": False,
               "report_to": ("tensorboard",), "logging_dir": tmp_path / "runs",
               "push_to_hub": "org/name", "push_checkpoints": "probes"}
    assert set(changed) == {s.name for s in LAUNCH}
    assert all(changed[s.name] != s.default for s in LAUNCH)
    train, search = TrainSettings(max_steps=10), SearchSettings()
    plain = Campaign((), train, search, "tiny", tmp_path / "o").protocol()
    for name, value in changed.items():
        launch = LaunchOptions(**{name: value})
        assert Campaign((), train, search, "tiny", tmp_path / "o", launch).protocol() == plain
    # A training setting does change it: the comparison can fail.
    assert Campaign((), TrainSettings(max_steps=11), search, "tiny",
                    tmp_path / "o").protocol() != plain
