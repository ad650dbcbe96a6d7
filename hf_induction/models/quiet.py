"""transformers' own progress bars kept off while a save or load runs inside our own bars; a
module of its own, so that the builder and the pretrained loader both use it and neither
imports the other's."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def transformers_bars_off() -> Iterator[None]:
    """transformers' progress bars of one save or load ("Writing model shards", "Loading
    weights") off while the block runs: a campaign or a scoring has bars of its own."""
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if shown:
            hf_logging.enable_progress_bar()
