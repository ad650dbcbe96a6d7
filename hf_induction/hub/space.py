"""A leaderboard Space folder ready to upload: the app, its card, its requirements, the
package code it runs, and the results folders it shows.

The package is not on PyPI, so the Space cannot install it; reading results needs none of
its heavy dependencies (no torch), so its code is copied beside ``app.py`` instead, where
Python finds it first. The card is `huggingface_hub`'s ``SpaceCard``: ``sdk_version`` is the
gradio this folder was built (and tested) with, ``datasets`` the Hub results it reads.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from huggingface_hub import SpaceCard

from ..results.folder import SET_ASIDE
from ..templates import copy_template, read_template

PACKAGE = Path(__file__).resolve().parents[1]
SOURCES_FILE = "results.txt"


def write_space(sources: Sequence[str | Path], out: str | Path) -> Path:
    """Write the Space for ``sources`` (results folders, copied in, or Hub dataset ids)."""
    import gradio

    if not sources:
        raise ValueError("a Space needs at least one results folder or Hub dataset id")
    out = Path(out)
    copy_template("space", out, ("app.py", "requirements.txt"))
    shutil.copytree(PACKAGE, out / PACKAGE.name, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    listed, hub_ids = [], []
    for source in sources:
        folder = Path(source)
        if folder.is_dir():
            # A local folder travels with the Space, under results/ by its own name; the
            # models it keeps (checkpoints/) and what a repair set aside do not: the Space
            # shows tables and figures.
            target = Path("results") / folder.resolve().name
            shutil.copytree(folder, out / target, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(".locks", "claims", "checkpoints",
                                                          SET_ASIDE))
            listed.append(f"./{target.as_posix()}")
        else:
            listed.append(str(source))
            hub_ids.append(str(source))
    (out / SOURCES_FILE).write_text("\n".join(listed) + "\n", encoding="utf-8")
    card = SpaceCard(read_template("space", "README.md"))
    card.data.sdk_version = gradio.__version__
    card.data.datasets = hub_ids or None
    card.save(out / "README.md")
    return out
