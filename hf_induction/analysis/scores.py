"""Attention-head scores: how much of each head's attention goes where a mechanism looks.

At every scored position t (``prompts``: the token at t occurred once before, at s):

    induction        t -> s + 1   the token that FOLLOWED the earlier occurrence
    anti_induction   t -> s - 1   the token that PRECEDED it
    previous_token   t -> t - 1
    duplicate_token  t -> s       the earlier occurrence itself: the edge the study patches
                                  for anti-induction (`patching`), whose value carries s - 1's
                                  token when a previous-token head wrote it there

Each score is the attention weight on that edge, averaged over every scored position of every
prompt (each position counts once, whatever its row's length), read from the model's own
attention weights (``output_attentions``) under transformers' eager attention.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from transformers import PreTrainedModel

from .prompts import HeadPrompts
from .running import Batch, NoAttention, as_list, batches, reading

SCORES = ("induction", "anti_induction", "previous_token", "duplicate_token")


def score_targets(batch: Batch) -> dict[str, torch.Tensor]:
    """The key position each score reads at each scored position: name -> [P]."""
    return {"induction": batch.s + 1, "anti_induction": batch.s - 1,
            "previous_token": batch.t - 1, "duplicate_token": batch.s}


def head_scores(model: PreTrainedModel, prompts: HeadPrompts | Sequence[HeadPrompts],
                batch_size: int = 64) -> dict[str, np.ndarray | int]:
    """``{score: [n_layers, n_heads] float64 for each of SCORES, "n_positions": int}``.

    ValueError for prompts without a scored position; `NoAttention` (a ValueError) for a
    model that returns no attention weights (a recurrent model).
    """
    prompts_list = as_list(prompts)
    n_positions = sum(p.n_positions for p in prompts_list)
    if n_positions == 0:
        raise ValueError("the prompts hold no scored position (no token with exactly one "
                         "earlier occurrence whose next token is supervised)")
    sums: dict[str, torch.Tensor] = {}
    with reading(model, "eager"):
        for batch in batches(prompts_list, batch_size, model.device):
            out = model(input_ids=batch.input_ids, output_attentions=True, use_cache=False)
            attentions = getattr(out, "attentions", None)
            if not attentions:
                raise NoAttention(f"{type(model).__name__} returns no attention weights "
                                 "(output_attentions): head scores need an attention model")
            # [B, T, L, H, S]: one row of every layer's and head's weights per (row, t).
            weights = torch.stack(attentions).permute(1, 3, 0, 2, 4)
            at_t = weights[batch.rows, batch.t].double()  # [P, L, H, S]
            for name, target in score_targets(batch).items():
                index = target.view(-1, 1, 1, 1).expand(*at_t.shape[:3], 1)
                total = at_t.gather(-1, index).squeeze(-1).sum(0)  # [L, H]
                sums[name] = sums[name] + total if name in sums else total
    result: dict[str, np.ndarray | int] = {
        name: (sums[name] / n_positions).cpu().numpy() for name in SCORES}
    result["n_positions"] = n_positions
    return result
