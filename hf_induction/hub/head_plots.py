"""Figures of the heads and patching tables as PNG (matplotlib, Agg): what the report and the
Space show. One of each per (checkpoint, prompt config):

    heads_<checkpoint>_<config>.png      one heat map per score, layer × head, 0..1
    patching_<checkpoint>_<config>.png   one panel per kind: the heads by the rise in loss
                                         their patch caused (Δ loss), ranked

Drawn from the tables' rows as `load_table` gives them (mappings), so the table is the one
source; no torch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from ..results.render import HEAD_SCORE_COLUMNS, head_label  # noqa: E402

Row = Mapping[str, Any]
# A bar plot shows at most this many heads per kind: the ones whose patch mattered most.
MAX_BARS = 24
# Heat maps with at most this many cells carry their values.
MAX_ANNOTATED = 64


def figure_name(kind: str, checkpoint: str, config: str) -> str:
    """``<kind>_<checkpoint>_<config>.png``, letters, digits and ``._-`` only (a checkpoint
    given as a path keeps its characters that a file name can hold)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", f"{checkpoint}_{config}").strip("-.")
    return f"{kind}_{stem}.png"


def _margins(fig, *, left: float, right: float, top: float, bottom: float,
             wspace: float) -> None:
    """Fixed margins, in inches, around the panels. A layout engine (tight, constrained, or
    ``bbox_inches="tight"``) measures every text of the figure before drawing it, which made
    the figures of one report take most of its time; these figures' labels have known
    sizes (layer and head numbers, "L3H2", a one-line title)."""
    width, height = fig.get_size_inches()
    fig.subplots_adjust(left=left / width, right=1 - right / width, top=1 - top / height,
                        bottom=bottom / height, wspace=wspace)


def _groups(rows: Iterable[Row]) -> dict[tuple[str, str], list[Row]]:
    """The last row per key, grouped by (checkpoint, config)."""
    groups: dict[tuple[str, str], list[Row]] = {}
    for row in {r["key"]: r for r in rows}.values():
        groups.setdefault((row["checkpoint"], row["config"]), []).append(row)
    return dict(sorted(groups.items()))


def plot_head_scores(rows: Sequence[Row], path: Path, title: str) -> Path:
    """One heat map per score (layer × head) of one (checkpoint, prompt config)."""
    layers = 1 + max(r["layer"] for r in rows)
    heads = 1 + max(r["head"] for r in rows)
    fig, axes = plt.subplots(1, len(HEAD_SCORE_COLUMNS), squeeze=False,
                             figsize=(3.2 * len(HEAD_SCORE_COLUMNS), 1.4 + 0.45 * layers))
    _margins(fig, left=0.6, right=0.9, top=0.75, bottom=0.5, wspace=0.25)
    image = None
    for ax, score in zip(axes[0], HEAD_SCORE_COLUMNS, strict=True):
        grid = [[float("nan")] * heads for _ in range(layers)]
        for r in rows:
            grid[r["layer"]][r["head"]] = r[score]
        image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="viridis", aspect="auto")
        if layers * heads <= MAX_ANNOTATED:
            for r in rows:
                value = r[score]
                ax.text(r["head"], r["layer"], f"{value:.2f}", ha="center", va="center",
                        fontsize=7, color="white" if value < 0.6 else "black")
        ax.set_title(score.replace("_", " "))
        ax.set_xlabel("head")
        ax.set_xticks(range(heads))
        ax.set_yticks(range(layers))
    axes[0][0].set_ylabel("layer")
    fig.colorbar(image, ax=list(axes[0]), fraction=0.02, pad=0.01, label="mean attention")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_patching(rows: Sequence[Row], path: Path, title: str) -> Path:
    """Per kind, the heads by Δ loss (rank 1 on top), at most `MAX_BARS` of them."""
    kinds = list(dict.fromkeys(r["kind"] for r in rows))
    shown = max(min(MAX_BARS, sum(r["kind"] == k for r in rows)) for k in kinds)
    # One loss scale for both kinds: a panel of its own would blow noise (1e-8) up to the
    # width of a real effect.
    fig, axes = plt.subplots(1, len(kinds), squeeze=False, sharex=True,
                             figsize=(4.5 * len(kinds), 1.4 + 0.25 * shown))
    _margins(fig, left=0.7, right=0.2, top=0.75, bottom=0.5, wspace=0.45)
    for ax, kind in zip(axes[0], kinds, strict=True):
        ranked = sorted((r for r in rows if r["kind"] == kind), key=lambda r: r["rank"])
        ranked = ranked[:MAX_BARS]
        values = [r["delta_ce"] if r["delta_ce"] is not None else 0.0 for r in ranked]
        ax.barh(range(len(ranked)), values, color=["tab:red" if v > 0 else "tab:blue"
                                                   for v in values])
        ax.set_yticks(range(len(ranked)), [head_label(r["layer"], r["head"]) for r in ranked])
        ax.invert_yaxis()
        ax.axvline(0.0, color="black", linewidth=0.6)
        ax.set_title(f"{kind.replace('_', ' ')} (clean loss {ranked[0]['base_ce'] or 0:.3g})")
        ax.set_xlabel("Δ loss when patched")
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_head_figures(heads: Iterable[Row], patching: Iterable[Row], out: str | Path
                       ) -> dict[tuple[str, str], dict[str, Path]]:
    """Every heat map and patching plot the rows allow, in ``out``: (checkpoint, config) ->
    {"heads": path, "patching": path} (each where it has rows)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figures: dict[tuple[str, str], dict[str, Path]] = {}
    for (checkpoint, config), rows in _groups(heads).items():
        title = f"{checkpoint} on {rows[0]['dataset']}/{config} ({rows[0]['n_positions']:,} " \
                "positions)"
        figures.setdefault((checkpoint, config), {})["heads"] = plot_head_scores(
            rows, out / figure_name("heads", checkpoint, config), title)
    for (checkpoint, config), rows in _groups(patching).items():
        title = f"{checkpoint} on {rows[0]['dataset']}/{config}: patched heads"
        figures.setdefault((checkpoint, config), {})["patching"] = plot_patching(
            rows, out / figure_name("patching", checkpoint, config), title)
    return figures
