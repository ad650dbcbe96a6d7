"""The models a results folder keeps: ``DIR/checkpoints/<model>-<config>-n<N>/``.

``nstar --lengthgen --keep-checkpoints`` keeps the best run of each length-generalisation
check there (``save_pretrained`` and the cell's tokenizer, beside `TRAINED_ON`, which says
what it was trained on); ``hf-induction heads`` reads them back. The folder name and the
layout live here only; writing a model is the runner's (``runner.checkpoints``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

CHECKPOINTS = "checkpoints"
# What a kept checkpoint was trained on: {"model", "dataset", "config", "n", "lr", "seed",
# "steps", "lengthgen"} (the key of its length-generalisation row).
TRAINED_ON = "trained_on.json"


def checkpoint_name(model: str, config: str, n: int) -> str:
    """``<model>-<config>-n<N>``, one folder name: anything but letters, digits, ``._-``
    (an ``hf:ORG/NAME`` model's colon and slash) becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]", "-", f"{model}-{config}-n{int(n)}")


def checkpoints_dir(results: str | Path) -> Path:
    return Path(results) / CHECKPOINTS


def kept_checkpoints(results: str | Path) -> list[Path]:
    """The checkpoint folders a results folder holds, by name; none where it keeps none. A
    folder still being written (a hidden temporary one) is not one."""
    where = checkpoints_dir(results)
    if not where.is_dir():
        return []
    return sorted(p for p in where.iterdir() if p.is_dir() and not p.name.startswith("."))


def read_trained_on(checkpoint: str | Path) -> dict[str, Any] | None:
    """The checkpoint's `TRAINED_ON` record, None where it has none (a model from elsewhere)."""
    path = Path(checkpoint) / TRAINED_ON
    if not path.is_file():
        return None
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return found if isinstance(found, dict) else None
