"""Random position offsets in training: each row's positions start at an offset drawn per
row, so that a model with learned absolute positions trains every position up to the longest
row it will be evaluated on (the second study's GPT-2 setup; its fine-tuning draws the offset
of a row of T tokens uniformly from 0..P - T, P the longest evaluation length). Evaluation
starts at 0, as the study's generation does."""

from __future__ import annotations

import torch
from torch import nn

from hf_induction.models.positions import absolute_positions
from hf_induction.training.tensors import TrainData

# Offsets come from a generator of their own per run, seeded apart from the batches', so a
# run draws the same batches with offsets as without.
OFFSET_SEED = 1 << 32


class PositionOffsets:
    """The position ids of one run's training batches.

    Args:
        positions: P, the positions to cover: those of the longest row evaluated, at most
            the model's table.
        seed: the run's seed.
    """

    def __init__(self, positions: int, seed: int) -> None:
        self.positions = positions
        self.generator = torch.Generator().manual_seed(OFFSET_SEED + seed)

    def draw(self, rows: int, width: int) -> torch.Tensor:
        """``[rows, width]`` position ids: row r is ``o_r, o_r + 1, ...`` with ``o_r`` uniform
        on 0..P - width (0 where the batch is as wide as P or wider)."""
        room = max(self.positions - width, 0)
        offsets = torch.randint(0, room + 1, (rows, 1), generator=self.generator)
        return offsets + torch.arange(width)


def position_offsets(model: nn.Module, data: TrainData, settings, seed: int
                     ) -> PositionOffsets | None:
    """The run's offsets where the settings ask for them and the model has absolute positions
    (`models.positions`); else None (positions start at 0, as the model's own forward sets)."""
    table = absolute_positions(model)
    if not settings.position_offsets or table is None:
        return None
    longest = data.positions if data.positions is not None else table
    return PositionOffsets(min(longest, table), seed)
