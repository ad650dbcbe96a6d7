"""The report's "Attention heads" section: per checkpoint and prompt config, each score's top
heads and the heads whose patch raised the loss most, linked to the heat maps and patching
plots the report draws (``hub.head_plots``). Only a folder with heads rows has the section."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..results import ResultsFolder
from ..results.render import (
    REPORT_HEADS_COLUMNS,
    REPORT_PATCHING_COLUMNS,
    TOP_HEADS,
    head_groups,
)
from ..results.rows import HeadsRow, PatchingRow


def heads_section(folder: ResultsFolder,
                  figures: Mapping[tuple[str, str], Mapping[str, Path | str]] | None = None
                  ) -> list[str]:
    """The section's lines ([] for a folder without heads rows); ``figures`` maps
    (checkpoint, config) to {"heads": file, "patching": file} beside tables.md."""
    heads = folder.read(HeadsRow)
    if not heads:
        return []
    figures = figures or {}

    def named(kind: str) -> dict[tuple[str, str], str]:
        return {cell: Path(files[kind]).name for cell, files in figures.items() if kind in files}

    parts = ["", "## Attention heads", "",
             f"Each score's top {TOP_HEADS} heads (L layer H head: the head's mean attention on "
             "that token at the scored positions) of each checkpoint on each prompt config "
             "(`hf-induction heads`; the rows are the folder's `heads` table).", "",
             REPORT_HEADS_COLUMNS.markdown(head_groups(heads, figures=named("heads")))]
    patching = folder.read(PatchingRow)
    if patching:
        parts += ["", "### Patching", "",
                  "The heads whose patch (induction: its key at the token after the earlier "
                  "occurrence; anti-induction: its value at the occurrence, each from a run "
                  "without previous-token edges) raised the loss most: Δ loss (Δ exact match).",
                  "", REPORT_PATCHING_COLUMNS.markdown(
                      head_groups(patching, by_kind=True, figures=named("patching")))]
    return parts
