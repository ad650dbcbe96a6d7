"""GPT-2 trained from random position offsets, so positions beyond the training lengths are
trained too. This file imports only torch, transformers and its configuration, so a saved
checkpoint carries it for `trust_remote_code=True`."""

import torch
from transformers import GPT2LMHeadModel

from .configuration_gpt2_offset import GPT2OffsetConfig


class GPT2OffsetLMHeadModel(GPT2LMHeadModel):
    """`GPT2LMHeadModel` whose training forwards start each row's positions at a random offset
    (`GPT2OffsetConfig.position_offset`); evaluation, generation and explicit `position_ids`
    are GPT-2's own."""

    config_class = GPT2OffsetConfig

    def forward(self, input_ids=None, position_ids=None, **kwargs):
        if (self.training and position_ids is None and input_ids is not None
                and self.config.position_offset == "random"
                and kwargs.get("past_key_values") is None):
            batch_size, seq_len = input_ids.shape
            room = max(self.config.n_positions - seq_len, 0)
            # From the global RNG, which the trainer seeds per run (like dropout's).
            offset = torch.randint(0, room + 1, (batch_size, 1), device=input_ids.device)
            position_ids = offset + torch.arange(seq_len, device=input_ids.device)
        return super().forward(input_ids=input_ids, position_ids=position_ids, **kwargs)


__all__ = ["GPT2OffsetLMHeadModel"]
