"""Command line of the N* search: ``accelerate launch -m hf_induction nstar ...`` (or
``hf-induction nstar ...``)."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runner.budgets import BUDGETS
from ..runner.schedule import SCHEDULES
from ..runner.tracking import REPORT_TO, check_available
from ..settings import GROUPS, SETTINGS, SWEEP_GROUPS, Setting
from ..settings.values import OFF
from ..sweeps import find_sweep, sweep_file
from ..tasks import DATASETS, parse
from .parsing import (
    Parser,
    add_groups_flag,
    ascii_only,
    first_line,
    int_in,
    nonnegative_int,
    once,
    output_folder,
    prog,
    push_outcome,
    read_recipe,
    recipe_tokens,
    register_groups,
    repo_id,
    rows,
)

# How the command names itself in its usage and its errors.
PROG = prog(__name__)

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
        return ",".join(f"{v:g}" for v in value)
    if isinstance(value, bool):
        return "on" if value else "off"
    return OFF if value is None else value if isinstance(value, str) else f"{value:g}"


def _presets(name: str) -> str:
    """'cpu 1500 (gpt2 5000), paper 250000': a setting's value under each preset, with the
    models a preset gives their own value in parentheses."""
    def preset(b) -> str:
        own = ", ".join(f"{model} {_show(fields[name])}"
                        for model, fields in sorted(b.per_model.items()) if name in fields)
        return _show(getattr(b, name)) + (f" ({own})" if own else "")

    return ", ".join(f"{name_} {preset(b)}" for name_, b in sorted(BUDGETS.items()))


def _default_text(setting: Setting) -> str:
    """The "(default: ...)" of a setting's flag: its value, or each preset's where they set it."""
    if setting.default_help is not None:
        return setting.default_help.format(presets=_presets(setting.name))
    by_model = any(setting.name in fields for b in BUDGETS.values()
                   for fields in b.per_model.values())
    if setting.presets or by_model:
        return f"the preset's: {_presets(setting.name)}"
    return _show(setting.default)


def add_setting_flags(parser: argparse.ArgumentParser, group: str | None):
    """The flags of the settings declared in help group ``group`` (`settings.GROUPS`)."""
    where = parser if group is None else parser.add_argument_group(GROUPS[group])
    for s in SETTINGS:
        if s.option is None or s.group != group:
            continue
        text = f"{s.help} (default: {_default_text(s)})"
        # No default: a flag not given is None, and the setting takes the preset's value.
        if s.switch_to is not None:
            where.add_argument(s.option, action="store_true", default=None, help=text)
        else:
            where.add_argument(s.option, type=s.parse, choices=s.choices, metavar=s.metavar,
                               default=None, help=text)
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
    p.add_argument("--preset", choices=sorted(BUDGETS), default="cpu",
                   help="budget and model sizes: cpu (tiny models, minutes), paper, or finetune "
                   "(the second study's fine-tuning: AdamW lr 1e-5, weight decay 0.01, warmup "
                   "15%%, batch 64, random position offsets; for pretrained: models)")
    p.add_argument("--kappa", action="store_true",
                   help="search N*_n for n = 2..L and N*_joint, then write kappa")
    # A string default goes through the type, so the default folder is checked as a given one.
    p.add_argument("--out", type=output_folder, default="build/results",
                   help="the results folder (the repository's results/ holds the published "
                   "campaign)")
    p.add_argument("--force", action="store_true",
                   help="use an output folder recorded under another protocol")
    p.add_argument("--ood", nargs="?", type=rows, const=0, default=None, metavar="N",
                   help="after each named config's search, train at size N (no N: the "
                   "largest the budget and pool allow) and test at length 2L (default: off)")
    p.add_argument("--reach", action="store_true",
                   help="with --ood (or a sweep's ood: true): also score each OOD check's best "
                   "run at 2L, 4L, 10L, 100L and 1,000L (500 rows a length; a model with "
                   "learned positions only as far as they go) (default: off)")
    p.add_argument("--lengthgen", nargs="?", type=rows, const=0, default=None, metavar="N",
                   help="after each named config's search, train at size N (no N: the largest "
                   "the budget and pool allow) and score the best run on the validation set and "
                   "every longer test split with the task's own metrics (default: off)")
    p.add_argument("--test-lengths", metavar="FROM..TO", type=_length_range,
                   help="with --lengthgen: score one test split of lengths FROM..TO in place of "
                   "each cell's own, each bound a number or kL+c (L+1..2L: for L = 100 the "
                   "second study's fine-tuning split 101..200, for any family) (default: the "
                   "cell's test splits)")
    p.add_argument("--keep-checkpoints", action="store_true",
                   help="with --lengthgen: keep each check's best run (model, tokenizer and "
                   "what it was trained on) in OUT/checkpoints/MODEL-CONFIG-nN/, for "
                   "`hf-induction heads`; a rerun keeps those of recorded checks too (it "
                   "changes no result, and no protocol)")
    p.add_argument("--no-search", action="store_true",
                   help="run only the --ood / --lengthgen checks, no N* search")
    # The settings' flags, each read from its declaration (`settings.declared`).
    add_setting_flags(p, None)
    add_setting_flags(p, "budget")
    add_setting_flags(p, "search")
    r = add_setting_flags(p, "run")
    r.add_argument("--data-seed", type=nonnegative_int, default=0, help="seed of the cells' data")
    r.add_argument("--threads", type=int_in(1, os.cpu_count() or 1, "this machine's cores"),
                   default=None,
                   help="torch threads per process on the CPU (default 1: on 2 cores, two "
                   "1-thread processes ran 2.9x the searches per hour of one 2-thread process)")
    r.add_argument("--schedule", choices=SCHEDULES, default="dynamic",
                   help="with several processes: dynamic gives the next job to the first one "
                   "free (a counter in the launcher's rendezvous store); static gives each "
                   "every P-th job")
    r.add_argument("--warm-start", action=argparse.BooleanOptionalAction, default=True,
                   help="start each refined search from the N* of its nearest finished "
                   "neighbour in OUT (the same model at a shorter length or smaller m, the "
                   "other models on the cell, the same model at a longer length or on another "
                   "group; one whose largest size failed sends it to its cap first), at a "
                   "point of the cold search's own climb, so that under outcomes monotone in "
                   "N it finds the same N* from fewer probes (1.53x fewer replayed on the "
                   "published searches); it changes no run, and no protocol")
    r.add_argument("--no-progress", action="store_true", help="no progress bars")
    r.add_argument("--report-to", nargs="+", choices=REPORT_TO, default=["none"],
                   metavar="TRACKER",
                   help=f"experiment trackers, through Accelerate: {', '.join(REPORT_TO)}; each "
                   "search is one tracker run, every training run one validation curve")
    r.add_argument("--logging-dir", type=output_folder, default=None,
                   help="where TensorBoard and wandb write (default: OUT/runs; trackio uses "
                   "its own store)")
    r.add_argument("--push-to-hub", metavar="ORG/REPO", type=repo_id,
                   help="upload the results folder to this Hub dataset repo when done "
                   "(default: no upload)")
    r.add_argument("--push-checkpoints", nargs="?", const="nstar", choices=("nstar", "probes"),
                   help="with --push-to-hub: push the winning run at N* (default) or of every "
                   "succeeding probe as model repos ORG/REPO-MODEL-CONFIG-nN (default: none)")
    return p


def _budget_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The flags a sweep file's 'budget:' may set: the settings of `SWEEP_GROUPS`."""
    keys = {s.dest for s in SETTINGS if s.option is not None and s.group in SWEEP_GROUPS}
    return [a for a in parser._actions if a.dest in keys]


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The command line over its recipe (--config-file) over the sweep file's budget: each
    layer is parsed as flags, earlier tokens, so a later layer's values win."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--config-file", type=Path)
    pre.add_argument("--sweep")
    known, _ = pre.parse_known_args(argv)
    recipe: list[str] = []
    try:
        if known.config_file is not None:
            recipe = recipe_tokens(parser, read_recipe(known.config_file),
                                   f"--config-file {known.config_file}")
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
    return parser.parse_args(budget + recipe + argv)


def check_device(text: str) -> str:
    """The device, or ValueError saying why it cannot train here and what can.

    The spelling is checked without torch; only whether CUDA is present needs it."""
    match = re.fullmatch(r"(cpu|cuda)(?::([0-9]+))?", text)
    if match is None or (match[1] == "cpu" and match[2] is not None):
        raise ValueError(f"--device {text!r} is not a device this trainer runs on; allowed: "
                         "cpu, cuda, cuda:N")
    if match[1] == "cpu":
        return text
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        raise ValueError(f"--device {text}: no CUDA device here; use --device cpu")
    if match[2] is not None and int(match[2]) >= count:
        raise ValueError(f"--device {text}: this machine has cuda:0..cuda:{count - 1}")
    return text


def check_results_folder(out: Path) -> None:
    """A results folder whose protocol.json is garbled is refused before anything is written."""
    from ..results import CorruptResults, ResultsFolder

    try:
        ResultsFolder(out, write=False).read_protocol()
    except CorruptResults as e:
        raise ValueError(str(e)) from None


@dataclass(frozen=True)
class Plan:
    """What a launch asks to run, checked without torch: its jobs, their cells and models (each
    name's `ModelSource`, looked up once, here), and the cells of each check."""

    jobs: tuple
    cells: tuple
    models: tuple[str, ...]
    ood_cells: tuple = ()
    lengthgen_cells: tuple = ()
    sources: dict = field(default_factory=dict)
    # The groups from generators (``--groups``) the cells may name: name -> generators.
    groups: dict = field(default_factory=dict)


def _jobs(args: argparse.Namespace):
    """(jobs, cells, the sweep or None) of --sweep, or of --dataset, --config and --model."""
    from ..runner.job import plan_jobs
    from ..runner.sweep import check_kappa, load_sweep

    if (args.sweep is None) == (args.dataset is None or args.config is None):
        raise ValueError("give either --dataset and --config, or --sweep FILE")
    if args.sweep is not None:
        sweep = load_sweep(args.sweep, args.data_seed)
        return sweep.jobs, jobs_cells(sweep.jobs), sweep
    cells = [parse(args.dataset, name) for name in args.config]
    once("--config", args.config, cells)
    once("--model", args.model)
    if args.kappa:
        check_kappa(cells)
    jobs = plan_jobs(cells, args.model, args.kappa, args.data_seed, search=not args.no_search)
    return jobs, cells, None


def plan_from_args(args: argparse.Namespace) -> Plan:
    """The launch's `Plan`, or ValueError in one line naming the flag at fault; torch is not
    imported (but to count the CUDA devices a --device cuda:N asks of)."""
    from ..models import registry
    from ..results.folder import GROUPS_FILE
    from ..tasks.group_names import register_groups_file

    # The folder's groups first (a rerun resumes without --groups), then the flag's: a name
    # the two define differently is refused.
    if (args.out / GROUPS_FILE).is_file():
        register_groups_file(args.out / GROUPS_FILE)
    groups = register_groups(args)
    jobs, cells, sweep = _jobs(args)
    if not jobs:
        raise ValueError("nothing to run: the cells and models given make no job")
    models = tuple(dict.fromkeys(j.model for j in jobs))
    # The one lookup of each name: the settings and the builder take its source.
    sources = {model: registry.model_source(model) for model in models}
    check_available(args.report_to)
    check_results_folder(args.out)
    if args.device is not None:
        check_device(args.device)
    if args.push_checkpoints and not args.push_to_hub:
        raise ValueError("--push-checkpoints needs --push-to-hub ORG/REPO (the repos' prefix)")
    if args.no_search and args.ood is None and args.lengthgen is None and sweep is None:
        raise ValueError("--no-search leaves nothing to run: add --ood or --lengthgen")
    checked = {flag: (tuple(cells) if getattr(args, flag) is not None
                      else getattr(sweep, f"{flag}_cells") if sweep is not None else ())
               for flag in ("ood", "lengthgen")}
    check_lengthgen(args, checked["lengthgen"])
    if args.reach and not checked["ood"]:
        raise ValueError("--reach scores the OOD check's best run at longer lengths: add --ood")
    no_ood = sorted({f"{c.dataset}/{c}" for c in checked["ood"] if not c.OOD_CHECK})
    if no_ood:
        raise ValueError(f"the OOD check (length 2L, normalised state accuracy) is the word "
                         f"problems'; {', '.join(no_ood)}: use --lengthgen")
    return Plan(tuple(jobs), tuple(cells), models, checked["ood"], checked["lengthgen"],
                sources, groups)


def check_lengthgen(args: argparse.Namespace, cells) -> None:
    """ValueError if a length-generalisation flag is given without the check, or
    --test-lengths names lengths a cell of the check cannot have."""
    if args.test_lengths is not None:
        if not cells:
            raise ValueError("--test-lengths sets the lengths the length-generalisation check "
                             "scores: add --lengthgen")
        for cell in cells:
            args.test_lengths.lengths(cell)
    if args.keep_checkpoints and not cells:
        raise ValueError("--keep-checkpoints keeps the models of the length-generalisation "
                         "checks: add --lengthgen")


def resolve_models(plan: Plan, models) -> None:
    """Each job's model resolved for its cell (`CampaignModels`, which keeps them for the jobs);
    ValueError, one line, for a model whose config cannot be had, or whose tokenizer lacks a
    cell's tokens (a pretrained model)."""
    for job in plan.jobs:
        try:
            models(job.model, job.cell)
        except OSError as e:
            # An hf: or pretrained: path or Hub id with no config there.
            why = first_line(e)
            raise ValueError(f"--model {why}" if why.startswith(job.model)
                             else f"--model {job.model}: {why}") from None


def check_outside_models(plan: Plan, preset: str) -> None:
    """ValueError, one line, for a model from outside the package (an entry point's, a file's
    or a module's spec) that fails the part of the contract a campaign runs before training
    (`contract.BEFORE_TRAINING`: the logits' shape, the labels loss against the trainer's), so
    that it never trains and writes rows; the line names what failed and the whole check."""
    from ..models.registry import SPECS
    from ..models.source import SpecSource
    from ..training.contract import BEFORE_TRAINING, FULL_CHECK, check_model

    for name, source in plan.sources.items():
        if not isinstance(source, SpecSource) or name in SPECS:
            continue
        report = check_model(source, preset, BEFORE_TRAINING)
        if not report.ok:
            failed = "; ".join(f"{c.name}: {c.detail}" for c in report.checks
                               if c.passed is False)
            raise ValueError(f"--model {name} breaks the contract the trainer relies on "
                             f"({failed}); the whole check: {FULL_CHECK.format(name=name)}")


def campaign_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser):
    """The `Campaign` the arguments ask for, everything checked before anything is written;
    errors go through parser.error.

    What can be checked without torch is checked first (`plan_from_args`), so that those
    errors are fast; then the settings are resolved (`campaign_settings`) and the models'
    configs built, once each."""
    from ..runner.settings import campaign_settings

    budget = BUDGETS[args.preset]
    try:
        plan = plan_from_args(args)
        # What needs torch or transformers: the settings objects, the models.
        settings = campaign_settings(given_settings(args), args.preset, plan.sources.values())
        from ..runner.run import Campaign

        campaign = Campaign(
            plan.jobs, settings.train, settings.search, budget.model_preset, args.out,
            force=args.force, progress=not args.no_progress,
            ood_cells=plan.ood_cells, ood_n=args.ood or None, reach=args.reach,
            lengthgen_cells=plan.lengthgen_cells, lengthgen_n=args.lengthgen or None,
            test_lengths=args.test_lengths, keep_checkpoints=args.keep_checkpoints,
            checkpoint_prefix=args.push_to_hub if args.push_checkpoints else None,
            checkpoints_of=args.push_checkpoints or "nstar",
            report_to=tuple(args.report_to), logging_dir=args.logging_dir,
            schedule=args.schedule, warm_start=args.warm_start,
            by_model=settings.by_model, sources=plan.sources,
            groups=plan.groups)
        resolve_models(plan, campaign.models)
        check_outside_models(plan, budget.model_preset)
        check_memory(plan.jobs, campaign.models,
                     {m: campaign.settings_for(m)[0] for m in plan.models},
                     [("--n-max", args.n_max, None), ("--n-start", args.n_start, None),
                      ("--ood", args.ood, plan.ood_cells),
                      ("--lengthgen", args.lengthgen, plan.lengthgen_cells)])
    except ValueError as e:
        parser.error(str(e))
    return campaign


def check_memory(jobs, models, settings, sizes) -> None:
    """ValueError, one line, if a training step (``--batch-size``, the grid) or a training set
    asks for more memory than this machine has, by the floors of `runner.memory`.

    ``models`` resolves (model, cell) (`CampaignModels`); ``settings`` is {model:
    TrainSettings}; ``sizes`` lists (flag, rows, cells) for the training
    sets given on the command line (cells None: every job's). A size left to its default is not
    refused: the search reaches --n-max's default only where nothing smaller succeeds."""
    from ..runner.memory import Step, check_batch, check_train_rows, machine_memory
    from ..tasks import train_pool_size

    memory = machine_memory(next(iter(settings.values())).device)
    for model, train in settings.items():
        stacked = train.grid_mode == "stacked" or (train.grid_mode == "auto"
                                                   and train.device != "cpu")
        half = train.dtype == "bfloat16" or train.mixed_precision == "bf16"
        for cell in jobs_cells(j for j in jobs if j.model == model):
            config = models(model, cell).model.config
            tokens = cell.token_length(cell.max_len)
            where = f"{model} on {cell.dataset}/{cell}"
            step = Step(tokens=tokens, hidden=getattr(config, "hidden_size", 0) or 0,
                        layers=getattr(config, "num_hidden_layers", 0) or 0,
                        vocab=config.vocab_size, value_bytes=2 if half else 4,
                        runs=len(train.grid) if stacked else 1)
            check_batch(train.batch_size, step, memory, where)
            for flag, size, cells in sizes:
                if size and (cells is None or cell in cells):
                    check_train_rows(flag, size, train_pool_size(cell, train.validation), tokens,
                                     memory, where)


def jobs_cells(jobs) -> list:
    """The cells of ``jobs``, once each, in order."""
    return list(dict.fromkeys(j.cell for j in jobs))


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is, so that it stops as cleanly as on Ctrl-C."""


def _terminated(signum, frame):
    raise Terminated()


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
        torch.set_num_threads(args.threads or 1)
    from ..results import CorruptResults, ProtocolMismatch
    from ..runner.run import plan_text, print_tables, run_campaign

    # Said once, by the first process, before anything trains: what will run, under which
    # budget, and for how long at most.
    if int(os.environ.get("RANK", "0")) == 0:
        print(plan_text(campaign, int(os.environ.get("WORLD_SIZE", "1"))), flush=True)

    # SIGTERM (a scheduler's preemption, torchrun stopping its workers) ends like Ctrl-C.
    signal.signal(signal.SIGTERM, _terminated)
    from ..hub import HubError

    def record_command() -> None:
        # The folder's card lists the command lines that wrote into it, once each.
        from ..results import ResultsFolder

        command = sys.argv if argv is None else ["hf-induction", "nstar", *argv]
        if (campaign.out / "protocol.json").exists():
            ResultsFolder(campaign.out, rank=int(os.environ.get("RANK", "0"))).record_command(
                command)

    # Ctrl-C or SIGTERM that lands in a finalizer (a weakref callback, a __del__) is raised
    # there and swallowed by Python, with a traceback on stderr; it is kept instead, and the
    # launch ends as the signal asked once the campaign returns.
    swallowed: list[KeyboardInterrupt] = []
    unraisable_hook = sys.unraisablehook

    def keep_interrupts(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            swallowed.append(unraisable.exc_value)
        else:
            unraisable_hook(unraisable)

    sys.unraisablehook = keep_interrupts
    try:
        try:
            results = run_campaign(campaign)
        except Exception as e:
            # A signal that lands inside a library's own cleanup (tqdm releasing its write
            # lock) can surface as that library's error, with the interrupt as its context:
            # it is still the interrupt.
            cause = e.__context__
            while cause is not None and not isinstance(cause, KeyboardInterrupt):
                cause = cause.__context__
            if cause is None:
                raise
            raise cause from None
        if swallowed:
            raise swallowed[0]
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
    finally:
        sys.unraisablehook = unraisable_hook
    if results.nstar or results.lengthgen or results.ood:
        print_tables(results)
    if args.push_to_hub and (results.nstar or results.lengthgen or results.ood):
        from ..hub import push_results

        outcome = push_outcome(PROG, lambda: push_results(campaign.out, args.push_to_hub,
                                                          create=True),
                               f"the results in {campaign.out} are kept")
        if outcome is None:
            return 1
        print(f"results pushed to {args.push_to_hub} ({outcome})")
    # A search whose every run diverged measured the learning rates, not N*: not a result.
    return 1 if results.measured_nothing else 0
