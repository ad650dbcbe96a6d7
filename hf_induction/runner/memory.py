"""The memory a campaign's sizes ask of this machine, counted before anything is drawn or
trained, so that a batch or a training set no machine here could hold is one line at the
command line, not an allocation traceback or the kernel's out-of-memory killer minutes later
(which, on a shared machine, may end someone else's process).

Each count is a floor, coarse by design: it refuses only what surely cannot fit, never a size
that would have run.

- A training step keeps, for the backward pass, at least ``SAVED_VALUES`` values per token,
  layer and hidden unit, and the logits (``LOGIT_VALUES`` per token and vocabulary entry):
  ``batch x tokens x (SAVED_VALUES x hidden x layers + LOGIT_VALUES x vocab) x bytes``,
  ``bytes`` 2 under bfloat16 and 4 otherwise, ``tokens`` the cell's longest training row. The
  registered models keep from about 3.3 (the Dense-SSM) through 19 to 27 (GPT-2's family, the
  LSTM) to 40 to 150 (the DeltaNets, Mamba, xLSTM, the hybrid) values per token, layer and
  hidden unit (tests/runner/test_memory.py holds every one of them above this floor). When
  the grid is stacked (``--grid-mode stacked``, or auto on an accelerator) every run of it is
  in one step: times the runs.
- A training set of N rows holds ``min(N, the cell's pool)`` rows of the longest training
  row's tokens at `limits.BYTES_PER_TOKEN` bytes a token, as the sampler draws them.

The memory they are held to: the accelerator's, or on the CPU the machine's RAM (or the
container's limit, if lower) shared by the launch's processes on this machine
(``LOCAL_WORLD_SIZE``). ``HF_INDUCTION_MEMORY_GIB`` sets it by hand.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..tasks import train_pool_size
from ..tasks.limits import BYTES_PER_TOKEN
from .job import jobs_cells

SAVED_VALUES = 3
LOGIT_VALUES = 1
MEMORY_ENV = "HF_INDUCTION_MEMORY_GIB"
_CGROUP_LIMITS = ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")


@dataclass(frozen=True)
class Memory:
    """What the sizes are held to: ``size`` bytes, and ``what`` they are, for the message."""

    size: int
    what: str


def gib(size: float) -> str:
    return f"{size / (1 << 30):,.1f} GiB"


def _ram() -> int:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in _CGROUP_LIMITS:
        try:
            limit = Path(path).read_text().strip()
        except OSError:
            continue
        if limit.isdigit():
            ram = min(ram, int(limit))
    return ram


def machine_memory(device: str) -> Memory:
    """The memory a process of this launch may count on, on ``device`` ("cpu", "cuda:1")."""
    override = os.environ.get(MEMORY_ENV)
    if override is not None:
        try:
            size = float(override)
        except ValueError:
            raise ValueError(f"{MEMORY_ENV}={override!r}: expected a number of GiB") from None
        if not size > 0:
            raise ValueError(f"{MEMORY_ENV}={override!r}: expected a number of GiB > 0")
        return Memory(int(size * (1 << 30)), f"{gib(size * (1 << 30))} ({MEMORY_ENV})")
    if device.startswith("cuda"):
        import torch

        index = int(device.partition(":")[2] or torch.cuda.current_device())
        size = torch.cuda.get_device_properties(index).total_memory
        return Memory(size, f"{device}'s {gib(size)} ({MEMORY_ENV} overrides)")
    processes = max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    size = _ram() // processes
    share = f", a share of {processes} processes" if processes > 1 else ""
    return Memory(size, f"{gib(size)} of RAM{share} ({MEMORY_ENV} overrides)")


@dataclass(frozen=True)
class Step:
    """What one training step's floor grows with, for one model on one cell."""

    tokens: int
    hidden: int
    layers: int
    vocab: int
    value_bytes: int
    runs: int

    @property
    def row_bytes(self) -> int:
        values = SAVED_VALUES * self.hidden * self.layers + LOGIT_VALUES * self.vocab
        return self.tokens * values * self.value_bytes * self.runs

    def why(self) -> str:
        stacked = f", x {self.runs} stacked runs" if self.runs > 1 else ""
        return (f"{self.tokens} tokens a row x ({SAVED_VALUES} x {self.hidden} hidden x "
                f"{self.layers} layers + {LOGIT_VALUES} x {self.vocab} logits) x "
                f"{self.value_bytes} bytes{stacked}")


def check_batch(batch: int, step: Step, memory: Memory, where: str) -> None:
    """ValueError, one line naming --batch-size, its bound and why, if ``batch`` rows' step
    floor exceeds ``memory``."""
    bound = memory.size // step.row_bytes
    if batch > bound:
        raise ValueError(
            f"--batch-size {batch} exceeds {bound} for {where}: a training step keeps at least "
            f"{gib(batch * step.row_bytes)} ({step.why()}), more than {memory.what}")


def check_train_rows(flag: str, rows: int, pool: int, tokens: int, memory: Memory,
                     where: str, what: str = "training rows") -> None:
    """ValueError, one line naming ``flag``, its bound and why, if a training set of ``rows``
    rows (at most the cell's ``pool``) of ``tokens`` tokens exceeds ``memory``. ``what`` names
    the rows in the message (the prompts `hf-induction heads` draws are held to it too)."""
    held = min(rows, pool)
    row_bytes = tokens * BYTES_PER_TOKEN
    bound = memory.size // row_bytes
    if held > bound:
        raise ValueError(
            f"{flag} {rows} exceeds {bound} for {where}: {held} {what} of {tokens} tokens "
            f"at {BYTES_PER_TOKEN} bytes a token as drawn take {gib(held * row_bytes)}, more "
            f"than {memory.what}")


def check_memory(jobs, models, settings, sizes) -> None:
    """ValueError, one line, if a training step (``--batch-size``, the grid) or a training set
    asks for more memory than this machine has, by the floors above.

    ``models`` resolves (model, cell) (`CampaignModels`); ``settings`` is {model:
    TrainSettings}; ``sizes`` lists (flag, rows, cells) for the training
    sets given on the command line (cells None: every job's). A size left to its default is not
    refused: the search reaches --n-max's default only where nothing smaller succeeds."""
    memory = machine_memory(next(iter(settings.values())).device)
    for model, train in settings.items():
        stacked = train.grid_mode == "stacked" or (train.grid_mode == "auto"
                                                   and train.device != "cpu")
        half = train.dtype == "bfloat16" or train.mixed_precision == "bf16"
        for cell in jobs_cells(j for j in jobs if j.model == model):
            config = models(model, cell).model.config
            tokens = cell.token_length(cell.max_len)
            where = f"{model} on {cell.dataset}/{cell}"
            step = Step(tokens=tokens, hidden=getattr(config, "hidden_size", 0) or 0,
                        layers=getattr(config, "num_hidden_layers", 0) or 0,
                        vocab=config.vocab_size, value_bytes=2 if half else 4,
                        runs=len(train.grid) if stacked else 1)
            check_batch(train.batch_size, step, memory, where)
            for flag, size, cells in sizes:
                if size and (cells is None or cell in cells):
                    check_train_rows(flag, size, train_pool_size(cell, train.validation), tokens,
                                     memory, where)
