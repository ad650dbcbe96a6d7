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
from ..results import KappaRow, NstarRow, OodRow, ResultsFolder
from ..results.render import (
    LENGTHGEN_TABLE_COLUMNS,
    NO_ROWS,
    REPORT_COMPUTE_COLUMNS,
    REPORT_GROUP_COLUMNS,
    REPORT_KAPPA_COLUMNS,
    REPORT_OOD_COLUMNS,
    REPORT_PROTOCOL_COLUMN,
    REPORT_SEARCH_COLUMNS,
    lengthgen_table_lines,
    markdown_table,
    number,
    report_kappa_lines,
    report_ood_lines,
    row_nstar_bracket,
)
from .budgets import BUDGETS
from .report_heads import heads_section
from .tables import kappa_rows, latest

PAPER = BUDGETS["paper"]
# The paper's cost of one probe: every run of the grid for the whole budget.
PAPER_STEPS_PER_PROBE = len(PAPER.lrs) * len(PAPER.seeds) * PAPER.max_steps


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


def search_lines(rows: Sequence[NstarRow]) -> list[dict[str, str]]:
    """Every search as a `search_columns` line: its bracket, the steps it spent and the paper
    protocol's for its probes; with the protocol's hash (read only where the rows come from
    more than one, a --force)."""
    out = []
    for r in sorted(rows, key=lambda r: (r.dataset, r.model, _cell_sort(r))):
        paper = r.num_probes * PAPER_STEPS_PER_PROBE
        out.append(dict(zip(REPORT_SEARCH_COLUMNS, (
            r.dataset, r.config, r.model, model_preset_of(r), number(r.n_star),
            row_nstar_bracket(r), number(r.pool_size),
            str(r.num_probes), number(r.total_steps),
            number(paper / r.total_steps if r.total_steps else None), f"{r.wall_s:.0f}"),
            strict=True), **{REPORT_PROTOCOL_COLUMN: r.protocol_hash}))
    return out


def search_columns(rows: Sequence[NstarRow]) -> tuple[str, ...]:
    mixed = len({r.protocol_hash for r in rows}) > 1
    return REPORT_SEARCH_COLUMNS + ((REPORT_PROTOCOL_COLUMN,) if mixed else ())


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
    return [GroupSeries(d, f, m, tuple(sorted(pts, key=lambda p: p[0])))
            for (d, f, m), pts in sorted(series.items()) if len(pts) > 1]


def group_lines(series: Sequence[GroupSeries]) -> list[dict[str, str]]:
    """Each series as a `REPORT_GROUP_COLUMNS` line: N* per group size, ">F" where not found."""
    return [dict(zip(REPORT_GROUP_COLUMNS, (
        s.dataset, s.family, s.model,
        ", ".join(f"{g}: {number(r.n_star) if r.n_star else '>' + number(r.largest_failing)}"
                  for g, r in s.points)), strict=True))
            for s in series]


def compute_lines(rows: Sequence[NstarRow]) -> list[dict[str, str]]:
    """Per model, a `REPORT_COMPUTE_COLUMNS` line: searches, probes, runs, steps, CPU-hours,
    and steps against the paper's."""
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
        out.append(dict(zip(REPORT_COMPUTE_COLUMNS, (
            model, str(len(rs)), str(probes), number(trained), number(steps), f"{cpu_h:.2f}",
            number(paper), f"{paper / max(steps, 1):,.0f}×"), strict=True)))
    return out


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


def table(columns: Sequence[str], lines: Sequence[dict[str, str]]) -> str:
    return markdown_table(columns, lines, empty=NO_ROWS)


def render_tables(folder: ResultsFolder, figures: Sequence[str] = (),
                  head_figures: Mapping[tuple[str, str], Mapping[str, Any]] | None = None) -> str:
    """``tables.md``: every table of the report, from the folder alone; ``head_figures``
    are the heat maps and patching plots its "Attention heads" section links."""
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
    parts += ["", "## N* per search", "", table(search_columns(nstar), search_lines(nstar)),
              "", "## κ", "", table(REPORT_KAPPA_COLUMNS, report_kappa_lines(kappa_rows(folder))),
              "", "## Out of distribution (length 2L; chance 0, perfect 1)", "",
              table(REPORT_OOD_COLUMNS, report_ood_lines(latest(folder.read_ood()))),
              "", "## Length generalisation (the best run at N; validation = the training "
              "lengths; chance = what uniform guessing scores)", "",
              table(LENGTHGEN_TABLE_COLUMNS, lengthgen_table_lines(folder.read_lengthgen())),
              "", "## N* against the group size", "",
              table(REPORT_GROUP_COLUMNS, group_lines(nstar_vs_group(nstar))),
              "", "## Compute", "", table(REPORT_COMPUTE_COLUMNS, compute_lines(nstar))]
    parts += heads_section(folder, head_figures)
    if figures:
        parts += ["", "## Figures", ""] + [f"![{f}]({f})" for f in figures]
    return "\n".join(parts) + "\n"


__all__ = ["deviations", "nstar_vs_group", "render_tables"]
