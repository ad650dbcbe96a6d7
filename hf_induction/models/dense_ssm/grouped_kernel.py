"""The "grouped" Dense-SSM kernel: each state meets only its own token's matrix.

`all_tokens` multiplies every state by all V transition matrices and keeps one row (V times the
useful arithmetic); `gather` copies a [d, d] matrix per example and step. Here, at each step, the
states of the examples that read token k are packed into block k of a zero-padded tensor
[tokens present, most examples on one token, d], and one `bmm` applies every A(e_k) to its block.
That is never more arithmetic than `all_tokens` (at most V blocks of at most B rows) and about
2-3 times the useful B d^2 for balanced tokens.

The backward is written by hand (`GroupedRecurrence`): the forward records no autograd graph, and
the gradient of the transition matrices is one batched product over all steps.
This file imports only torch, so a checkpoint that carries the model's code carries it too.
"""

from dataclasses import dataclass

import torch
from torch.autograd.function import once_differentiable


@dataclass(frozen=True)
class GroupStep:
    tokens: torch.Tensor | None  # the tokens present at this step, or None when all are
    groups: int  # how many tokens are present
    slots: int  # the most examples that read one token at this step


def group_plan(
    input_ids: torch.LongTensor, num_tokens: int
) -> tuple[torch.LongTensor, list[GroupStep]]:
    """Where each example's state goes in each step's padded block.

    Returns ``rows`` [T, N]: example b's row at step t in the flattened [groups * slots, d] block,
    and one `GroupStep` per step. Two host syncs per call (the id range, the block sizes),
    none per step.
    """
    if input_ids.numel():
        low, high = torch.stack([input_ids.min(), input_ids.max()]).tolist()
        if low < 0 or high >= num_tokens:
            raise ValueError(
                f"token ids must lie in [0, {num_tokens}), got the range [{low}, {high}]"
            )
    batch_size, seq_len = input_ids.shape
    ids = input_ids.T.contiguous()  # [T, N]
    counts = torch.zeros(seq_len, num_tokens, dtype=torch.long, device=ids.device)
    counts.scatter_add_(1, ids, torch.ones_like(ids))
    present = counts > 0
    group_of_token = present.cumsum(1) - 1  # [T, V]: the token's block among those present
    slots = counts.max(1).values  # [T]
    # Examples sorted by token at each step: the i-th example on token k sits in slot
    # i - (examples on tokens below k).
    sorted_ids, order = torch.sort(ids, dim=1, stable=True)
    first = counts.cumsum(1) - counts
    slot = torch.arange(batch_size, device=ids.device) - first.gather(1, sorted_ids)
    row_sorted = group_of_token.gather(1, sorted_ids) * slots[:, None] + slot
    rows = torch.empty_like(row_sorted).scatter_(1, order, row_sorted)

    host = torch.cat([slots[:, None], present.long()], dim=1).cpu()  # one sync
    steps = []
    for t, slots_t in enumerate(host[:, 0].tolist()):
        tokens = host[t, 1:].nonzero().squeeze(1)
        groups = len(tokens)
        subset = None if groups == num_tokens else tokens.to(ids.device)
        steps.append(GroupStep(subset, groups, slots_t))
    return rows, steps


def _pack(values: torch.Tensor, rows: torch.LongTensor, step: GroupStep) -> torch.Tensor:
    """[N, d] -> the zero-padded blocks [groups, slots, d]."""
    d = values.shape[-1]
    packed = values.new_zeros(step.groups * step.slots, d).index_copy_(0, rows, values)
    return packed.view(step.groups, step.slots, d)


class GroupedRecurrence(torch.autograd.Function):
    """h_t = A(x_t) h_{t-1} (rescaled to unit RMS if asked) for t = 1..T, by token blocks.

    Inputs: ``initial`` [N, d], ``transition`` [K, d, d] (``transition[k]`` = A(e_k)), and the
    plan of `group_plan`. Output: the states [T, N, d] (time first, so each step writes one
    contiguous slice).
    """

    @staticmethod
    def forward(ctx, initial, transition, rows, steps, normalise, eps):
        num_examples, d = initial.shape
        transposed = transition.transpose(1, 2)  # rows times A^T = (A h)^T, per block
        states = initial.new_empty(len(steps), num_examples, d)
        scales = initial.new_empty(len(steps), num_examples, 1)
        packed_inputs = []
        h = initial
        for t, step in enumerate(steps):
            matrices = transposed if step.tokens is None else transposed[step.tokens]
            packed = _pack(h, rows[t], step)
            products = torch.bmm(packed, matrices).view(-1, d)
            h = torch.index_select(products, 0, rows[t], out=states[t])
            if normalise:
                torch.rsqrt(h.pow(2).mean(-1, keepdim=True).add_(eps), out=scales[t])
                h.mul_(scales[t])
            packed_inputs.append(packed)
        ctx.save_for_backward(transition, rows, states, scales, *packed_inputs)
        ctx.steps, ctx.normalise = steps, normalise
        return states

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_states):
        transition, rows, states, scales, *packed_inputs = ctx.saved_tensors
        grad_transition = torch.zeros_like(transition)
        # dL/dA_k sums (dL/du)^T p over every step's block k. Steps that use every token are
        # summed in one bmm at the end (concatenated along the slots), so the [K, d, d] gradient
        # is written once, not once per step: for a stacked grid K d^2 is far bigger than a cache.
        full_grads, full_inputs = [], []
        grad_h = None  # dL/dh_t from the steps after t
        for t in reversed(range(len(ctx.steps))):
            step = ctx.steps[t]
            grad = grad_states[t] if grad_h is None else grad_states[t] + grad_h
            if ctx.normalise:
                # h = u s with s = (mean(u^2) + eps)^-1/2, so dL/du = s (g - h mean(h g)).
                h = states[t]
                grad = scales[t] * (grad - h * (h * grad).mean(-1, keepdim=True))
            packed_grad = _pack(grad, rows[t], step)  # dL/du, by blocks
            # u = p A^T per block: dL/dA = (dL/du)^T p, dL/dp = (dL/du) A.
            if step.tokens is None:
                full_grads.append(packed_grad)
                full_inputs.append(packed_inputs[t])
                matrices = transition
            else:
                block = torch.bmm(packed_grad.transpose(1, 2), packed_inputs[t])
                grad_transition.index_add_(0, step.tokens, block)
                matrices = transition[step.tokens]
            grad_h = torch.bmm(packed_grad, matrices).view(-1, grad.shape[-1])[rows[t]]
        if full_grads:
            grad_transition.baddbmm_(
                torch.cat(full_grads, 1).transpose(1, 2), torch.cat(full_inputs, 1)
            )
        return grad_h, grad_transition, None, None, None, None


def grouped_dense_ssm_states(
    input_ids: torch.LongTensor,
    initial_state: torch.Tensor,
    transition: torch.Tensor,
    normalise: bool,
    eps: float,
) -> torch.Tensor:
    """States [N, T, d] of the recurrence over ``input_ids`` [N, T] (token k uses
    ``transition[k]``), from ``initial_state`` [N, d]; each state rescaled to unit RMS if
    ``normalise``."""
    rows, steps = group_plan(input_ids, transition.shape[0])
    states = GroupedRecurrence.apply(initial_state, transition, rows, steps, normalise, eps)
    return states.transpose(0, 1)


__all__ = ["GroupedRecurrence", "group_plan", "grouped_dense_ssm_states"]
