"""Every table's columns and the spelling of its cells: the one home of both.

The command line's final print (`runner.run.print_tables`, ``hf-induction kappa``), the report
of a results folder (`runner.report`), the leaderboard (`hub.leaderboard`) and its Space all
name their columns here and write numbers, N* and κ in the words below, so a number reads
the same wherever it is shown. A table is a list of rows, each a mapping from its columns'
names to cells; `markdown_table` lays them out in the columns' order.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO

from .. import tasks
from ..search.result import ALL_DIVERGED
from ..tasks.chance import chance_level, split_sizes

# The command line's final print: its columns are the rows' own field names where a cell is
# the field as it is.
NSTAR_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "search", "N*", "N* lies in", "search ended", "probes",
    "steps (all runs)", "seconds",
)
# κ is over a cell's lengths 2..L: "cell" names it as a user does (acot_L3_m2, the longest
# fixed length), "joint config" the uniform cell whose N*_joint is its denominator (the row's
# own config).
KAPPA_COLUMNS: tuple[str, ...] = (
    "dataset", "cell", "lengths", "joint config", "model", "search_mode", "nstar_by_length",
    "nstar_joint", "kappa", "kappa_bounds", "missing_nstar",
)
OOD_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "n", "lr", "seed", "test_length",
    "normalised_state_accuracy", "normalised_final_state_accuracy",
)
LENGTHGEN_COLUMNS: tuple[str, ...] = (
    "dataset", "config", "model", "n", "split", "lengths", "metric", "value",
)

# The report of a results folder (docs/results/<name>/tables.md), in words for a reader.
REPORT_SEARCH_COLUMNS: tuple[str, ...] = (
    "task", "config", "model", "preset", "N*", "bracket", "pool", "probes", "steps",
    "paper steps / ours", "wall s",
)
# Where a folder holds searches of more than one protocol, this column tells them apart.
REPORT_PROTOCOL_COLUMN = "protocol"
REPORT_KAPPA_COLUMNS: tuple[str, ...] = (
    "task", "joint cell", "model", "κ", "κ bounds", "N* missing", "N*_joint",
    "N*_n for n = 2..L (>F: beyond the budget, failed at F)",
)
REPORT_OOD_COLUMNS: tuple[str, ...] = (
    "task", "trained on", "model", "N", "lr", "seed", "steps", "val loss", "test length",
    "normalised state acc.", "normalised final-state acc.",
)
REPORT_GROUP_COLUMNS: tuple[str, ...] = (
    "task", "cell", "model", "group size: N* (>F: failed up to F)",
)
REPORT_COMPUTE_COLUMNS: tuple[str, ...] = (
    "model", "searches", "probes", "runs trained", "steps", "CPU-hours",
    "paper-protocol steps for the same probes", "fewer steps",
)

# The leaderboard (leaderboard.md) and, with the columns below, its Space.
BOARD_KAPPA_COLUMNS: tuple[str, ...] = (
    "task", "group", "format", "L", "model", "κ", "κ range", "N* missing", "N*_joint",
    "N*_joint bracket", "Σ N*_n",
)
BOARD_NSTAR_COLUMNS: tuple[str, ...] = (
    "task", "config", "model", "N*", "N* lies in", "pool", "search ended",
)
# One line per out-of-distribution check, ranked within a cell by the final state at 2L.
BOARD_OOD_COLUMNS: tuple[str, ...] = (
    "task", "trained on", "model", "N", "test length", "normalised final-state acc.",
    "normalised state acc.",
)
LENGTHGEN_SPLITS: tuple[str, ...] = ("validation", "test", "test_long")
# Shared by the report and the board: one line per length-generalisation check.
LENGTHGEN_TABLE_COLUMNS: tuple[str, ...] = (
    "task", "config", "model", "C-RASP[pos]", "N", "lr", "seed", "val loss", *LENGTHGEN_SPLITS,
)
# The heads table's scores (`HeadsRow`: the analysis' `SCORES`, in its order) and the
# report's tables of the heads and patching rows: one line per (checkpoint, prompt config),
# each score's top heads; one line per (checkpoint, prompt config, kind), the heads by the
# rise in loss their patch caused.
HEAD_SCORE_COLUMNS: tuple[str, ...] = (
    "induction", "anti_induction", "previous_token", "duplicate_token",
)
TOP_HEADS = 3
REPORT_HEADS_COLUMNS: tuple[str, ...] = (
    "checkpoint", "trained on", "prompts", "rows", "positions", "induction", "anti-induction",
    "previous token", "duplicate token", "heat maps",
)
REPORT_PATCHING_COLUMNS: tuple[str, ...] = (
    "checkpoint", "prompts", "kind", "edges", "clean loss", "clean exact match",
    "heads by Δ loss (Δ exact match)", "plot",
)
# The board's heads table: the report's, less the link to heat maps the report draws.
BOARD_HEADS_COLUMNS: tuple[str, ...] = REPORT_HEADS_COLUMNS[:-1]
# Over several results sources, the last column of each board table names a row's source.
SOURCE_COLUMN = "results"
# The Space's κ tab: the board's κ columns, then each row's protocol, pushed checkpoint and
# source (the last two as links); its other tabs are the board's tables with their source.
SPACE_PROTOCOL_COLUMN = "protocol"
SPACE_CHECKPOINT_COLUMN = "pushed checkpoint"
SPACE_LINK_COLUMNS: tuple[str, ...] = (SPACE_CHECKPOINT_COLUMN, SOURCE_COLUMN)
SPACE_KAPPA_COLUMNS: tuple[str, ...] = (
    *BOARD_KAPPA_COLUMNS, SPACE_PROTOCOL_COLUMN, *SPACE_LINK_COLUMNS,
)

# A cell with nothing to show: no value, or no finite one.
MISSING = "—"
# Where no table has a row yet.
NO_ROWS = "(none yet)"


def number(value: float | int | None, digits: int = 3) -> str:
    """The one spelling of a number: an integer, or a float that rounds to 1,000 or more,
    whole with thousands separators (1,262); a smaller float to ``digits`` significant digits
    (0.317, 9.65, 1e-05); `MISSING` for none or a value that is not finite."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return MISSING
    if isinstance(value, int):
        return f"{value:,}"
    short = f"{value:.{digits}g}"
    # Rounding may carry a value to 1,000 (999.7 -> "1e+03"): spelled whole, as 1,000 is.
    return f"{value:,.0f}" if abs(float(short)) >= 1000 else short


def yes_no(value: bool) -> str:
    return "yes" if value else "no"


def nstar_text(n_star: int | None, largest_failing: int | None, pool_size: float,
               n_cap: int) -> str:
    """N* as a cell that is never blank: its value, or what a search that found none knows:
    every size up to the largest it tried failed, which was the whole pool or its budget."""
    if n_star is not None:
        return number(n_star)
    if largest_failing is None:
        return "not probed"
    # n_cap is the smaller of the pool and --n-max; short of it, the probes ran out.
    limit = ("search stopped" if largest_failing < n_cap
             else "whole pool" if n_cap >= pool_size else "largest size allowed")
    return f"> {number(largest_failing)} ({limit})"


def row_nstar_text(row: Any) -> str:
    """An `NstarRow`'s N* cell: `nstar_text`, unless every run at its failing size diverged,
    which measured no N* at all."""
    if row.search_end == ALL_DIVERGED:
        return "not measured (every run diverged)"
    return nstar_text(row.n_star, row.largest_failing, row.pool_size, row.n_cap)


def row_nstar_bracket(row: Any) -> str:
    """An `NstarRow`'s bracket cell: (largest failing N, N*], from what it measured."""
    largest_failing, n_star = row.bracket
    return nstar_bracket(n_star, largest_failing)


def nstar_bracket(n_star: int | None, largest_failing: int | None) -> str:
    """The bracket a search leaves N* in: (largest failing N, N*], ∞ where none succeeded."""
    low = "0" if largest_failing is None else number(largest_failing)
    return f"({low}, {'∞)' if n_star is None else f'{number(n_star)}]'}"


def kappa_text(kappa: float | None, low: float | None, high: float | None) -> str:
    """κ as a cell that is never blank: its value where every N* exists, else what the search
    brackets allow, each bound named as such."""
    if kappa is not None and math.isfinite(kappa):
        return number(kappa)
    has_low, has_high = bool(low), high is not None and math.isfinite(high)
    if has_low and has_high:
        return f"between {number(low)} and {number(high)} (bounds)"
    if has_low:
        return f"≥ {number(low)} (lower bound)"
    if has_high:
        return f"≤ {number(high)} (upper bound)"
    return "unbounded (no N* found)"


def kappa_bounds_text(low: float | None, high: float | None) -> str:
    """The bracket κ lies in, from the N* brackets: [low, high], ∞ where unbounded."""
    upper = "∞" if high is None or not math.isfinite(high) else number(high)
    return f"[{number(low or 0.0)}, {upper}]"


def missing_nstar(lengths: Sequence[int], nstar_by_length: Sequence[int | None],
                  nstar_joint: int | None) -> str:
    """The N* a κ lacks ("n=2", "joint"), or "none" when κ is defined."""
    missing = [f"n={n}" for n, s in zip(lengths, nstar_by_length, strict=True) if s is None]
    if len(missing) == len(lengths) and nstar_joint is None:
        return "all"
    missing += ["joint"] if nstar_joint is None else []
    return ", ".join(missing) or "none"


def nstar_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """`NstarRow`s as `NSTAR_COLUMNS` lines for `write_table`."""
    return [{"dataset": r.dataset, "config": r.config, "model": r.model,
             "search": r.search_mode,
             "N*": row_nstar_text(r), "N* lies in": row_nstar_bracket(r),
             "search ended": r.search_end, "probes": r.num_probes,
             "steps (all runs)": r.total_steps, "seconds": r.wall_s}
            for r in rows]


def kappa_cell(row: Any) -> str:
    """The cell a κ is over, as a user names it: its fixed cell at the longest length
    (``acot_L3_m2`` for the joint ``acot_L3_uniform_m2``)."""
    cell = tasks.parse_or_none(row.dataset, row.config)
    return MISSING if cell is None else str(cell.with_length(max(row.lengths)))


def kappa_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """`KappaRow`s as `KAPPA_COLUMNS` lines for `write_table`."""
    return [{"dataset": r.dataset, "cell": kappa_cell(r),
             "lengths": f"{min(r.lengths)}..{max(r.lengths)}", "joint config": r.config,
             "model": r.model, "search_mode": r.search_mode,
             "nstar_by_length": r.nstar_by_length, "nstar_joint": r.nstar_joint,
             "kappa": kappa_text(r.kappa, r.kappa_low, r.kappa_high),
             "kappa_bounds": kappa_bounds_text(r.kappa_low, r.kappa_high),
             "missing_nstar": missing_nstar(r.lengths, r.nstar_by_length, r.nstar_joint)}
            for r in rows]


def lengthgen_lines(rows: Sequence[Any]) -> list[dict[str, Any]]:
    """One line per (check, split, metric) of `LengthGenRow`s, for `write_table`."""
    return [{"dataset": r.dataset, "config": r.config, "model": r.model, "n": r.n,
             "split": split, "lengths": scores["lengths"], "metric": metric, "value": value}
            for r in rows for split, scores in r.table().items()
            for metric, value in scores.items() if metric != "lengths"]


def report_kappa_lines(rows: Sequence[Any]) -> list[dict[str, str]]:
    """`KappaRow`s as `REPORT_KAPPA_COLUMNS` lines: κ or its bounds, then every N*, an N* not
    found written as the size that failed (">F")."""
    out = []
    for r in sorted(rows, key=lambda r: (r.dataset, r.config, r.model)):
        by_n = " ".join(number(n) if n is not None else f">{number(f)}"
                        for n, f in zip(r.nstar_by_length, r.largest_failing_by_length,
                                        strict=True))
        out.append(dict(zip(REPORT_KAPPA_COLUMNS, (
            r.dataset, r.config, r.model, kappa_text(r.kappa, r.kappa_low, r.kappa_high),
            kappa_bounds_text(r.kappa_low, r.kappa_high),
            missing_nstar(r.lengths, r.nstar_by_length, r.nstar_joint), number(r.nstar_joint),
            by_n), strict=True)))
    return out


def report_ood_lines(rows: Sequence[Any]) -> list[dict[str, str]]:
    """`OodRow`s as `REPORT_OOD_COLUMNS` lines; accuracies to three decimals, chance 0."""
    return [dict(zip(REPORT_OOD_COLUMNS, (
        r.dataset, r.config, r.model, number(r.n), number(r.lr), str(r.seed), number(r.steps),
        number(r.val_loss), str(r.test_length), f"{r.normalised_state_accuracy:.3f}",
        f"{r.normalised_final_state_accuracy:.3f}"), strict=True))
        for r in sorted(rows, key=lambda r: (r.dataset, r.config, r.model))]


def board_ood_lines(rows: Iterable[Any]) -> list[tuple[tuple, dict[str, str]]]:
    """`OodRow`s (the last row per key) as (sort key, `BOARD_OOD_COLUMNS` line) pairs: by
    task and training cell, then by the final state's normalised accuracy, best first."""
    latest = {r.key: r for r in rows}
    return sorted(((r.dataset, r.config, -r.normalised_final_state_accuracy, r.model),
                   dict(zip(BOARD_OOD_COLUMNS, (
                       r.dataset, r.config, r.model, number(r.n), str(r.test_length),
                       f"{r.normalised_final_state_accuracy:.3f}",
                       f"{r.normalised_state_accuracy:.3f}"), strict=True)))
                  for r in latest.values())


def board_nstar_lines(rows: Iterable[Any]) -> list[dict[str, str]]:
    """`NstarRow`s (the last row per key) as `BOARD_NSTAR_COLUMNS` lines: N* as the command
    line prints it, never blank ("> 1,056 (whole pool)"), with its bracket."""
    latest = {r.key: r for r in rows}
    ordered = sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model))
    return [dict(zip(BOARD_NSTAR_COLUMNS, (
        r.dataset, r.config, r.model, row_nstar_text(r), row_nstar_bracket(r),
        number(r.pool_size), r.search_end),
        strict=True))
        for r in ordered]


def _scores_text(cell: tasks.TaskCell | None, split: str, scores: Mapping[str, Any]) -> str:
    """``lengths: metric value (chance c), ...`` of one split of a length-generalisation row."""
    sizes = {} if cell is None else split_sizes(cell, split)
    parts = []
    for metric, value in scores.items():
        if metric == "lengths":
            continue
        chance = None if cell is None else chance_level(cell, metric, sizes)
        parts.append(f"{metric} {value:.3f}" + ("" if chance is None
                                                else f" (chance {number(chance)})"))
    return f"{scores['lengths']}: " + ", ".join(parts)


def lengthgen_table_lines(rows: Iterable[Any]) -> list[dict[str, str]]:
    """`LengthGenRow`s (the last row per key) as `LENGTHGEN_TABLE_COLUMNS` lines, one per
    check: the run scored (its learning rate, seed and validation loss), then each split's
    lengths and the task's metrics, each beside its chance level; the C-RASP[pos] column is
    the family's prediction where it makes one."""
    latest = {r.key: r for r in rows}
    out = []
    for r in sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model)):
        cell = tasks.parse_or_none(r.dataset, r.config)
        prediction = "?" if cell is None else cell.describe().get("C-RASP[pos]", "")
        scores = r.table()
        out.append(dict(zip(LENGTHGEN_TABLE_COLUMNS, (
            r.dataset, r.config, r.model, prediction, number(r.n), number(r.lr), str(r.seed),
            number(r.val_loss), *(_scores_text(cell, split, scores[split]) if split in scores
                                  else "" for split in LENGTHGEN_SPLITS)), strict=True)))
    return out


def head_label(layer: int, head: int) -> str:
    """A head as the report and the figures name it: ``L1H0``, layer 1, head 0."""
    return f"L{layer}H{head}"


def _signed(value: float | None) -> str:
    return MISSING if value is None else ("+" if value >= 0 else "") + number(value)


def _link(text: str, target: str | None) -> str:
    return f"[{text}]({target})" if target else MISSING


def _prompts_name(dataset: str, config: str) -> str:
    # "copy/UF_L10", but "repeated_L10_V32" (its config names its pseudo-dataset already).
    return config if config.startswith(dataset) else f"{dataset}/{config}"


def heads_table_lines(rows: Iterable[Any],
                      figures: Mapping[tuple[str, str], str] | None = None
                      ) -> list[dict[str, str]]:
    """`HeadsRow`s (the last row per key) as `REPORT_HEADS_COLUMNS` lines, one per
    (checkpoint, prompt config): each score's `TOP_HEADS` heads with their mean attention,
    and the heat map ``figures`` names for it, if any."""
    groups: dict[tuple[str, str, str], list[Any]] = {}
    for r in {r.key: r for r in rows}.values():
        groups.setdefault((r.checkpoint, r.dataset, r.config), []).append(r)
    out = []
    for (checkpoint, dataset, config), heads in sorted(groups.items()):
        first = heads[0]
        tops = [", ".join(f"{head_label(r.layer, r.head)} {getattr(r, score):.2f}"
                          for r in sorted(heads, key=lambda r: -getattr(r, score))[:TOP_HEADS])
                for score in HEAD_SCORE_COLUMNS]
        out.append(dict(zip(REPORT_HEADS_COLUMNS, (
            checkpoint, first.trained_on or MISSING, _prompts_name(dataset, config),
            number(first.n_prompts), number(first.n_positions), *tops,
            _link("heat maps", (figures or {}).get((checkpoint, config)))), strict=True)))
    return out


def patching_table_lines(rows: Iterable[Any],
                         figures: Mapping[tuple[str, str], str] | None = None
                         ) -> list[dict[str, str]]:
    """`PatchingRow`s (the last row per key) as `REPORT_PATCHING_COLUMNS` lines, one per
    (checkpoint, prompt config, kind): the clean run, then the `TOP_HEADS` heads whose patch
    raised the loss most, and the plot ``figures`` names for it, if any."""
    groups: dict[tuple[str, str, str, str], list[Any]] = {}
    for r in {r.key: r for r in rows}.values():
        groups.setdefault((r.checkpoint, r.dataset, r.config, r.kind), []).append(r)
    out = []
    for (checkpoint, dataset, config, kind), heads in sorted(groups.items()):
        first = heads[0]
        ranked = sorted(heads, key=lambda r: r.rank)[:TOP_HEADS]
        top = ", ".join(f"{head_label(r.layer, r.head)} {_signed(r.delta_ce)} "
                        f"({_signed(r.delta_exact_match)})" for r in ranked)
        out.append(dict(zip(REPORT_PATCHING_COLUMNS, (
            checkpoint, _prompts_name(dataset, config), kind, number(first.n_edges),
            number(first.base_ce), number(first.base_exact_match), top,
            _link("plot", (figures or {}).get((checkpoint, config)))), strict=True)))
    return out


def cell(value: Any) -> str:
    """A raw value as a cell: `MISSING` for None, yes/no, a number by `number` (a float to
    four significant digits), a list as its items' cells joined by spaces."""
    if value is None:
        return MISSING
    if isinstance(value, bool):
        return yes_no(value)
    if isinstance(value, (int, float)):
        return number(value, digits=4)
    if isinstance(value, (list, tuple)):
        # Spaces between items, so each keeps the one spelling of its number (1,262).
        return " ".join(cell(v) for v in value)
    return str(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def markdown_table(
    columns: Sequence[str],
    rows: Sequence[Mapping[str, str] | Sequence[str]],
    *,
    right: Sequence[bool] | None = None,
    empty: str | None = None,
) -> str:
    """Rows (mappings from column names to cells, or cells in the columns' order) as a
    Markdown table, the one writer of every table.

    Cells are written as they are. With ``right`` (one flag per column) each column is padded
    to one width and the flagged ones right-aligned, for reading in a terminal; without it,
    the table is compact, for a page that renders it. ``empty``, where given, is written in
    place of a table with no row.
    """
    if not rows and empty is not None:
        return empty
    cells = [[row[c] for c in columns] if isinstance(row, Mapping) else list(row)
             for row in rows]
    if right is None:
        lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells])
    widths = [max([len(c), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]

    def line(values: Sequence[str]) -> str:
        padded = [v.rjust(w) if r else v.ljust(w)
                  for v, w, r in zip(values, widths, right, strict=True)]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if r else ("-" * (w + 2))
                          for w, r in zip(widths, right, strict=True)) + "|"
    return "\n".join([line(list(columns)), rule, *(line(row) for row in cells)])


def write_table(
    rows: Sequence[Mapping[str, Any] | Any],
    columns: Sequence[str] | None = None,
    file: TextIO | None = None,
) -> str:
    """Render rows (dicts or dataclass rows) as an aligned Markdown table, each value spelled
    by `cell`.

    Columns default to the first row's keys (no rows and no columns: an empty string);
    numbers are right-aligned, None shows as `MISSING`.
    Writes the table to ``file`` when given, and returns it either way.
    """
    dicts = [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r) for r in rows]
    if columns is None:
        columns = list(dicts[0]) if dicts else []
    if not columns:
        return ""
    right = [bool(dicts) and all(_is_number(d.get(c)) or d.get(c) is None for d in dicts)
             for c in columns]
    text = markdown_table(columns, [[cell(d.get(c)) for c in columns] for d in dicts],
                          right=right) + "\n"
    if file is not None:
        file.write(text)
    return text
