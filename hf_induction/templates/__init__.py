"""The files the commands read and write out: the dataset cards' templates
(``datasets/<name>.md``), the checkpoint's model card (``checkpoint.md``) and the leaderboard
Space (``space/``: its app, card and requirements).

They are package data, read through `importlib.resources`, so every command works from an
installed wheel as from a checkout; nothing outside the package is read.
"""

from __future__ import annotations

from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path


def template(*parts: str) -> Traversable:
    """The template at ``parts`` below this folder, e.g. ``template("space", "app.py")``."""
    found = files(__name__).joinpath(*parts)
    if not (found.is_file() or found.is_dir()):
        raise FileNotFoundError(f"hf_induction has no template {'/'.join(parts)} (the "
                                "installation is incomplete: reinstall the package)")
    return found


def read_template(*parts: str) -> str:
    return template(*parts).read_text(encoding="utf-8")


def dataset_card_template(dataset: str) -> str:
    """The card template of task family ``dataset`` (``$placeholders`` for the build)."""
    return read_template("datasets", f"{dataset}.md")


def copy_template(name: str, out: Path, names: tuple[str, ...]) -> None:
    """Copy the files ``names`` of template folder ``name`` into ``out``, byte for byte."""
    folder = template(name)
    out.mkdir(parents=True, exist_ok=True)
    for file in names:
        (out / file).write_bytes(folder.joinpath(file).read_bytes())
