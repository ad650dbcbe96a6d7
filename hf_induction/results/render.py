"""Plain-text tables of results rows, valid Markdown, for the CLI's final print."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

NSTAR_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "search", "N*", "N* lies in", "converged", "probes",
    "steps (all runs)", "seconds",
)
KAPPA_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "search_mode", "nstar_by_length", "nstar_joint", "kappa",
    "kappa_bounds", "missing_nstar",
)


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 1e3 else f"{value:.3g}"


def nstar_text(n_star: int | None, largest_failing: int | None, pool_size: float,
               n_cap: int) -> str:
    """N* as a cell that is never blank: its value, or what a search that found none knows:
    every size up to the largest it tried failed, which was the whole pool or its budget."""
    if n_star is not None:
        return f"{n_star:,}"
    if largest_failing is None:
        return "not probed"
    # n_cap is the smaller of the pool and --n-max; short of it, the probes ran out.
    limit = ("search stopped" if largest_failing < n_cap
             else "whole pool" if n_cap >= pool_size else "largest size allowed")
    return f"> {largest_failing:,} ({limit})"


def nstar_bracket(n_star: int | None, largest_failing: int | None) -> str:
    """The bracket a search leaves N* in: (largest failing N, N*], ∞ where none succeeded."""
    low = "0" if largest_failing is None else f"{largest_failing:,}"
    return f"({low}, {'∞)' if n_star is None else f'{n_star:,}]'}"


def nstar_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """`NstarRow`s as `NSTAR_COLUMNS` lines for `write_table`."""
    return [{"dataset": r.dataset, "config": r.config, "model": r.model,
             "search": r.search_mode,
             "N*": nstar_text(r.n_star, r.largest_failing, r.pool_size, r.n_cap),
             "N* lies in": nstar_bracket(r.n_star, r.largest_failing),
             "converged": r.converged, "probes": r.num_probes, "steps (all runs)": r.total_steps,
             "seconds": r.wall_s}
            for r in rows]


def kappa_text(kappa: float | None, low: float | None, high: float | None) -> str:
    """κ as a cell that is never blank: its value where every N* exists, else what the search
    brackets allow, each bound named as such. The one spelling every table uses."""
    if kappa is not None and math.isfinite(kappa):
        return _number(kappa)
    has_low, has_high = bool(low), high is not None and math.isfinite(high)
    if has_low and has_high:
        return f"between {_number(low)} and {_number(high)} (bounds)"
    if has_low:
        return f"≥ {_number(low)} (lower bound)"
    if has_high:
        return f"≤ {_number(high)} (upper bound)"
    return "unbounded (no N* found)"


def kappa_bounds_text(low: float | None, high: float | None) -> str:
    """The bracket κ lies in, from the N* brackets: [low, high], ∞ where unbounded."""
    upper = "∞" if high is None or not math.isfinite(high) else _number(high)
    return f"[{_number(low or 0.0)}, {upper}]"


def missing_nstar(lengths: Sequence[int], nstar_by_length: Sequence[int | None],
                  nstar_joint: int | None) -> str:
    """The N* a κ lacks ("n=2", "joint"), or "none" when κ is defined."""
    missing = [f"n={n}" for n, s in zip(lengths, nstar_by_length, strict=True) if s is None]
    if len(missing) == len(lengths) and nstar_joint is None:
        return "all"
    missing += ["joint"] if nstar_joint is None else []
    return ", ".join(missing) or "none"


def kappa_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """`KappaRow`s as `KAPPA_COLUMNS` lines for `write_table`."""
    return [{"dataset": r.dataset, "config": r.config, "model": r.model,
             "search_mode": r.search_mode,
             "nstar_by_length": r.nstar_by_length, "nstar_joint": r.nstar_joint,
             "kappa": kappa_text(r.kappa, r.kappa_low, r.kappa_high),
             "kappa_bounds": kappa_bounds_text(r.kappa_low, r.kappa_high),
             "missing_nstar": missing_nstar(r.lengths, r.nstar_by_length, r.nstar_joint)}
            for r in rows]


LENGTHGEN_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "n", "split", "lengths", "metric", "value",
)


def lengthgen_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """One line per (check, split, metric) of `LengthGenRow`s, for `write_table`."""
    return [{"dataset": r.dataset, "config": r.config, "model": r.model, "n": r.n,
             "split": split, "lengths": scores["lengths"], "metric": metric, "value": value}
            for r in rows for split, scores in r.table().items()
            for metric, value in scores.items() if metric != "lengths"]


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ",".join(_cell(v).replace(",", "") for v in value)
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def write_table(
    rows: Sequence[Mapping[str, Any] | Any],
    columns: Sequence[str] | None = None,
    file: TextIO | None = None,
) -> str:
    """Render rows (dicts or dataclass rows) as an aligned Markdown table.

    Columns default to the first row's keys (no rows and no columns: an empty string);
    numbers are right-aligned, None shows as "-".
    Writes the table to ``file`` when given, and returns it either way.
    """
    dicts = [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r) for r in rows]
    if columns is None:
        columns = list(dicts[0]) if dicts else []
    if not columns:
        return ""
    cells = [[_cell(d.get(c)) for c in columns] for d in dicts]
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    right = [bool(dicts) and all(_is_number(d.get(c)) or d.get(c) is None for d in dicts)
             for c in columns]

    def line(values: Sequence[str]) -> str:
        padded = [v.rjust(w) if r else v.ljust(w)
                  for v, w, r in zip(values, widths, right, strict=True)]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else ("-" * (w + 2))
                          for w, r in zip(widths, right, strict=True)) + "|"
    text = "\n".join([line(list(columns)), rule, *(line(row) for row in cells)]) + "\n"
    if file is not None:
        file.write(text)
    return text
