"""Run a campaign of searches across Accelerate processes, then write the κ rows."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from filelock import Timeout
from tqdm.auto import tqdm

from ..data import TokenMap
from ..models.source import ModelSource
from ..results import (
    KAPPA_COLUMNS,
    NSTAR_COLUMNS,
    OOD_COLUMNS,
    REACH_COLUMNS,
    KappaRow,
    LengthGenRow,
    NstarRow,
    OodRow,
    ReachRow,
    ResultsFolder,
    run_key,
)
from ..results.checkpoints import checkpoints_dir
from ..results.render import BEYOND_POSITIONS
from ..results.rows import DIVERGED_ENDS, PushRow
from ..search import ProbeOutcome, SearchSettings, run_search
from ..search.result import ALL_DIVERGED
from ..settings import SEARCH, TRAINING, protocol_record
from ..tasks import GENERATOR_VERSION, LAYOUT_VERSION, TaskCell, train_pool_size
from ..training import TrainSettings
from .best_run import NotReproduced
from .checkpoints import push_winners
from .devices import device_share
from .job import SearchJob, kappa_groups
from .lengthgen import lengthgen_check
from .lengths import LengthRange, chosen_lengths
from .neighbours import neighbour_hint
from .ood import ood_check
from .plan import lrs_text
from .probe import JournalProbe, TrainPool
from .reach import reach_check, reach_key
from .resolved import CampaignModels, JobModel
from .schedule import my_jobs
from .settings import LaunchOptions
from .tracking import Trackers


def train_protocol(settings: TrainSettings) -> dict:
    """The training settings as a protocol records them (`Setting.protocol_record`)."""
    return protocol_record(TRAINING, asdict(settings))


def search_protocol(settings: SearchSettings) -> dict:
    """The search settings as a protocol records them."""
    return protocol_record(SEARCH, asdict(settings))


@dataclass(frozen=True)
class Campaign:
    """Everything a set of searches depends on; the protocol is the part results share."""

    jobs: tuple[SearchJob, ...]
    train: TrainSettings
    search: SearchSettings
    model_size: str
    out: Path
    # How this launch runs (progress, pushing, trackers, the schedule, warm starts, the reach
    # scoring, kept checkpoints): never in the protocol.
    launch: LaunchOptions = field(default_factory=LaunchOptions)
    # Cells whose best run at size ood_n (None: the largest the budget and pool allow) is
    # tested at length 2L after their search.
    ood_cells: tuple = ()
    ood_n: int | None = None
    # Cells whose best run at size lengthgen_n (None: the largest allowed) is scored on the
    # validation set and every longer test split after their search (or alone).
    lengthgen_cells: tuple = ()
    lengthgen_n: int | None = None
    # The settings of the models whose preset gives them their own learning rates or budget
    # (`Budget.per_model`); every other model trains with ``train`` and ``search``.
    by_model: Mapping[str, tuple[TrainSettings, SearchSettings]] = field(default_factory=dict)
    # The lengths the length-generalisation check scores in place of each cell's own test
    # splits (``--test-lengths``; None: the cell's); its rows' keys name them.
    test_lengths: LengthRange | None = None
    # Each model name as the plan looked it up, once (`registry.model_source`).
    sources: Mapping[str, ModelSource] = field(default_factory=dict, compare=False, repr=False)
    # The groups from generators (``--groups``) its cells name: name -> generators.
    groups: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # Each (model, cell) resolved once (`CampaignModels`), by the command line's checks or by
    # the job that first needs it, and handed to every later step.
    models: CampaignModels = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.models is None:
            object.__setattr__(self, "models", CampaignModels(self.model_size, self.sources))

    def settings_for(self, model: str) -> tuple[TrainSettings, SearchSettings]:
        """The training and search settings the model's searches run under."""
        return self.by_model.get(model, (self.train, self.search))

    def protocol(self) -> dict:
        """What makes results comparable: a folder holds results of one protocol only.

        A model with settings of its own adds ``by_model: {model: {"train": ..., "search":
        ...}}``, only what differs; without any, the protocol is what it always was."""
        protocol = {"train": train_protocol(self.train), "search": search_protocol(self.search),
                    "generator_version": GENERATOR_VERSION, "layout_version": LAYOUT_VERSION}
        by_model = {}
        for model, (train, search) in sorted(self.by_model.items()):
            differs = {part: {k: v for k, v in mine.items() if protocol[part].get(k) != v}
                       for part, mine in (("train", train_protocol(train)),
                                          ("search", search_protocol(search)))}
            if own := {part: d for part, d in differs.items() if d}:
                by_model[model] = own
        if by_model:
            protocol["by_model"] = by_model
        return protocol


def _git_commit() -> str:
    """The checkout's commit where the package runs from one; "" from an installed wheel,
    which must not record the commit of whatever repository it happens to sit in."""
    checkout = Path(__file__).resolve().parents[2]
    if not (checkout / ".git").exists():
        return ""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=checkout, timeout=5)
        return out.stdout.strip() if out.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def _hardware(device: str) -> str:
    import torch

    if device.startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_name(torch.device(device))
    return f"{platform.machine()} cpu x{torch.get_num_threads()} threads"


class CampaignJob:
    """A job as its campaign runs it, built once and handed to each step that runs it.

    Its model comes resolved from the campaign (`CampaignModels`: config, hash, tokens,
    factory), and with it the keys the job's results are recorded under: every process needs
    the job's key to schedule it. What only a job that runs needs is made on first use: the
    model's factory, and the training data (a `TrainPool`, which the job's search and checks
    share; at the paper's size generating it takes seconds and hundreds of MB).
    """

    def __init__(self, job: SearchJob, campaign: Campaign, protocol_hash: str) -> None:
        self.job = job
        self.protocol_hash = protocol_hash
        self.train_settings, self.search_settings = campaign.settings_for(job.model)
        self.resolved: JobModel = campaign.models(job.model, job.cell)
        self.config = self.resolved.model.config
        # What the job's results are keyed by (runs, searches, κ, OOD and length rows).
        self.fields = {"dataset": job.cell.dataset, "config": str(job.cell),
                       "model": job.model, "model_config_hash": self.resolved.model.config_hash,
                       "protocol": protocol_hash, "data_seed": job.data_seed}
        # The sizes its checks train at: the best run's weights at those sizes are kept as
        # the job trains them (search or check), so a check scores its best run without
        # training it again; dropped with the job's data.
        self.check_sizes = {self.check_size(n) for cells, n in (
            (campaign.ood_cells, campaign.ood_n), (campaign.lengthgen_cells,
                                                   campaign.lengthgen_n)) if job.cell in cells}
        self.weights: dict = {}

    @property
    def cell(self) -> TaskCell:
        return self.job.cell

    @property
    def model(self) -> str:
        return self.job.model

    @property
    def label(self) -> str:
        return self.job.label

    def key(self, kind: str, **extra) -> str:
        """The key of one of the job's results: ``kind`` "search", "ood", "kappa", ..."""
        return run_key(kind=kind, **extra, **self.fields)

    @cached_property
    def claim_key(self) -> str:
        """What a claim is taken on: the job's search (or checks) in this protocol."""
        return self.key("job", search=self.job.search)

    def check_size(self, n: int | None) -> int:
        """The size a check asked at ``n`` trains at (None: the largest the budget and the
        pool allow)."""
        n_max = self.search_settings.n_max
        return min(n or n_max, n_max, train_pool_size(self.cell, self.train_settings.validation))

    @property
    def model_factory(self):
        return self.resolved.model.factory

    @property
    def tokens(self) -> TokenMap:
        """The ids the job's model reads its cell in (`resolved.token_map`)."""
        return self.resolved.tokens

    @cached_property
    def pool(self) -> TrainPool:
        return TrainPool(self.job, self.tokens, self.train_settings.validation)

    def probe(self, folder: ResultsFolder, on_run=None, on_eval=None) -> JournalProbe:
        """A probe for one search or check of the job, on the job's pool. Each starts with no
        winners of its own, so a check orders its runs as it would alone, whatever the
        search before it found."""
        return JournalProbe(self.job, folder, self.train_settings, self.model_factory,
                            self.fields, on_run, on_eval, pool=self.pool,
                            keep=(self.check_sizes, self.weights))

    def release_data(self) -> None:
        """Drop the job's arrays once it has run: the campaign keeps its jobs (for their
        keys) until the end, and must not keep every job's data with them."""
        self.__dict__.pop("pool", None)
        self.weights.clear()


def plan_text(campaign: Campaign, processes: int = 1) -> str:
    """The plan `describe_plan` prints, with each model's grid step timed on its campaign's
    longest cell (the bound is for the longest sequences)."""
    from .plan import describe_plan, measure_grid_step_s
    from .probe import train_data

    step_s = {}
    for model in dict.fromkeys(j.model for j in campaign.jobs):
        job = CampaignJob(max((j for j in campaign.jobs if j.model == model),
                              key=lambda j: j.cell.token_length(j.cell.max_len)), campaign, "")
        validation = job.train_settings.validation
        data = train_data(job.job, min(train_pool_size(job.cell, validation),
                                       job.train_settings.batch_size), job.tokens, validation)
        step_s[model] = measure_grid_step_s(job.model_factory, data, job.train_settings)
    text = describe_plan(campaign.jobs, campaign.settings_for, step_s, processes)
    share = device_share(campaign.train.device)
    if share is not None and share.shared:
        text += "\n  " + share.words()
    if campaign.launch.warm_start and any(j.search and campaign.settings_for(j.model)[1].mode
                                   == "refined" for j in campaign.jobs):
        text += ("\n  warm start: a refined search starts at the point of its climb nearest "
                 "its nearest finished neighbour's N* in the folder (--no-warm-start: from "
                 "the first)")
    return text


def check_one(check, job: CampaignJob, folder: ResultsFolder, n: int | None, **options):
    """Run an evaluation ``check`` (`ood_check`, `lengthgen_check`) of one job at size ``n``
    (None: the largest the budget and the pool allow), with the check's own ``options``."""
    return check(job.probe(folder), job.check_size(n), job.protocol_hash, **options)


def ood_one(job: CampaignJob, campaign: Campaign, folder: ResultsFolder) -> OodRow:
    row = check_one(ood_check, job, folder, campaign.ood_n)
    tqdm.write(f"  {job.label}: OOD at length {row.test_length} after N={row.n:,}: normalised "
               f"state accuracy {row.normalised_state_accuracy:.3f}, final state "
               f"{row.normalised_final_state_accuracy:.3f}")
    return row


def reach_one(job: CampaignJob, campaign: Campaign, folder: ResultsFolder) -> list[ReachRow]:
    def said(row: ReachRow) -> None:
        score = (f"{row.normalised_final_state_accuracy:.3f}" if row.scored
                 else BEYOND_POSITIONS)
        tqdm.write(f"  {job.label}: reach at length {row.length:,} ({row.factor:,} L): "
                   f"normalised final state {score}")

    try:
        return check_one(reach_check, job, folder, campaign.ood_n, on_length=said)
    except NotReproduced as e:
        # The check's kept weights are gone (an earlier sitting) and training again does not
        # give them back: no reach is recorded rather than another model's.
        tqdm.write(f"  {job.label}: reach not scored: {e}")
        return []


def lengthgen_one(job: CampaignJob, campaign: Campaign, folder: ResultsFolder) -> LengthGenRow:
    keep_in = checkpoints_dir(campaign.out) if campaign.launch.keep_checkpoints else None
    row = check_one(lengthgen_check, job, folder, campaign.lengthgen_n, keep_in=keep_in,
                    test_lengths=campaign.test_lengths)
    scores = "; ".join(f"{split} ({s['lengths']}) " + ", ".join(
        f"{k} {v:.3f}" for k, v in s.items() if k != "lengths") for split, s in row.table().items())
    tqdm.write(f"  {job.label}: after N={row.n:,}: {scores}")
    return row


def trackers_of(campaign: Campaign) -> Trackers:
    return Trackers(campaign.launch.report_to, campaign.launch.logging_dir or campaign.out / "runs",
                    project=campaign.out.resolve().name, config=campaign.protocol())


def search_one(job: CampaignJob, campaign: Campaign, folder: ResultsFolder,
               position: int = 0) -> NstarRow:
    """The N* search of one job, answered from the results folder when already finished."""
    skey = job.key("search")
    if (row := folder.find(NstarRow, skey)) is not None:
        return row
    trackers = trackers_of(campaign)
    tracker = (trackers.for_job(f"{job.model}/{job.cell.dataset}/{job.cell}", job.fields)
               if trackers.enabled else None)
    train, search = job.train_settings, job.search_settings
    grid_size = len(train.grid)
    bar = tqdm(desc=job.label, unit="run", position=position, leave=True,
               disable=not campaign.launch.progress, dynamic_ncols=True)
    state = {"n": 0, "done": 0, "best": float("inf")}

    def on_run(row: dict) -> None:
        if tracker is not None:
            tracker.on_run(row)
        state["done"] += 1
        if row.get("best_val_loss") is not None:
            state["best"] = min(state["best"], row["best_val_loss"])
        bar.update()
        bar.set_postfix_str(f"N={state['n']} best={state['best']:.2e} "
                            f"runs left={grid_size - state['done']}")

    probe = job.probe(folder, on_run, tracker.on_eval if tracker is not None else None)

    def traced(n: int) -> ProbeOutcome:
        state.update(n=n, done=0)
        bar.set_postfix_str(f"N={n} best={state['best']:.2e} runs left={grid_size}")
        outcome = probe(n)
        if tracker is not None:
            tracker.on_probe(n, outcome.success, outcome.best_val_loss, outcome.steps)
        bar.write(f"  {job.label}: N={n:>9,} {probe_words(outcome)}")
        return outcome

    # Only the refined search takes a hint: the paper's Algorithm 1 starts at N_max.
    hint = neighbour_hint(job.cell, job.model, folder.read(NstarRow)) \
        if campaign.launch.warm_start and search.mode == "refined" else None
    if hint is not None:
        bar.write(f"  {job.label}: {hint.words()}")
    try:
        result = run_search(traced, probe.pool_size, search,
                            hint=None if hint is None else hint.size(probe.pool_size))
    finally:
        bar.close()
        if tracker is not None:
            tracker.finish()
    row = NstarRow.from_search(
        result, search, key=skey, dataset=job.cell.dataset, config=str(job.cell),
        model=job.model, model_config_hash=job.fields["model_config_hash"],
        epsilon=train.epsilon, protocol_hash=job.protocol_hash, git_commit=_git_commit(),
        hardware=_hardware(train.device),
        # No wall_s: the row takes the probes' summed time, which counts runs recalled from
        # an earlier sitting at what they cost then, so a resumed search reports all of it.
    )
    folder.append(row)
    return row


def probe_words(outcome: ProbeOutcome) -> str:
    """A probe's line of the progress log: its outcome, and the runs whose loss diverged."""
    runs = len(outcome.runs)
    cost = f"{runs} run{'s' * (runs != 1)}, {outcome.steps:,} steps"
    if outcome.all_diverged:
        return (f"failure: every run diverged (loss not finite) at lr "
                f"{lrs_text(outcome.diverged_lrs)}; {cost}")
    words = (f"{'success' if outcome.success else 'failure'} (best val loss "
             f"{outcome.best_val_loss:.2e}; {cost}")
    if outcome.diverged_lrs:
        words += f"; diverged at lr {lrs_text(outcome.diverged_lrs)}"
    return words + ")"


def divergence_notes(rows: Sequence[NstarRow]) -> list[str]:
    """A sentence for each search whose end rests on a size where every run diverged: no N*
    (or no lower end of its bracket) was measured there, and what to try."""
    notes = []
    for r in rows:
        if r.search_end not in DIVERGED_ENDS:
            continue
        probes = r.diverged_probes
        sizes = ", ".join(f"{p.n:,}" for p in probes)
        lrs = sorted({lr for p in probes for lr in p.diverged_lrs})
        what = ("no N* was measured" if r.n_star is None
                else "N* has no measured lower end")
        notes.append(f"{r.model} {r.dataset}/{r.config}: every run diverged (loss inf or NaN) "
                     f"at N = {sizes} with lr {lrs_text(lrs)}, so {what}; try smaller rates "
                     f"such as --lrs {lrs_text(sorted({lr / 100 for lr in lrs}))}, or leave --lrs "
                     "out for the preset's")
    return notes


def push_checkpoints(job: CampaignJob, row: NstarRow, campaign: Campaign,
                     folder: ResultsFolder) -> None:
    """Push the search's winning runs that are not pushed yet: each push is its own recorded
    step, after the search's row, so one that failed is retried by the rerun."""

    def push_key(repo_id: str) -> str:
        return run_key(kind="push", repo_id=repo_id, search=row.key)

    for repo_id in push_winners(
            job.probe(folder), row, campaign.launch.checkpoint_prefix,
            campaign.launch.checkpoints_of,
            results_repo=campaign.launch.checkpoint_prefix,
            pushed_before=lambda repo_id: folder.find(PushRow, push_key(repo_id)) is not None,
            on_pushed=lambda repo_id: folder.append_push(push_key(repo_id), repo_id, row.key)):
        tqdm.write(f"  {job.label}: checkpoint pushed to {repo_id}")


def write_kappa_rows(campaign: Campaign, folder: ResultsFolder, protocol_hash: str,
                     built: Mapping[SearchJob, CampaignJob]) -> list[KappaRow]:
    """κ for every (joint cell, model) whose N*_n and N*_joint are all recorded; ``built``
    holds the campaign's jobs as `run_campaign` built them."""

    def keys_of(job: SearchJob) -> CampaignJob:
        # A sweep may ask only for the joint cell's checks: its search is then no job here,
        # though another campaign may have recorded it.
        return built[job] if job in built else CampaignJob(job, campaign, protocol_hash)

    rows = []
    for (joint_cell, model), fixed in kappa_groups(list(campaign.jobs)).items():
        joint = keys_of(SearchJob(joint_cell, model, fixed[0].data_seed))
        searches = {j: folder.find(NstarRow, keys_of(j).key("search")) for j in fixed}
        joint_search = folder.find(NstarRow, joint.key("search"))
        if joint_search is None or any(s is None for s in searches.values()):
            continue
        kkey = joint.key("kappa")
        row = folder.find(KappaRow, kkey)
        if row is None:
            row = KappaRow.build(key=kkey, by_length={j.cell.max_len: searches[j] for j in fixed},
                                 joint=joint_search, git_commit=_git_commit())
            folder.append(row)
        rows.append(row)
    return rows


def run_job(job: CampaignJob, campaign: Campaign, folder: ResultsFolder,
            position: int = 0) -> None:
    """The job's search and checks; whatever the folder already holds is answered from it."""
    try:
        if job.job.search:
            row = search_one(job, campaign, folder, position=position)
            if campaign.launch.checkpoint_prefix:
                push_checkpoints(job, row, campaign, folder)
        if job.cell in campaign.ood_cells:
            ood_one(job, campaign, folder)
            if campaign.launch.reach:
                reach_one(job, campaign, folder)
        if job.cell in campaign.lengthgen_cells:
            lengthgen_one(job, campaign, folder)
    finally:
        job.release_data()


@dataclass(frozen=True)
class CampaignResults:
    """What a campaign recorded for its jobs (on the main process; empty on the others)."""

    nstar: list[NstarRow] = field(default_factory=list)
    kappa: list[KappaRow] = field(default_factory=list)
    ood: list[OodRow] = field(default_factory=list)
    lengthgen: list[LengthGenRow] = field(default_factory=list)
    reach: list[ReachRow] = field(default_factory=list)

    @property
    def measured_nothing(self) -> bool:
        """True when some search measured no N* because every run diverged."""
        return any(r.search_end == ALL_DIVERGED for r in self.nstar)


def run_campaign(campaign: Campaign) -> CampaignResults:
    """Run the jobs across Accelerate processes, each taking the next job when it is free;
    the main process writes κ.

    Returns the campaign's rows on the main process, and nothing on the others (only the
    main process reports).
    """
    from accelerate import PartialState

    cpu = campaign.train.device == "cpu"
    # More processes than GPUs: each trains on local rank mod the device count, and they wait
    # on a gloo group, as a CPU launch does (devices.py).
    share = device_share(campaign.train.device)
    shared = share is not None and share.shared
    if shared:
        import torch

        torch.cuda.set_device(share.device_of(int(os.environ.get("LOCAL_RANK", "0"))))
    state = PartialState(cpu=cpu or shared)

    # Some accelerate releases pass device_ids to the barrier of a CPU (gloo) group too, which
    # then runs on the machine's GPU and fails on every rank past the GPUs there ("invalid
    # device ordinal"): a CPU campaign on a GPU machine waits on a gloo group itself.
    gloo = (cpu or shared) and state.num_processes > 1
    if gloo:
        import torch.distributed as dist

        group = None if dist.get_backend() == "gloo" else dist.new_group(backend="gloo")

    def wait_for_everyone() -> None:
        if gloo:
            dist.barrier(group=group)
        else:
            state.wait_for_everyone()

    folder = ResultsFolder(campaign.out, rank=state.process_index)
    # The main process records the protocol (or refuses a folder of another one) first.
    if not state.is_main_process:
        wait_for_everyone()
    protocol_hash = folder.check_protocol(campaign.protocol(), force=campaign.launch.force)
    # The groups from generators its cells name travel with the folder: any reader parses them.
    folder.record_groups(campaign.groups)
    if state.is_main_process:
        wait_for_everyone()
    # Each job's config, hash and keys are built once, here, and handed on.
    built = {job: CampaignJob(job, campaign, protocol_hash) for job in campaign.jobs}
    jobs = list(built.values())
    # The next job goes to the first process free (schedule.py), or every P-th to each.
    mine = my_jobs(jobs, [j.claim_key for j in jobs], state.process_index,
                   state.num_processes, campaign.launch.schedule)
    # Each job is claimed before it trains: a job another launch holds waits until this
    # process has done the rest, then it is taken (and answered from the folder).
    held_elsewhere = []
    for job in mine:
        claim = folder.claim(job.claim_key)
        try:
            claim.acquire(timeout=0)
        except Timeout:
            held_elsewhere.append((job, claim))
            continue
        try:
            run_job(job, campaign, folder, state.process_index)
        finally:
            claim.release()
    for job, claim in held_elsewhere:
        tqdm.write(f"  {job.label}: another launch holds it; waiting for it to finish")
        with claim:
            run_job(job, campaign, folder, state.process_index)
    wait_for_everyone()
    if not state.is_main_process:
        return CampaignResults()
    folder.refresh()
    by_name = {(str(j.cell), j.model): j for j in jobs}
    nstar = [folder.find(NstarRow, j.key("search")) for j in jobs if j.job.search]

    def own(rows, kind, extra=lambda job: {}):
        return [r for r in rows if (r.config, r.model) in by_name
                and r.key == (job := by_name[(r.config, r.model)]).key(kind, n=r.n,
                                                                       **extra(job))]

    return CampaignResults(
        nstar=[r for r in nstar if r is not None],
        kappa=write_kappa_rows(campaign, folder, protocol_hash, built),
        ood=own(folder.read(OodRow), "ood"),
        reach=[r for r in folder.read(ReachRow) if (r.config, r.model) in by_name
               and r.key == reach_key(by_name[(r.config, r.model)].fields, r.n, r.length)]
        if campaign.launch.reach else [],
        lengthgen=own(folder.read(LengthGenRow), "lengthgen",
                      lambda job: chosen_lengths(job.cell, campaign.test_lengths)))


def print_tables(results: CampaignResults, file=None) -> None:
    """The campaign's tables on ``file`` (None: the standard output at the time of the call,
    not at import, so that a caller who redirects it gets the tables)."""
    from ..results import (
        LENGTHGEN_COLUMNS,
        kappa_lines,
        lengthgen_lines,
        nstar_lines,
        write_table,
    )

    file = sys.stdout if file is None else file
    nstar, kappa, ood = results.nstar, results.kappa, results.ood
    if nstar:
        print("\nN*, the smallest training set from which a run of the grid reaches ε (where "
              "none did, the largest size that failed):", file=file)
        write_table(nstar_lines(nstar), NSTAR_COLUMNS, file=file)
        for note in divergence_notes(nstar):
            print(f"\nWarning: {note}.", file=file)
    if kappa:
        print("\nκ = Σ N*_n / N*_joint (where some N* lies beyond its pool or budget, the "
              "bounds its brackets allow, and the N* it lacks):", file=file)
        write_table(kappa_lines(kappa), KAPPA_COLUMNS, file=file)
    if ood:
        print("\nOut of distribution (length 2L; chance 0, perfect 1):", file=file)
        write_table(ood, OOD_COLUMNS, file=file)
    if results.reach:
        print("\nReach (the OOD check's best run at 2L .. 1,000L; chance 0, perfect 1):",
              file=file)
        write_table(results.reach, REACH_COLUMNS, file=file)
    if results.lengthgen:
        print("\nLength generalisation (the best run at N, scored on the training lengths "
              "and on longer ones):", file=file)
        write_table(lengthgen_lines(results.lengthgen), LENGTHGEN_COLUMNS, file=file)


__all__ = ["Campaign", "CampaignResults", "print_tables", "run_campaign", "search_one"]
