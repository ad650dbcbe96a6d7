"""The command lines as the ecosystem writes them: every flag documented with its default, YAML
recipes whose keys are the flags, one console entry point, and the precision flags."""

import argparse
import importlib
import subprocess
import sys

import pytest
import yaml

from hf_induction.commands import COMMANDS
from hf_induction.commands.nstar import build_parser, campaign_from_args, main, parse_args
from hf_induction.commands.parsing import HelpFormatter
from tests.runner.helpers import ROOT, env

CELL = ["--dataset", "modadd", "--config", "acot_L4_m3"]


def parser_of(command: str) -> argparse.ArgumentParser:
    """The parser a command's main builds, caught at parse_args."""
    module = importlib.import_module(f"hf_induction.commands.{COMMANDS[command][0]}")
    if command == "nstar":
        return module.build_parser()
    caught = []

    def grab(self, *args, **kwargs):
        caught.append(self)
        raise SystemExit(0)

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = grab
    try:
        with pytest.raises(SystemExit):
            module.main([])
    finally:
        argparse.ArgumentParser.parse_args = original
    return caught[0]


@pytest.mark.parametrize("command", list(COMMANDS))
def test_every_flag_has_help_that_shows_its_default(command):
    parser = parser_of(command)
    assert issubclass(parser.formatter_class, HelpFormatter)
    formatter = parser._get_formatter()
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help, f"{command} {action.dest}: no help text"
        if action.option_strings and not action.required:
            text = formatter._get_help_string(action) % {"default": action.default}
            assert "default" in text, f"{command} {action.option_strings[0]}: no default shown"


def test_budget_flags_name_each_presets_value():
    helps = {a.dest: a.help for a in build_parser().flags}
    assert helps["max_steps"].endswith("(default: the budget's: cpu 1500 (gpt2 5000, lstm "
                                       "5000, mamba 3000), finetune 3000, paper 250000)")
    assert "paper 0.001,0.0001,1e-05" in helps["lrs"] and "finetune 1e-05" in helps["lrs"]
    assert helps["position_offsets"].endswith("(default: the budget's: cpu off, finetune on, "
                                              "paper off)")
    assert helps["max_grad_norm"].endswith("(default: the budget's: cpu off, finetune 1, "
                                           "paper off)")


def test_a_recipe_sets_flags_and_the_command_line_overrides_it(tmp_path):
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({
        "dataset": "modadd", "config": ["acot_L4_m3"], "model": ["lstm", "dense_ssm"],
        "max_steps": 77, "lrs": [0.01, 0.003], "full-grid": True, "eval_every": 7}))
    parser = build_parser()
    args = parse_args(parser, ["--config-file", str(recipe), "--max-steps", "99",
                               "--model", "gpt2"])
    assert args.max_steps == 99 and args.model == ["gpt2"]
    assert args.lrs == (0.01, 0.003) and args.full_grid and args.eval_every == 7
    campaign = campaign_from_args(args, parser)
    assert campaign.train.max_steps == 99 and campaign.train.lrs == (0.01, 0.003)
    assert not campaign.train.stop_on_first_success


def test_each_model_trains_at_its_presets_rates_and_a_flag_wins(tmp_path):
    from hf_induction.runner.budgets import BUDGETS

    parser = build_parser()
    out = ["--out", str(tmp_path / "out")]
    cpu = BUDGETS["cpu"]
    campaign = campaign_from_args(parse_args(parser, [*CELL, "--model", "gpt2", *out]), parser)
    train, search = campaign.settings_for("gpt2")
    own = cpu.per_model["gpt2"]
    assert (train.lrs, train.max_steps, train.eval_every) == (
        own["lrs"], own["max_steps"], own["eval_every"])
    assert search.n_max == own["max_steps"] * train.batch_size
    assert campaign.settings_for("dense_ssm") == (campaign.train, campaign.search)
    assert (campaign.train.lrs, campaign.train.max_steps) == (cpu.value("lrs"),
                                                               cpu.value("max_steps"))
    # The protocol holds every model the preset sets apart, whichever models a launch names,
    # so that two launches with other models share one results folder.
    protocol = campaign.protocol()
    assert set(protocol["by_model"]) == set(cpu.per_model)
    assert protocol["by_model"]["gpt2"]["train"]["lrs"] == own["lrs"]
    assert protocol["by_model"]["gpt2"]["search"] == {"n_max": search.n_max}
    other = campaign_from_args(parse_args(parser, [*CELL, "--model", "lstm", *out]), parser)
    assert other.protocol() == protocol
    # A flag is every model's: with the three fields given, no model keeps its own.
    flags = ["--lrs", "1e-3", "--max-steps", "40", "--eval-every", "10"]
    campaign = campaign_from_args(parse_args(parser, [*CELL, "--model", "gpt2", *flags, *out]),
                                  parser)
    assert campaign.settings_for("gpt2")[0].lrs == (1e-3,) and "by_model" not in (
        campaign.protocol())
    partial = campaign_from_args(parse_args(parser, [*CELL, "--lrs", "1e-3", *out]), parser)
    train, _ = partial.settings_for("gpt2")
    assert train.lrs == (1e-3,) and train.max_steps == own["max_steps"]


@pytest.mark.parametrize("recipe,message", [
    ({"max_step": 5}, "unknown key(s) max_step; allowed: batch_size"),
    ({"max_steps": "many"},
     "argument --max-steps: expected an integer in 1..9223372036854775807, got 'many'"),
    ({"kappa": "yes"}, "kappa: --kappa takes true or false"),
    ([1, 2], "expected a mapping of flag: value"),
])
def test_a_bad_recipe_is_one_clear_line(recipe, message, tmp_path, capsys):
    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump(recipe))
    with pytest.raises(SystemExit) as e:
        main(["--config-file", str(path), *CELL, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "out").exists()


def test_a_sweep_carries_its_own_budget_under_the_recipe_and_the_command_line(tmp_path):
    sweep = tmp_path / "sweep.yaml"
    sweep.write_text(yaml.safe_dump({
        "budget": {"max_steps": 50, "seeds": [1, 2, 3], "rtol": 0.5},
        "sweep": [{"dataset": "modadd", "formats": ["acot"], "lengths": [3], "models": ["lstm"]}],
    }))
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({"max_steps": 60}))
    parser = build_parser()
    args = parse_args(parser, ["--sweep", str(sweep), "--config-file", str(recipe)])
    assert (args.max_steps, args.seeds, args.rtol) == (60, (1, 2, 3), 0.5)
    args = parse_args(parser, ["--sweep", str(sweep), "--seeds", "7"])
    assert (args.max_steps, args.seeds) == (50, (7,))
    # Only budget and search flags belong in a sweep's budget.
    sweep.write_text(sweep.read_text().replace("rtol: 0.5", "out: elsewhere"))
    with pytest.raises(SystemExit):
        parse_args(parser, ["--sweep", str(sweep)])


def test_mixed_precision_comes_from_accelerate_launch_or_the_flag(monkeypatch, tmp_path):
    parser = build_parser()
    base = [*CELL, "--out", str(tmp_path / "out")]
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "bf16")
    campaign = campaign_from_args(parse_args(parser, base), parser)
    assert campaign.train.mixed_precision == "bf16"
    assert campaign.protocol()["train"]["mixed_precision"] == "bf16"
    campaign = campaign_from_args(parse_args(parser, [*base, "--mixed-precision", "no",
                                                      "--dtype", "bfloat16"]), parser)
    assert campaign.train.mixed_precision == "no"
    assert campaign.protocol()["train"]["dtype"] == "bfloat16"


def test_fp16_is_refused_in_one_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", "fp16")
    with pytest.raises(SystemExit) as e:
        main([*CELL, "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1 and "loss scaling" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_the_console_entry_point_runs_the_same_commands():
    listing = subprocess.run(["hf-induction"], capture_output=True, text=True, env=env())
    assert listing.returncode == 2 and all(name in listing.stdout for name in COMMANDS)
    published = str(ROOT / "results" / "first_campaign")
    via_entry = subprocess.run(["hf-induction", "kappa", published],
                               capture_output=True, text=True, env=env())
    via_script = subprocess.run([sys.executable, str(ROOT / "scripts" / "kappa.py"), published],
                                capture_output=True, text=True, env=env())
    assert via_entry.returncode == 0 and via_entry.stdout == via_script.stdout
    assert "acot_L10_uniform" in via_entry.stdout
    unknown = subprocess.run(["hf-induction", "train"], capture_output=True, text=True, env=env())
    assert unknown.returncode == 2 and "allowed: nstar" in unknown.stderr


def test_the_budgets_former_flag_still_reads_with_a_note(tmp_path, capsys):
    """`--preset` (published commands use it) and a recipe's `preset:` name the budget, as
    `--budget` does; the flag says its new spelling in one line."""
    parser = build_parser()
    base = ["--dataset", "modadd", "--config", "acot_L4_m3", "--out", str(tmp_path / "o")]
    assert parse_args(parser, [*base, "--budget", "paper"]).budget == "paper"
    assert "note" not in capsys.readouterr().err
    assert parse_args(parser, [*base, "--preset", "paper"]).budget == "paper"
    note = capsys.readouterr().err
    assert "note: --preset is now spelled --budget" in note and len(note.splitlines()) == 1
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(yaml.safe_dump({"preset": "finetune"}))
    assert parse_args(parser, [*base, "--config-file", str(recipe)]).budget == "finetune"
    assert "--preset is now spelled --budget" in capsys.readouterr().err
