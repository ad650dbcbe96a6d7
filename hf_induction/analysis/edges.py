"""Edge-level edits of attention, through transformers' attention interface.

One attention function, registered under `EDGE_ATTENTION` with `transformers.AttentionInterface`
(the way every model built on that interface picks its kernel: GPT-2, Llama, ``gpt2_offset``),
computes eager attention and, as the active `EdgePlan` asks:

- records each layer's keys and values ``[B, H, T, d]`` (after RoPE, per query head);
- cuts the previous-token edges t -> t - 1 (every t >= 1, every layer and head) by setting
  their logits to -inf before the softmax, so the other edges share the weight (zeroing a
  key would leave the edge with logit 0 and weight);
- swaps, for one head of one layer and on named edges (row, t, j) only, the key at j (the
  edge's logit becomes q_t . k'_j, scaled) or the value at j (the output at t gains
  a_(t,j) (v'_j - v_j)): the activation a cut run kept.

Everything else is the eager computation of transformers' GPT-2 and Llama. The function
builds the causal mask itself: transformers makes no mask for an implementation it does not
know (``masking_utils``), and prompts are unpadded (``prompts``); a mask it does pass is added.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import torch
from torch import nn
from transformers import AttentionInterface, PreTrainedModel

from .running import reading

EDGE_ATTENTION = "hf_induction_edges"
KINDS = ("induction", "anti_induction")


@dataclass(frozen=True)
class Swap:
    """Replace head ``head`` of layer ``layer``'s key (kind "induction") or value (kind
    "anti_induction") on the edges (rows[p], t[p]) -> source[p] by ``replacement[p]``."""

    layer: int
    head: int
    kind: str
    rows: torch.Tensor  # [P]
    t: torch.Tensor  # [P]
    source: torch.Tensor  # [P] the key position of each edge
    replacement: torch.Tensor  # [P, d] the key or value the edge reads instead

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; allowed: {', '.join(KINDS)}")


@dataclass
class EdgePlan:
    """What the next forward does: cut previous-token edges, swap one head's edges, and
    record keys and values (layer -> (keys, values), filled in as the layers run)."""

    cut_previous: bool = False
    swap: Swap | None = None
    record: bool = False
    recorded: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(default_factory=dict)
    # Every layer the function ran for, recording or not: none means a model without
    # attention layers on the interface.
    layers_seen: set[int] = field(default_factory=set)


_PLAN: ContextVar[EdgePlan | None] = ContextVar("hf_induction_edge_plan", default=None)


def _per_query_head(states: torch.Tensor, module: nn.Module) -> torch.Tensor:
    """Keys or values of grouped-query attention repeated to one per query head (Llama's
    ``repeat_kv``); unchanged for GPT-2."""
    groups = getattr(module, "num_key_value_groups", 1)
    return states if groups == 1 else states.repeat_interleave(groups, dim=1)


def _mask(attention_mask: torch.Tensor | None, T: int, S: int, cut_previous: bool,
          device: torch.device) -> torch.Tensor:
    """The additive mask [.., T, S]: causal (queries are the last T of S positions), the
    previous-token edges cut if asked, and transformers' own mask if it passed one."""
    query_pos = torch.arange(S - T, S, device=device)[:, None]
    key_pos = torch.arange(S, device=device)[None, :]
    blocked = key_pos > query_pos
    if cut_previous:
        blocked = blocked | (key_pos == query_pos - 1)
    mask = torch.zeros(T, S, device=device).masked_fill(blocked, float("-inf"))
    if attention_mask is not None:
        extra = attention_mask[..., -S:]
        if extra.dtype == torch.bool:
            extra = torch.zeros_like(extra, dtype=mask.dtype).masked_fill(~extra, float("-inf"))
        mask = mask + extra
    return mask


def edge_attention_forward(module: nn.Module, query: torch.Tensor, key: torch.Tensor,
                           value: torch.Tensor, attention_mask: torch.Tensor | None,
                           scaling: float | None = None, dropout: float = 0.0, **kwargs):
    """The attention function of `EDGE_ATTENTION` (transformers' signature: query, key, value
    ``[B, H, T, d]``; returns the output ``[B, T, H, d]`` and the weights ``[B, H, T, S]``)."""
    plan = _PLAN.get() or EdgePlan()
    layer = module.layer_idx
    plan.layers_seen.add(layer)
    scaling = query.shape[-1] ** -0.5 if scaling is None else scaling
    key, value = _per_query_head(key, module), _per_query_head(value, module)
    if plan.record:
        plan.recorded[layer] = (key.detach(), value.detach())
    logits = torch.matmul(query, key.transpose(-1, -2)) * scaling
    swap = plan.swap if plan.swap is not None and plan.swap.layer == layer else None
    if swap is not None and swap.kind == "induction":
        q = query[swap.rows, swap.head, swap.t]  # [P, d]
        new = (q * swap.replacement.to(q.dtype)).sum(-1) * scaling
        logits = logits.index_put((swap.rows, torch.full_like(swap.rows, swap.head), swap.t,
                                   swap.source), new)
    T, S = query.shape[-2], key.shape[-2]
    logits = logits + _mask(attention_mask, T, S, plan.cut_previous, query.device)
    weights = nn.functional.softmax(logits, dim=-1, dtype=torch.float32).to(query.dtype)
    weights = nn.functional.dropout(weights, p=dropout, training=module.training)
    out = torch.matmul(weights, value)  # [B, H, T, d]
    if swap is not None and swap.kind == "anti_induction":
        head = torch.full_like(swap.rows, swap.head)
        a = weights[swap.rows, head, swap.t, swap.source][:, None]  # [P, 1]
        v = value[swap.rows, head, swap.source]  # [P, d]
        out = out.index_put((swap.rows, head, swap.t),
                            a * (swap.replacement.to(v.dtype) - v), accumulate=True)
    return out.transpose(1, 2).contiguous(), weights


AttentionInterface.register(EDGE_ATTENTION, edge_attention_forward)


@contextmanager
def edge_run(model: PreTrainedModel) -> Iterator[None]:
    """The model under `EDGE_ATTENTION` (and `running.reading`) while the block runs; each
    forward in it follows the plan `planned` sets."""
    with reading(model, EDGE_ATTENTION):
        yield


@contextmanager
def planned(plan: EdgePlan) -> Iterator[EdgePlan]:
    """Make ``plan`` the one forwards follow inside an `edge_run`."""
    token = _PLAN.set(plan)
    try:
        yield plan
    finally:
        _PLAN.reset(token)
