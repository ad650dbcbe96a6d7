"""The slow, obviously correct PaTH attention: every product of Householder matrices formed
explicitly, one (query, key) pair at a time.

    s_ij = q_i^T H_i H_{i-1} ... H_{j+1} k_j / sqrt(d),    H_t = I - beta_t w_t w_t^T
    o_i = sum_{j <= i} softmax_j(s_i) v_j

A cache of earlier keys, each already carried through every earlier token's transform, is read
as keys that stand before the first token: query i reaches them through H_i ... H_1. The keys
handed back are every key carried to the last token, the cache `generate()` continues from. The
chunked kernel (`chunked.py`) is tested against this on outputs, keys and gradients.
"""

import torch


def naive_path_attn(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    w: torch.Tensor,
    beta: torch.Tensor,
    past_keys: torch.Tensor | None = None,
    past_values: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Outputs [B, H, T, d_v], and the keys [B, H, n + T, d] carried to the last token with the
    values [B, H, n + T, d_v] beside them (n cached before these T tokens).

    Args:
        q, k, w: [B, H, T, d], w of unit length; v: [B, H, T, d_v]; beta: [B, H, T].
        past_keys: [B, H, n, d], keys carried to the token before the first; past_values:
            [B, H, n, d_v]. None: nothing cached.
    """
    batch, heads, length, d = k.shape
    if past_keys is None:
        past_keys, past_values = k[:, :, :0], v[:, :, :0]
    eye = torch.eye(d, dtype=k.dtype, device=k.device)
    householder = eye - beta[..., None, None] * w[..., :, None] * w[..., None, :]  # [B,H,T,d,d]
    values = torch.cat([past_values, v], dim=2)
    outputs = []
    for i in range(length):
        # product = H_i ... H_{j+1}, grown one factor on the right as j steps back.
        product = eye.expand(batch, heads, d, d)
        scores = [None] * (i + 1)
        carried = [None] * (i + 1)
        for j in range(i, -1, -1):
            carried[j] = product @ k[:, :, j, :, None]
            scores[j] = (q[:, :, i, None, :] @ carried[j])[..., 0, 0]
            product = product @ householder[:, :, j]
        past = past_keys @ product.transpose(-1, -2)  # [B, H, n, d]: H_i ... H_1 each key
        scores = torch.cat([past @ q[:, :, i, :, None], torch.stack(scores, -1)[..., None]],
                           dim=2)[..., 0]
        weights = torch.softmax(scores * d**-0.5, dim=-1)
        outputs.append(weights[..., None, :] @ values[:, :, :past_keys.shape[2] + i + 1])
    keys = torch.cat([past, torch.cat(carried, dim=-1).transpose(-1, -2)], dim=2)
    return torch.cat(outputs, dim=2), keys, values
