"""Which process runs which job of a campaign.

Searches differ in cost by two orders of magnitude, so a fixed split leaves one process with
the tail while the others idle. Dynamic scheduling hands out the next unstarted job to
whichever process asks first, through a counter in torch.distributed's rendezvous store: the
TCPStore that torchrun and ``accelerate launch`` start for every launch, on one machine or
many, whose atomic ``add`` is the shared counter. Nothing else is started or written.

The static round robin is kept as the reference (``--schedule static``), and is what a single
process, or a process group without a store, gets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

SCHEDULES = ("dynamic", "static")

T = TypeVar("T")


class Store(Protocol):
    """The part of ``torch.distributed.Store`` the queue needs."""

    def add(self, key: str, amount: int) -> int: ...


def static_share(jobs: Sequence[T], rank: int, world: int) -> list[T]:
    """Round robin, not contiguous chunks: a sweep lists a model's searches together, and
    their costs differ by an order of magnitude between models."""
    return list(jobs[rank::world])


def store_queue(jobs: Sequence[T], store: Store, key: str) -> Iterator[T]:
    """Each job once, to whichever process asks first: ``add`` returns the counter after the
    increment, atomically, so two processes never draw the same index."""
    while True:
        index = store.add(key, 1) - 1
        if index >= len(jobs):
            return
        yield jobs[index]


def default_store():
    """The store of the default process group (the launcher's rendezvous store), or None
    where no process group is initialised."""
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        return None
    # The public API has no accessor for it; this one has existed since torch 1.x and is
    # what torch's own elastic and checkpoint code reads.
    from torch.distributed.distributed_c10d import _get_default_store

    return _get_default_store()


class QueueKeys:
    """A fresh counter name for every campaign a process group runs: all processes run the
    same campaigns in the same order, so the n-th call names the same counter everywhere."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, job_keys: Sequence[str]) -> str:
        self.calls += 1
        digest = hashlib.sha256("\n".join(job_keys).encode()).hexdigest()[:16]
        return f"hf_induction/queue/{digest}/{self.calls}"


queue_key = QueueKeys()


def my_jobs(jobs: Sequence[T], job_keys: Sequence[str], rank: int, world: int,
            schedule: str = "dynamic") -> Iterator[T]:
    """The jobs this process runs, in the order it should take them."""
    if schedule not in SCHEDULES:
        raise ValueError(f"unknown schedule {schedule!r}; allowed: {list(SCHEDULES)}")
    key = queue_key(job_keys)  # counted on every call, so that the names stay in step
    store = default_store() if schedule == "dynamic" and world > 1 else None
    if store is None:
        return iter(static_share(jobs, rank, world))
    return store_queue(jobs, store, key)


__all__ = ["SCHEDULES", "default_store", "my_jobs", "static_share", "store_queue"]
