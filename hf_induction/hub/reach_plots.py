"""How far each check carries, as a figure (matplotlib, Agg backend):

    reach_<task>_<group>.png   the normalised final-state accuracy against length (log
                               axis), one line per model and training cell; chance (0), the
                               "carries to" threshold and perfect (1) drawn across

Drawn from the reach board table's rows (`results.reach.reach_groups`), so the figure shows
what the table holds.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from .. import tasks
from ..results.reach import CARRIES, Reach
from .plots import _colours, _legend, _save, plt


def _task(group: Reach) -> tuple[str, str]:
    cell = tasks.parse_or_none(group.dataset, group.config)
    return group.dataset, cell.variant if cell is not None else "?"


def plot_reach(groups: Sequence[Reach], path: Path, title: str) -> Path:
    """One line per check: its scored lengths against their normalised final-state accuracy;
    a length beyond a model's positions is left out (it has no score)."""
    colours = _colours(sorted({g.model for g in groups}))
    styles = ("-", "--", ":", "-.")
    configs = sorted({g.config for g in groups})
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for g in groups:
        scored = [r for r in g.rows if r.scored]
        ax.plot([r.length for r in scored], [r.normalised_final_state_accuracy for r in scored],
                marker="o", color=colours[g.model],
                linestyle=styles[configs.index(g.config) % len(styles)],
                label=f"{g.model} {g.config} (N={g.n:,})")
    ax.set_xscale("log")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(CARRIES, color="grey", linewidth=0.8, linestyle="--")
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_xlabel("test length (log scale)")
    ax.set_ylabel("normalised final-state accuracy\n(chance 0, perfect 1)")
    ax.set_title(title)
    _legend(ax)
    return _save(fig, path)


def write_reach_figures(groups: Sequence[Reach], out: str | Path) -> list[Path]:
    """One reach figure per task (dataset and group) into ``out``; none without rows."""
    by_task: dict[tuple[str, str], list[Reach]] = defaultdict(list)
    for g in groups:
        by_task[_task(g)].append(g)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return [plot_reach(gs, out / f"reach_{dataset}_{variant}.png",
                       f"How far it carries: {dataset} {variant}")
            for (dataset, variant), gs in sorted(by_task.items())]
