"""Every displayed table's columns and the spelling of its cells: the one home of both.

A displayed table is `Columns`: a list of `Column`s, each a name, the value it shows of a row
and the spelling of that value. The command line's final print (`runner.run.print_tables`,
``hf-induction kappa``), the report of a results folder (`display.report`), the leaderboard
(`hub.leaderboard`) and its Space all show tables declared here, so a fact has one name and
a number one spelling wherever it is shown. The facts shown by more than one table are
columns of their own below, each named once.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, TextIO

from .. import tasks
from ..search.result import ALL_DIVERGED
from ..tasks.chance import chance_level, split_sizes
from .reach import REACH_FACTORS
from .tables import latest

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


def kappa_cell(row: Any) -> str:
    """The cell a κ is over, as a user names it: its fixed cell at the longest length
    (``acot_L3_m2`` for the joint ``acot_L3_uniform_m2``)."""
    cell = tasks.parse_or_none(row.dataset, row.config)
    return MISSING if cell is None else str(cell.with_length(max(row.lengths)))


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


def head_label(layer: int, head: int) -> str:
    """A head as the report and the figures name it: ``L1H0``, layer 1, head 0."""
    return f"L{layer}H{head}"


def _signed(value: float | None) -> str:
    return MISSING if value is None else ("+" if value >= 0 else "") + number(value)


def _link(text: str, target: str | None) -> str:
    return f"[{text}]({target})" if target else MISSING


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




@dataclass(frozen=True)
class Column:
    """One column of a displayed table: its name (the header), the value it shows of a row,
    the spelling of that value, and whether a terminal right-aligns it (numbers)."""

    name: str
    value: Callable[[Any], Any]
    format: Callable[[Any], str] = cell
    right: bool = False

    def text(self, row: Any) -> str:
        return self.format(self.value(row))

    def of(self, part: Callable[[Any], Any]) -> Column:
        """The same column over a row that holds this column's row as ``part(row)``."""
        return dataclasses.replace(self, value=lambda row: self.value(part(row)))


def column(name: str, attribute: str | None = None, format: Callable[[Any], str] = cell,
          right: bool = False) -> Column:
    """A column that shows a row's attribute (``attribute``, else the column's name)."""
    return Column(name, attrgetter(attribute or name), format, right)


@dataclass(frozen=True)
class Columns:
    """A displayed table: its columns, in order. Iterating it gives the columns' names (a
    line's keys); `lines` gives each row's cells by name, `markdown` and `terminal` lay them
    out for a page and for a terminal."""

    columns: tuple[Column, ...]

    def __init__(self, *columns: Column) -> None:
        object.__setattr__(self, "columns", tuple(columns))

    def __iter__(self) -> Iterator[str]:
        return (c.name for c in self.columns)

    def __len__(self) -> int:
        return len(self.columns)

    def of(self, part: Callable[[Any], Any]) -> Columns:
        """The same columns over a row that holds their row as ``part(row)``."""
        return Columns(*(c.of(part) for c in self.columns))

    def __add__(self, other: Columns | Sequence[Column]) -> Columns:
        more = other.columns if isinstance(other, Columns) else tuple(other)
        return Columns(*self.columns, *more)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self)

    def line(self, row: Any) -> dict[str, str]:
        """One row's cells by column name; a mapping is taken as a line already made."""
        if isinstance(row, Mapping):
            return {c.name: row[c.name] for c in self.columns}
        return {c.name: c.text(row) for c in self.columns}

    def lines(self, rows: Iterable[Any]) -> list[dict[str, str]]:
        return [self.line(row) for row in rows]

    def markdown(self, rows: Iterable[Any], empty: str | None = NO_ROWS) -> str:
        """The rows as a compact Markdown table, for a page that renders it."""
        return markdown_table(self.names, self.lines(rows), empty=empty)

    def terminal(self, rows: Iterable[Any]) -> str:
        """The rows as a Markdown table padded to its columns' widths, numbers right-aligned."""
        return markdown_table(self.names, self.lines(rows),
                              right=[c.right for c in self.columns]) + "\n"


def three_decimals(value: float | None) -> str:
    """An accuracy: three decimals, so that a column of them lines up (chance 0, perfect 1);
    `MISSING` for none (a length a reach check did not score)."""
    return MISSING if value is None else f"{value:.3f}"


# The facts more than one table shows, each under its one name.
DATASET = column("dataset")
CONFIG = column("config")
MODEL = column("model")
SEARCH = column("search", "search_mode")
NSTAR = Column("N*", row_nstar_text)
NSTAR_LIES_IN = Column("N* lies in", row_nstar_bracket)
SEARCH_ENDED = column("search ended", "search_end")
POOL = column("pool", "pool_size", number, right=True)
PROBES = column("probes", "num_probes", number, right=True)
STEPS_ALL_RUNS = column("steps (all runs)", "total_steps", number, right=True)
SECONDS = column("seconds", "wall_s", number, right=True)
KAPPA = Column("κ", lambda r: kappa_text(r.kappa, r.kappa_low, r.kappa_high))
KAPPA_BOUNDS = Column("κ bounds", lambda r: kappa_bounds_text(r.kappa_low, r.kappa_high))
NSTAR_MISSING = Column("N* missing",
                       lambda r: missing_nstar(r.lengths, r.nstar_by_length, r.nstar_joint))
NSTAR_JOINT = column("N*_joint", "nstar_joint", number, right=True)
NSTAR_JOINT_LIES_IN = Column("N*_joint lies in",
                             lambda r: nstar_bracket(r.nstar_joint, r.largest_failing_joint))
NSTAR_BY_LENGTH = Column(
    "N*_n for n = 2..L (>F: failed up to F)",
    lambda r: " ".join(number(n) if n is not None else f">{number(f)}"
                       for n, f in zip(r.nstar_by_length, r.largest_failing_by_length,
                                       strict=True)))
SIZE = column("N", "n", number, right=True)
LR = column("lr", format=number, right=True)
SEED = column("seed", format=str, right=True)
STEPS = column("steps", format=number, right=True)
VAL_LOSS = column("val loss", "val_loss", number, right=True)
TEST_LENGTH = column("test length", "test_length", str, right=True)
STATE_ACC = column("normalised state acc.", "normalised_state_accuracy", three_decimals,
                  right=True)
FINAL_STATE_ACC = column("normalised final-state acc.", "normalised_final_state_accuracy",
                        three_decimals, right=True)
LENGTHS = Column("lengths", lambda r: f"{min(r.lengths)}..{max(r.lengths)}")

# The command line's final print and ``hf-induction kappa``.
NSTAR_COLUMNS = Columns(DATASET, CONFIG, MODEL, SEARCH, NSTAR, NSTAR_LIES_IN, SEARCH_ENDED,
                        PROBES, STEPS_ALL_RUNS, SECONDS)
# κ is over a cell's lengths 2..L: "cell" names it as a user does (acot_L3_m2, the longest
# fixed length), "joint config" the uniform cell whose N*_joint is its denominator (the row's
# own config).
KAPPA_COLUMNS = Columns(DATASET, Column("cell", lambda r: kappa_cell(r)), LENGTHS,
                        column("joint config", "config"), MODEL, SEARCH, KAPPA, KAPPA_BOUNDS,
                        NSTAR_MISSING, NSTAR_JOINT, NSTAR_BY_LENGTH)
OOD_COLUMNS = Columns(DATASET, CONFIG, MODEL, SIZE, LR, SEED, STEPS, VAL_LOSS, TEST_LENGTH,
                      STATE_ACC, FINAL_STATE_ACC)

# A reach row's length beyond a model's learned positions is not scored: said, not blank.
BEYOND_POSITIONS = "beyond its positions"


def _reach_at(factor: int) -> Column:
    """One check's normalised final-state accuracy at ``factor`` times L (`Reach`)."""
    def value(group) -> str:
        row = group.at(factor)
        if row is None:
            return MISSING
        return three_decimals(row.normalised_final_state_accuracy) if row.scored else "beyond"
    return Column(f"{factor:,}L", value, right=True)


def _carries_to(group) -> str:
    row = group.carries_to
    return MISSING if row is None else f"{row.length:,} ({row.factor:,}L)"


# One line per check: where its final-state accuracy holds (the board's, the report's).
REACH_BOARD_COLUMNS = Columns(
    DATASET, CONFIG, MODEL, SIZE, *(_reach_at(f) for f in REACH_FACTORS),
    Column("carries to", _carries_to))
REACH_COLUMNS = Columns(DATASET, CONFIG, MODEL, SIZE, column("× L", "factor", number, right=True),
                        column("length", format=number, right=True),
                        Column("rows", lambda r: number(r.rows)), FINAL_STATE_ACC, STATE_ACC,
                        Column("scored", lambda r: "yes" if r.scored else BEYOND_POSITIONS))


@dataclass(frozen=True)
class LengthGenScore:
    """One metric of one split of a length-generalisation check (a `LengthGenRow`)."""

    check: Any
    split: str
    lengths: str
    metric: str
    value: float


def _check(column: Column) -> Column:
    return column.of(attrgetter("check"))


LENGTHGEN_COLUMNS = Columns(_check(DATASET), _check(CONFIG), _check(MODEL), _check(SIZE),
                            column("split"), column("lengths"), column("metric"),
                            column("value", format=cell, right=True))

LENGTHGEN_SPLITS: tuple[str, ...] = ("validation", "test", "test_long")


def _split_scores(split: str) -> Column:
    def scores(r: Any) -> str:
        table = r.table()
        return (_scores_text(tasks.parse_or_none(r.dataset, r.config), split, table[split])
                if split in table else "")
    return Column(split, scores)


def _crasp(r: Any) -> str:
    cell_ = tasks.parse_or_none(r.dataset, r.config)
    return "?" if cell_ is None else cell_.describe().get("C-RASP[pos]", "")


# The report's and the board's: one line per length-generalisation check.
LENGTHGEN_TABLE_COLUMNS = Columns(DATASET, CONFIG, MODEL, Column("C-RASP[pos]", _crasp), SIZE,
                                  LR, SEED, VAL_LOSS, *map(_split_scores, LENGTHGEN_SPLITS))

# The heads table's scores (`HeadsRow`: the analysis' `SCORES`, in its order).
HEAD_SCORE_COLUMNS: tuple[str, ...] = (
    "induction", "anti_induction", "previous_token", "duplicate_token",
)
TOP_HEADS = 3


@dataclass(frozen=True)
class HeadGroup:
    """The heads (or patched heads) of one checkpoint on one prompt config (and one patching
    kind), with the figure drawn of them, if any."""

    checkpoint: str
    dataset: str
    config: str
    kind: str
    heads: tuple[Any, ...]
    figure: str | None = None

    @property
    def first(self) -> Any:
        return self.heads[0]

    @property
    def prompts(self) -> str:
        # "copy/UF_L10", but "repeated_L10_V32" (its config names its pseudo-dataset already).
        return (self.config if self.config.startswith(self.dataset)
                else f"{self.dataset}/{self.config}")


def _top(score: str) -> Column:
    def tops(g: HeadGroup) -> str:
        best = sorted(g.heads, key=lambda r: -getattr(r, score))[:TOP_HEADS]
        return ", ".join(f"{head_label(r.layer, r.head)} {getattr(r, score):.2f}" for r in best)
    return Column(score.replace("_", " ").replace("anti ", "anti-"), tops)


def _patched(g: HeadGroup) -> str:
    ranked = sorted(g.heads, key=lambda r: r.rank)[:TOP_HEADS]
    return ", ".join(f"{head_label(r.layer, r.head)} {_signed(r.delta_ce)} "
                     f"({_signed(r.delta_exact_match)})" for r in ranked)


CHECKPOINT = column("checkpoint")
PROMPTS = column("prompts")
# The board's heads table; the report's adds the link to the heat maps it draws.
BOARD_HEADS_COLUMNS = Columns(
    CHECKPOINT, Column("trained on", lambda g: g.first.trained_on or MISSING), PROMPTS,
    Column("rows", lambda g: number(g.first.n_prompts)),
    Column("positions", lambda g: number(g.first.n_positions)),
    *map(_top, HEAD_SCORE_COLUMNS))
REPORT_HEADS_COLUMNS = BOARD_HEADS_COLUMNS + [
    Column("heat maps", lambda g: _link("heat maps", g.figure))]
REPORT_PATCHING_COLUMNS = Columns(
    CHECKPOINT, PROMPTS, column("kind"), Column("edges", lambda g: number(g.first.n_edges)),
    Column("clean loss", lambda g: number(g.first.base_ce)),
    Column("clean exact match", lambda g: number(g.first.base_exact_match)),
    Column("heads by Δ loss (Δ exact match)", _patched),
    Column("plot", lambda g: _link("plot", g.figure)))

# The leaderboard's tables (leaderboard.md and its Space); its κ rows are `hub.entries.Entry`s.
# The class of a group's word problem (TC0 / NC1-complete), "—" where the task is no group's.
WORD_PROBLEM = column("word problem", "word_problem")
BOARD_KAPPA_COLUMNS = Columns(DATASET, column("group"), column("format"),
                              column("L", "max_len", number, right=True), MODEL, KAPPA,
                              KAPPA_BOUNDS, NSTAR_MISSING, NSTAR_JOINT, NSTAR_JOINT_LIES_IN,
                              column("Σ N*_n", "nstar_sum", number, right=True), WORD_PROBLEM)
BOARD_NSTAR_COLUMNS = Columns(DATASET, CONFIG, MODEL, NSTAR, NSTAR_LIES_IN, POOL, SEARCH_ENDED)
BOARD_OOD_COLUMNS = Columns(DATASET, CONFIG, MODEL, SIZE, TEST_LENGTH, FINAL_STATE_ACC,
                            STATE_ACC)

# Over several results sources, the last column of each board table names a row's source.
SOURCE_COLUMN = "results"
# The validation rule of a row's source (its protocol's): a κ or N* of one rule is no
# measure of the other's.
VALIDATION_COLUMN = "validation"
# The Space's κ tab adds each row's protocol and pushed checkpoint (a link, as the source).
SPACE_PROTOCOL_COLUMN = "protocol"
SPACE_CHECKPOINT_COLUMN = "pushed checkpoint"
SPACE_LINK_COLUMNS: tuple[str, ...] = (SPACE_CHECKPOINT_COLUMN, SOURCE_COLUMN)


def by_cell(rows: Iterable[Any]) -> list[Any]:
    """The last row per key, by dataset, config and model."""
    return sorted(latest(rows), key=lambda r: (r.dataset, r.config, r.model))


def nstar_lines(rows: Sequence[Any]) -> list[dict[str, str]]:
    """`NstarRow`s as `NSTAR_COLUMNS` lines for `write_table`."""
    return NSTAR_COLUMNS.lines(rows)


def kappa_lines(rows: Sequence[Any]) -> list[dict[str, str]]:
    """`KappaRow`s as `KAPPA_COLUMNS` lines for `write_table`."""
    return KAPPA_COLUMNS.lines(rows)


def lengthgen_scores(rows: Iterable[Any]) -> list[LengthGenScore]:
    """One score per (check, split, metric) of `LengthGenRow`s."""
    return [LengthGenScore(r, split, scores["lengths"], metric, value)
            for r in rows for split, scores in r.table().items()
            for metric, value in scores.items() if metric != "lengths"]


def lengthgen_lines(rows: Sequence[Any]) -> list[dict[str, str]]:
    """`LengthGenRow`s as `LENGTHGEN_COLUMNS` lines for `write_table`, one per score."""
    return LENGTHGEN_COLUMNS.lines(lengthgen_scores(rows))


def lengthgen_table_lines(rows: Iterable[Any]) -> list[dict[str, str]]:
    """`LengthGenRow`s (the last row per key) as `LENGTHGEN_TABLE_COLUMNS` lines, one per
    check: the run scored, then each split's lengths and the task's metrics, each beside its
    chance level; the C-RASP[pos] column is the family's prediction where it makes one."""
    return LENGTHGEN_TABLE_COLUMNS.lines(by_cell(rows))


def head_groups(rows: Iterable[Any], by_kind: bool = False,
                figures: Mapping[tuple[str, str], str] | None = None) -> list[HeadGroup]:
    """`HeadsRow`s or `PatchingRow`s (the last row per key) grouped by checkpoint and prompt
    config (and patching kind, ``by_kind``), each with the figure ``figures`` names for its
    (checkpoint, config), if any."""
    groups: dict[tuple[str, str, str, str], list[Any]] = {}
    for r in latest(rows):
        kind = r.kind if by_kind else ""
        groups.setdefault((r.checkpoint, r.dataset, r.config, kind), []).append(r)
    return [HeadGroup(*key, tuple(heads), (figures or {}).get((key[0], key[2])))
            for key, heads in sorted(groups.items())]


def heads_table_lines(rows: Iterable[Any],
                      figures: Mapping[tuple[str, str], str] | None = None
                      ) -> list[dict[str, str]]:
    """`HeadsRow`s as `REPORT_HEADS_COLUMNS` lines, one per (checkpoint, prompt config):
    each score's `TOP_HEADS` heads with their mean attention, and its heat maps' link."""
    return REPORT_HEADS_COLUMNS.lines(head_groups(rows, figures=figures))


def patching_table_lines(rows: Iterable[Any],
                         figures: Mapping[tuple[str, str], str] | None = None
                         ) -> list[dict[str, str]]:
    """`PatchingRow`s as `REPORT_PATCHING_COLUMNS` lines, one per (checkpoint, prompt
    config, kind): the clean run, the `TOP_HEADS` heads whose patch raised the loss most."""
    return REPORT_PATCHING_COLUMNS.lines(head_groups(rows, by_kind=True, figures=figures))




def write_table(
    rows: Sequence[Mapping[str, Any] | Any],
    columns: Columns | Sequence[str] | None = None,
    file: TextIO | None = None,
) -> str:
    """Render rows as an aligned Markdown table: through ``columns`` where they are a
    `Columns` (rows are its rows, or its lines), else each value of a dict or dataclass row
    spelled by `cell`, numbers right-aligned, the columns defaulting to the first row's keys
    (no rows and no columns: an empty string).

    Writes the table to ``file`` when given, and returns it either way.
    """
    if isinstance(columns, Columns):
        text = columns.terminal(rows)
    else:
        text = _plain_table(rows, columns)
    if file is not None:
        file.write(text)
    return text


def _plain_table(rows: Sequence[Mapping[str, Any] | Any], columns: Sequence[str] | None) -> str:
    dicts = [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r) for r in rows]
    if columns is None:
        columns = list(dicts[0]) if dicts else []
    if not columns:
        return ""
    right = [bool(dicts) and all(_is_number(d.get(c)) or d.get(c) is None for d in dicts)
             for c in columns]
    return markdown_table(columns, [[cell(d.get(c)) for c in columns] for d in dicts],
                          right=right) + "\n"
