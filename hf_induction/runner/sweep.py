"""A sweep file: many cells and models as one campaign (``hf-induction nstar --sweep FILE``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..tasks import TaskCell, WordProblemCell, parse
from ..yaml_files import read_yaml
from .job import SearchJob, plan_jobs

KEYS = {"dataset", "configs", "formats", "lengths", "dists", "groups", "models", "kappa", "ood",
        "lengthgen", "search"}
# 'budget:' holds budget and search flags (max_steps: 5000, lrs: [1e-3, 1e-4], ...).
TOP_KEYS = {"sweep", "budget"}
# An entry's on/off keys and their values where absent.
SWITCHES = {"kappa": False, "ood": False, "lengthgen": False, "search": True}
SWEEP_EXPECTED = ("a YAML mapping with a 'sweep:' list of entries (dataset:, configs: or "
                  "formats: and lengths:, models:) and an optional 'budget:' mapping")


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
    spec = read_yaml(path, SWEEP_EXPECTED)
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
                    WordProblemCell(entry["dataset"], fmt, _length(length), dist, group)
                    for fmt in entry["formats"] for length in entry["lengths"]
                    for dist in entry.get("dists", ["fixed"])
                    for group in entry.get("groups", [None])
                ]
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from e
        switch = {key: _switch(entry, key, where) for key in SWITCHES}
        if switch["kappa"]:
            check_kappa(cells, f"{where}: kappa: true")
        for job in plan_jobs(cells, list(entry["models"]), switch["kappa"], data_seed,
                             search=switch["search"]):
            jobs.setdefault(job)
        if switch["ood"]:
            ood_cells += [c for c in cells if c not in ood_cells]
        if switch["lengthgen"]:
            lengthgen_cells += [c for c in cells if c not in lengthgen_cells]
    return Sweep(list(jobs), tuple(ood_cells), tuple(lengthgen_cells))


def check_kappa(cells, flag: str = "--kappa") -> None:
    """ValueError, one line, for a cell too short for κ's schedule: its joint cell draws the
    lengths min_length..L uniformly, so a shorter L has no joint cell (its own error names
    the uniform law, which the user never wrote)."""
    for cell in cells:
        if cell.max_len < cell.min_length:
            raise ValueError(
                f"{flag} on {cell} needs L >= {cell.min_length}: kappa divides the N* of the "
                f"fixed lengths {cell.min_length}..L by the N* of the joint cell, those lengths "
                f"drawn uniformly; {cell} has L = {cell.max_len} (drop {flag}, or give a longer L)")


def _length(value) -> int:
    """A sweep entry's length L: a YAML integer. int() would take 5.7 as 5, true as 1 and a
    full-width digit as its ASCII one, each recorded under a name nobody wrote."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"lengths: expected integers such as 10, got {value!r}")
    return value


def _switch(entry: dict, key: str, where: str) -> bool:
    """An entry's on/off key: a YAML boolean. bool() would read the string "false" as true."""
    value = entry.get(key, SWITCHES[key])
    if not isinstance(value, bool):
        raise ValueError(f"{where}: {key} takes true or false, got {value!r}")
    return value
