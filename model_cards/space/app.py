"""The κ leaderboard as a Gradio Space: a sortable, filterable table and the figures.

HF_INDUCTION_RESULTS names the results: a local folder or a Hub dataset id (default
below). Run locally with ``python app.py``; GRADIO_SERVER_PORT picks the port.
"""

from __future__ import annotations

import math
import os
import tempfile

import gradio as gr
import pandas as pd

from hf_induction.hub.leaderboard import (
    TABLE_COLUMNS,
    kappa_sort_value,
    load_leaderboard,
    table_rows,
)
from hf_induction.hub.plots import write_figures

RESULTS = os.environ.get("HF_INDUCTION_RESULTS", "hf-induction/induction-results")
ALL = "all"

ENTRIES = load_leaderboard(RESULTS)
TABLE = pd.DataFrame(table_rows(ENTRIES), columns=list(TABLE_COLUMNS))
# κ stays text (an undefined κ shows its bounds, never a blank); beside it, the number it
# sorts by: κ, or the bound shown. N* as numbers, so clicking a header sorts numerically.
TABLE.insert(TABLE.columns.get_loc("κ") + 1, "κ or bound",
             [v if math.isfinite(v) else math.nan for v in map(kappa_sort_value, ENTRIES)])
for column in ("N*_joint", "Σ N*_n"):
    TABLE[column] = pd.to_numeric(TABLE[column].str.replace(",", ""), errors="coerce")
FIGURES = [str(p) for p in write_figures(ENTRIES, tempfile.mkdtemp(prefix="leaderboard-"))]


def choices(column: str) -> list[str]:
    return [ALL, *sorted(TABLE[column].unique())]


def filtered(task: str, fmt: str, model: str, text: str) -> pd.DataFrame:
    """The rows matching every filter; ``text`` is a substring of any cell."""
    keep = pd.Series(True, index=TABLE.index)
    for column, value in (("task", task), ("format", fmt), ("model", model)):
        if value and value != ALL:
            keep &= TABLE[column] == value
    if text:
        cells = TABLE.astype(str).apply(lambda col: col.str.contains(text, case=False, regex=False))
        keep &= cells.any(axis=1)
    return TABLE[keep]


with gr.Blocks(title="κ leaderboard") as demo:
    gr.Markdown(
        "# κ leaderboard\n"
        "κ = Σ_n N*_n / N*_joint, from \"On the 'Induction Bias' in Sequence Models\": "
        "above 1, learning is shared across lengths; about 1, one solution per length. "
        f"Results: `{RESULTS}`. Click a column header to sort."
    )
    with gr.Row():
        task = gr.Radio(choices("task"), value=ALL, label="Task")
        fmt = gr.Radio(choices("format"), value=ALL, label="Format")
        model = gr.Radio(choices("model"), value=ALL, label="Model")
        text = gr.Textbox(label="Search", placeholder="any cell, e.g. lstm or Z_5")
    table = gr.Dataframe(TABLE, interactive=False, label="κ per model × format × task",
                         elem_id="kappa-table")
    gr.Gallery(FIGURES, label="Figures", columns=2, height="auto")
    for control in (task, fmt, model):
        control.change(filtered, [task, fmt, model, text], table)
    text.submit(filtered, [task, fmt, model, text], table)
    text.change(filtered, [task, fmt, model, text], table)


if __name__ == "__main__":
    # System fonts only: a Space needs no font download, and neither does an offline test.
    theme = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                              font_mono=["ui-monospace", "monospace"])
    demo.launch(theme=theme, allowed_paths=[os.path.dirname(FIGURES[0])] if FIGURES else None)
