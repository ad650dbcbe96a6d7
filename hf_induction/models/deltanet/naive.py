"""The slow, obviously correct delta rule: one step per token, exactly as the papers write it.

    S_t = a_t (I - b_t k_t k_t^T) S_{t-1} + b_t k_t v_t^T,    o_t = S_t^T (s q_t)

with S [d_k, d_v] per head, a_t = exp(g_t) the gate (1 for DeltaNet), b_t the step size and
s = d_k^-1/2. The chunked fast path (`chunked.py`) is tested against this on outputs, final
states and gradients; the model also uses it for one-token steps (`generate()`), where it is
the fast path.
"""

import torch


def naive_delta_rule(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    g: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Outputs [B, H, T, d_v] and the state after the last token [B, H, d_k, d_v].

    Args:
        q, k: [B, H, T, d_k]; v: [B, H, T, d_v]; beta: [B, H, T], the step size b_t.
        g: [B, H, T], the log of the gate a_t (<= 0), or None for no gate.
        initial_state: [B, H, d_k, d_v], or None for zeros.
    """
    batch, heads, length, d_k = k.shape
    d_v = v.shape[-1]
    S = q.new_zeros(batch, heads, d_k, d_v) if initial_state is None else initial_state
    q = q * d_k**-0.5
    outputs = []
    for t in range(length):
        if g is not None:
            S = S * g[:, :, t, None, None].exp()
        k_t = k[:, :, t]
        # What the memory returns for k_t, and the correction that makes it return v_t.
        recalled = torch.einsum("bhk,bhkv->bhv", k_t, S)
        S = S + torch.einsum("bhk,bhv->bhkv", k_t * beta[:, :, t, None], v[:, :, t] - recalled)
        outputs.append(torch.einsum("bhk,bhkv->bhv", q[:, :, t], S))
    return torch.stack(outputs, dim=2), S


def naive_delta_product(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    g: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """DeltaProduct (Siems et al., arXiv 2502.10297), token by token and Householder factor by
    factor: each token applies the gate once, then n_h rank-one updates, then is read,

        S <- a_t S;   S <- (I - b_tj k_tj k_tj^T) S + b_tj k_tj v_tj^T  for j = 1..n_h;
        o_t = S^T (s q_t)

    so a token's transition is the product of n_h generalized Householder matrices.

    Args:
        q: [B, H, T, d_k]; k: [B, H, T, n_h, d_k]; v: [B, H, T, n_h, d_v]; beta: [B, H, T, n_h].
        g, initial_state: as `naive_delta_rule` (one gate per token).
    """
    batch, heads, length, n_h, d_k = k.shape
    eye = torch.eye(d_k, dtype=k.dtype, device=k.device)
    S = q.new_zeros(batch, heads, d_k, v.shape[-1]) if initial_state is None else initial_state
    outputs = []
    for t in range(length):
        if g is not None:
            S = S * g[:, :, t, None, None].exp()
        for j in range(n_h):
            key, b = k[:, :, t, j, :, None], beta[:, :, t, j, None, None]  # [B, H, d_k, 1]
            householder = eye - b * key @ key.transpose(-1, -2)
            S = householder @ S + b * key @ v[:, :, t, j, None, :]
        outputs.append(torch.einsum("bhk,bhkv->bhv", q[:, :, t] * d_k**-0.5, S))
    return torch.stack(outputs, dim=2), S
