"""An independent float64 transcription of fla's PaTH attention maths, in its layout ([B, T, H, D]
tensors) and its notation, for the tests to hold our kernels to.

Transcribed from fla-org/flash-linear-attention at commit
bc3b101dcb713ddc5bd8924b66754eb68b5ccf89:

- `prefill`: ``fla/ops/path_attn/naive.py``, ``naive_path_attn`` (the chunked UT-transform form:
  T_mat, the carried queries and keys, H_mat, the inter-chunk loop that carries the query back
  one chunk at a time), and the key cache of ``fla/ops/path_attn/prepare_k_cache.py``,
  ``parallel_path_fwd_kernel_prepare_k_cache`` (each chunk's carried keys carried on through
  every later chunk);
- `decode_step`: ``fla/layers/path_attn.py``, ``PaTHAttention.forward``'s decoding branch
  (``rank_one_update`` of every cached key, the new key appended, one attention read).

The forget gate g is None at the layer's default (``use_forget_gate=False``), so its term
G_i - G_j is left out. Only the maths is taken; the loops are written for reading, not speed.
"""

import torch


def _chunks(x: torch.Tensor, size: int) -> torch.Tensor:
    """[B, H, N * size, ...] -> [B, H, N, size, ...]."""
    return x.unflatten(2, (-1, size))


def prefill(q, k, v, w, beta, scale: float, BT: int = 4):
    """fla's naive PaTH attention and its key cache: outputs [B, T, H, D] and every key carried
    to the last token [B, T, H, D]. q, k, v, w [B, T, H, D] (w unit rows), beta [B, T, H]."""
    q, k, v, w, beta = (x.double().transpose(1, 2) for x in (q, k, v, w, beta))
    b, h, l, d = q.shape
    pad = -l % BT
    q, k, w = (torch.nn.functional.pad(x, (0, 0, 0, pad)) for x in (q, k, w))
    beta = torch.nn.functional.pad(beta, (0, pad))
    seq_len = l + pad
    w_beta = w * beta[..., None]
    q, k, w, w_beta = (_chunks(x, BT) for x in (q, k, w, w_beta))
    strictly_lower = torch.ones(BT, BT, dtype=torch.bool).tril(-1)
    lower = torch.ones(BT, BT, dtype=torch.bool).tril()

    # T_mat: the inverse of I + strict_lower(w_beta w^T), by forward substitution row by row.
    A = -(w_beta @ w.transpose(-1, -2)) * strictly_lower
    T_mat = A.clone()
    for i in range(1, BT):
        T_mat[..., i, :i] = A[..., i, :i] + (A[..., i, :i, None] * T_mat[..., :i, :i]).sum(-2)
    T_mat = T_mat + torch.eye(BT, dtype=q.dtype)

    Twbk = T_mat @ ((w_beta @ k.transpose(-1, -2)) * strictly_lower)
    qw = (q @ w.transpose(-1, -2)) * lower
    Twb = T_mat @ w_beta
    A_local = (q @ k.transpose(-1, -2)) * lower - qw @ Twbk
    q_carried = q - qw @ Twb  # each query carried back to its chunk's start
    k_carried = k - Twbk.transpose(-1, -2) @ w  # each key carried to its chunk's end
    H_mat = w.transpose(-1, -2) @ Twb  # I - the chunk's whole product, acting on rows

    n = seq_len // BT
    A_full = torch.zeros(b, h, seq_len, seq_len, dtype=q.dtype)
    for i in range(n):
        q_i = q_carried[:, :, i]
        for j in range(i - 1, -1, -1):
            A_full[:, :, i * BT:(i + 1) * BT, j * BT:(j + 1) * BT] = (
                q_i @ k_carried[:, :, j].transpose(-1, -2))
            q_i = q_i - q_i @ H_mat[:, :, j]
        A_full[:, :, i * BT:(i + 1) * BT, i * BT:(i + 1) * BT] = A_local[:, :, i]
    causal = torch.ones(seq_len, seq_len, dtype=torch.bool).tril()
    A_full = A_full.masked_fill(~causal, float("-inf"))[:, :, :l, :l]
    o = (A_full * scale).softmax(-1) @ v

    # The cache: a chunk's carried keys, carried on through each later chunk m as
    # k <- k - (k Twb_m^T) w_m (the kernel's b_k - dot(dot(b_k, w2^T), w1)).
    cache = []
    for i in range(n):
        b_k = k_carried[:, :, i]
        for m in range(i + 1, n):
            b_k = b_k - (b_k @ Twb[:, :, m].transpose(-1, -2)) @ w[:, :, m]
        cache.append(b_k)
    cache = torch.cat(cache, dim=2)[:, :, :l]
    return o.transpose(1, 2), cache.transpose(1, 2)


def decode_step(past_k, past_v, q, k, v, w, beta, scale: float):
    """One token of fla's decoding: every cached key rank-one updated by the new token's
    transform, the new key and value appended, then softmax attention. past_k, past_v
    [B, n, H, D]; q, k, v, w [B, 1, H, D]; beta [B, 1, H]. Returns the output [B, 1, H, D]
    and the new cache."""
    past_k, past_v, q, k, v, w, beta = (x.double() for x in (past_k, past_v, q, k, v, w, beta))
    past_k = past_k - beta[..., None] * (past_k * w).sum(-1, keepdim=True) * w
    k, v = torch.cat([past_k, k], dim=1), torch.cat([past_v, v], dim=1)
    scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * scale
    o = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v)
    return o, k, v
