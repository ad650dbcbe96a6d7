"""Mamba-3 in chunks: the training fast path.

The trapezoid's two writes fold into one. Unrolled, the state after token t holds token u's
writes with the decays and turns of tokens u + 1 .. t and the weight

    w_u = lam_u dt_u + (1 - lam_{u+1}) dt_{u+1}

(its own half, and the half the next token writes of it, whose factor a_{u+1} is that token's
decay), except that the newest token, u = t, carries only lam_t dt_t until the next token
comes. So Mamba-3 is the selective SSM's scalar-decay recurrence (`chunk_ssm`, Mamba-2's chunked
form on B and C rotated by the cumulative angle, copied from the selective SSM) on the write
vectors w_u B_u, with the diagonal's surplus taken back from the output,

    y_{t,r} = [chunk_ssm]_{t,r} - (1 - lam_{t+1}) dt_{t+1} sum_s <C_{t,r}, B_{t,s}> x_{t,s}

(a rotation keeps inner products, so the surplus is the unrotated one), and the write that the
token before the sequence is still owed added to the initial state, (1 - lam_1) dt_1 B_0 x_0^T.
After the last token the next one's half is zero, so the final state is h_T itself. With MIMO
(rank R > 1) each token is 2R steps of that recurrence: its R writes, the first of which
decays and turns the state, then its R reads, which see all of them. Tests hold it to
`naive.py` on outputs, final states and gradients.
"""

import torch
import torch.nn.functional as F

from .naive import rotate_pairs, rotate_state


# Copied from hf_induction.models.selective_ssm.chunked.segment_sums
def segment_sums(log_a: torch.Tensor) -> torch.Tensor:
    """[..., C] -> [..., C, C]: entry [t, s] the sum of log_a over (s, t] for s <= t, -inf
    above the diagonal (so that its exponential is the lower-triangular product matrix)."""
    C = log_a.shape[-1]
    by_row = log_a[..., :, None].expand(*log_a.shape, C)  # [..., t, s]: log a_t
    below = torch.ones(C, C, dtype=torch.bool, device=log_a.device).tril(-1)
    sums = by_row.masked_fill(~below, 0).cumsum(-2)  # rows s < r <= t, summed down to t
    return sums.masked_fill(below.t(), float("-inf"))


# Copied from hf_induction.models.selective_ssm.chunked.chunk_ssm
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


def chunk_mamba3(
    x: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    log_a: torch.Tensor,
    dt: torch.Tensor,
    lam: torch.Tensor,
    theta: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
    last_B: torch.Tensor | None = None,
    last_x: torch.Tensor | None = None,
    chunk_size: int = 64,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_mamba3`, chunk by chunk: outputs [B, H, T, R, P] and the last state.

    Args as `naive_mamba3`, and ``chunk_size``: steps of the scan per chunk, a token being one
    step, or 2R with MIMO (a shorter sequence is one chunk of its own length).
    """
    length, rank = x.shape[2], x.shape[3]
    # (1 - lam_{t+1}) dt_{t+1}: what the next token writes of token t; none after the last.
    owed_next = F.pad(((1 - lam) * dt)[..., 1:], (0, 1))  # [B, H, T]
    writes = B * (lam * dt + owed_next)[..., None, None]
    if last_B is not None:
        owed = ((1 - lam[..., 0]) * dt[..., 0])[..., None, None] * torch.einsum(
            "bhrn,bhrp->bhnp", last_B, last_x)
        initial_state = owed if initial_state is None else initial_state + owed
    if rank == 1:
        y, h = chunk_ssm(x[..., 0, :], writes[..., 0, :], C[..., 0, :], log_a, theta=theta,
                         initial_state=initial_state, chunk_size=chunk_size)
        y = y[..., None, :]
    else:
        steps = 2 * rank

        def writes_then_reads(written, read):
            # Two [B, H, T, R, ...] -> [B, H, T * 2R, ...]: a token's R writes, then its R reads.
            return torch.cat([written, read], 3).flatten(2, 3)

        def at_first_step(t):
            # [B, H, T, ...] -> [B, H, T * 2R, ...]: the token's value at its first step, else 0.
            return F.pad(t.unsqueeze(3), (0, 0) * (t.dim() - 3) + (0, steps - 1)).flatten(2, 3)

        y, h = chunk_ssm(writes_then_reads(x, torch.zeros_like(x)),
                         writes_then_reads(writes, torch.zeros_like(writes)),
                         writes_then_reads(torch.zeros_like(C), C), at_first_step(log_a),
                         theta=None if theta is None else at_first_step(theta),
                         initial_state=initial_state, chunk_size=chunk_size)
        y = y.unflatten(2, (length, steps))[:, :, :, rank:]
    surplus = torch.einsum("bhtrn,bhtsn,bhtsp->bhtrp", C, B, x)
    return y - owed_next[..., None, None] * surplus, h
