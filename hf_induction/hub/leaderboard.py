"""The κ leaderboard: results (local folders and Hub dataset ids) -> sorted entries -> markdown.

One entry per κ row (`hub.entries`): task × group × format × L × model, with N*_joint and
Σ_n N*_n. ``BOARD_TABLES`` declares every table (κ, N*, out of distribution, length
generalisation, attention heads) once: ``leaderboard.md`` writes each as a section and the
Space shows each as a tab, with the same lines in the same order; over several sources, each
table is one table with a column naming each row's source. The tables' columns and cells are
`results.render`'s.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from pathlib import Path
from typing import Any

from ..results import HeadsRow, KappaRow, LengthGenRow, NstarRow, OodRow, ReachRow
from ..results.load import CARD, card_table, read_rows, read_table
from ..results.protocol import PROTOCOL_FILE, protocol_summary, validation_rule
from ..results.reach import CARRIES, reach_groups
from ..results.render import (
    BOARD_HEADS_COLUMNS,
    BOARD_KAPPA_COLUMNS,
    BOARD_NSTAR_COLUMNS,
    BOARD_OOD_COLUMNS,
    LENGTHGEN_TABLE_COLUMNS,
    MISSING,
    REACH_BOARD_COLUMNS,
    SOURCE_COLUMN,
    SPACE_CHECKPOINT_COLUMN,
    SPACE_PROTOCOL_COLUMN,
    VALIDATION_COLUMN,
    Column,
    Columns,
    by_cell,
    head_groups,
    markdown_table,
)
from ..results.tables import latest, table_of
from .entries import Entry, leaderboard_entries, sort_key
from .errors import NETWORK_ERRORS, HubError, describe_read


def load_table(source: str | Path, table: str, *, cache_dir: str | None = None) -> list[dict]:
    """Every row of config ``table`` ("nstar", "kappa", "journal", ...) of a results folder or
    of a Hub dataset repo (its card and the table's files fetched first, at one commit); []
    for a table with no row, or no file (`results.load.read_table`)."""
    return read_table(_table_folder(source, table), table, cache_dir=cache_dir)


def load_rows(source: str | Path, row_class: type, **kwargs: Any) -> list[Any]:
    """Every row of the table of ``row_class`` of a results folder or Hub dataset repo."""
    return read_rows(_table_folder(source, table_of(row_class).name), row_class, **kwargs)


def load_kappa(source: str | Path, **kwargs: Any) -> list[KappaRow]:
    return load_rows(source, KappaRow, **kwargs)


def load_nstar(source: str | Path, **kwargs: Any) -> list[NstarRow]:
    return load_rows(source, NstarRow, **kwargs)


def _table_folder(source: str | Path, table: str) -> Path:
    """A local results folder as it is; a Hub dataset repo as a local snapshot of its card
    and of ``table``'s files, both at the repo's current commit."""
    if Path(source).is_dir():
        return Path(source)
    if Path(source).exists():
        raise NotADirectoryError(f"{source} is a file, not a results folder")
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import HfHubHTTPError

    try:
        commit = HfApi().dataset_info(str(source)).sha
        card = snapshot_download(str(source), repo_type="dataset", revision=commit,
                                 allow_patterns=[CARD])
        patterns, _ = card_table(Path(card), table)
        return Path(snapshot_download(str(source), repo_type="dataset", revision=commit,
                                      allow_patterns=[CARD, *patterns]))
    except (HfHubHTTPError, *NETWORK_ERRORS) as e:
        # Offline, unreachable or refused: one line, not the HTTP client's traceback.
        raise HubError(describe_read(e, str(source))) from None


def load_leaderboard(source: str | Path, **kwargs: Any) -> list[Entry]:
    return leaderboard_entries(load_kappa(source, **kwargs))


def load_protocol(source: str | Path) -> dict[str, Any]:
    """``protocol.json`` of a results folder or dataset repo; {} where it has none."""
    path = Path(source) / PROTOCOL_FILE
    if not path.exists() and not Path(source).exists():
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import EntryNotFoundError, HfHubHTTPError

        try:
            path = Path(hf_hub_download(str(source), PROTOCOL_FILE, repo_type="dataset"))
        except EntryNotFoundError:
            return {}
        except (HfHubHTTPError, *NETWORK_ERRORS) as e:
            raise HubError(describe_read(e, str(source))) from None
    return json.loads(path.read_text()) if path.exists() else {}


def checkpoint_repos(source: str | Path) -> dict[tuple[str, str, str], str]:
    """(dataset, config, model) -> the model repo a search of that cell pushed, if any."""
    pushed = {row["search"]: row["repo_id"] for row in load_table(source, "pushes")}
    return {(row["dataset"], row["config"], row["model"]): pushed[row["key"]]
            for row in load_table(source, "nstar") if row["key"] in pushed}


@dataclass(frozen=True)
class SourceResults:
    """What the leaderboard shows of one results source (a folder or a Hub dataset id), and
    what its Space shows beside each κ row: the protocol, and the checkpoints pushed."""

    source: str
    entries: list[Entry]
    nstar: list[NstarRow]
    lengthgen: list[LengthGenRow]
    ood: Sequence[OodRow] = ()
    heads: Sequence[HeadsRow] = ()
    protocol: Mapping[str, Any] = field(default_factory=dict)
    # (task, config, model) -> the model repo the search of that cell pushed.
    pushed: Mapping[tuple[str, str, str], str] = field(default_factory=dict)
    reach: Sequence[ReachRow] = ()
    # The source as a cell, where not `label`'s (the Space names its copies relative to it).
    shown: str = ""

    @classmethod
    def load(cls, source: str | Path, **kwargs: Any) -> SourceResults:
        if Path(source).exists():
            # A folder that is not a results folder, or whose protocol is garbled, is an
            # error here, not a silently empty board.
            from ..results import ResultsFolder

            ResultsFolder.existing(source)
        return cls(str(source), load_leaderboard(source, **kwargs),
                   load_nstar(source, **kwargs), load_rows(source, LengthGenRow, **kwargs),
                   load_rows(source, OodRow, **kwargs), load_rows(source, HeadsRow, **kwargs),
                   load_protocol(source), checkpoint_repos(source),
                   reach=load_rows(source, ReachRow, **kwargs))

    @property
    def label(self) -> str:
        """The source as a table cell: a local folder's path, a Hub id linked to its page."""
        if self.shown:
            return self.shown
        if Path(self.source).exists():
            return self.source
        return f"[{self.source}](https://huggingface.co/datasets/{self.source})"


# A source's rows of one table, each with the key the merged table sorts by.
KeyedRows = list[tuple[tuple, Any]]


@dataclass(frozen=True)
class Sourced:
    """A row of a board table with the source it came from."""

    source: SourceResults
    row: Any


def _pushed(s: Sourced) -> str:
    repo = s.source.pushed.get((s.row.dataset, s.row.config, s.row.model))
    return f"[{repo}](https://huggingface.co/{repo})" if repo else MISSING


SOURCE = Column(SOURCE_COLUMN, lambda s: s.source.label)
VALIDATION = Columns(Column(VALIDATION_COLUMN, lambda s: validation_rule(s.source.protocol)))
# What the Space shows beside each κ row: its model's protocol, and the checkpoint pushed.
SPACE_KAPPA_EXTRA = Columns(
    Column(SPACE_PROTOCOL_COLUMN, lambda s: protocol_summary(s.source.protocol, s.row.model)),
    Column(SPACE_CHECKPOINT_COLUMN, _pushed))


def _by_search(rows: Sequence[Any]) -> KeyedRows:
    """The last row per key, keyed by dataset, config and model."""
    return [((r.dataset, r.config, r.model), r) for r in by_cell(rows)]


def _ood_rows(r: SourceResults) -> KeyedRows:
    """By dataset and training cell, then by the final state's normalised accuracy, best
    first."""
    return [((o.dataset, o.config, -o.normalised_final_state_accuracy, o.model), o)
            for o in latest(r.ood)]


@dataclass(frozen=True)
class BoardTable:
    """One table of the board: a section of leaderboard.md and a tab of the Space, with the
    same columns, lines and order in both."""

    key: str  # the Space's names for it: tab "<key>-tab", table "<key>-table"
    title: str
    heading: str
    about: str
    columns: Columns
    rows: Callable[[SourceResults], KeyedRows]
    # What leaderboard.md says where the table has no row; None: the section is left out.
    empty: str | None = None
    # Columns of the row's source (over `Sourced` rows), on the board and in the Space.
    source_columns: Columns = field(default_factory=Columns)
    # The Space's columns beside the board's, before the source (over `Sourced` rows).
    space_extra: Columns = field(default_factory=Columns)

    def _lines(self, results: Sequence[SourceResults], columns: Columns
               ) -> list[dict[str, str]]:
        keyed = sorted(((key, i, row) for i, r in enumerate(results)
                        for key, row in self.rows(r)), key=lambda t: (t[0], t[1]))
        return columns.lines(Sourced(results[i], row) for _, i, row in keyed)

    def merged(self, results: Sequence[SourceResults], *, source_column: bool | None = None,
               ) -> tuple[tuple[str, ...], list[dict[str, str]]]:
        """The rows of every source as one table, ordered by each row's sort key (then by
        source); a last column names each row's source where there are several sources (or
        where ``source_column`` says so)."""
        several = len(results) > 1 if source_column is None else source_column
        columns = (self.columns.of(attrgetter("row")) + self.source_columns
                   + ((SOURCE,) if several else ()))
        return columns.names, self._lines(results, columns)

    def space(self, results: Sequence[SourceResults]) -> tuple[tuple[str, ...], list[dict]]:
        """The Space's tab: the board's lines, in the board's order, with their source."""
        columns = (self.columns.of(attrgetter("row")) + self.source_columns + self.space_extra
                   + (SOURCE,))
        return columns.names, self._lines(results, columns)


BOARD_TABLES: tuple[BoardTable, ...] = (
    BoardTable("kappa", "κ", "κ per model × format × dataset", "", BOARD_KAPPA_COLUMNS,
               lambda r: [(sort_key(e), e) for e in r.entries], empty="(no κ rows)",
               source_columns=VALIDATION, space_extra=SPACE_KAPPA_EXTRA),
    BoardTable("nstar", "N*", "N* per search", "", BOARD_NSTAR_COLUMNS,
               lambda r: _by_search(r.nstar), source_columns=VALIDATION),
    BoardTable("ood", "Out of distribution", "Out of distribution",
               "The best run at N, trained at length L and tested at 2L; accuracy normalised "
               "so that chance is 0 and perfect is 1 (final state: the last state only). "
               "Within a training cell, best first.",
               BOARD_OOD_COLUMNS, _ood_rows),
    BoardTable("reach", "Reach", "How far it carries",
               "Each out-of-distribution check's best run scored again at 2L, 4L, 10L, 100L "
               "and 1,000L: its normalised final-state accuracy at each (chance 0, perfect "
               "1; beyond: longer than the model's learned positions), and the longest length "
               f"where it is at least {CARRIES:g} (carries to).",
               REACH_BOARD_COLUMNS,
               lambda r: [((g.dataset, g.config, g.model, g.n), g)
                          for g in reach_groups(r.reach)]),
    BoardTable("lengthgen", "Length generalisation", "Length generalisation",
               "The best run at N (its learning rate, seed and validation loss), scored on "
               "the training lengths (validation) and on longer ones, each score beside what "
               "guessing would score (chance); C-RASP[pos]: whether the task is expressible, "
               "the second study's prediction of generalisation.",
               LENGTHGEN_TABLE_COLUMNS, lambda r: _by_search(r.lengthgen)),
    BoardTable("heads", "Attention heads", "Attention heads",
               "Per checkpoint and prompt set, each score's top heads (layer.head) by mean "
               "attention: on the token after the earlier occurrence of the current one "
               "(induction), before it (anti-induction), on the previous token, and on the "
               "occurrence itself (duplicate token).",
               BOARD_HEADS_COLUMNS,
               lambda r: [((g.checkpoint, g.prompts), g) for g in head_groups(r.heads)]),
)


def render_markdown(results: Sequence[SourceResults], figures: Sequence[str] = ()) -> str:
    """``leaderboard.md``: each of `BOARD_TABLES` (κ, N*, out of distribution, length
    generalisation, attention heads) over every source (a column naming the source when
    there are several), and the figures."""
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
    for table in BOARD_TABLES:
        columns, lines = table.merged(results)
        if lines or table.empty is not None:
            parts += ["", f"## {table.heading}", ""]
            parts += [table.about, ""] if table.about else []
            parts.append(markdown_table(columns, lines, empty=table.empty))
    if figures:
        parts += ["", "## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures]
    return "\n".join(parts) + "\n"


def tab_rows(key: str, results: Sequence[SourceResults]) -> list[Sourced]:
    """The rows the board table ``key`` (its tab in the Space) shows, each with its source:
    what its figures draw, row for row."""
    table = next(t for t in BOARD_TABLES if t.key == key)
    return [Sourced(r, row) for r in results for _, row in table.rows(r)]


def series_names(rows: Sequence[Sourced]) -> list[str]:
    """Each κ row's name in a figure: its model, and its source as given where another
    source holds a row of that model on the same task (two series would share a legend
    line and a colour)."""
    sources: dict[tuple[str, str, str], set[str]] = {}
    for s in rows:
        sources.setdefault((s.row.dataset, s.row.group, s.row.model), set()).add(s.source.source)
    return [s.row.model + (f" ({s.source.source})"
                           if len(sources[(s.row.dataset, s.row.group, s.row.model)]) > 1 else "")
            for s in rows]


def board_figures(results: Sequence[SourceResults], out: str | Path) -> list[Path]:
    """The board's figures over every source, written into ``out``, each drawn from its
    tab's rows (`tab_rows`): N* against length and κ per task (a line and a bar per κ row),
    the out-of-distribution bars where a source has checks (a bar per row), and how far each
    check carries where a source has reach rows (the reach table's rows, per source)."""
    from .plots import plot_ood_bars, write_figures
    from .reach_plots import write_reach_figures

    out = Path(out)
    kappa = tab_rows("kappa", results)
    figures = write_figures([s.row for s in kappa], out, series_names(kappa))
    ood = tab_rows("ood", results)
    if ood:
        figures.append(plot_ood_bars([s.row for s in ood], out / "ood_final_state.png",
                                     [s.source.source for s in ood]))
    figures += write_reach_figures([g for r in results for g in reach_groups(r.reach)], out)
    return figures


def write_leaderboard(sources: str | Path | Sequence[str | Path | SourceResults],
                      out: str | Path, **kwargs: Any) -> list[Path]:
    """Write ``out/leaderboard.md`` and the PNG figures over every source (results folders,
    Hub dataset ids, or what `SourceResults.load` read of them; or one folder or id);
    returns the files written. ``kwargs`` go to `load_table`."""
    if isinstance(sources, (str, Path)):
        sources = [sources]
    if not sources:
        raise ValueError("a leaderboard needs at least one results folder or Hub dataset id")
    results = [s if isinstance(s, SourceResults) else SourceResults.load(s, **kwargs)
               for s in sources]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    figures = board_figures(results, out)
    md = out / "leaderboard.md"
    md.write_text(render_markdown(results, [str(f) for f in figures]), encoding="utf-8")
    return [md, *figures]
