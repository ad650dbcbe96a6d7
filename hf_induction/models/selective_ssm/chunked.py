"""The selective SSM in chunks: the training fast path.

Rotations first (Mamba-3's "RoPE trick"). Block-diagonal rotations commute, so with the
cumulative angle Phi_t = theta_1 + ... + theta_t and g_t = R(-Phi_t) h_t the recurrence
h_t = a_t R(theta_t) h_{t-1} + B_t x_t^T becomes

    g_t = a_t g_{t-1} + (R(-Phi_t) B_t) x_t^T,    y_t = g_t^T (R(-Phi_t) C_t)

a real scalar-decay recurrence on rotated write and read vectors, starting from g_0 = h_0 and
ending at h_T = R(Phi_T) g_T. Then Mamba-2's chunked form of that recurrence: inside a chunk,
with D[t, s] = a_{s+1} ... a_t for s <= t (0 above the diagonal),

    y_t = sum_{s<=t} D[t, s] <C_t, B_s> x_s + (a_1 ... a_t) C_t^T g_0
    g_C = (a_1 ... a_C) g_0 + sum_s D[C, s] B_s x_s^T

The products are taken as sign products (exact, +-1) times exponentials of sums of log |a| over
the segment itself (never a difference of two long cumulative sums), so a chunk of strong
decays loses no precision. Everything but g_0 is computed for all chunks at once; the Python
loop runs once per chunk. Tests hold it to `naive.py` on outputs, final states and gradients.
"""

import torch
import torch.nn.functional as F

from .naive import rotate_pairs, rotate_state


def segment_sums(log_a: torch.Tensor) -> torch.Tensor:
    """[..., C] -> [..., C, C]: entry [t, s] the sum of log_a over (s, t] for s <= t, -inf
    above the diagonal (so that its exponential is the lower-triangular product matrix)."""
    C = log_a.shape[-1]
    by_row = log_a[..., :, None].expand(*log_a.shape, C)  # [..., t, s]: log a_t
    below = torch.ones(C, C, dtype=torch.bool, device=log_a.device).tril(-1)
    sums = by_row.masked_fill(~below, 0).cumsum(-2)  # rows s < r <= t, summed down to t
    return sums.masked_fill(below.t(), float("-inf"))


def chunk_ssm(
    x: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    log_a: torch.Tensor,
    sign: torch.Tensor | None = None,
    theta: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
    chunk_size: int = 64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_ssm`, chunk by chunk: outputs [B, H, T, P] and the last state.

    Args as `naive_ssm`, and ``chunk_size``: tokens per chunk (a shorter sequence is one chunk
    of its own length).
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be positive, got {chunk_size}")
    batch, heads, length, P = x.shape
    N = B.shape[-1]
    if theta is not None:
        phi = theta.cumsum(2)
        B, C = rotate_pairs(B, -phi), rotate_pairs(C, -phi)
    size = min(chunk_size, length)
    pad = -length % size
    if pad:
        # Padded tokens keep the state (a = 1), write nothing and are read by no one.
        x, B, C = (F.pad(t, (0, 0, 0, pad)) for t in (x, B, C))
        log_a = F.pad(log_a, (0, pad))
        sign = None if sign is None else F.pad(sign, (0, pad), value=1.0)
    n = (length + pad) // size
    x = x.reshape(batch, heads, n, size, P)
    B, C = (t.reshape(batch, heads, n, size, N) for t in (B, C))
    log_a = log_a.reshape(batch, heads, n, size)
    products = segment_sums(log_a).exp()
    # From the chunk's start: a_1 ... a_t; to its end: a_{s+1} ... a_C (the last row of D).
    from_start = log_a.cumsum(-1).exp()
    if sign is not None:
        # A sign's inverse is itself: the product of signs over (s, t] is S_t S_s.
        signs = sign.reshape(batch, heads, n, size).cumprod(-1)
        products = products * (signs[..., :, None] * signs[..., None, :])
        from_start = from_start * signs
    intra = ((C @ B.transpose(-1, -2)) * products) @ x  # [B, H, n, C, P]
    to_end = products[..., -1, :]
    B_to_end = (B * to_end[..., None]).transpose(-1, -2)  # [B, H, n, N, C]
    C_from_start = C * from_start[..., None]

    h = x.new_zeros(batch, heads, N, P) if initial_state is None else initial_state
    outputs = []
    for i in range(n):
        outputs.append(intra[:, :, i] + C_from_start[:, :, i] @ h)
        h = from_start[:, :, i, -1, None, None] * h + B_to_end[:, :, i] @ x[:, :, i]
    y = torch.cat(outputs, dim=2)[:, :, :length]
    if theta is not None:
        h = rotate_state(h, phi[:, :, -1])
    return y, h
