"""Stable keys: the same fields always hash to the same string, across processes and runs."""

from __future__ import annotations

import hashlib
from typing import Any

from .jsonl import to_json


def stable_hash(obj: Any, length: int = 16) -> str:
    """A hex digest of the canonical JSON of ``obj`` (sorted keys, no spaces).

    Values are compared as JSON: 1 and 1.0 differ, a tuple equals the matching list.
    """
    canonical = to_json(obj, sort_keys=True)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:length]


def run_key(**fields: Any) -> str:
    """The key of a training run, a search or a κ: a hash of everything that defines it.

    For a run, pass e.g. dataset, config, model, model_config_hash, n, lr, seed and
    protocol_hash; for a search, the same without n, lr and seed plus a ``kind`` field, so
    the two kinds never collide.
    """
    return stable_hash(fields)
