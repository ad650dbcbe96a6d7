"""Command line of the N* search: ``accelerate launch -m hf_induction nstar ...`` (or
``hf-induction nstar ...``)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import signal
import sys
from pathlib import Path

from ..runner.budgets import BUDGETS
from ..runner.schedule import SCHEDULES
from ..runner.tracking import REPORT_TO, check_available
from ..search import MODES, SearchSettings
from ..tasks import DATASETS, parse
from ..tasks.limits import MAX_INT64, MAX_ROWS
from .parsing import (
    INT64,
    Parser,
    ascii_only,
    ascii_word,
    distinct,
    first_line,
    int_in,
    ints_in,
    nonnegative_float,
    nonnegative_int,
    once,
    output_folder,
    positive_finite,
    prog,
    read_recipe,
    recipe_tokens,
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


def _floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(positive_finite(x) for x in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated finite numbers > 0 such as 1e-3,1e-4, got {text!r}"
        ) from None


def _switch(text: str) -> bool:
    """on/off (true/false, as a recipe's YAML booleans arrive)."""
    value = str(text).strip().lower()
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")


def _fraction(text: str) -> float:
    value = nonnegative_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(
            f"expected a fraction of the steps in [0, 1), got {text!r}")
    return value


# A flag's way of saying "none" where the preset sets a value (--max-grad-norm off).
OFF = "off"


def _norm_or_off(text: str) -> float | str:
    return OFF if str(text).strip().lower() in (OFF, "none") else positive_finite(text)


# Bounds of the numeric flags, each from what can be held: a row count a split can hold
# (`rows`), an int64 column of the results tables, a search that never probes one N twice.
steps = int_in(1, MAX_INT64, INT64)
seeds = distinct(ints_in(0, MAX_INT64, INT64))


def _length_range(text: str):
    from ..runner.lengths import LengthRange

    try:
        # The bounds' grammar reads \d, which takes a full-width digit for its ASCII one.
        return LengthRange(ascii_only(text))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _preset_default(field: str) -> str:
    """'(default: the preset's: cpu 1500 (gpt2 5000), paper 250000)' for a budget field, with
    the models a preset gives their own value in parentheses."""
    def show(value):
        if isinstance(value, tuple):
            return ",".join(f"{v:g}" for v in value)
        if isinstance(value, bool):
            return "on" if value else "off"
        return OFF if value is None else str(value) if isinstance(value, str) else f"{value:g}"

    def preset(b) -> str:
        own = ", ".join(f"{model} {show(fields[field])}"
                        for model, fields in sorted(b.per_model.items()) if field in fields)
        return show(getattr(b, field)) + (f" ({own})" if own else "")

    values = ", ".join(f"{name} {preset(b)}" for name, b in sorted(BUDGETS.items()))
    return f"(default: the preset's: {values})"


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
    p.add_argument("--sweep", type=Path, metavar="FILE",
                   help="a sweep file (scripts/sweeps/paper_grid.yaml) in place of "
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
    p.add_argument("--search", choices=MODES, default="refined",
                   help="refined: bracket up by x4 from --n-start, then bisect in log space; "
                   "paper: Algorithm 1 (divide by 1000 while N succeeds, then bisect)")
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
    p.add_argument("--full-grid", action="store_true",
                   help="train every run of a probe even after one has succeeded")
    g = p.add_argument_group("budget (defaults from --preset)")
    g.add_argument("--max-steps", type=steps,
                   help=f"training steps per run {_preset_default('max_steps')}")
    g.add_argument("--eval-every", type=steps,
                   help=f"validation cadence in steps {_preset_default('eval_every')}")
    g.add_argument("--batch-size", type=rows,
                   help=f"examples per step {_preset_default('batch_size')}")
    g.add_argument("--epsilon", type=positive_finite,
                   help=f"a run succeeds below this validation loss {_preset_default('epsilon')}")
    g.add_argument("--lrs", type=distinct(_floats),
                   help=f"comma-separated learning rates {_preset_default('lrs')}")
    g.add_argument("--seeds", type=seeds, help=f"comma-separated seeds {_preset_default('seeds')}")
    g.add_argument("--early-failure", metavar="off|forecast|forecast-v1|STEPS", default=None,
                   type=ascii_word,
                   help="stop failing runs early: 'forecast' stops a run that has memorised "
                   "its rows and whose validation loss cannot reach epsilon by the end of the "
                   "budget at its pace, except at the probe of the whole training pool (changed "
                   "no N* on the benchmark cells); 'forecast-v1' decides that probe too, as "
                   "its first version did (it resumes folders made with it); STEPS stops a "
                   "run whose best validation loss has not halved in STEPS steps; 'off' trains "
                   "every run to its budget, as the paper does (default: the preset's: "
                   + ", ".join(f"{name} {b.early_failure}" for name, b in sorted(BUDGETS.items()))
                   + "; off under --search paper)")
    g.add_argument("--weight-decay", type=nonnegative_float,
                   help="AdamW's decoupled weight decay on every matrix (0: Adam) "
                   f"{_preset_default('weight_decay')}")
    g.add_argument("--warmup", type=_fraction, metavar="FRACTION",
                   help="the fraction of the steps over which the learning rate rises from 0 "
                   f"{_preset_default('warmup')}")
    g.add_argument("--lr-schedule", choices=("constant", "linear"),
                   help="after the warmup: constant, or linear down to 0 at the last step "
                   f"{_preset_default('lr_schedule')}")
    g.add_argument("--max-grad-norm", type=_norm_or_off, metavar="NORM|off",
                   help=f"clip each run's gradient to this norm {_preset_default('max_grad_norm')}")
    g.add_argument("--position-offsets", type=_switch, metavar="on|off",
                   help="start each training row's positions at a random offset, so that "
                   "positions up to the cell's longest split are trained, in models with "
                   "learned absolute positions (GPT-2's family); others are unaffected "
                   f"{_preset_default('position_offsets')}")
    g.add_argument("--dtype", choices=("float32", "bfloat16"), default="float32",
                   help="the parameters' dtype while training (recorded in the protocol: it "
                   "changes results)")
    g.add_argument("--mixed-precision", choices=("no", "bf16", "fp16"), default=None,
                   help="bf16: every forward under bfloat16 autocast (recorded in the "
                   "protocol); fp16 is refused (no loss scaling) (default: "
                   "ACCELERATE_MIXED_PRECISION, which `accelerate launch --mixed_precision` "
                   "sets, else no)")
    s = p.add_argument_group("search")
    s.add_argument("--rtol", type=positive_finite, default=0.1,
                   help="refined search: stop bisecting once hi/lo <= 1 + rtol")
    s.add_argument("--n-start", type=rows,
                   help=f"refined search: the first N probed {_preset_default('n_start')}")
    s.add_argument("--n-max", type=rows,
                   help="largest N probed (default: max_steps x batch size)")
    s.add_argument("--max-search-steps", default=20, help="most probes per search",
                   type=int_in(1, MAX_ROWS, "a search never probes one N twice, and N is a "
                               "row count a split can hold"))
    r = p.add_argument_group("run")
    r.add_argument("--data-seed", type=nonnegative_int, default=0, help="seed of the cells' data")
    r.add_argument("--device", default=None,
                   help="cpu or cuda[:i] (default: cuda if present, else cpu)")
    r.add_argument("--threads", type=int_in(1, os.cpu_count() or 1, "this machine's cores"),
                   default=None,
                   help="torch threads per process on the CPU (default 1: on 2 cores, two "
                   "1-thread processes ran 2.9x the searches per hour of one 2-thread process)")
    r.add_argument("--grid-mode", choices=("auto", "stacked", "sequential"), default="auto",
                   help="auto stacks the grid into one model where that is faster")
    r.add_argument("--schedule", choices=SCHEDULES, default="dynamic",
                   help="with several processes: dynamic gives the next job to the first one "
                   "free (a counter in the launcher's rendezvous store); static gives each "
                   "every P-th job")
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
    """The flags a sweep file's 'budget:' may set: the budget and search groups."""
    return [a for g in parser._action_groups if g.title in ("budget (defaults from --preset)",
                                                            "search") for a in g._group_actions]


def parse_args(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The command line over its recipe (--config-file) over the sweep file's budget: each
    layer is parsed as flags, earlier tokens, so a later layer's values win."""
    argv = list(sys.argv[1:] if argv is None else argv)
    pre = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    pre.add_argument("--config-file", type=Path)
    pre.add_argument("--sweep", type=Path)
    known, _ = pre.parse_known_args(argv)
    recipe: list[str] = []
    try:
        if known.config_file is not None:
            recipe = recipe_tokens(parser, read_recipe(known.config_file),
                                   f"--config-file {known.config_file}")
        # The sweep file may be named on the command line or in the recipe.
        sweep = known.sweep
        if sweep is None and recipe:
            sweep = parser.parse_args(recipe).sweep
        budget: list[str] = []
        if sweep is not None and sweep.exists():
            from ..runner.sweep import SWEEP_EXPECTED, read_yaml

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


def campaign_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser):
    """Validate everything before anything is written; errors go through parser.error.

    What can be checked without torch is checked first, so that those errors are fast."""
    from ..models.registry import check_model_name
    from ..runner.job import plan_jobs
    from ..runner.sweep import load_sweep

    budget = BUDGETS[args.preset]
    if (args.sweep is None) == (args.dataset is None or args.config is None):
        parser.error("give either --dataset and --config, or --sweep FILE")
    try:
        if args.sweep is not None:
            sweep = load_sweep(args.sweep, args.data_seed)
            jobs, cells = sweep.jobs, list(dict.fromkeys(j.cell for j in sweep.jobs))
        else:
            cells = [parse(args.dataset, name) for name in args.config]
            once("--config", args.config, cells)
            once("--model", args.model)
            jobs = plan_jobs(cells, args.model, args.kappa, args.data_seed,
                             search=not args.no_search)
            sweep = None
        if not jobs:
            raise ValueError("nothing to run: the cells and models given make no job")
        models = list(dict.fromkeys(j.model for j in jobs))
        for model in models:
            check_model_name(model)
        check_available(args.report_to)
        check_results_folder(args.out)
        if args.device is not None:
            check_device(args.device)
    except ValueError as e:
        parser.error(str(e))
    if args.push_checkpoints and not args.push_to_hub:
        parser.error("--push-checkpoints needs --push-to-hub ORG/REPO (the repos' prefix)")
    if args.no_search and args.ood is None and args.lengthgen is None and args.sweep is None:
        parser.error("--no-search leaves nothing to run: add --ood or --lengthgen")
    lengthgen_cells = (tuple(cells) if args.lengthgen is not None
                       else sweep.lengthgen_cells if sweep is not None else ())
    if args.test_lengths is not None:
        if not lengthgen_cells:
            parser.error("--test-lengths sets the lengths the length-generalisation check "
                         "scores: add --lengthgen")
        try:
            for cell in lengthgen_cells:
                args.test_lengths.lengths(cell)
        except ValueError as e:
            parser.error(str(e))
    if args.keep_checkpoints and args.lengthgen is None and not (
            sweep is not None and sweep.lengthgen_cells):
        parser.error("--keep-checkpoints keeps the models of the length-generalisation "
                     "checks: add --lengthgen")
    ood_cells = (tuple(cells) if args.ood is not None
                 else sweep.ood_cells if sweep is not None else ())
    no_ood = sorted({f"{c.dataset}/{c}" for c in ood_cells if not c.OOD_CHECK})
    if no_ood:
        parser.error(f"the OOD check (length 2L, normalised state accuracy) is the word "
                     f"problems'; {', '.join(no_ood)}: use --lengthgen")

    # What needs torch or transformers: the models' configs, the device, the settings.
    import torch

    from ..models import build_config
    from ..runner.run import Campaign, token_map
    from ..training import TrainSettings
    from ..training.early import parse_early_failure

    configs = {}
    try:
        for model in models:
            try:
                config = configs[model] = build_config(model, cells[0].vocab,
                                                       budget.model_preset)
                # A pretrained model's tokenizer must carry every cell's tokens.
                for cell in dict.fromkeys(j.cell for j in jobs if j.model == model):
                    token_map(model, cell, config)
            except OSError as e:
                # An hf: or pretrained: path or Hub id with no config there.
                why = first_line(e)
                raise ValueError(f"--model {why}" if why.startswith(model)
                                 else f"--model {model}: {why}") from None
        device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
        def pick(flag: str):
            value = getattr(args, flag)
            return getattr(budget, flag) if value is None else value

        train = TrainSettings(
            max_steps=pick("max_steps"), batch_size=pick("batch_size"),
            eval_every=pick("eval_every"), epsilon=pick("epsilon"), lrs=pick("lrs"),
            seeds=pick("seeds"),
            stop_on_first_success=not args.full_grid,
            early_failure=parse_early_failure(
                args.early_failure if args.early_failure is not None
                else "off" if args.search == "paper" else budget.early_failure),
            device=device, grid_mode=args.grid_mode, dtype=args.dtype,
            mixed_precision=(args.mixed_precision
                             or os.environ.get("ACCELERATE_MIXED_PRECISION", "no")).lower(),
            weight_decay=pick("weight_decay"), warmup=pick("warmup"),
            lr_schedule=pick("lr_schedule"),
            max_grad_norm=None if pick("max_grad_norm") == OFF else pick("max_grad_norm"),
            position_offsets=pick("position_offsets"),
            eval_batch_size=budget.eval_batch_size,
        )
        def search_of(settings: TrainSettings) -> SearchSettings:
            n_max = settings.max_steps * settings.batch_size if args.n_max is None else args.n_max
            if args.search == "refined" and pick("n_start") > n_max:
                given = "" if args.n_max is not None else " (max steps x batch size)"
                raise ValueError(f"--n-start {pick('n_start')} exceeds --n-max {n_max}{given}: "
                                 "the refined search starts at or below the largest N probed")
            return SearchSettings(
                mode=args.search, max_search_steps=args.max_search_steps, n_max=n_max,
                n_start=pick("n_start"), rtol=args.rtol)

        search = search_of(train)
        # The models the preset has always set apart (in or out of this campaign, so that a
        # published folder's protocol does not depend on which of them a launch names), and
        # every other model named here at its own budget; flags win over both.
        by_model = {}
        for model, fields in budget.per_model_for(models).items():
            own = dataclasses.replace(train, **{k: v for k, v in fields.items()
                                               if getattr(args, k) is None})
            if own != train:
                by_model[model] = (own, search_of(own))
        check_memory(jobs, configs, {m: by_model.get(m, (train,))[0] for m in models},
                     [("--n-max", args.n_max, None), ("--n-start", args.n_start, None),
                      ("--ood", args.ood, ood_cells), ("--lengthgen", args.lengthgen,
                                                       lengthgen_cells)])
    except ValueError as e:
        parser.error(str(e))
    return Campaign(tuple(jobs), train, search, budget.model_preset, args.out,
                    force=args.force, progress=not args.no_progress,
                    ood_cells=ood_cells, ood_n=args.ood or None,
                    lengthgen_cells=lengthgen_cells, lengthgen_n=args.lengthgen or None,
                    test_lengths=args.test_lengths,
                    keep_checkpoints=args.keep_checkpoints,
                    checkpoint_prefix=args.push_to_hub if args.push_checkpoints else None,
                    checkpoints_of=args.push_checkpoints or "nstar",
                    report_to=tuple(args.report_to), logging_dir=args.logging_dir,
                    schedule=args.schedule, by_model=by_model)


def check_memory(jobs, configs, settings, sizes) -> None:
    """ValueError, one line, if a training step (``--batch-size``, the grid) or a training set
    asks for more memory than this machine has, by the floors of `runner.memory`.

    ``settings`` is {model: TrainSettings}; ``sizes`` lists (flag, rows, cells) for the training
    sets given on the command line (cells None: every job's). A size left to its default is not
    refused: the search reaches --n-max's default only where nothing smaller succeeds."""
    from ..runner.memory import Step, check_batch, check_train_rows, machine_memory
    from ..tasks import train_pool_size

    memory = machine_memory(next(iter(settings.values())).device)
    for model, train in settings.items():
        config = configs[model]
        stacked = train.grid_mode == "stacked" or (train.grid_mode == "auto"
                                                   and train.device != "cpu")
        half = train.dtype == "bfloat16" or train.mixed_precision == "bf16"
        for cell in jobs_cells(j for j in jobs if j.model == model):
            tokens = cell.token_length(cell.max_len)
            where = f"{model} on {cell.dataset}/{cell}"
            step = Step(tokens=tokens, hidden=getattr(config, "hidden_size", 0) or 0,
                        layers=getattr(config, "num_hidden_layers", 0) or 0,
                        vocab=config.vocab_size, value_bytes=2 if half else 4,
                        runs=len(train.grid) if stacked else 1)
            check_batch(train.batch_size, step, memory, where)
            for flag, size, cells in sizes:
                if size and (cells is None or cell in cells):
                    check_train_rows(flag, size, train_pool_size(cell), tokens, memory, where)


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

        try:
            pushed = push_results(campaign.out, args.push_to_hub, create=True)
        except HubError as e:
            print(f"{PROG}: error: {e} (the results in {campaign.out} are kept)",
                  file=sys.stderr)
            return 1
        print(f"results pushed to {args.push_to_hub} "
              f"({'commit ' + pushed.commit if pushed.changed else 'unchanged, no commit'})")
    # A search whose every run diverged measured the learning rates, not N*: not a result.
    return 1 if results.measured_nothing else 0
