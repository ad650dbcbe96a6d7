"""The slow, obviously correct selective-SSM recurrence: one step per token, the state rotated
explicitly.

    h_t = a_t R(theta_t) h_{t-1} + B_t x_t^T,    y_t = h_t^T C_t

per head, with the state h [N, P], a_t a real scalar (in (0, 1], or in (-1, 1] for the negative
setting) and R(theta_t) a block-diagonal rotation that turns state rows 2i and 2i + 1 by the
angle theta_t[i] (the identity for the real settings). A pair of rows turned by an angle and
scaled by a_t is one complex state of eigenvalue a_t e^{i theta}: Mamba-3's complex SSM written
over the reals. The chunked kernel (`chunked.py`) is tested against this on outputs, final
states and gradients; the model also uses it for one-token steps (`generate()`).
"""

import torch


def rotate_pairs(v: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """``v`` [..., N] with entries 2i and 2i + 1 turned by ``angle`` [..., N / 2]."""
    pairs = v.unflatten(-1, (-1, 2))
    cos, sin = angle.cos(), angle.sin()
    first, second = pairs[..., 0], pairs[..., 1]
    return torch.stack([cos * first - sin * second, sin * first + cos * second], -1).flatten(-2)


def rotate_state(h: torch.Tensor, angle: torch.Tensor) -> torch.Tensor:
    """The state ``h`` [..., N, P] with rows 2i and 2i + 1 turned by ``angle`` [..., N / 2]."""
    return rotate_pairs(h.transpose(-1, -2), angle[..., None, :]).transpose(-1, -2)


def naive_ssm(
    x: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    log_a: torch.Tensor,
    sign: torch.Tensor | None = None,
    theta: torch.Tensor | None = None,
    initial_state: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Outputs [B, H, T, P] and the state after the last token [B, H, N, P].

    Args:
        x: [B, H, T, P], the inputs (the model scales them by the time step).
        B, C: [B, H, T, N], the write and read vectors.
        log_a: [B, H, T], log |a_t|.
        sign: [B, H, T] of +-1, the sign of a_t; None: positive.
        theta: [B, H, T, N / 2], the rotation angles; None: no rotation.
        initial_state: [B, H, N, P], or None for zeros.
    """
    batch, heads, length, P = x.shape
    h = (x.new_zeros(batch, heads, B.shape[-1], P) if initial_state is None
         else initial_state)
    a = log_a.exp() if sign is None else sign * log_a.exp()
    outputs = []
    for t in range(length):
        if theta is not None:
            h = rotate_state(h, theta[:, :, t])
        h = a[:, :, t, None, None] * h + B[:, :, t, :, None] * x[:, :, t, None, :]
        outputs.append(torch.einsum("bhn,bhnp->bhp", C[:, :, t], h))
    return torch.stack(outputs, dim=2), h
