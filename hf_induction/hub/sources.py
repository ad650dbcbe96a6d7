"""A results source as a command line names it (a results folder, or a Hub dataset id
ORG/NAME), and what the Space shows beside each κ row of one: the protocol it was made under
and the checkpoints it pushed (read with the board's tables, in `hub.leaderboard`)."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

# protocol_summary lives in results.protocol, load_protocol and checkpoint_repos in
# hub.leaderboard (with the tables they read); named here too, for this module's readers.
from ..results.protocol import (
    is_results_folder,
    not_a_results_folder,
    protocol_summary,  # noqa: F401
)
from .leaderboard import checkpoint_repos, load_protocol  # noqa: F401

# A Hub dataset id as a source: ORG/NAME, nothing more (a bare name is a mistyped folder).
HUB_DATASET_ID = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")


def results_source(text: str) -> str:
    """An argparse ``type=``: a results folder, or, where no such path exists, a Hub dataset
    id ORG/NAME; anything else is a usage error naming the path and what each one is."""
    if Path(text).exists() or not HUB_DATASET_ID.fullmatch(text):
        if not is_results_folder(text):
            raise argparse.ArgumentTypeError(
                f"{not_a_results_folder(text)}; a Hub dataset id is ORG/NAME")
    return text


def source_or_folder(text: str) -> str:
    """An argparse ``type=``: `results_source`, or a folder that is not a results folder, which
    `results_sources` skips with a line where other sources are given (``results/*`` holds
    folders of configs beside the results)."""
    return text if Path(text).is_dir() else results_source(text)


def results_sources(given: list[str]) -> tuple[list[str], list[str]]:
    """(the results sources of ``given``, a line for each folder left out as not a results
    folder); ValueError, `results_source`'s line, where none is left."""
    sources = [s for s in given if not Path(s).is_dir() or is_results_folder(s)]
    if not sources:
        raise ValueError(f"{not_a_results_folder(given[0])}; a Hub dataset id is ORG/NAME")
    return sources, [f"skipping {s}: not a results folder (it holds no protocol.json)"
                     for s in given if s not in sources]


def chosen_sources(parser, given: list[str]) -> list[str]:
    """A command's results sources (`results_sources`): the folders left out said on stderr,
    one line each under the command's name; none left is the parser's usage error."""
    import sys

    try:
        sources, skipped = results_sources(given)
    except ValueError as e:
        parser.error(str(e))
    for line in skipped:
        print(f"{parser.prog}: {line}", file=sys.stderr)
    return sources
