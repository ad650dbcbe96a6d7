"""The κ leaderboard: results (a local folder or a Hub dataset id) -> sorted entries -> markdown.

One entry per κ row: task × group × format × L × model, with N*_joint and Σ_n N*_n.
Entries are sorted by task, group, format and L, then by κ, largest first (undefined κ
last). The Space app and ``scripts/leaderboard.py`` both build on ``leaderboard_entries``.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .. import tasks
from ..results import (
    KappaRow,
    LengthGenRow,
    NstarRow,
    kappa_bounds_text,
    kappa_text,
    missing_nstar,
)


def load_table(source: str | Path, table: str, *, cache_dir: str | None = None) -> list[dict]:
    """The rows of config ``table`` ("kappa", "nstar", "journal") of a results folder or repo.

    ``datasets.load_dataset(source, table)`` reads both; a table without rows gives [].
    """
    import datasets

    if cache_dir is None and Path(source).is_dir():
        # `datasets` keys a local folder's cache by the folder's base name and the config,
        # not by its files: a folder that has grown since, or another folder of the same
        # name, would answer from a stale cache. A local folder is read afresh each time.
        with tempfile.TemporaryDirectory() as fresh:
            return load_table(source, table, cache_dir=fresh)
    try:
        ds = datasets.load_dataset(str(source), table, split="train", cache_dir=cache_dir)
    except datasets.exceptions.DataFilesNotFoundError:
        return []
    except ValueError as e:
        # A table whose files exist but hold no row yet (a search run without --kappa).
        if "corresponds to no data" in str(e):
            return []
        raise
    return ds.to_list()


def load_kappa(source: str | Path, **kwargs: Any) -> list[KappaRow]:
    return [KappaRow.from_dict(row) for row in load_table(source, "kappa", **kwargs)]


def load_nstar(source: str | Path, **kwargs: Any) -> list[NstarRow]:
    return [NstarRow.from_dict(row) for row in load_table(source, "nstar", **kwargs)]


def load_lengthgen(source: str | Path, **kwargs: Any) -> list[LengthGenRow]:
    return [LengthGenRow.from_dict(row) for row in load_table(source, "lengthgen", **kwargs)]


def _cell_of(dataset: str, config: str) -> tuple[str, str, int | None]:
    """(variant, kind, L) of a config name, e.g. ("Z_5", "acot", 10) or ("V16", "UR", 10);
    unparseable names keep what can be read."""
    cell = tasks.parse_or_none(dataset, config)
    if cell is None:
        return "?", config.split("_")[0], None
    return cell.variant, cell.kind, cell.max_len


@dataclass(frozen=True)
class Entry:
    """One row of the leaderboard."""

    task: str
    group: str
    format: str
    max_len: int | None
    model: str
    config: str
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    nstar_joint: int | None
    nstar_sum: int | None
    lengths: tuple[int, ...]
    nstar_by_length: tuple[int | None, ...]
    # Where N*_n was not found: the largest N that failed (N*_n lies above it).
    largest_failing_by_length: tuple[int | None, ...] = ()
    largest_failing_joint: int | None = None

    @classmethod
    def from_row(cls, row: KappaRow) -> Entry:
        group, fmt, max_len = _cell_of(row.dataset, row.config)
        by_length = tuple(row.nstar_by_length)
        total = None if any(n is None for n in by_length) else sum(by_length)
        return cls(
            task=row.dataset, group=group, format=fmt, max_len=max_len, model=row.model,
            config=row.config, kappa=row.kappa, kappa_low=row.kappa_low,
            kappa_high=row.kappa_high, nstar_joint=row.nstar_joint, nstar_sum=total,
            lengths=tuple(row.lengths), nstar_by_length=by_length,
            largest_failing_by_length=tuple(row.largest_failing_by_length),
            largest_failing_joint=row.largest_failing_joint,
        )

    @property
    def task_label(self) -> str:
        return f"{self.task} {self.group}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def kappa_sort_value(e: Entry) -> float:
    """κ where defined, else the bound the table shows (the lower one, else the upper): what
    a column of κ sorts by; a κ nothing bounds sorts last."""
    for value in (e.kappa, e.kappa_low or None, e.kappa_high):
        if value is not None and math.isfinite(value):
            return value
    return -math.inf


def _sort_key(e: Entry) -> tuple:
    return (e.task, e.group, e.format, e.max_len or 0, -kappa_sort_value(e), e.model)


def leaderboard_entries(rows: Iterable[KappaRow]) -> list[Entry]:
    """One entry per κ key (the last row wins, as for a rerun), sorted."""
    latest = {row.key: row for row in rows}
    return sorted((Entry.from_row(r) for r in latest.values()), key=_sort_key)


def load_leaderboard(source: str | Path, **kwargs: Any) -> list[Entry]:
    return leaderboard_entries(load_kappa(source, **kwargs))


def fmt_number(value: float | int | None, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()
                                  and abs(value) >= 1000):
        return f"{int(value):,}"
    return f"{value:.{digits}g}"


def nstar_bracket(n_star: int | None, largest_failing: int | None) -> str:
    """The bracket a search leaves N* in: (largest failing N, N*]."""
    return f"({fmt_number(largest_failing)}, {fmt_number(n_star)}]"


TABLE_COLUMNS = ("task", "group", "format", "L", "model", "κ", "κ range", "N* missing",
                 "N*_joint", "N*_joint bracket", "Σ N*_n")


def table_rows(entries: Sequence[Entry]) -> list[list[str]]:
    """The leaderboard as strings, in TABLE_COLUMNS order (markdown and the app share it).
    The κ column is never blank: an undefined κ shows its bounds (`results.kappa_text`)."""
    return [
        [e.task, e.group, e.format, "—" if e.max_len is None else str(e.max_len), e.model,
         kappa_text(e.kappa, e.kappa_low, e.kappa_high),
         kappa_bounds_text(e.kappa_low, e.kappa_high),
         missing_nstar(e.lengths, e.nstar_by_length, e.nstar_joint),
         fmt_number(e.nstar_joint), nstar_bracket(e.nstar_joint, e.largest_failing_joint),
         fmt_number(e.nstar_sum)]
        for e in entries
    ]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


NSTAR_TABLE_COLUMNS = ("task", "config", "model", "N*", "largest failing", "pool", "converged")


def nstar_table_rows(rows: Iterable[NstarRow]) -> list[list[str]]:
    latest = {r.key: r for r in rows}
    ordered = sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model))
    return [
        [r.dataset, r.config, r.model, fmt_number(r.n_star), fmt_number(r.largest_failing),
         fmt_number(r.pool_size), "yes" if r.converged else "no"]
        for r in ordered
    ]


LENGTHGEN_SPLITS = ("validation", "test", "test_long")
LENGTHGEN_TABLE_COLUMNS = ("task", "config", "model", "C-RASP[pos]", "N", *LENGTHGEN_SPLITS)


def lengthgen_table_rows(rows: Iterable[LengthGenRow]) -> list[list[str]]:
    """One line per check (the last row per key): each split's lengths and the task's metrics;
    the C-RASP[pos] column is the family's prediction where it makes one."""
    latest = {r.key: r for r in rows}
    out = []
    for r in sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model)):
        cell = tasks.parse_or_none(r.dataset, r.config)
        prediction = "?" if cell is None else cell.describe().get("C-RASP[pos]", "")
        scores = r.table()
        out.append([r.dataset, r.config, r.model, prediction, fmt_number(r.n), *(
            "" if split not in scores else f"{scores[split]['lengths']}: " + ", ".join(
                f"{k} {v:.3f}" for k, v in scores[split].items() if k != "lengths")
            for split in LENGTHGEN_SPLITS)])
    return out


def render_markdown(entries: Sequence[Entry], nstar_rows: Iterable[NstarRow] = (),
                    source: str = "", figures: Sequence[str] = (),
                    lengthgen_rows: Iterable[LengthGenRow] = ()) -> str:
    """``leaderboard.md``: the κ table, the N* table, links to the figures."""
    parts = [
        "# κ leaderboard",
        "",
        "κ = Σ_n N*_n / N*_joint (\"On the 'Induction Bias' in Sequence Models\"): above 1,",
        "learning is shared across lengths; about 1, one solution per length; below 1,",
        "interference. Where some N* was not found (N* missing), κ is undefined and the κ",
        "column shows the bounds the search brackets allow (N* lies in (largest failing, N*]);",
        "rows sort by κ, or by that bound.",
    ]
    if source:
        parts += ["", f"Results: `{source}`"]
    parts += ["", "## κ per model × format × task", "",
              markdown_table(TABLE_COLUMNS, table_rows(entries)) if entries else "(no κ rows)"]
    nstar = nstar_table_rows(nstar_rows)
    if nstar:
        parts += ["", "## N* per search", "", markdown_table(NSTAR_TABLE_COLUMNS, nstar)]
    lengthgen = lengthgen_table_rows(lengthgen_rows)
    if lengthgen:
        parts += ["", "## Length generalisation", "",
                  "The best run at N, scored on the training lengths (validation) and on "
                  "longer ones; C-RASP[pos]: whether the task is expressible, the second "
                  "study's prediction of generalisation.", "",
                  markdown_table(LENGTHGEN_TABLE_COLUMNS, lengthgen)]
    if figures:
        parts += ["", "## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures]
    return "\n".join(parts) + "\n"


def write_leaderboard(source: str | Path, out: str | Path, **kwargs: Any) -> list[Path]:
    """Write ``out/leaderboard.md`` and the PNG figures; returns the files written."""
    from .plots import write_figures

    if (Path(source) / "protocol.json").exists():
        # A garbled protocol is an error here, not a silently empty board.
        from ..results import ResultsFolder

        ResultsFolder.existing(source)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    entries = load_leaderboard(source, **kwargs)
    nstar = load_nstar(source, **kwargs)
    lengthgen = load_lengthgen(source, **kwargs)
    figures = write_figures(entries, out)
    md = out / "leaderboard.md"
    md.write_text(render_markdown(entries, nstar, str(source), [str(f) for f in figures],
                                  lengthgen), encoding="utf-8")
    return [md, *figures]
