"""A search job (one cell x one model) and the schedule the CLI asks for."""

from __future__ import annotations

from dataclasses import dataclass

from ..tasks import TaskCell


@dataclass(frozen=True)
class SearchJob:
    """One N* search: a task cell, a model and the seed of the cell's data. With ``search``
    False the job only runs the checks its campaign asks of its cell (OOD, length
    generalisation), without searching N*."""

    cell: TaskCell
    model: str
    data_seed: int = 0
    search: bool = True

    @property
    def label(self) -> str:
        return f"{self.model} {self.cell.dataset}/{self.cell}"


def plan_jobs(cells: list[TaskCell], models: list[str], kappa: bool,
              data_seed: int = 0, search: bool = True) -> list[SearchJob]:
    """The searches to run, in order; with ``kappa``, N*_n for n = 2..L and N*_joint.

    With ``kappa`` a config of any length law names the family: ``acot_L10`` and
    ``acot_L10_uniform`` both schedule ``acot_L2`` .. ``acot_L10`` and ``acot_L10_uniform``;
    ``acot_L10_s2l`` schedules the same and its own search.
    """
    jobs: dict[SearchJob, None] = {}  # ordered, and O(1) dedup for sweeps of thousands
    for cell in cells:
        family = [cell.with_length(n) for n in cell.joint().lengths] + [cell.joint(), cell] \
            if kappa else [cell]
        for model in models:
            for c in family:
                jobs.setdefault(SearchJob(c, model, data_seed, search))
    return list(jobs)


def kappa_groups(jobs: list[SearchJob]) -> dict[tuple[TaskCell, str], list[SearchJob]]:
    """The jobs of each κ: (joint cell, model) -> [fixed n = 2..L jobs]."""
    groups = {}
    known = set(jobs)
    for job in jobs:
        if job.cell.dist == "uniform":
            fixed = [SearchJob(job.cell.with_length(n), job.model, job.data_seed)
                     for n in job.cell.lengths]
            if all(f in known for f in fixed):
                groups[(job.cell, job.model)] = fixed
    return groups


def jobs_cells(jobs) -> list:
    """The cells of ``jobs``, once each, in order."""
    return list(dict.fromkeys(j.cell for j in jobs))
