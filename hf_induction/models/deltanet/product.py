"""DeltaProduct through any delta-rule kernel: a token's n_h Householder factors are n_h
consecutive steps of the plain delta rule, so the T tokens become T * n_h sub-steps.

The gate a_t acts on a token's first sub-step only (the others get log-gate 0), the query reads
after its last (the others get a zero query, whose output is dropped). So the chunked kernel
(`chunked.py`) and the one-step recurrence (`naive.py`) both serve DeltaProduct unchanged, as
fla's `gated_delta_product` does in its recurrent mode; tests hold both to the factor-by-factor
reference `naive_delta_product`. At n_h = 1 the rule gets the tokens as they are: DeltaNet's
result, bit for bit.
"""

from collections.abc import Callable

import torch


def delta_product(
    rule: Callable[..., tuple[torch.Tensor, torch.Tensor]],
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    g: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
    **kwargs,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_delta_product`'s outputs [B, H, T, d_v] and last state, computed by ``rule``
    (`naive_delta_rule` or `chunk_delta_rule`, with its ``kwargs``) over the sub-steps.

    Args as `naive_delta_product`: q [B, H, T, d_k]; k [B, H, T, n_h, d_k]; v
    [B, H, T, n_h, d_v]; beta [B, H, T, n_h]; g [B, H, T] or None.
    """
    batch, heads, length, n_h, d_k = k.shape
    if n_h == 1:
        # One factor: the sub-steps are the tokens. Taken as they are, with none of the copies
        # the interleaving below makes (DeltaNet's every step comes through here).
        return rule(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], g,
                    initial_state=initial_state, **kwargs)
    before = n_h - 1  # sub-steps before a token's last

    def substeps(x: torch.Tensor) -> torch.Tensor:
        return x.reshape(batch, heads, length * n_h, *x.shape[4:])

    # The query on each token's last sub-step, zeros before it.
    q = torch.cat([q.new_zeros(batch, heads, length, before, d_k), q[:, :, :, None]], dim=3)
    if g is not None:
        # The gate on each token's first sub-step, none (log 0) after it.
        g = torch.cat([g[..., None], g.new_zeros(batch, heads, length, before)], dim=3)
        g = substeps(g)
    o, state = rule(substeps(q), substeps(k), substeps(v), substeps(beta), g,
                    initial_state=initial_state, **kwargs)
    return o.view(batch, heads, length, n_h, -1)[:, :, :, -1], state
