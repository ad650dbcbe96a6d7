"""The slow, obviously correct Mamba-3 recurrence: one step per token, the state rotated
explicitly, the trapezoid's two writes made as written.

    h_t = R(theta_t) (a_t h_{t-1} + (1 - lam_t) dt_t a_t sum_r B_{t-1,r} x_{t-1,r}^T)
          + lam_t dt_t sum_r B_{t,r} x_{t,r}^T
    y_{t,r} = h_t^T C_{t,r}

per head, with the state h [N, P], a_t = exp(log_a_t) in (0, 1], lam_t in [0, 1], R(theta_t)
the block-diagonal rotation that turns state rows 2i, 2i + 1 by theta_t[i], and r over the
rank R of the inputs and outputs: R = 1 is the single-input single-output (SISO) layer, R > 1
Mamba-3's MIMO, R writes and R reads a token into one state. The trapezoidal rule integrates
the input over the step by both ends: at lam = 1 it is the Euler-like rule of Mamba-2
(h_t = a_t R_t h_{t-1} + dt_t B_t x_t^T), at lam = 1/2 the trapezoid. The previous token's
write is part of the transition, so it decays and turns with the state. The chunked form
(`chunked.py`) is tested against this on outputs, final states and gradients; the model also
uses it for one-token steps (`generate()`).
"""

import torch


# Copied from hf_induction.models.selective_ssm.naive.rotate_pairs
def rotate_pairs(v: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """``v`` [..., N] with entries 2i and 2i + 1 turned by ``angle`` [..., N / 2]."""
    pairs = v.unflatten(-1, (-1, 2))
    cos, sin = angle.cos(), angle.sin()
    first, second = pairs[..., 0], pairs[..., 1]
    return torch.stack([cos * first - sin * second, sin * first + cos * second], -1).flatten(-2)


# Copied from hf_induction.models.selective_ssm.naive.rotate_state
def rotate_state(h: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """The state ``h`` [..., N, P] with rows 2i and 2i + 1 turned by ``angle`` [..., N / 2]."""
    return rotate_pairs(h.transpose(-1, -2), angle[..., None, :]).transpose(-1, -2)


def naive_mamba3(
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
) -> tuple[torch.Tensor, torch.Tensor]:
    """Outputs [B, H, T, R, P] and the state after the last token [B, H, N, P].

    Args:
        x: [B, H, T, R, P], the inputs (not scaled by the time step).
        B, C: [B, H, T, R, N], the write and read vectors.
        log_a: [B, H, T], log a_t (A_t dt_t, at most 0).
        dt: [B, H, T], the time steps.
        lam: [B, H, T], the trapezoid's weight on the current token.
        theta: [B, H, T, N / 2], the rotation angles; None: no rotation.
        initial_state: [B, H, N, P], or None for zeros.
        last_B, last_x: [B, H, R, N] and [B, H, R, P], the write vectors and inputs of the token
            before the first (a cache's); None: zeros, as before a sequence's first token.
    """
    batch, heads, length, rank, P = x.shape
    N = B.shape[-1]
    h = x.new_zeros(batch, heads, N, P) if initial_state is None else initial_state
    written = (x.new_zeros(batch, heads, N, P) if last_B is None
               else torch.einsum("bhrn,bhrp->bhnp", last_B, last_x))
    a = log_a.exp()
    outputs = []
    for t in range(length):
        at, dtt, lt = (v[:, :, t, None, None] for v in (a, dt, lam))
        h = at * h + (1 - lt) * dtt * at * written
        if theta is not None:
            h = rotate_state(h, theta[:, :, t])
        written = torch.einsum("bhrn,bhrp->bhnp", B[:, :, t], x[:, :, t])
        h = h + lt * dtt * written
        outputs.append(torch.einsum("bhrn,bhnp->bhrp", C[:, :, t], h))
    return torch.stack(outputs, dim=2), h
