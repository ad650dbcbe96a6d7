"""Command line of the N* search: ``accelerate launch scripts/nstar.py ...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..search import MODES, SearchSettings
from ..tasks import DATASETS, TaskConfig
from ..training import TrainSettings
from .budgets import BUDGETS
from .job import plan_jobs

EXAMPLES = """examples:
  accelerate launch scripts/nstar.py --dataset modadd --config acot_L10_uniform --model dense_ssm
  accelerate launch scripts/nstar.py --dataset modadd --config acot_L5 --model dense_ssm lstm \\
      --kappa --out build/acot_L5
  python scripts/kappa.py build/acot_L5
"""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):
        # One line, naming what was wrong and what is allowed; nothing has been written.
        self.exit(2, f"{self.prog}: error: {message}\n")


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(","))


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def build_parser() -> argparse.ArgumentParser:
    from ..models import MODEL_NAMES

    p = _Parser(prog="nstar.py", description="Find N*, the minimal training-set size, and "
                "the sharing factor kappa.", epilog=EXAMPLES,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", choices=DATASETS)
    p.add_argument("--config", nargs="+", metavar="NAME",
                   help="task configs, e.g. acot_L10_uniform (grammar in the dataset card)")
    p.add_argument("--sweep", type=Path, metavar="FILE",
                   help="a sweep file (scripts/sweeps/paper_grid.yaml) in place of "
                   "--dataset/--config/--model/--kappa")
    p.add_argument("--model", nargs="+", default=["dense_ssm"], metavar="NAME",
                   help=f"models: {', '.join(MODEL_NAMES)} or hf:PATH_OR_REPO_ID")
    p.add_argument("--preset", choices=sorted(BUDGETS), default="cpu",
                   help="budget and model sizes: cpu (tiny models, minutes) or paper")
    p.add_argument("--search", choices=MODES, default="refined")
    p.add_argument("--kappa", action="store_true",
                   help="search N*_n for n = 2..L and N*_joint, then write kappa")
    p.add_argument("--out", type=Path, default=Path("build/results"),
                   help="the results folder (default build/results; the repository's "
                   "results/ holds the published campaign)")
    p.add_argument("--force", action="store_true",
                   help="use an output folder recorded under another protocol")
    p.add_argument("--ood", nargs="?", type=int, const=0, default=None, metavar="N",
                   help="after each named config's search, train at size N (default: the "
                   "largest the budget and pool allow) and test at length 2L")
    p.add_argument("--full-grid", action="store_true",
                   help="train every run of a probe even after one has succeeded")
    g = p.add_argument_group("budget (defaults from --preset)")
    g.add_argument("--max-steps", type=int)
    g.add_argument("--eval-every", type=int)
    g.add_argument("--batch-size", type=int)
    g.add_argument("--epsilon", type=float)
    g.add_argument("--lrs", type=_floats, help="comma-separated learning rates")
    g.add_argument("--seeds", type=_ints, help="comma-separated seeds")
    g.add_argument("--early-failure", type=int, metavar="STEPS", default=None,
                   help="stop a run whose best validation loss has not halved in STEPS steps "
                   "(off by default, and in the paper's protocol)")
    s = p.add_argument_group("search")
    s.add_argument("--rtol", type=float, default=0.1)
    s.add_argument("--n-start", type=int)
    s.add_argument("--n-max", type=int, help="largest N probed (default max_steps x batch)")
    s.add_argument("--max-search-steps", type=int, default=20)
    r = p.add_argument_group("run")
    r.add_argument("--data-seed", type=int, default=0)
    r.add_argument("--device", default=None, help="cpu or cuda[:i] (default: cuda if present)")
    r.add_argument("--threads", type=int, default=None,
                   help="torch threads per process on the CPU (default 1: on 2 cores, two "
                   "1-thread processes ran 2.9x the searches per hour of one 2-thread process)")
    r.add_argument("--grid-mode", choices=("auto", "stacked", "sequential"), default="auto",
                   help="auto stacks the grid into one model where that is faster")
    r.add_argument("--no-progress", action="store_true")
    r.add_argument("--push-to-hub", metavar="ORG/REPO",
                   help="upload the results folder to this Hub dataset repo when done")
    r.add_argument("--push-checkpoints", nargs="?", const="nstar", choices=("nstar", "probes"),
                   help="with --push-to-hub: push the winning run at N* (default) or of every "
                   "succeeding probe as model repos ORG/REPO-MODEL-CONFIG-nN")
    return p


def campaign_from_args(args: argparse.Namespace, parser: argparse.ArgumentParser):
    """Validate everything before anything is written; errors go through parser.error."""
    import torch

    from ..models import build_config
    from ..tasks import vocab_of
    from .run import Campaign
    from .sweep import load_sweep

    budget = BUDGETS[args.preset]
    if (args.sweep is None) == (args.dataset is None or args.config is None):
        parser.error("give either --dataset and --config, or --sweep FILE")
    try:
        if args.sweep is not None:
            sweep = load_sweep(args.sweep, args.data_seed)
            jobs, cells = sweep.jobs, list(dict.fromkeys(j.cell for j in sweep.jobs))
        else:
            cells = [TaskConfig.parse(args.dataset, name) for name in args.config]
            jobs = plan_jobs(cells, args.model, args.kappa, args.data_seed)
            sweep = None
        for model in dict.fromkeys(j.model for j in jobs):
            build_config(model, vocab_of(cells[0]).size, budget.model_preset)
        device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
        if args.threads is not None and args.threads < 1:
            raise ValueError(f"--threads must be >= 1, got {args.threads}")
        if device == "cpu":
            # Tiny models are bound by per-op overhead, which a second thread only adds to;
            # use more processes instead (docs/benchmarks.md, threads).
            torch.set_num_threads(args.threads or 1)
        def pick(flag: str):
            value = getattr(args, flag)
            return getattr(budget, flag) if value is None else value

        train = TrainSettings(
            max_steps=pick("max_steps"), batch_size=pick("batch_size"),
            eval_every=pick("eval_every"), epsilon=pick("epsilon"), lrs=pick("lrs"),
            seeds=pick("seeds"),
            stop_on_first_success=not args.full_grid, patience_steps=args.early_failure,
            device=device, grid_mode=args.grid_mode,
        )
        search = SearchSettings(
            mode=args.search, max_search_steps=args.max_search_steps,
            n_max=train.max_steps * train.batch_size if args.n_max is None else args.n_max,
            n_start=pick("n_start"), rtol=args.rtol,
        )
    except ValueError as e:
        parser.error(str(e))
    if args.push_checkpoints and not args.push_to_hub:
        parser.error("--push-checkpoints needs --push-to-hub ORG/REPO (the repos' prefix)")
    if args.ood is not None and args.ood < 0:
        parser.error(f"--ood takes a training-set size >= 1, got {args.ood}")
    return Campaign(tuple(jobs), train, search, budget.model_preset, args.out,
                    force=args.force, progress=not args.no_progress,
                    ood_cells=(tuple(cells) if args.ood is not None
                               else sweep.ood_cells if sweep is not None else ()),
                    ood_n=args.ood or None,
                    checkpoint_prefix=args.push_to_hub if args.push_checkpoints else None,
                    checkpoints_of=args.push_checkpoints or "nstar")


def main(argv: list[str] | None = None) -> int:
    from ..results import ProtocolMismatch
    from .run import print_tables, run_campaign

    parser = build_parser()
    args = parser.parse_args(argv)
    campaign = campaign_from_args(args, parser)
    from ..hub import HubError

    try:
        nstar, kappa, ood = run_campaign(campaign)
    except ProtocolMismatch as e:
        print(f"nstar.py: error: {e} (pass --force to use this folder anyway)", file=sys.stderr)
        return 2
    except HubError as e:
        print(f"nstar.py: error: {e} (the results in {campaign.out} are kept; a rerun "
              "resumes)", file=sys.stderr)
        return 1
    if nstar:
        print_tables(nstar, kappa, ood)
    if args.push_to_hub and nstar:
        from ..hub import push_results

        try:
            pushed = push_results(campaign.out, args.push_to_hub, create=True)
        except HubError as e:
            print(f"nstar.py: error: {e} (the results in {campaign.out} are kept)",
                  file=sys.stderr)
            return 1
        print(f"results pushed to {args.push_to_hub} "
              f"({'commit ' + pushed.commit if pushed.changed else 'unchanged, no commit'})")
    return 0
