"""The report of a results folder: N*, κ, OOD and N* against |G| tables, compute, deviations.

``scripts/report.py results/first_campaign --out docs/results/first_campaign`` writes
``tables.md`` and the figures; the prose of ``docs/results.md`` reads them. Everything here is
computed from the folder's rows and its ``protocol.json``, so a report never states a number
the folder does not hold.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import tasks
from ..models import PRESETS, build_config, model_config_hash
from ..models.registry import model_spec
from ..results import KappaRow, LengthGenRow, NstarRow, OodRow, ReachRow, ResultsFolder
from ..results.derived import kappa_rows
from ..results.reach import reach_groups
from ..results.render import (
    CONFIG,
    DATASET,
    KAPPA_COLUMNS,
    LENGTHGEN_TABLE_COLUMNS,
    MODEL,
    NSTAR,
    NSTAR_LIES_IN,
    OOD_COLUMNS,
    POOL,
    PROBES,
    REACH_BOARD_COLUMNS,
    SECONDS,
    STEPS_ALL_RUNS,
    Column,
    Columns,
    by_cell,
    column,
    number,
)
from ..results.tables import latest
from ..runner.budgets import BUDGETS
from .report_heads import heads_section

PAPER = BUDGETS["paper"].values()
# The paper's cost of one probe: every run of the grid for the whole budget.
PAPER_STEPS_PER_PROBE = len(PAPER["lrs"]) * len(PAPER["seeds"]) * PAPER["max_steps"]


def model_preset_of(row: NstarRow | OodRow | KappaRow) -> str:
    """The preset whose config the row's model was, or "custom"."""
    vocab = tasks.parse(row.dataset, row.config).vocab
    for preset in PRESETS:
        try:
            if model_config_hash(build_config(row.model, vocab, preset)) == row.model_config_hash:
                return preset
        except ValueError:
            continue
    return "custom"


def threads_of(row: NstarRow) -> int:
    """Torch threads the search ran with (its ``hardware`` field), 1 on a GPU or if unknown."""
    m = re.search(r"cpu x(\d+) threads", row.hardware)
    return int(m.group(1)) if m else 1


def runs_of(row: NstarRow) -> list[dict]:
    return [run for probe in json.loads(row.probes) for run in probe.get("runs", [])]


def _paper_over_ours(r: NstarRow) -> str:
    paper = r.num_probes * PAPER_STEPS_PER_PROBE
    return number(paper / r.total_steps if r.total_steps else None)


# Every search: its bracket, the steps it spent and the paper protocol's for its probes.
SEARCH_COLUMNS = Columns(DATASET, CONFIG, MODEL, Column("preset", model_preset_of), NSTAR,
                         NSTAR_LIES_IN, POOL, PROBES, STEPS_ALL_RUNS,
                         Column("paper steps / ours", _paper_over_ours), SECONDS)
# Where a folder holds searches of more than one protocol, this column tells them apart.
PROTOCOL = column("protocol", "protocol_hash")


def search_columns(rows: Sequence[NstarRow]) -> Columns:
    """`SEARCH_COLUMNS`, with the protocol's hash where the rows come from more than one (a
    --force)."""
    mixed = len({r.protocol_hash for r in rows}) > 1
    return SEARCH_COLUMNS + ((PROTOCOL,) if mixed else ())


def by_search(rows: Sequence[NstarRow]) -> list[NstarRow]:
    return sorted(rows, key=lambda r: (r.dataset, r.model, _cell_sort(r)))


def _cell_sort(r) -> tuple:
    c = tasks.parse(r.dataset, r.config)
    return (c.kind, c.family_param, c.dist != "fixed", c.max_len, c.dist)


@dataclass(frozen=True)
class GroupSeries:
    """N* of one (task, kind, L, dist, model) against the family parameter (m, k or V)."""

    dataset: str
    family: str
    model: str
    points: tuple[tuple[int, NstarRow], ...]


def nstar_vs_group(rows: Sequence[NstarRow]) -> list[GroupSeries]:
    """Series with more than one family parameter (m of Z_m, k of S_k, V symbols)."""
    series: dict[tuple, list] = defaultdict(list)
    for r in rows:
        c = tasks.parse(r.dataset, r.config)
        series[(r.dataset, c.family_name(), r.model)].append((c.family_param, r))
    # By size, then name: a group family's Z12, D6 and A4 share a size.
    return [GroupSeries(d, f, m, tuple(sorted(pts, key=lambda p: (p[1].alphabet_size or 0,
                                                                   str(p[0])))))
            for (d, f, m), pts in sorted(series.items()) if len(pts) > 1]


def _nstar_by_group(s: GroupSeries) -> str:
    return ", ".join(f"{g}: {number(r.n_star) if r.n_star else '>' + number(r.largest_failing)}"
                     for g, r in s.points)


# Each series: N* per group size, ">F" where not found.
GROUP_COLUMNS = Columns(DATASET, column("cells", "family"), MODEL,
                        Column("group size: N* (>F: failed up to F)", _nstar_by_group))


@dataclass(frozen=True)
class ModelCompute:
    """What one model's searches cost: searches, probes, runs trained, steps, CPU-hours, and
    the paper protocol's steps for the same probes."""

    model: str
    searches: int
    num_probes: int
    trained: int
    steps: int
    cpu_hours: float

    @property
    def paper_steps(self) -> int:
        return self.num_probes * PAPER_STEPS_PER_PROBE

    @classmethod
    def of(cls, model: str, rows: Sequence[NstarRow]) -> ModelCompute:
        # A run the probe's first success spared is journaled with 0 steps: not trained.
        trained = sum(int(run.get("steps") or 0) > 0 for r in rows for run in runs_of(r))
        return cls(model, len(rows), sum(r.num_probes for r in rows), trained,
                   sum(r.total_steps for r in rows),
                   sum(r.wall_s * threads_of(r) for r in rows) / 3600)


COMPUTE_COLUMNS = Columns(
    MODEL, column("searches", format=number, right=True), PROBES,
    column("runs trained", "trained", number, right=True),
    column("steps (all runs)", "steps", number, right=True),
    Column("CPU-hours", lambda m: f"{m.cpu_hours:.2f}", right=True),
    column("paper-protocol steps for the same probes", "paper_steps", number, right=True),
    Column("fewer steps", lambda m: f"{m.paper_steps / max(m.steps, 1):,.0f}×", right=True))


def compute_by_model(rows: Sequence[NstarRow]) -> list[ModelCompute]:
    by_model: dict[str, list[NstarRow]] = defaultdict(list)
    for r in rows:
        by_model[r.model].append(r)
    return [ModelCompute.of(model, rs) for model, rs in sorted(by_model.items())]


def deviations(protocol: dict, rows: Sequence[NstarRow]) -> list[str]:
    """How the folder's protocol and models differ from the paper's, one line each."""
    train, search = protocol.get("train", {}), protocol.get("search", {})
    lines = []
    checks = [("max_steps", "steps per run", PAPER["max_steps"]),
              ("batch_size", "batch size", PAPER["batch_size"]),
              ("lrs", "learning rates", list(PAPER["lrs"])),
              ("seeds", "seeds", list(PAPER["seeds"])),
              ("epsilon", "success threshold ε", PAPER["epsilon"])]
    for key, what, paper in checks:
        ours = train.get(key)
        if ours is not None and (list(ours) if isinstance(paper, list) else ours) != paper:
            lines.append(f"{what}: {ours} (paper: {paper})")
    for model, own in sorted(protocol.get("by_model", {}).items()):
        mine = own.get("train", {})
        if settings := "; ".join(f"{what} {mine[key]}" for key, what, _ in checks if key in mine):
            lines.append(f"{model} trains under its own settings (its preset's): {settings}")
    if rule := train.get("early_failure"):
        lines.append(f"early failure ({rule['name']}): a run stops once it fits its training "
                     f"rows {1 / rule['gap']:g}× better than unseen ones and the power-law "
                     f"forecast of its validation loss at the end of the budget stays above "
                     f"{rule['margin']:g}ε, from {rule['start']:.0%} of the budget on"
                     + ("" if rule.get("whole_pool", True) else
                        ", and never at the probe of the whole training pool")
                     + " (paper: every run trains its full budget)")
    if train.get("patience_steps"):
        lines.append(f"early failure: a run stops when its best validation loss has not "
                     f"fallen by a factor {1 / train.get('min_improvement', 0.5):g} in "
                     f"{train['patience_steps']} steps (paper: every run trains its full budget)")
    if "validation" in train:
        # Recorded off its default only (`Setting.plain`): the rule of every older folder.
        lines.append(f"validation: {train['validation']}, drawn by the training law with the "
                     "whole pool left to training, so a training set may hold validation words "
                     "(default: disjoint, set apart from every training set; the paper does "
                     "not say which)")
    if train.get("stop_on_first_success", True):
        lines.append("a probe stops at its first successful run, and a run at its first "
                     "validation loss below ε (paper: no early stopping mentioned)")
    if search.get("mode") and search["mode"] != "paper":
        lines.append(f"search: {search['mode']} (×4 bracketing from N = {search.get('n_start')}, "
                     f"geometric bisection to rtol {search.get('rtol')}, N ≤ "
                     f"{number(search.get('n_max'))}) instead of the paper's Algorithm 1")
    presets = defaultdict(set)
    for r in rows:
        presets[r.model].add(model_preset_of(r))
    for model, names in sorted(presets.items()):
        if names != {"paper"}:
            lines.append(f"{model}: preset {'/'.join(sorted(names))} ({_sizes('tiny', model)}) "
                         f"instead of the paper's ({_sizes('paper', model)})")
    return lines


def _sizes(preset: str, model: str) -> str:
    try:
        sizes = model_spec(model).presets[preset]
    except ValueError:
        # A model from outside the package whose spec cannot be imported where the report runs.
        return "its spec not importable here"
    return ", ".join(f"{k}={v}" for k, v in sizes.items() if k != "activation_function")


def render_tables(folder: ResultsFolder, figures: Sequence[str] = (),
                  head_figures: Mapping[tuple[str, str], Mapping[str, Any]] | None = None) -> str:
    """``tables.md``: every table of the report, from the folder alone; ``head_figures``
    are the heat maps and patching plots its "Attention heads" section links."""
    nstar = latest(folder.read(NstarRow))
    protocol = folder.read_protocol() or {}
    parts = ["# Results tables", "",
             f"Generated by `python scripts/report.py {folder.path}` from the folder's rows; "
             "N* lies in the bracket (largest failing, N*].", "",
             "## Protocol and its deviations from the paper", "",
             "```json", json.dumps(protocol, indent=1, sort_keys=True), "```", ""]
    parts += [f"- {line}" for line in deviations(protocol, nstar)] or ["- none"]
    if len({r.protocol_hash for r in nstar}) > 1:
        parts += ["", "The folder holds searches of more than one protocol (it was forced): the "
                  "protocol column tells them apart, and only the current one is printed above."]
    parts += ["", "## N* per search", "", search_columns(nstar).markdown(by_search(nstar)),
              "", "## κ", "", KAPPA_COLUMNS.markdown(by_cell(kappa_rows(folder))),
              "", "## Out of distribution (length 2L; chance 0, perfect 1)", "",
              OOD_COLUMNS.markdown(by_cell(folder.read(OodRow))),
              "", "## Reach (each OOD check's best run at 2L .. 1,000L; normalised final-state "
              "accuracy, chance 0, perfect 1)", "",
              REACH_BOARD_COLUMNS.markdown(reach_groups(folder.read(ReachRow))),
              "", "## Length generalisation (the best run at N; validation = the training "
              "lengths; chance = what uniform guessing scores)", "",
              LENGTHGEN_TABLE_COLUMNS.markdown(by_cell(folder.read(LengthGenRow))),
              "", "## N* against the group size", "",
              GROUP_COLUMNS.markdown(nstar_vs_group(nstar)),
              "", "## Compute", "", COMPUTE_COLUMNS.markdown(compute_by_model(nstar))]
    parts += heads_section(folder, head_figures)
    if figures:
        parts += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    return "\n".join(parts) + "\n"


__all__ = ["deviations", "nstar_vs_group", "render_tables"]
