"""The κ leaderboard as a Gradio Space: a tab per table of ``leaderboard.md`` (κ, which the
filters narrow; N*; out of distribution; length generalisation; attention heads, with their
heat maps), with its columns, cells and order; the figures, About and Citation.

The results are a list of local folders or Hub dataset ids: the command line
(``python app.py results/first_campaign results/gpt2``), else HF_INDUCTION_RESULTS
(comma-separated), else the ``results.txt`` that ``hf-induction space`` writes beside the
app, else the default below. GRADIO_SERVER_PORT picks the port.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile

import gradio as gr
import pandas as pd

from hf_induction.citations import BORN_A_TRANSFORMER, INDUCTION_BIAS
from hf_induction.hub.head_plots import write_head_figures
from hf_induction.hub.leaderboard import BOARD_TABLES, SourceResults, board_figures
from hf_induction.hub.leaderboard import load_table as load_rows
from hf_induction.results.render import SPACE_LINK_COLUMNS, VALIDATION_COLUMN

HERE = os.path.dirname(os.path.abspath(__file__))
# What `hf-induction space` wrote beside the app: the sources it was built for, one a line.
BUILT_FOR = os.path.join(HERE, "results.txt")
DEFAULT_RESULTS = "hf-induction/induction-results"


def sources() -> list[str]:
    """The command line, else HF_INDUCTION_RESULTS, else results.txt, else the default."""
    if sys.argv[1:]:
        return sys.argv[1:]
    if os.environ.get("HF_INDUCTION_RESULTS"):
        return [s.strip() for s in os.environ["HF_INDUCTION_RESULTS"].split(",") if s.strip()]
    if os.path.exists(BUILT_FOR):
        lines = open(BUILT_FOR, encoding="utf-8").read().split()
        return [line if not line.startswith("./") else os.path.join(HERE, line) for line in lines]
    return [DEFAULT_RESULTS]


SOURCES = sources()
ALL = "all"


def source_link(source: str) -> str:
    """A Hub dataset id as a link to its page; a local folder as its path (relative to the
    app for the folders a Space carries)."""
    if os.path.exists(source):
        inside = os.path.abspath(source).startswith(HERE + os.sep)
        return os.path.relpath(source, HERE) if inside else source
    return f"[{source}](https://huggingface.co/datasets/{source})"


# Each source as the board reads it, named as the Space shows it.
RESULTS = [dataclasses.replace(SourceResults.load(s), shown=source_link(s)) for s in SOURCES]


def board_frame(table) -> pd.DataFrame:
    """One of the board's tables (`BOARD_TABLES`) as the Space shows it: the board's lines,
    cells and order, with the Space's columns. Every cell stays the board's text, so that a
    number has one spelling; the rows come ranked as the board ranks them."""
    columns, lines = table.space(RESULTS)
    return pd.DataFrame([[line[c] for c in columns] for line in lines], columns=list(columns))


FRAMES = {table.key: board_frame(table) for table in BOARD_TABLES}
# The κ table, the one the filters narrow.
TABLE = FRAMES["kappa"]
FIGURES = [str(p) for p in board_figures(RESULTS, tempfile.mkdtemp(prefix="leaderboard-"))]
HEADS_DIR = tempfile.mkdtemp(prefix="heads-")


def head_figures() -> list[str]:
    """Each source's heat maps and patching plots (`hf-induction heads`), drawn from its heads
    and patching tables as the report draws them; none for a source without heads rows."""
    paths = []
    for i, source in enumerate(SOURCES):
        drawn = write_head_figures(load_rows(source, "heads"), load_rows(source, "patching"),
                                   os.path.join(HEADS_DIR, str(i)))
        paths += [str(path) for files in drawn.values() for path in files.values()]
    return paths


HEAD_FIGURES = head_figures()

ABOUT = rf"""
## What the numbers mean
- **N\*** of a model on a task cell is the smallest number of training sequences from which
  some run of the grid Φ (learning rates × seeds) reaches validation loss below ε = 1e-4.
  It is searched, not guessed; a cell where no size in the pool succeeded has no N\*, only
  the largest size that failed.
- **κ** = Σₙ N\*ₙ / N\*_joint compares learning each length n = 2..L on its own with
  learning all lengths together. Above 1, what is learned at one length serves the others;
  about 1, the model learns one solution per length. Where some N\* is missing, κ is not
  defined and the κ column shows its bounds instead (`≥ 9.65`); rows are ranked by κ, or
  by that bound.

## The protocol
The paper's: Adam, batch 64, learning rates {{1e-3, 1e-4, 1e-5}} × seeds {{10, …, 50}},
250,000 steps, early stopping at ε. Results made with smaller budgets or models (the CPU
presets) say so in their results dataset's card and report (its `protocol.json`).

## Submitting results
Run the search (`hf-induction nstar … --kappa --out results/mine`), push the folder as a
dataset (`hf-induction push results/mine ORG/REPO`), then open a pull request on this Space
adding `ORG/REPO` to its `HF_INDUCTION_RESULTS`.

Results shown here: {", ".join(r.label for r in RESULTS)}.
"""

CITATION = f"""
The leaderboard implements [{INDUCTION_BIAS.title}]({INDUCTION_BIAS.url}) and, for retrieval
and copying, [{BORN_A_TRANSFORMER.title}]({BORN_A_TRANSFORMER.url}).

```bibtex
{INDUCTION_BIAS.bibtex}

{BORN_A_TRANSFORMER.bibtex}
```
"""


def choices(column: str) -> list[str]:
    return [ALL, *sorted(TABLE[column].unique())]


def datatypes(columns) -> list[str]:
    """Links render as links; every other column as text."""
    return ["markdown" if c in SPACE_LINK_COLUMNS else "str" for c in columns]


def filtered(dataset: str, side: str, fmt: str, model: str, validation: str, text: str,
             columns: list[str]):
    """The rows matching every filter (``text`` is a substring of any cell), in the columns
    picked (in the table's order)."""
    keep = pd.Series(True, index=TABLE.index)
    for column, value in (("dataset", dataset), ("word problem", side), ("format", fmt),
                          ("model", model), (VALIDATION_COLUMN, validation)):
        if value and value != ALL:
            keep &= TABLE[column] == value
    if text:
        cells = TABLE.astype(str).apply(lambda col: col.str.contains(text, case=False, regex=False))
        keep &= cells.any(axis=1)
    shown = [c for c in TABLE.columns if c in columns] or list(TABLE.columns)
    return gr.Dataframe(value=TABLE.loc[keep, shown], datatype=datatypes(shown))


def board_tab(table) -> None:
    """One of the board's tables, whole, in a tab of its own (heading and text as the board's
    section has them)."""
    frame = FRAMES[table.key]
    if table.about:
        gr.Markdown(table.about)
    gr.Dataframe(frame, interactive=False, label=table.heading, elem_id=f"{table.key}-table",
                 datatype=datatypes(frame.columns))


with gr.Blocks(title="κ leaderboard") as demo:
    gr.Markdown(
        "# κ leaderboard\n"
        "κ = Σ_n N*_n / N*_joint, from \"On the 'Induction Bias' in Sequence Models\": "
        "above 1, learning is shared across lengths; about 1, one solution per length. "
        "Each tab is a table of the leaderboard, its rows in the leaderboard's order (κ: "
        "ranked by κ, or by its bound)."
    )
    kappa, *others = BOARD_TABLES
    with gr.Tab(kappa.title, elem_id=f"{kappa.key}-tab"):
        with gr.Row():
            dataset = gr.Radio(choices("dataset"), value=ALL, label="Dataset")
            # A group's side of the line: TC0 (solvable) or NC1-complete.
            side = gr.Radio(choices("word problem"), value=ALL, label="Word problem")
            fmt = gr.Radio(choices("format"), value=ALL, label="Format")
            model = gr.Radio(choices("model"), value=ALL, label="Model", elem_id="model-filter")
            # How validation was drawn: a κ of one rule is no measure of the other's.
            validation = gr.Radio(choices(VALIDATION_COLUMN), value=ALL, label="Validation",
                                  elem_id="validation-filter")
            text = gr.Textbox(label="Search", placeholder="any cell, e.g. lstm or Z_5")
        columns = gr.CheckboxGroup(list(TABLE.columns), value=list(TABLE.columns),
                                   label="Columns", elem_id="columns")
        table = gr.Dataframe(TABLE, interactive=False, label=kappa.heading,
                             elem_id=f"{kappa.key}-table", datatype=datatypes(TABLE.columns))
    for other in others:
        with gr.Tab(other.title, elem_id=f"{other.key}-tab"):
            board_tab(other)
            if other.key == "heads":
                # Beside the heads table, each source's heat maps and patching plots.
                for path in HEAD_FIGURES:
                    gr.Image(path, show_label=False, interactive=False, elem_classes="figure")
    with gr.Tab("Figures"):
        # Whole figures, one per row: a gallery's thumbnails crop them.
        for path in FIGURES:
            gr.Image(path, show_label=False, interactive=False, elem_classes="figure")
    with gr.Tab("About"):
        gr.Markdown(ABOUT)
    with gr.Tab("Citation"):
        gr.Markdown(CITATION)
    controls = [dataset, side, fmt, model, validation, text, columns]
    for control in (dataset, side, fmt, model, validation, columns):
        control.change(filtered, controls, table)
    text.submit(filtered, controls, table)
    text.change(filtered, controls, table)


if __name__ == "__main__":
    # System fonts only: a Space needs no font download, and neither does an offline test.
    theme = gr.themes.Default(font=["ui-sans-serif", "system-ui", "sans-serif"],
                              font_mono=["ui-monospace", "monospace"])
    shown = [os.path.dirname(FIGURES[0])] if FIGURES else []
    demo.launch(theme=theme, allowed_paths=shown + [HEADS_DIR])
