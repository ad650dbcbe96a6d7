"""Which device each process of a launch trains on.

One process per device leaves a GPU mostly idle at this project's sizes: every model is
launch-bound (docs/benchmarks.md). A launch may therefore start more processes than there
are devices (``torchrun --nproc_per_node 8`` on one GPU): each process then trains on device
``local rank mod device count``, and the processes wait on a gloo group (NCCL refuses two
ranks on one device; the campaign needs only a barrier and the rendezvous store). Their
kernels overlap where the CUDA Multi-Process Service runs (``nvidia-cuda-mps-control -d``
before the launch), and time-slice where it does not.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class DeviceShare:
    """How a launch's processes on one machine share its CUDA devices."""

    processes: int  # on this machine (LOCAL_WORLD_SIZE)
    devices: int  # CUDA devices visible

    @property
    def shared(self) -> bool:
        """More processes than devices: some device trains for several."""
        return self.devices > 0 and self.processes > self.devices

    def device_of(self, local_rank: int) -> int:
        """The device index of the process of ``local_rank``."""
        if not 0 <= local_rank < self.processes:
            raise ValueError(f"local rank {local_rank} outside 0..{self.processes - 1}")
        return local_rank % self.devices

    def words(self) -> str:
        """The plan's line."""
        most = -(-self.processes // self.devices)
        return (f"devices: {self.processes} processes over {self.devices} CUDA "
                f"device{'s' * (self.devices != 1)}, up to {most} on each (local rank mod "
                f"{self.devices}); run the CUDA Multi-Process Service (nvidia-cuda-mps-control "
                "-d) so that their kernels overlap")


def device_share(device: str) -> DeviceShare | None:
    """The launch's share of this machine's devices when it trains on "cuda" (not a named
    "cuda:N", which every process then uses), None on the CPU or outside a launcher."""
    if device != "cuda":
        return None
    import torch

    processes = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    return DeviceShare(processes, count) if count else None


__all__ = ["DeviceShare", "device_share"]


def check_device(text: str) -> str:
    """The device, or ValueError saying why it cannot train here and what can.

    The spelling is checked without torch; only whether CUDA is present needs it."""
    match = re.fullmatch(r"(cpu|cuda)(?::([0-9]+))?", text)
    if match is None or (match[1] == "cpu" and match[2] is not None):
        raise ValueError(f"--device {text!r} is not a device this trainer runs on; allowed: "
                         "cpu, cuda, cuda:N")
    if match[1] == "cpu":
        return text
    import torch

    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        raise ValueError(f"--device {text}: no CUDA device here; use --device cpu")
    if match[2] is not None and int(match[2]) >= count:
        raise ValueError(f"--device {text}: this machine has cuda:0..cuda:{count - 1}")
    return text
