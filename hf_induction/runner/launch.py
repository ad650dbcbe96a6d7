"""A launch as the command line asks for it: its plan (jobs, cells, models and checks), and the
`Campaign` it runs, each checked before anything is written or trained. The options come as
the command's namespace (`commands.nstar`), or any object with the same attributes.

What can be checked without torch is checked first (`plan_launch`), so that those errors are
fast; then the settings are resolved, the models' configs built once each, and the memory a
step and a training set ask for bounded (`campaign_of`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import once
from ..models import registry
from ..results.folder import GROUPS_FILE
from ..tasks import parse
from ..tasks.group_names import register_groups_file, registered_from
from .budgets import BUDGETS
from .devices import check_device
from .job import jobs_cells, plan_jobs
from .memory import check_memory
from .model_checks import check_outside_models, resolve_models
from .settings import LaunchOptions, launch_options
from .sweep import check_kappa, load_sweep
from .tracking import check_available


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


def _jobs(args):
    """(jobs, cells, the sweep or None) of --sweep, or of --dataset, --config and --model."""
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


def plan_launch(args, launch: LaunchOptions | None = None) -> Plan:
    """The launch's `Plan`, or ValueError in one line naming the flag at fault; torch is not
    imported (but to count the CUDA devices a --device cuda:N asks of). ``launch``: how it
    runs (None: the defaults)."""
    launch = launch or LaunchOptions()

    # The folder's groups first (a rerun resumes without --groups), then the flag's: a name
    # the two define differently is refused.
    if (args.out / GROUPS_FILE).is_file():
        register_groups_file(args.out / GROUPS_FILE)
    groups = registered_from(getattr(args, "groups", None))
    jobs, cells, sweep = _jobs(args)
    if not jobs:
        raise ValueError("nothing to run: the cells and models given make no job")
    models = tuple(dict.fromkeys(j.model for j in jobs))
    # The one lookup of each name: the settings and the builder take its source.
    sources = {model: registry.model_source(model) for model in models}
    check_available(launch.report_to)
    check_results_folder(args.out)
    if args.device is not None:
        check_device(args.device)
    if launch.push_checkpoints and not launch.push_to_hub:
        raise ValueError("--push-checkpoints needs --push-to-hub ORG/REPO (the repos' prefix)")
    if args.no_search and args.ood is None and args.lengthgen is None and sweep is None:
        raise ValueError("--no-search leaves nothing to run: add --ood or --lengthgen")
    checked = {flag: (tuple(cells) if getattr(args, flag) is not None
                      else getattr(sweep, f"{flag}_cells") if sweep is not None else ())
               for flag in ("ood", "lengthgen")}
    check_lengthgen(args.test_lengths, launch.keep_checkpoints, checked["lengthgen"])
    if launch.reach and not checked["ood"]:
        raise ValueError("--reach scores the OOD check's best run at longer lengths: add --ood")
    no_ood = sorted({f"{c.dataset}/{c}" for c in checked["ood"] if not c.OOD_CHECK})
    if no_ood:
        raise ValueError(f"the OOD check (length 2L, normalised state accuracy) is the word "
                         f"problems'; {', '.join(no_ood)}: use --lengthgen")
    return Plan(tuple(jobs), tuple(cells), models, checked["ood"], checked["lengthgen"],
                sources, groups)


def check_lengthgen(test_lengths, keep_checkpoints: bool, cells) -> None:
    """ValueError if a length-generalisation flag is given without the check, or
    --test-lengths names lengths a cell of the check cannot have."""
    if test_lengths is not None:
        if not cells:
            raise ValueError("--test-lengths sets the lengths the length-generalisation check "
                             "scores: add --lengthgen")
        for cell in cells:
            test_lengths.lengths(cell)
    if keep_checkpoints and not cells:
        raise ValueError("--keep-checkpoints keeps the models of the length-generalisation "
                         "checks: add --lengthgen")


def campaign_of(args, given: dict[str, Any]):
    """The `Campaign` the launch's options ask for (``given``: the settings given, by name),
    everything checked before anything is written; ValueError, one line, naming the flag at
    fault.

    What can be checked without torch is checked first (`plan_launch`), so that those errors
    are fast; then the settings are resolved (`campaign_settings`) and the models' configs
    built, once each."""
    budget = BUDGETS[args.budget]
    launch = launch_options(given)
    plan = plan_launch(args, launch)
    # What needs torch or transformers, imported only now: the settings objects, the models.
    from .run import Campaign
    from .settings import campaign_settings

    settings = campaign_settings(given, args.budget, plan.sources.values())
    campaign = Campaign(
        plan.jobs, settings.train, settings.search, budget.model_size, args.out, launch,
        ood_cells=plan.ood_cells, ood_n=args.ood or None,
        lengthgen_cells=plan.lengthgen_cells, lengthgen_n=args.lengthgen or None,
        test_lengths=args.test_lengths, by_model=settings.by_model, sources=plan.sources,
        groups=plan.groups)
    resolve_models(plan, campaign.models)
    check_outside_models(plan, budget.model_size)
    check_memory(plan.jobs, campaign.models,
                 {m: campaign.settings_for(m)[0] for m in plan.models},
                 [("--n-max", args.n_max, None), ("--n-start", args.n_start, None),
                  ("--ood", args.ood, plan.ood_cells),
                  ("--lengthgen", args.lengthgen, plan.lengthgen_cells)])
    return campaign
