"""Command line of the N* search: ``accelerate launch -m hf_induction nstar ...`` (or
``hf-induction nstar ...``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from ..runner.budgets import BUDGETS
from ..settings import GROUPS, SETTINGS, SWEEP_GROUPS, Setting
from ..settings.values import OFF
from ..sweeps import find_sweep, sweep_file
from ..tasks import DATASETS
from .parsing import (
    Parser,
    add_groups_flag,
    ascii_only,
    nonnegative_int,
    output_folder,
    prog,
    push_outcome,
    read_recipe,
    recipe_tokens,
    rows,
)

# How the command names itself in its usage and its errors.
PROG = prog(__name__)
BUDGET_FLAG, FORMER_BUDGET_FLAG = "--budget", "--preset"

EXAMPLES = """examples:
  accelerate launch -m hf_induction nstar --dataset modadd --config acot_L10_uniform \\
      --model dense_ssm
  accelerate launch -m hf_induction nstar --dataset modadd --config acot_L5 \\
      --model dense_ssm lstm --kappa --out build/acot_L5
  hf-induction nstar --config-file recipe.yaml --model lstm   # the command line overrides the file
  hf-induction kappa build/acot_L5
"""


def _length_range(text: str):
    from ..runner.lengths import LengthRange

    try:
        # The bounds' grammar reads \d, which takes a full-width digit for its ASCII one.
        return LengthRange(ascii_only(text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _show(value: Any) -> str:
    """A setting's value as its flag is written: 1e-05, 0.001,0.0001, on, off."""
    if isinstance(value, tuple):
        return ",".join(map(_show, value))
    if isinstance(value, bool):
        return "on" if value else "off"
    return OFF if value is None else value if isinstance(value, str) else f"{value:g}"


def _presets(name: str) -> str:
    """'cpu 1500 (gpt2 5000), paper 250000': a setting's value under each preset, with the
    models a preset gives their own value in parentheses."""
    def preset(b) -> str:
        own = ", ".join(f"{model} {_show(fields[name])}"
                        for model, fields in sorted(b.per_model.items()) if name in fields)
        return _show(b.value(name)) + (f" ({own})" if own else "")

    return ", ".join(f"{name_} {preset(b)}" for name_, b in sorted(BUDGETS.items()))


def _default_text(setting: Setting) -> str:
    """The "(default: ...)" of a setting's flag: its value, or each preset's where they set it."""
    if setting.default_help is not None:
        return setting.default_help.format(presets=_presets(setting.name))
    by_model = any(setting.name in fields for b in BUDGETS.values()
                   for fields in b.per_model.values())
    if setting.presets or by_model:
        return f"the budget's: {_presets(setting.name)}"
    return _show(setting.default)


def add_setting_flags(parser: argparse.ArgumentParser, group: str | None):
    """The flags of the settings declared in help group ``group`` (`settings.GROUPS`)."""
    where = parser if group is None else parser.add_argument_group(GROUPS[group])
    for s in SETTINGS:
        if s.option is None or s.group != group:
            continue
        text = f"{s.help} (default: {_default_text(s)})"
        # No default: a flag not given is None, and the setting takes the budget's value.
        if s.switch_to is not None:
            where.add_argument(s.option, action="store_true", default=None, help=text)
        elif s.negatable:
            where.add_argument(s.option, action=argparse.BooleanOptionalAction, default=None,
                               help=text)
        else:
            where.add_argument(s.option, type=s.parse, choices=s.choices, metavar=s.metavar,
                               nargs=s.nargs, const=s.const, default=None, help=text)
    return where


def given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """{setting: value} of the settings given as flags (or by the recipe, the sweep's budget)."""
    given = {}
    for s in SETTINGS:
        value = None if s.dest is None else getattr(args, s.dest)
        if value is not None:
            given[s.name] = value if s.switch_to is None else s.switch_to
    return given


def build_parser() -> argparse.ArgumentParser:
    from ..models.registry import OUTSIDE_FORMS, model_names

    p = Parser(prog=PROG, description="Find N*, the minimal training-set size, and "
               "the sharing factor kappa.", epilog=EXAMPLES)
    p.add_argument("--config-file", type=Path, metavar="YAML",
                   help="a recipe: a YAML mapping whose keys are these flags (max_steps: 5000, "
                   "lrs: [1e-3, 1e-4], model: [lstm], ...); flags on the command line "
                   "override it (default: none)")
    p.add_argument("--dataset", choices=DATASETS, help="the task (default: none; give it "
                   "with --config, or use --sweep)")
    p.add_argument("--config", nargs="+", metavar="NAME",
                   help="task configs, e.g. acot_L10_uniform (grammar in the dataset card; "
                   "default: none)")
    add_groups_flag(p)
    p.add_argument("--sweep", type=sweep_file, metavar="FILE",
                   help="a sweep file, or paper_grid (the paper's whole grid, which the "
                   "package ships), in place of "
                   "--dataset/--config/--model/--kappa; its optional 'budget:' mapping takes "
                   "the budget and search flags, under --config-file and the command line "
                   "(default: none)")
    p.add_argument("--model", nargs="+", default=["dense_ssm"], metavar="NAME",
                   help=f"models: {', '.join(model_names())}, hf:PATH_OR_REPO_ID (its "
                   "architecture trained from scratch at the task's vocabulary), "
                   "pretrained:PATH_OR_REPO_ID (its weights fine-tuned, the task's tokens read "
                   f"as single tokens of its own tokenizer) or {OUTSIDE_FORMS}")
    # --preset, its former name, is still read (published commands use it), with a note.
    p.add_argument(BUDGET_FLAG, FORMER_BUDGET_FLAG, dest="budget", choices=sorted(BUDGETS),
                   default="cpu",
                   help="the budget, and the size its models are built at: cpu (tiny models, "
                   "minutes), paper (the paper's, models at the paper's size), or finetune (the "
                   "second study's fine-tuning: AdamW lr 1e-5, weight decay 0.01, warmup 15%%, "
                   "batch 64, random position offsets; for pretrained: models)")
    p.add_argument("--kappa", action="store_true",
                   help="search N*_n for n = 2..L and N*_joint, then write kappa")
    # A string default goes through the type, so the default folder is checked as a given one.
    p.add_argument("--out", type=output_folder, default="build/results",
                   help="the results folder (the repository's results/ holds the published "
                   "campaign)")
    p.add_argument("--ood", nargs="?", type=rows, const=0, default=None, metavar="N",
                   help="after each named config's search, train at size N (no N: the "
                   "largest the budget and pool allow) and test at length 2L (default: off)")
    p.add_argument("--lengthgen", nargs="?", type=rows, const=0, default=None, metavar="N",
                   help="after each named config's search, train at size N (no N: the largest "
                   "the budget and pool allow) and score the best run on the validation set and "
                   "every longer test split with the task's own metrics (default: off)")
    p.add_argument("--test-lengths", metavar="FROM..TO", type=_length_range,
                   help="with --lengthgen: score one test split of lengths FROM..TO in place of "
                   "each cell's own, each bound a number or kL+c (L+1..2L: for L = 100 the "
                   "second study's fine-tuning split 101..200, for any family) (default: the "
                   "cell's test splits)")
    p.add_argument("--no-search", action="store_true",
                   help="run only the --ood / --lengthgen checks, no N* search")
    # The settings' flags, each read from its declaration (`settings.declared`).
    add_setting_flags(p, None)
    add_setting_flags(p, "budget")
    add_setting_flags(p, "search")
    r = add_setting_flags(p, "run")
    r.add_argument("--data-seed", type=nonnegative_int, default=0, help="seed of the cells' data")
    return p


def _budget_actions(parser: Parser) -> list[argparse.Action]:
    """The flags a sweep file's 'budget:' may set: the settings of `SWEEP_GROUPS`."""
    keys = {s.dest for s in SETTINGS if s.option is not None and s.group in SWEEP_GROUPS}
    return [a for a in parser.flags if a.dest in keys]


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The command line over its recipe (--config-file) over the sweep file's budget: each
    layer is parsed as flags, earlier tokens, so a later layer's values win."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--config-file", type=Path)
    pre.add_argument("--sweep")
    known, _ = pre.parse_known_args(argv)
    recipe: list[str] = []
    recipe_keys: list[str] = []
    try:
        if known.config_file is not None:
            written = read_recipe(known.config_file)
            recipe_keys = list(written)
            recipe = recipe_tokens(parser, written, f"--config-file {known.config_file}")
        # The sweep file may be named on the command line or in the recipe.
        sweep = None if known.sweep is None else find_sweep(known.sweep)
        if sweep is None and recipe:
            sweep = parser.parse_args(recipe).sweep
        budget: list[str] = []
        if sweep is not None:
            from ..runner.sweep import SWEEP_EXPECTED
            from ..yaml_files import read_yaml

            spec = read_yaml(sweep, SWEEP_EXPECTED)
            if not isinstance(spec, dict):
                raise ValueError(f"{sweep}: expected {SWEEP_EXPECTED}")
            if spec.get("budget") is not None:
                if not isinstance(spec["budget"], dict):
                    raise ValueError(f"{sweep}: 'budget:' must be a mapping of flag: value")
                budget = recipe_tokens(parser, spec["budget"], f"{sweep}: budget",
                                       _budget_actions(parser))
    except ValueError as e:
        parser.error(str(e))
    args = parser.parse_args(budget + recipe + argv)
    # Said once the line parses, so that a usage error stays one line.
    if FORMER_BUDGET_FLAG in argv or FORMER_BUDGET_FLAG[2:] in recipe_keys:
        print(f"{PROG}: note: {FORMER_BUDGET_FLAG} is now spelled {BUDGET_FLAG} (the same "
              "values); the old spelling still works", file=sys.stderr)
    return args


def campaign_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser):
    """The `Campaign` the arguments ask for, everything checked before anything is written
    (`runner.launch.campaign_of`); errors go through parser.error."""
    from ..runner.launch import campaign_of

    try:
        return campaign_of(args, given_settings(args))
    except ValueError as e:
        parser.error(str(e))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parse_args(parser, argv)
    # Arguments are checked before torch and the trainer are imported: usage errors are fast.
    campaign = campaign_from_args(args, parser)
    if campaign.train.device == "cpu":
        import torch

        # Tiny models are bound by per-op overhead, which a second thread only adds to; use
        # more processes instead (docs/benchmarks.md, threads). Set here, where the campaign
        # runs, not where its arguments are checked.
        torch.set_num_threads(campaign.launch.threads or 1)
    from ..results import CorruptResults, ProtocolMismatch
    from ..runner.run import plan_text, print_tables, run_campaign

    # Said once, by the first process, before anything trains: what will run, under which
    # budget, and for how long at most.
    if int(os.environ.get("RANK", "0")) == 0:
        print(plan_text(campaign, int(os.environ.get("WORLD_SIZE", "1"))), flush=True)

    from ..hub import HubError
    from ..runner.signals import Terminated, run_interruptible

    def record_command() -> None:
        # The folder's card lists the command lines that wrote into it, once each.
        from ..results import ResultsFolder

        command = sys.argv if argv is None else ["hf-induction", "nstar", *argv]
        if (campaign.out / "protocol.json").exists():
            ResultsFolder(campaign.out, rank=int(os.environ.get("RANK", "0"))).record_command(
                command)

    try:
        # SIGTERM (a scheduler's preemption, torchrun stopping its workers) ends like Ctrl-C.
        results = run_interruptible(lambda: run_campaign(campaign))
        record_command()
    except (ProtocolMismatch, CorruptResults) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        record_command()
        what = "terminated" if isinstance(e, Terminated) else "interrupted"
        print(f"{PROG}: {what}; every finished run is journaled in {campaign.out}, and a "
              "rerun resumes", file=sys.stderr)
        return 143 if isinstance(e, Terminated) else 130
    except OSError as e:
        # Disk full, a read-only or vanished folder: nothing finished is lost.
        what = e.strerror or type(e).__name__
        where = f": {e.filename}" if e.filename else ""
        print(f"{PROG}: error: {what}{where} (the results in {campaign.out} are kept; a "
              "rerun resumes)", file=sys.stderr)
        return 1
    except HubError as e:
        print(f"{PROG}: error: {e} (the results in {campaign.out} are kept; a rerun "
              "resumes)", file=sys.stderr)
        return 1
    if results.nstar or results.lengthgen or results.ood:
        print_tables(results)
    repo = campaign.launch.push_to_hub
    if repo and (results.nstar or results.lengthgen or results.ood):
        from ..hub import push_results

        outcome = push_outcome(PROG, lambda: push_results(campaign.out, repo, create=True),
                               f"the results in {campaign.out} are kept")
        if outcome is None:
            return 1
        print(f"results pushed to {repo} ({outcome})")
    # A search whose every run diverged measured the learning rates, not N*: not a result.
    return 1 if results.measured_nothing else 0
