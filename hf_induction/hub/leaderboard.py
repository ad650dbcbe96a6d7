"""The κ leaderboard: results (local folders and Hub dataset ids) -> sorted entries -> markdown.

One entry per κ row: task × group × format × L × model, with N*_joint and Σ_n N*_n.
Entries are sorted by task, group, format and L, then by κ, largest first (undefined κ
last). The Space app and ``hf-induction leaderboard`` both build on ``leaderboard_entries``;
over several sources, each table is one table with a column naming each row's source.
"""

from __future__ import annotations

import copy
import functools
import math
import tempfile
from collections.abc import Iterable, Mapping, Sequence
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
    nstar_bracket,
    nstar_text,
)

# The dataset card: which files make each table, and their declared column types.
CARD = "README.md"


def load_table(source: str | Path, table: str, *, cache_dir: str | None = None) -> list[dict]:
    """Every row of config ``table`` ("nstar", "kappa", "journal", ...) of a results folder or
    of a Hub dataset repo; [] for a table with no row, or no file.

    The table's files and column types are those its dataset card names and declares (a Hub
    repo's card and files are fetched first, at one commit). Only files that hold rows are
    read, through ``datasets``' json builder: where the card declares no types, that builder
    infers them from the first file, and an empty one (a process that wrote no row yet) would
    fail the table even where another file has rows.
    """
    import datasets
    from datasets.data_files import DataFilesList

    folder = _table_folder(source, table)
    patterns, features = _card_table(folder, table)
    files = [f for f in DataFilesList.from_patterns(patterns, str(folder))
             if Path(f).stat().st_size > 0]
    if not files:
        return []
    # A table of a few rows reads in milliseconds: no "Generating train split" bar a table.
    shown = datasets.utils.logging.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        with tempfile.TemporaryDirectory() as fresh:
            # Without a cache of the caller's, a throwaway one: `datasets` would keep a copy
            # of every version of a folder that grows as its searches run.
            return datasets.load_dataset("json", data_files=files, features=features,
                                         split="train", cache_dir=cache_dir or fresh).to_list()
    finally:
        if shown:
            datasets.enable_progress_bars()


def _table_folder(source: str | Path, table: str) -> Path:
    """A local results folder as it is; a Hub dataset repo as a local snapshot of its card
    and of ``table``'s files, both at the repo's current commit."""
    if Path(source).is_dir():
        return Path(source)
    if Path(source).exists():
        raise NotADirectoryError(f"{source} is a file, not a results folder")
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import RepositoryNotFoundError

    try:
        commit = HfApi().dataset_info(str(source)).sha
    except RepositoryNotFoundError:
        raise FileNotFoundError(f"{source} is neither a local folder nor a Hub dataset repo "
                                "one can read") from None
    card = snapshot_download(str(source), repo_type="dataset", revision=commit,
                             allow_patterns=[CARD])
    patterns, _ = _card_table(Path(card), table)
    return Path(snapshot_download(str(source), repo_type="dataset", revision=commit,
                                  allow_patterns=[CARD, *patterns]))


def _card_table(folder: Path, table: str) -> tuple[list[str], Any]:
    """(the file patterns of config ``table``, its declared `datasets.Features` or None), as
    ``folder``'s dataset card states them; ``table/*.jsonl`` and None where it is silent."""
    card = folder / CARD
    if not card.is_file():
        return [f"{table}/*.jsonl"], None
    stat = card.stat()
    patterns, features = _read_card(card.resolve(), (stat.st_mtime_ns, stat.st_size))
    return list(patterns.get(table, (f"{table}/*.jsonl",))), copy.deepcopy(features.get(table))


@functools.lru_cache(maxsize=32)
def _read_card(card: Path, stamp: tuple[int, int]) -> tuple[dict[str, tuple[str, ...]], dict]:
    """(config -> file patterns, config -> declared `datasets.Features`) of a dataset card.
    Parsing a card's YAML takes a tenth of a second, and a reader asks for several tables of
    one card: it is parsed once per version (``stamp``: its time and size)."""
    from datasets.data_files import sanitize_patterns
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    data = DatasetCard.load(card).data
    patterns = {name: tuple(p for split in sanitize_patterns(config["data_files"]).values()
                            for p in split)
                for name, config in MetadataConfigs.from_dataset_card_data(data).items()
                if "data_files" in config}
    features = {name: info.features
                for name, info in DatasetInfosDict.from_dataset_card_data(data).items()}
    return patterns, features


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


NSTAR_TABLE_COLUMNS = ("task", "config", "model", "N*", "N* lies in", "pool", "converged")


def nstar_table_rows(rows: Iterable[NstarRow]) -> list[list[str]]:
    """N* as the command line prints it: never blank ("> 1,056 (whole pool)"), with its
    bracket (`results.render`)."""
    latest = {r.key: r for r in rows}
    ordered = sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model))
    return [
        [r.dataset, r.config, r.model,
         nstar_text(r.n_star, r.largest_failing, r.pool_size, r.n_cap),
         nstar_bracket(r.n_star, r.largest_failing), fmt_number(r.pool_size),
         "yes" if r.converged else "no"]
        for r in ordered
    ]


LENGTHGEN_SPLITS = ("validation", "test", "test_long")
LENGTHGEN_TABLE_COLUMNS = ("task", "config", "model", "C-RASP[pos]", "N", "lr", "seed",
                           "val loss", *LENGTHGEN_SPLITS)


def split_sizes(cell: tasks.TaskCell, split: str) -> dict[int, int]:
    """Examples per length of ``split`` as the length-generalisation check draws it (the whole
    validation set, a test split at its default size); {} for a split the cell has not."""
    from ..tasks.sampling import test_sizes, validation_sizes

    if split == "validation":
        return validation_sizes(cell)
    return test_sizes(cell, split) if split in cell.test_splits else {}


def chance_level(cell: tasks.TaskCell, metric: str, sizes: Mapping[int, int]) -> float | None:
    """What uniform guessing scores on ``metric`` over ``sizes`` (examples per length): one
    symbol of the cell's alphabet in |alphabet| per answer, all n of a length-n answer for
    exact match, 0 for an accuracy normalised by chance; None for a metric not known here."""
    per_symbol = 1.0 / cell.alphabet_size
    if metric.startswith("normalised_"):
        return 0.0
    if metric == "exact_match":
        total = sum(sizes.values())
        return math.fsum(k * per_symbol**n for n, k in sizes.items()) / total if total else None
    if metric in ("accuracy", "token_accuracy", "state_accuracy", "final_state_accuracy"):
        return per_symbol
    return None


def _scores_text(cell: tasks.TaskCell | None, split: str, scores: Mapping[str, Any]) -> str:
    """``lengths: metric value (chance c), ...`` of one split of a length-generalisation row."""
    sizes = {} if cell is None else split_sizes(cell, split)
    parts = []
    for metric, value in scores.items():
        if metric == "lengths":
            continue
        chance = None if cell is None else chance_level(cell, metric, sizes)
        parts.append(f"{metric} {value:.3f}" + ("" if chance is None
                                                else f" (chance {fmt_number(chance)})"))
    return f"{scores['lengths']}: " + ", ".join(parts)


def lengthgen_table_rows(rows: Iterable[LengthGenRow]) -> list[list[str]]:
    """One line per check (the last row per key): the run scored (its learning rate, seed and
    validation loss), then each split's lengths and the task's metrics, each beside its chance
    level; the C-RASP[pos] column is the family's prediction where it makes one."""
    latest = {r.key: r for r in rows}
    out = []
    for r in sorted(latest.values(), key=lambda r: (r.dataset, r.config, r.model)):
        cell = tasks.parse_or_none(r.dataset, r.config)
        prediction = "?" if cell is None else cell.describe().get("C-RASP[pos]", "")
        scores = r.table()
        out.append([r.dataset, r.config, r.model, prediction, fmt_number(r.n), fmt_number(r.lr),
                    str(r.seed), fmt_number(r.val_loss), *(
                        _scores_text(cell, split, scores[split]) if split in scores else ""
                        for split in LENGTHGEN_SPLITS)])
    return out


@dataclass(frozen=True)
class SourceResults:
    """What the leaderboard shows of one results source (a folder or a Hub dataset id)."""

    source: str
    entries: list[Entry]
    nstar: list[NstarRow]
    lengthgen: list[LengthGenRow]

    @classmethod
    def load(cls, source: str | Path, **kwargs: Any) -> SourceResults:
        if (Path(source) / "protocol.json").exists():
            # A garbled protocol is an error here, not a silently empty board.
            from ..results import ResultsFolder

            ResultsFolder.existing(source)
        return cls(str(source), load_leaderboard(source, **kwargs),
                   load_nstar(source, **kwargs), load_lengthgen(source, **kwargs))

    @property
    def label(self) -> str:
        """The source as a table cell: a local folder's path, a Hub id linked to its page."""
        if Path(self.source).exists():
            return self.source
        return f"[{self.source}](https://huggingface.co/datasets/{self.source})"


SOURCE_COLUMN = "results"


def _one_table(columns: Sequence[str], parts: Sequence[tuple[SourceResults, list[tuple]]],
               ) -> tuple[tuple[str, ...], list[list[str]]]:
    """The rows of every source as one table, ordered by each row's sort key (then by source);
    with more than one source, a last column names the source of each row."""
    several = len(parts) > 1
    keyed = sorted(((key, i, row) for i, (_, rows) in enumerate(parts) for key, row in rows),
                   key=lambda t: (t[0], t[1]))
    return ((*columns, SOURCE_COLUMN) if several else tuple(columns),
            [[*row, parts[i][0].label] if several else row for _, i, row in keyed])


def render_markdown(results: Sequence[SourceResults], figures: Sequence[str] = ()) -> str:
    """``leaderboard.md``: the κ table, the N* table and the length-generalisation table, each
    over every source (a column naming the source when there are several), and the figures."""
    parts = [
        "# κ leaderboard",
        "",
        "κ = Σ_n N*_n / N*_joint (\"On the 'Induction Bias' in Sequence Models\"): above 1,",
        "learning is shared across lengths; about 1, one solution per length; below 1,",
        "interference. Where some N* was not found (N* missing), κ is undefined and the κ",
        "column shows the bounds the search brackets allow (N* lies in (largest failing, N*]);",
        "rows sort by κ, or by that bound.",
    ]
    if results:
        parts += ["", "Results: " + ", ".join(f"`{r.source}`" for r in results)]
    kappa = _one_table(TABLE_COLUMNS, [
        (r, list(zip(map(_sort_key, r.entries), table_rows(r.entries), strict=True)))
        for r in results])
    parts += ["", "## κ per model × format × task", "",
              markdown_table(*kappa) if kappa[1] else "(no κ rows)"]
    # Both tables come sorted by task, config and model: their first three columns.
    nstar = _one_table(NSTAR_TABLE_COLUMNS, [
        (r, [(tuple(row[:3]), row) for row in nstar_table_rows(r.nstar)]) for r in results])
    if nstar[1]:
        parts += ["", "## N* per search", "", markdown_table(*nstar)]
    lengthgen = _one_table(LENGTHGEN_TABLE_COLUMNS, [
        (r, [(tuple(row[:3]), row) for row in lengthgen_table_rows(r.lengthgen)])
        for r in results])
    if lengthgen[1]:
        parts += ["", "## Length generalisation", "",
                  "The best run at N (its learning rate, seed and validation loss), scored on "
                  "the training lengths (validation) and on longer ones, each score beside what "
                  "guessing would score (chance); C-RASP[pos]: whether the task is expressible, "
                  "the second study's prediction of generalisation.", "",
                  markdown_table(*lengthgen)]
    if figures:
        parts += ["", "## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures]
    return "\n".join(parts) + "\n"


def write_leaderboard(sources: str | Path | Sequence[str | Path | SourceResults],
                      out: str | Path, **kwargs: Any) -> list[Path]:
    """Write ``out/leaderboard.md`` and the PNG figures over every source (results folders,
    Hub dataset ids, or what `SourceResults.load` read of them; or one folder or id);
    returns the files written. ``kwargs`` go to `load_table`."""
    from .plots import write_figures

    if isinstance(sources, (str, Path)):
        sources = [sources]
    if not sources:
        raise ValueError("a leaderboard needs at least one results folder or Hub dataset id")
    results = [s if isinstance(s, SourceResults) else SourceResults.load(s, **kwargs)
               for s in sources]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figures = write_figures([e for r in results for e in r.entries], out)
    md = out / "leaderboard.md"
    md.write_text(render_markdown(results, [str(f) for f in figures]), encoding="utf-8")
    return [md, *figures]
