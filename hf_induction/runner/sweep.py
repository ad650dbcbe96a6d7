"""A sweep file: many cells and models as one campaign (``nstar.py --sweep FILE``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from ..tasks import TaskCell, TaskConfig, parse
from .job import SearchJob, plan_jobs

KEYS = {"dataset", "configs", "formats", "lengths", "dists", "groups", "models", "kappa", "ood",
        "lengthgen", "search"}
# 'budget:' holds budget and search flags (max_steps: 5000, lrs: [1e-3, 1e-4], ...).
TOP_KEYS = {"sweep", "budget"}


@dataclass(frozen=True)
class Sweep:
    """The searches of a sweep file, in file order, and the cells given the OOD check."""

    jobs: list[SearchJob]
    ood_cells: tuple[TaskCell, ...] = ()
    lengthgen_cells: tuple[TaskCell, ...] = ()


def load_sweep(path: str | Path, data_seed: int = 0) -> Sweep:
    """Every search the sweep asks for, in file order, without duplicates.

    An entry with ``ood: true`` (``lengthgen: true``) also asks for the OOD (length
    generalisation) check of each of its cells (not of the κ schedule's fixed-length cells);
    ``search: false`` runs only those checks. Raises ValueError naming the entry and key at
    fault.
    """
    try:
        spec = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"cannot read sweep file {path}: {e}") from e
    entries = spec.get("sweep") if isinstance(spec, dict) else None
    if not isinstance(entries, list) or not entries:
        raise ValueError(f"{path}: expected a top-level 'sweep:' list of entries")
    unknown = sorted(set(spec) - TOP_KEYS)
    if unknown:
        raise ValueError(f"{path}: unknown top-level key(s) {unknown}; allowed: "
                         f"{sorted(TOP_KEYS)} (the budget is read by the command line)")
    # A dict keeps file order and dedups in O(1): the paper grid has 3,330 jobs.
    jobs: dict[SearchJob, None] = {}
    ood_cells: list[TaskCell] = []
    lengthgen_cells: list[TaskCell] = []
    for i, entry in enumerate(entries):
        where = f"{path}: sweep entry {i}"
        if not isinstance(entry, dict):
            raise ValueError(f"{where} is not a mapping")
        unknown = set(entry) - KEYS
        # Cells by name (any family), or a word problem's grid of formats x lengths x ...
        needed = {"dataset", "models"} | ({"configs"} if "configs" in entry
                                          else {"formats", "lengths"})
        missing = needed - set(entry)
        if unknown or missing:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}, missing keys "
                             f"{sorted(missing)}; allowed: {sorted(KEYS)}")
        for key in ("configs", "formats", "lengths", "dists", "groups", "models"):
            if key in entry and not (isinstance(entry[key], list) and entry[key]):
                raise ValueError(f"{where}: {key} must be a non-empty list, got {entry[key]!r}")
        try:
            if "configs" in entry:
                cells = [parse(entry["dataset"], name) for name in entry["configs"]]
            else:
                cells = [
                    TaskConfig(entry["dataset"], fmt, int(length), dist, group)
                    for fmt in entry["formats"] for length in entry["lengths"]
                    for dist in entry.get("dists", ["fixed"])
                    for group in entry.get("groups", [None])
                ]
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from e
        for job in plan_jobs(cells, list(entry["models"]), bool(entry.get("kappa", False)),
                             data_seed, search=bool(entry.get("search", True))):
            jobs.setdefault(job)
        if entry.get("ood", False):
            ood_cells += [c for c in cells if c not in ood_cells]
        if entry.get("lengthgen", False):
            lengthgen_cells += [c for c in cells if c not in lengthgen_cells]
    return Sweep(list(jobs), tuple(ood_cells), tuple(lengthgen_cells))
