"""The study's edge-level patching test of induction and anti-induction heads.

After lacoco-lab/always_a_transformer (``mechanistic/model.py``), for arXiv 2505.21785:

1. a clean run: the model's loss and exact match on the prompts (the baseline);
2. a cut run: every previous-token edge t -> t - 1 is removed from every layer's and head's
   softmax (`edges`), and each layer's keys and values are kept. The study's code zeroed the
   key and value each position t of the prompt's first part (up to the separator) reads at
   t - 1, which leaves the edge a logit of 0 and some weight; here the edge leaves the
   softmax (-inf), and for every t >= 1, source and target alike, so no task layout need be
   known. What the cut changes is what previous-token heads wrote into the residual stream,
   so the kept keys and values of LATER layers lack the token before each position;
3. per head (layer, head) and kind, a clean run in which only that head, only on the scored
   edges of the prompts (``prompts``: t's token occurred once before, at s), reads the cut
   run's activation instead of its own:

   - ``induction``: the KEY on the edge t -> s + 1, whose logit becomes q_t . k'_(s+1). An
     induction head finds s + 1 by K-composition: its key carries "my previous token is x",
     written by a previous-token head, so the swapped key no longer matches the query;
   - ``anti_induction``: the VALUE on the edge t -> s, the earlier occurrence itself (not
     s - 1): the study's anti-induction head attends to the duplicate token and copies what
     a previous-token head wrote there, the token at s - 1 (V-composition); its output at t
     gains a_(t,s) (v'_s - v_s), the weight unchanged.

   Everything else, including the head's other edges and every other head, runs clean.
   The study swaps on these edges in every layer and head at once; here one head at a time,
   so that the result names the heads.

A head the mechanism runs through shows it as a rise in loss and a fall in exact match.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn
from transformers import PreTrainedModel

from ..tasks.token_layout import IGNORE
from .edges import KINDS, EdgePlan, Swap, edge_run, planned
from .prompts import HeadPrompts
from .running import Batch, NoAttention, as_list, batches


@dataclass
class Tally:
    """Mean cross-entropy of the supervised tokens and the share of rows whose every
    supervised token is the argmax, over the batches added (causal-LM labels: the output at
    t is scored against ``labels[t + 1]``)."""

    ce_sum: float = 0.0
    tokens: int = 0
    rows_exact: int = 0
    rows: int = 0

    def add(self, logits: torch.Tensor, labels: torch.Tensor) -> None:
        logits, targets = logits[:, :-1].float(), labels[:, 1:]
        supervised = targets != IGNORE
        self.ce_sum += nn.functional.cross_entropy(
            logits.transpose(1, 2), targets, ignore_index=IGNORE, reduction="sum").item()
        self.tokens += int(supervised.sum())
        right = (logits.argmax(-1) == targets) | ~supervised
        scored = supervised.any(1)  # a row with nothing supervised has no exact match
        self.rows_exact += int((right.all(1) & scored).sum())
        self.rows += int(scored.sum())

    @property
    def ce(self) -> float:
        return self.ce_sum / self.tokens if self.tokens else float("nan")

    @property
    def exact_match(self) -> float:
        return self.rows_exact / self.rows if self.rows else float("nan")


def _logits(model: PreTrainedModel, batch: Batch, plan: EdgePlan) -> torch.Tensor:
    with planned(plan):
        logits = model(input_ids=batch.input_ids, use_cache=False).logits
    if not plan.layers_seen:
        raise NoAttention(f"{type(model).__name__} has no attention layer on transformers' "
                         "attention interface: edge patching needs an attention model")
    return logits


def _kept(model: PreTrainedModel, batch: Batch) -> dict[int, tuple[torch.Tensor, torch.Tensor]]:
    """The cut run's key at s + 1 and value at s of every layer and head at the batch's scored
    positions: layer -> (keys [P, H, d], values [P, H, d])."""
    plan = EdgePlan(cut_previous=True, record=True)
    _logits(model, batch, plan)
    return {layer: (k[batch.rows, :, batch.s + 1], v[batch.rows, :, batch.s])
            for layer, (k, v) in plan.recorded.items()}


def _swap(kept, batch: Batch, layer: int, head: int, kind: str) -> Swap:
    keys, values = kept[layer]
    if kind == "induction":
        return Swap(layer, head, kind, batch.rows, batch.t, batch.s + 1, keys[:, head])
    return Swap(layer, head, kind, batch.rows, batch.t, batch.s, values[:, head])


def patched_logits(model: PreTrainedModel, prompts: HeadPrompts, layer: int, head: int,
                   kind: str) -> torch.Tensor:
    """The logits ``[N, T, V]`` of one patched run (step 3 of the module docstring) on one
    prompt group, in one batch: to inspect a head, or to check the method."""
    batch = next(batches([prompts], max(len(prompts), 1), model.device))
    with edge_run(model):
        return _logits(model, batch, EdgePlan(swap=_swap(_kept(model, batch), batch, layer,
                                                          head, kind)))


def edge_patching(model: PreTrainedModel, prompts: HeadPrompts | Sequence[HeadPrompts],
                  kinds: Sequence[str] = KINDS, heads: Sequence[tuple[int, int]] | None = None,
                  batch_size: int = 64) -> list[dict]:
    """Patch every head (or ``heads``, (layer, head) pairs) for each kind in ``kinds``.

    Returns one row per (layer, head, kind), largest rise in loss first (a loss that is not a
    number last): ``layer``, ``head``,
    ``kind``, ``ce``, ``exact_match``, ``base_ce``, ``base_exact_match``, ``delta_ce``
    (patched minus clean), ``delta_exact_match`` and ``n_edges`` (edges swapped). ValueError
    for an unknown kind; `NoAttention` (a ValueError) for a model without attention layers on
    transformers' interface.
    """
    for kind in kinds:
        if kind not in KINDS:
            raise ValueError(f"unknown kind {kind!r}; allowed: {', '.join(KINDS)}")
    prompts_list = as_list(prompts)
    base, tallies = Tally(), {}
    with edge_run(model):
        for batch in batches(prompts_list, batch_size, model.device):
            base.add(_logits(model, batch, EdgePlan()), batch.labels)
            kept = _kept(model, batch)
            every = [(layer, h) for layer in sorted(kept) for h in range(kept[layer][0].shape[1])]
            for layer, head in every if heads is None else heads:
                for kind in kinds:
                    plan = EdgePlan(swap=_swap(kept, batch, layer, head, kind))
                    tally = tallies.setdefault((layer, head, kind), Tally())
                    tally.add(_logits(model, batch, plan), batch.labels)
    n_edges = sum(p.n_positions for p in prompts_list)
    rows = [{"layer": layer, "head": head, "kind": kind, "ce": t.ce,
             "exact_match": t.exact_match, "base_ce": base.ce,
             "base_exact_match": base.exact_match, "delta_ce": t.ce - base.ce,
             "delta_exact_match": t.exact_match - base.exact_match, "n_edges": n_edges}
            for (layer, head, kind), t in tallies.items()]
    return sorted(rows, key=_by_rise)


def _by_rise(row: dict) -> tuple[bool, float]:
    # The largest rise in loss first; a head whose loss is not a number (nothing scored) last.
    value = row["delta_ce"]
    return (not math.isfinite(value), -value if math.isfinite(value) else 0.0)
