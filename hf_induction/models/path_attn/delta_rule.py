"""The delta rule in chunks, as DeltaNet runs it (`hf_induction.models.deltanet.chunked`): PaTH
attention's transport. Run with zero values on a state whose columns are keys, the rule applies
each token's H_t = I - beta_t w_t w_t^T to every key and reads them with the queries, which is
what PaTH asks of the keys before a chunk. A marked copy, not an import: a saved checkpoint
carries its folder's code and nothing outside it.
"""

import torch
import torch.nn.functional as F


# Copied from hf_induction.models.deltanet.chunked.chunk_delta_rule
def chunk_delta_rule(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    g: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
    chunk_size: int = 64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_delta_rule`, chunk by chunk: outputs [B, H, T, d_v] and the last state.

    Args as `naive_delta_rule`, and ``chunk_size``: tokens per chunk (a sequence shorter than
    it is one chunk of its own length, so short task rows are never padded).
    """
    batch, heads, length, d_k = k.shape
    d_v = v.shape[-1]
    C = min(chunk_size, length)
    pad = -length % C
    if g is None:
        g = beta.new_zeros(beta.shape)
    if pad:
        # Padded tokens have b = 0 and g = 0: they write nothing and decay nothing.
        q, k, v = (F.pad(x, (0, 0, 0, pad)) for x in (q, k, v))
        beta, g = F.pad(beta, (0, pad)), F.pad(g, (0, pad))
    n = (length + pad) // C
    q = (q * d_k**-0.5).view(batch, heads, n, C, d_k)
    k = k.view(batch, heads, n, C, d_k)
    v = v.view(batch, heads, n, C, d_v)
    beta = beta.view(batch, heads, n, C, 1)
    G = g.view(batch, heads, n, C).cumsum(-1)  # [B, H, n, C]

    # exp(G_i - G_j) for j <= i, 0 above the diagonal (masked before exp: no overflow).
    lower = torch.ones(C, C, dtype=torch.bool, device=q.device).tril()
    decay = (G[..., :, None] - G[..., None, :]).masked_fill(~lower, float("-inf")).exp()
    k_beta = k * beta
    # Everything that does not depend on the state entering the chunk, for all chunks at once.
    strict = (k_beta @ k.transpose(-1, -2) * decay).tril(-1)
    eye = torch.eye(C, dtype=q.dtype, device=q.device)
    T = torch.linalg.solve_triangular(strict + eye, eye.expand_as(strict), upper=False,
                                      unitriangular=True)
    gate = G[..., None].exp()  # the decay from the chunk's start to each token
    u0 = T @ (v * beta)  # u when S = 0
    w = T @ (k_beta * gate)  # u = u0 - w S
    scores = q @ k.transpose(-1, -2) * decay  # lower triangle, diagonal included
    q_decayed = q * gate
    k_to_end = k * (G[..., -1:] - G).exp()[..., None]
    chunk_gate = G[..., -1].exp()[..., None, None]  # [B, H, n, 1, 1]

    S = q.new_zeros(batch, heads, d_k, d_v) if initial_state is None else initial_state
    outputs = []
    for i in range(n):
        u = u0[:, :, i] - w[:, :, i] @ S
        outputs.append(q_decayed[:, :, i] @ S + scores[:, :, i] @ u)
        S = chunk_gate[:, :, i] * S + k_to_end[:, :, i].transpose(-1, -2) @ u
    o = torch.cat(outputs, dim=2)[:, :, :length]
    return o, S
