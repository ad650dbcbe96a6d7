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
from collections.abc import Sequence
from dataclasses import dataclass

from .. import tasks
from ..hub.leaderboard import (
    LENGTHGEN_TABLE_COLUMNS,
    lengthgen_table_rows,
    markdown_table,
)
from ..hub.leaderboard import fmt_number as fmt
from ..models import PRESETS, build_config, model_config_hash
from ..results import (
    KappaRow,
    NstarRow,
    OodRow,
    ResultsFolder,
    kappa_bounds_text,
    kappa_text,
    missing_nstar,
    nstar_bracket,
)
from .budgets import BUDGETS
from .tables import kappa_rows, latest

PAPER = BUDGETS["paper"]
# The paper's cost of one probe: every run of the grid for the whole budget.
PAPER_STEPS_PER_PROBE = len(PAPER.lrs) * len(PAPER.seeds) * PAPER.max_steps


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    return markdown_table(header, rows) if rows else "(none yet)"


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


def search_rows(rows: Sequence[NstarRow]) -> list[list[str]]:
    """Every search: its bracket, the steps it spent and the paper protocol's for its probes;
    with the protocol's hash when the rows come from more than one (a --force)."""
    mixed = len({r.protocol_hash for r in rows}) > 1
    out = []
    for r in sorted(rows, key=lambda r: (r.dataset, r.model, _cell_sort(r))):
        paper = r.num_probes * PAPER_STEPS_PER_PROBE
        out.append([r.dataset, r.config, r.model, model_preset_of(r), fmt(r.n_star),
                    nstar_bracket(r.n_star, r.largest_failing), fmt(r.pool_size),
                    str(r.num_probes), fmt(r.total_steps),
                    fmt(paper / r.total_steps if r.total_steps else None),
                    f"{r.wall_s:.0f}", *([r.protocol_hash] if mixed else [])])
    return out


def search_columns(rows: Sequence[NstarRow]) -> tuple[str, ...]:
    mixed = len({r.protocol_hash for r in rows}) > 1
    return SEARCH_COLUMNS + (("protocol",) if mixed else ())


SEARCH_COLUMNS = ("task", "config", "model", "preset", "N*", "bracket", "pool", "probes",
                  "steps", "paper steps / ours", "wall s")


def _cell_sort(r) -> tuple:
    c = tasks.parse(r.dataset, r.config)
    return (c.kind, c.family_param, c.dist != "fixed", c.max_len, c.dist)


def kappa_table(rows: Sequence[KappaRow]) -> list[list[str]]:
    out = []
    for r in sorted(rows, key=lambda r: (r.dataset, r.config, r.model)):
        by_n = " ".join(fmt(n) if n is not None else f">{fmt(f)}"
                        for n, f in zip(r.nstar_by_length, r.largest_failing_by_length,
                                        strict=True))
        out.append([r.dataset, r.config, r.model, kappa_text(r.kappa, r.kappa_low, r.kappa_high),
                    kappa_bounds_text(r.kappa_low, r.kappa_high),
                    missing_nstar(r.lengths, r.nstar_by_length, r.nstar_joint),
                    fmt(r.nstar_joint), by_n])
    return out


KAPPA_COLUMNS = ("task", "joint cell", "model", "κ", "κ bounds", "N* missing", "N*_joint",
                 "N*_n for n = 2..L (>F: beyond the budget, failed at F)")


def ood_table(rows: Sequence[OodRow]) -> list[list[str]]:
    return [[r.dataset, r.config, r.model, fmt(r.n), fmt(r.lr), str(r.seed), fmt(r.steps),
             fmt(r.val_loss), str(r.test_length), f"{r.normalised_state_accuracy:.3f}",
             f"{r.normalised_final_state_accuracy:.3f}"]
            for r in sorted(rows, key=lambda r: (r.dataset, r.config, r.model))]


OOD_COLUMNS = ("task", "trained on", "model", "N", "lr", "seed", "steps", "val loss",
               "test length", "normalised state acc.", "normalised final-state acc.")


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
    return [GroupSeries(d, f, m, tuple(sorted(pts, key=lambda p: p[0])))
            for (d, f, m), pts in sorted(series.items()) if len(pts) > 1]


def group_table(series: Sequence[GroupSeries]) -> list[list[str]]:
    return [[s.dataset, s.family, s.model,
             ", ".join(f"{g}: {fmt(r.n_star) if r.n_star else '>' + fmt(r.largest_failing)}"
                       for g, r in s.points)]
            for s in series]


GROUP_COLUMNS = ("task", "cell", "model", "group size: N* (>F: failed up to F)")


def compute_table(rows: Sequence[NstarRow]) -> list[list[str]]:
    """Per model: searches, probes, runs, steps, CPU-hours, and steps against the paper's."""
    by_model: dict[str, list[NstarRow]] = defaultdict(list)
    for r in rows:
        by_model[r.model].append(r)
    out = []
    for model, rs in sorted(by_model.items()):
        probes = sum(r.num_probes for r in rs)
        steps = sum(r.total_steps for r in rs)
        cpu_h = sum(r.wall_s * threads_of(r) for r in rs) / 3600
        paper = probes * PAPER_STEPS_PER_PROBE
        # A run the probe's first success spared is journaled with 0 steps: not trained.
        trained = sum(int(run.get("steps") or 0) > 0 for r in rs for run in runs_of(r))
        out.append([model, str(len(rs)), str(probes), fmt(trained),
                    fmt(steps), f"{cpu_h:.2f}", fmt(paper), f"{paper / max(steps, 1):,.0f}×"])
    return out


COMPUTE_COLUMNS = ("model", "searches", "probes", "runs trained", "steps", "CPU-hours",
                   "paper-protocol steps for the same probes", "fewer steps")


def deviations(protocol: dict, rows: Sequence[NstarRow]) -> list[str]:
    """How the folder's protocol and models differ from the paper's, one line each."""
    train, search = protocol.get("train", {}), protocol.get("search", {})
    lines = []
    checks = [("max_steps", "steps per run", PAPER.max_steps),
              ("batch_size", "batch size", PAPER.batch_size),
              ("lrs", "learning rates", list(PAPER.lrs)),
              ("seeds", "seeds", list(PAPER.seeds)),
              ("epsilon", "success threshold ε", PAPER.epsilon)]
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
    if train.get("stop_on_first_success", True):
        lines.append("a probe stops at its first successful run, and a run at its first "
                     "validation loss below ε (paper: no early stopping mentioned)")
    if search.get("mode") and search["mode"] != "paper":
        lines.append(f"search: {search['mode']} (×4 bracketing from N = {search.get('n_start')}, "
                     f"geometric bisection to rtol {search.get('rtol')}, N ≤ "
                     f"{fmt(search.get('n_max'))}) instead of the paper's Algorithm 1")
    presets = defaultdict(set)
    for r in rows:
        presets[r.model].add(model_preset_of(r))
    for model, names in sorted(presets.items()):
        if names != {"paper"}:
            lines.append(f"{model}: preset {'/'.join(sorted(names))} ({_sizes('tiny', model)}) "
                         f"instead of the paper's ({_sizes('paper', model)})")
    return lines


def _sizes(preset: str, model: str) -> str:
    return ", ".join(f"{k}={v}" for k, v in PRESETS[preset][model].items()
                     if k != "activation_function")


def render_tables(folder: ResultsFolder, figures: Sequence[str] = ()) -> str:
    """``tables.md``: every table of the report, from the folder alone."""
    nstar = latest(folder.read_nstar())
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
    parts += ["", "## N* per search", "", table(search_columns(nstar), search_rows(nstar)),
              "", "## κ", "", table(KAPPA_COLUMNS, kappa_table(kappa_rows(folder))),
              "", "## Out of distribution (length 2L; chance 0, perfect 1)", "",
              table(OOD_COLUMNS, ood_table(latest(folder.read_ood()))),
              "", "## Length generalisation (the best run at N; validation = the training "
              "lengths; chance = what uniform guessing scores)", "",
              table(LENGTHGEN_TABLE_COLUMNS, lengthgen_table_rows(folder.read_lengthgen())),
              "", "## N* against the group size", "",
              table(GROUP_COLUMNS, group_table(nstar_vs_group(nstar))),
              "", "## Compute", "", table(COMPUTE_COLUMNS, compute_table(nstar))]
    if figures:
        parts += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    return "\n".join(parts) + "\n"


__all__ = ["deviations", "nstar_vs_group", "render_tables"]
