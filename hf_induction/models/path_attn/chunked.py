"""PaTH attention chunk by chunk, the products of Householder matrices taken by the delta rule:
the training fast path.

The keys before a chunk are held as the columns of a state K [d, n], each carried to the chunk's
start. The delta rule with keys w, step sizes beta and zero values turns that state into
H_t ... H_1 K token by token and reads it with the queries: the scores of the chunk's queries
against every earlier key, and the keys carried through the chunk. Within the chunk, with
P_{t,s} = H_t ... H_{s+1}, the products telescope,

    P_{t,j} = I - sum_{j < s <= t} P_{t,s} beta_s w_s w_s^T

so that, with D[t, s] = q_t^T P_{t,s} beta_s w_s (the delta rule's output for one-hot values)
and M[s, j] = w_s^T k_j for s > j (0 otherwise),

    q_t^T P_{t,j} k_j = q_t^T k_j - (D M)[t, j]

and the rule's state for those one-hot values, E (column s: P_{C,s} beta_s w_s), carries the
chunk's own keys to its end: P_{C,j} k_j = k_j - (E M)[:, j]. So one call of the rule per chunk
gives every score and the next state; the Python loop runs once per chunk. Tests hold this to
`naive.py` on outputs, keys and gradients, and to a transcription of fla's reference.
"""

import torch

from .delta_rule import chunk_delta_rule


def chunk_path_attn(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    w: torch.Tensor,
    beta: torch.Tensor,
    past_keys: torch.Tensor | None = None,
    past_values: torch.Tensor | None = None,
    chunk_size: int = 64,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """`naive_path_attn`, chunk by chunk: outputs [B, H, T, d_v], the keys carried to the last
    token [B, H, n + T, d] and the values [B, H, n + T, d_v].

    Args as `naive_path_attn`, and ``chunk_size``: queries per chunk.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    batch, heads, length, d = k.shape
    if past_keys is None:
        past_keys, past_values = k[:, :, :0], v[:, :, :0]
    keys = past_keys.transpose(-1, -2)  # [B, H, d, n]: the rule's state, one key a column
    values = past_values
    outputs = []
    for start in range(0, length, chunk_size):
        q_c, k_c, v_c, w_c = (x[:, :, start:start + chunk_size] for x in (q, k, v, w))
        beta_c = beta[:, :, start:start + chunk_size]
        size, n = k_c.shape[2], keys.shape[-1]
        # No value for the earlier keys (the rule only carries them), a one-hot one per token.
        eye = torch.eye(size, dtype=k.dtype, device=k.device)
        one_hot = torch.cat([k.new_zeros(size, n), eye], dim=-1).expand(batch, heads, -1, -1)
        state = torch.cat([keys, k.new_zeros(batch, heads, d, size)], dim=-1)
        # The rule reads with q / sqrt(d): attention's own scale.
        read, state = chunk_delta_rule(q_c, w_c, one_hot, beta_c, initial_state=state,
                                       chunk_size=size)
        before, D = read.split([n, size], dim=-1)
        M = (w_c @ k_c.transpose(-1, -2)).tril(-1)  # [B, H, C, C]
        within = (q_c @ k_c.transpose(-1, -2)) * d**-0.5 - D @ M
        causal = torch.ones(size, size, dtype=torch.bool, device=k.device).tril()
        within = within.masked_fill(~causal, float("-inf"))
        values = torch.cat([values, v_c], dim=2)
        weights = torch.softmax(torch.cat([before, within], dim=-1), dim=-1)
        outputs.append(weights @ values)
        carried, E = state.split([n, size], dim=-1)
        keys = torch.cat([carried, k_c.transpose(-1, -2) - E @ M], dim=-1)
    return torch.cat(outputs, dim=2), keys.transpose(-1, -2), values
