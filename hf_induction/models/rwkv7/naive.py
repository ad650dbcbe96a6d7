"""The slow, obviously correct RWKV-7 recurrence: one step per token, as the paper writes it.

    M_t = diag(w_t) M_{t-1} - (a_t * kk_t) (kk_t^T M_{t-1}) + k_t v_t^T,    o_t = M_t^T r_t

per head, with M [d_k, d_v] (the transpose of the paper's S [d_v, d_k]: keys index rows, as
in this package's delta rule). The scan (`scan.py`) is tested against this on outputs, final
states and gradients; the model also uses it for one-token steps (`generate()`).
"""

import torch


def naive_rwkv7(
    r: torch.Tensor,
    log_w: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    kk: torch.Tensor,
    a: torch.Tensor,
    initial_state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Outputs [B, H, T, d_v] and the memory after the last token [B, H, d_k, d_v].

    Args:
        r, log_w, k, kk, a: [B, H, T, d_k]: the receptance (query), the log of the decay w_t,
            the replacement key, the unit removal key and the in-context learning rate.
        v: [B, H, T, d_v].
        initial_state: [B, H, d_k, d_v], or None for zeros.
    """
    batch, heads, length, d_k = k.shape
    M = k.new_zeros(batch, heads, d_k, v.shape[-1]) if initial_state is None else initial_state
    outputs = []
    for t in range(length):
        kk_t = kk[:, :, t]
        # What the memory recalls for the removal key, taken out at the learning rate a_t.
        recalled = torch.einsum("bhk,bhkv->bhv", kk_t, M)
        M = (log_w[:, :, t, :, None].exp() * M
             - torch.einsum("bhk,bhv->bhkv", a[:, :, t] * kk_t, recalled)
             + torch.einsum("bhk,bhv->bhkv", k[:, :, t], v[:, :, t]))
        outputs.append(torch.einsum("bhk,bhkv->bhv", r[:, :, t], M))
    return torch.stack(outputs, dim=2), M
