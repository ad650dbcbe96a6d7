"""The sweep files the package ships, named without their path: ``--sweep paper_grid`` reads
``paper_grid.yaml`` here (the paper's complete grid), from a wheel as from a checkout, whose
``scripts/sweeps/paper_grid.yaml`` links to it."""

from __future__ import annotations

import argparse
from pathlib import Path

HERE = Path(__file__).parent


def shipped() -> list[str]:
    """The names of the sweeps shipped here."""
    return sorted(path.stem for path in HERE.glob("*.yaml"))


def find_sweep(text: str) -> Path | None:
    """The file ``text`` names: a sweep file, or the name of one shipped here (a file of that
    name wins); None where it is neither."""
    path = Path(text)
    if path.is_file():
        return path
    return HERE / f"{text}.yaml" if text in shipped() else None


def sweep_file(text: str) -> Path:
    """An argparse ``type=``: `find_sweep`, a usage error naming the shipped sweeps where
    ``text`` is neither a file nor one of them."""
    if Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a sweep file")
    path = find_sweep(text)
    if path is None:
        raise argparse.ArgumentTypeError(f"{text}: no such file, and not a sweep the package "
                                         f"ships ({', '.join(shipped())})")
    return path
