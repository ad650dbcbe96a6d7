"""Leaderboard figures as PNG (matplotlib, Agg backend): N* against length, κ by model and format.

One figure of each kind per task (dataset × group), each κ row one series of it, named in
the legend as the caller names it (its model; the leaderboard adds the source where several
sources hold that model):

    nstar_vs_length_<task>_<group>.png   one panel per format, one line per κ row, N*_n
                                         against n on a log scale; N*_joint dashed
    kappa_<task>_<group>.png             bars of κ per format × L, one bar per κ row

and one over every out-of-distribution check:

    ood_final_state.png                  the final state's normalised accuracy at 2L, one
                                         group of bars per model, one bar per training cell
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from .entries import Entry  # noqa: E402

# A κ row as a figure draws it: (its name in the legend, its entry).
Named = tuple[str, Entry]


def _by_task(named: Sequence[Named]) -> dict[tuple[str, str], list[Named]]:
    groups: dict[tuple[str, str], list[Named]] = defaultdict(list)
    for name, e in named:
        groups[(e.dataset, e.group)].append((name, e))
    return dict(sorted(groups.items()))


def _names(named: Sequence[Named]) -> list[str]:
    return sorted({name for name, _ in named})


def _colours(models: Sequence[str]) -> dict[str, tuple]:
    cmap = plt.get_cmap("tab10")
    return {m: cmap(i % 10) for i, m in enumerate(models)}


def _legend(ax) -> None:
    # A panel with no labelled artist has nothing to name, and an empty legend warns.
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")


def _save(fig, path: Path) -> Path:
    """Every figure's last step: laid out, written at 100 dpi, closed (pyplot keeps it open)."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_nstar_vs_length(named: Sequence[Named], path: Path) -> Path:
    """N*_n against n, log y; one panel per format, one line per κ row (its name, and its L
    where the task has several)."""
    entries = [e for _, e in named]
    formats = sorted({e.format for e in entries})
    colours = _colours(_names(named))
    several_l = len({e.max_len for e in entries}) > 1
    fig, axes = plt.subplots(1, len(formats), figsize=(4.5 * len(formats), 3.6), squeeze=False,
                             sharey=True)
    for ax, fmt in zip(axes[0], formats, strict=True):
        for name, e in ((n, e) for n, e in named if e.format == fmt):
            # A length whose N* was not found is a gap in the line (NaN), not a straight join.
            ys = [math.nan if v is None else v for v in e.nstar_by_length]
            label = name + (f" L{e.max_len}" if several_l else "")
            if e.lengths:
                ax.plot(e.lengths, ys, marker="o", color=colours[name], label=label)
            # Not strict: entries built without the brackets have none to draw.
            beyond = [(n, f) for n, v, f in zip(e.lengths, e.nstar_by_length,
                                                e.largest_failing_by_length, strict=False)
                      if v is None and f]
            if beyond:
                ax.plot(*zip(*beyond, strict=True), linestyle="none", marker="^",
                        markerfacecolor="none", color=colours[name],
                        label=f"{label}: N*_n > this")
            if e.nstar_joint is not None:
                ax.axhline(e.nstar_joint, color=colours[name], linestyle="--", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_title(fmt)
        ax.set_xlabel("length n")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(True, which="both", alpha=0.3)
        _legend(ax)
    axes[0][0].set_ylabel("N*_n (dashed: N*_joint)")
    fig.suptitle(f"N* against length: {entries[0].label}")
    return _save(fig, path)


@dataclass(frozen=True)
class Bar:
    """One bar of the κ figure: its κ row's slot (format, L) and name, and its height, κ or,
    where κ is undefined, its lower bound (drawn hatched)."""

    slot: tuple[str, int]
    name: str
    height: float
    bound: bool


def kappa_bars(named: Sequence[Named]) -> list[Bar]:
    """The bars of the κ figure: one per κ row with a κ or a lower bound above 0 (a row
    nothing bounds below has nothing to draw), in the order drawn."""
    bars = []
    for name, e in sorted(named, key=lambda ne: (ne[0], ne[1].format, ne[1].max_len or 0)):
        slot = (e.format, e.max_len or 0)
        if e.kappa is not None:
            bars.append(Bar(slot, name, e.kappa, bound=False))
        elif e.kappa_low:
            bars.append(Bar(slot, name, e.kappa_low, bound=True))
    return bars


def plot_kappa_bars(named: Sequence[Named], path: Path) -> Path:
    """κ per (format, L) group of bars, one bar per κ row (`kappa_bars`); κ = 1 drawn as a
    line."""
    names = _names(named)
    colours = _colours(names)
    slots = sorted({(e.format, e.max_len or 0) for _, e in named})
    width = 0.8 / max(len(names), 1)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(slots) * max(len(names), 1) / 2 + 2), 3.6))
    bars = kappa_bars(named)
    for i, name in enumerate(names):
        for bound in (False, True):
            mine = [b for b in bars if b.name == name and b.bound == bound]
            if not mine:
                continue
            xs = [slots.index(b.slot) + (i - (len(names) - 1) / 2) * width for b in mine]
            # κ undefined (an N* beyond its budget): its lower bound, hatched.
            style = {"alpha": 0.35, "hatch": "//"} if bound else {}
            ax.bar(xs, [b.height for b in mine], width=width, color=colours[name],
                   label=f"{name} (lower bound)" if bound else name, **style)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    heights = [b.get_height() for b in ax.patches if b.get_height() > 0]
    if heights and max(heights) / min(heights + [1.0]) > 20:
        ax.set_yscale("log")  # a κ of thousands beside ones of 2-10: both stay readable
    ax.set_xticks(range(len(slots)))
    ax.set_xticklabels([f"{fmt} L{max_len}" for fmt, max_len in slots])
    ax.set_ylabel("κ")
    ax.set_title(f"κ by model and format: {named[0][1].label}")
    # No bar where no κ is defined nor bounded below: nothing to name.
    _legend(ax)
    return _save(fig, path)


def write_figures(entries: Sequence[Entry], out: str | Path,
                  names: Sequence[str] | None = None) -> list[Path]:
    """Both figures for every task in ``entries`` (κ rows), into ``out``, each row named by
    ``names`` (default: its model); returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    named = list(zip(names or [e.model for e in entries], entries, strict=True))
    written = []
    for (task, group), task_named in _by_task(named).items():
        stem = f"{task}_{group}"
        written.append(plot_nstar_vs_length(task_named, out / f"nstar_vs_length_{stem}.png"))
        written.append(plot_kappa_bars(task_named, out / f"kappa_{stem}.png"))
    return written


def ood_bars(rows: Sequence[Any], sources: Sequence[str] | None = None
             ) -> dict[tuple[str, str], float]:
    """(model, training cell) -> the final state's normalised accuracy: one bar per
    `OodRow` (the last per key of each source; ``sources`` names each row's, default one
    source), a cell named with its source where two sources hold a check of that model on
    it."""
    named = {(src, r.key): (src, r) for src, r in zip(sources or [""] * len(rows), rows,
                                                      strict=True)}
    held: dict[tuple[str, str, str], int] = defaultdict(int)
    for _, r in named.values():
        held[(r.model, r.dataset, r.config)] += 1
    return {(r.model, f"{r.dataset} {r.config}"
             + (f" ({src})" if held[(r.model, r.dataset, r.config)] > 1 else "")):
            r.normalised_final_state_accuracy for src, r in named.values()}


def plot_ood_bars(rows: Sequence[Any], path: Path, sources: Sequence[str] | None = None
                  ) -> Path:
    """`OodRow`s as bars of the final state's normalised accuracy (`ood_bars`): one group per
    model, models by their mean over the cells, best first; one bar per training cell;
    chance (0) and perfect (1) drawn as lines."""
    value = ood_bars(rows, sources)
    cells = sorted({cell for _, cell in value})
    mean = {m: statistics.fmean(v for (mm, _), v in value.items() if mm == m)
            for m in {m for m, _ in value}}
    models = sorted(mean, key=lambda m: (-mean[m], m))
    colours = _colours(cells)
    width = 0.8 / len(cells)
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(models) + 1.5), 3.8))
    for j, cell in enumerate(cells):
        xs = [i + (j - (len(cells) - 1) / 2) * width for i, m in enumerate(models)
              if (m, cell) in value]
        ys = [value[(m, cell)] for m in models if (m, cell) in value]
        ax.bar(xs, ys, width=width, color=colours[cell], label=cell)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels(models, rotation=30, ha="right")
    tests = sorted({r.test_length for r in rows})
    ax.set_ylabel(f"final state at length {'/'.join(map(str, tests))}\n(chance 0, perfect 1)")
    ax.set_title("Out of distribution: the final state at 2L")
    ax.legend(fontsize="small")
    return _save(fig, path)


def plot_nstar_vs_group(series: dict[str, list[tuple[int, int | None, int | None]]],
                        path: Path, title: str) -> Path:
    """N* against the group size, log-log; one line per label.

    ``series`` maps a label to (group size, N* or None, largest failing N) points; a point
    whose N* was not found is drawn as an open triangle at its largest failing N.
    """
    colours = _colours(sorted(series))
    fig, ax = plt.subplots(figsize=(5.0, 3.6))
    for label, points in sorted(series.items()):
        found = [(g, n) for g, n, _ in points if n is not None]
        if found:
            ax.plot(*zip(*found, strict=True), marker="o", color=colours[label], label=label)
        beyond = [(g, f) for g, n, f in points if n is None and f]
        if beyond:
            ax.plot(*zip(*beyond, strict=True), linestyle="none", marker="^",
                    markerfacecolor="none", color=colours[label], label=f"{label}: N* > this")
    sizes = sorted({g for points in series.values() for g, _, _ in points})
    return _nstar_by_size(fig, ax, sizes, [str(g) for g in sizes], "group size |G|", title, path)


def _nstar_by_size(fig, ax, ticks, labels, xlabel: str, title: str, path: Path,
                   **tick_style) -> Path:
    """The N*-against-size figures' axes: both logarithmic, a tick at each size, then saved."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ticks, labels, **tick_style)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel("N*")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    _legend(ax)
    return _save(fig, path)


def plot_nstar_by_group(series: dict[str, list[tuple[str, int, bool, int | None, int | None]]],
                        path: Path, title: str) -> Path:
    """N* of each group against its order, log-log, where several groups share an order.

    ``series`` maps a model to (group label, |G|, solvable, N* or None, largest failing N)
    points. Groups of one order stand side by side, each named; a solvable group's marker is
    a circle, a non-solvable one's a square (the TC⁰ / NC¹ line); an N* not found is an open
    triangle at its largest failing N.
    """
    colours = _colours(sorted(series))
    labels = sorted({(order, label) for points in series.values()
                     for label, order, *_ in points})
    # Side by side within an order: the k-th group of an order at order x 1.1^k.
    place = {}
    for order in sorted({o for o, _ in labels}):
        same = [label for o, label in labels if o == order]
        for k, label in enumerate(same):
            place[label] = order * 1.12 ** (k - (len(same) - 1) / 2)
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for model, points in sorted(series.items()):
        colour = colours[model]
        for solvable in (True, False):
            found = [(place[g], n) for g, _, s, n, _ in points if s == solvable and n]
            if found:
                ax.plot(*zip(*found, strict=True), linestyle="none", color=colour,
                        marker="o" if solvable else "s", markersize=6,
                        label=f"{model}" + ("" if solvable else " (not solvable)"))
        beyond = [(place[g], f) for g, _, _, n, f in points if n is None and f]
        if beyond:
            ax.plot(*zip(*beyond, strict=True), linestyle="none", marker="^",
                    markerfacecolor="none", color=colour, label=f"{model}: N* > this")
    return _nstar_by_size(fig, ax, [place[label] for _, label in labels],
                          [label for _, label in labels], "group, by order |G|", title, path,
                          rotation=45, fontsize="small")
