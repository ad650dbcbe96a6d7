"""RWKV-7's recurrence in chunks: the training fast path.

With M_0 the memory entering a chunk of C tokens, p_t = kk_t^T M_{t-1} what the removal key
recalls, b_t = a_t * kk_t, and the cumulative log decay L_t = log w_1 + ... + log w_t inside the
chunk (L_0 = 0), unrolling M_t = diag(w_t) M_{t-1} - b_t p_t + k_t v_t^T gives

    p_t = (kk_t e^{L_{t-1}})^T M_0 + sum_{s<t} <kk_t, k_s e^{L_{t-1} - L_s}> v_s
                                   - sum_{s<t} <kk_t, b_s e^{L_{t-1} - L_s}> p_s

a unit lower-triangular system for the C recalls P at once, then

    o_t = (r_t e^{L_t})^T M_0 + sum_{s<=t} <r_t, k_s e^{L_t - L_s}> v_s
                              - sum_{s<=t} <r_t, b_s e^{L_t - L_s}> p_s
    M_C = e^{L_C} M_0 + sum_s e^{L_C - L_s} (k_s v_s^T - b_s p_s)

Every decay is a ratio e^{L_t - L_s} with s <= t, at most 1, taken as e^{L_t} e^{-L_s} so that
the pairs become matrix products (the bound on the decay keeps e^{-L_s} finite, below).
Everything that does not depend on M_0 is computed for all chunks at once; the Python loop
runs once per chunk (the diagonal-plus-low-rank chunking of fla's `chunk_dplr`, derived here
for this package's layout). Tests hold it to `naive.py` on outputs, final states and gradients.
"""

import torch
import torch.nn.functional as F

from .configuration_rwkv7 import MAX_CHUNK


def chunk_rwkv7(
    r: torch.Tensor,
    log_w: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    kk: torch.Tensor,
    a: torch.Tensor,
    initial_state: torch.Tensor | None = None,
    chunk_size: int = 16,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_rwkv7`, chunk by chunk: outputs [B, H, T, d_v] and the last memory.

    Args as `naive_rwkv7` (with log w_t >= -e^-0.5, as the model makes it), and
    ``chunk_size``: tokens per chunk, at most `MAX_CHUNK` (a sequence shorter than it is one
    chunk of its own length).
    """
    if not 1 <= chunk_size <= MAX_CHUNK:
        raise ValueError(f"chunk_size must be in 1..{MAX_CHUNK}, got {chunk_size}")
    batch, heads, length, d_k = k.shape
    d_v = v.shape[-1]
    C = min(chunk_size, length)
    pad = -length % C
    b = a * kk
    if pad:
        # Padded tokens decay nothing (log w = 0), remove nothing and write nothing.
        r, log_w, k, v, kk, b = (F.pad(x, (0, 0, 0, pad)) for x in (r, log_w, k, v, kk, b))
    n = (length + pad) // C
    r, log_w, k, kk, b = (x.reshape(batch, heads, n, C, d_k) for x in (r, log_w, k, kk, b))
    v = v.reshape(batch, heads, n, C, d_v)
    L = log_w.cumsum(-2)  # [B, H, n, C, d_k], inclusive
    L_before = L - log_w  # L_{t-1}
    # exp(L_t - L_s) as exp(L_t) exp(-L_s): plain [C, d_k] @ [d_k, C] products. The model bounds
    # log w_t below by -e^-0.5, so exp(-L_s) <= exp(0.61 C): 1.6e4 at C = 16, 7e16 at the
    # longest chunk (`MAX_CHUNK`), and never a difference of large numbers. The lower triangles
    # are kept: s < t for the recalls, s <= t for the outputs.
    inverse = (-L).exp()
    kk_before, r_now = kk * L_before.exp(), r * L.exp()
    k_inv, b_inv = (k * inverse).transpose(-1, -2), (b * inverse).transpose(-1, -2)
    recall_k, recall_b = (kk_before @ k_inv).tril(-1), (kk_before @ b_inv).tril(-1)
    read_k, read_b = (r_now @ k_inv).tril(), (r_now @ b_inv).tril()
    eye = torch.eye(C, dtype=k.dtype, device=k.device)
    solve = torch.linalg.solve_triangular(recall_b + eye, eye.expand_as(recall_b), upper=False,
                                          unitriangular=True)
    # P = P0 + W M_0: the recalls when M_0 = 0, and how M_0 adds to them.
    P0 = solve @ (recall_k @ v)
    W = solve @ kk_before
    to_end = (L[..., -1:, :] - L).exp()
    k_to_end, b_to_end = k * to_end, b * to_end
    chunk_decay = L[..., -1, :].exp()[..., None]  # [B, H, n, d_k, 1]

    M = k.new_zeros(batch, heads, d_k, d_v) if initial_state is None else initial_state
    outputs = []
    for i in range(n):
        P = P0[:, :, i] + W[:, :, i] @ M
        outputs.append(r_now[:, :, i] @ M + read_k[:, :, i] @ v[:, :, i]
                       - read_b[:, :, i] @ P)
        M = (chunk_decay[:, :, i] * M + k_to_end[:, :, i].transpose(-1, -2) @ v[:, :, i]
             - b_to_end[:, :, i].transpose(-1, -2) @ P)
    return torch.cat(outputs, dim=2)[:, :, :length], M
