"""The slow, obviously correct PD-SSM recurrence: one step per token, each transition a dense
N x N matrix.

    x_t = P_t (D_t * x_{t-1}) + b_t

with P_t column one-hot (column j's 1 at the row of its largest score) and D_t a complex
diagonal. The scan kernel (`scan.py`) is tested against this on outputs, final states and
gradients; the model also uses it for one-token steps (`generate()`).
"""

import torch


def column_one_hot(scores: torch.Tensor) -> torch.Tensor:
    """``scores`` [..., N, N] -> P [..., N, N]: in each column a 1 at the row of its largest
    score, 0 elsewhere, whose gradient is that of each column's softmax (the straight-through
    estimator: the forward pass is hard, the backward pass soft)."""
    soft = scores.softmax(-2)
    hard = torch.zeros_like(soft).scatter(-2, scores.argmax(-2, keepdim=True), 1.0)
    # soft - soft.detach() is exactly 0, so P is exactly one-hot.
    return hard + (soft - soft.detach())


def naive_pd_ssm(
    scores: torch.Tensor,
    diagonal: torch.Tensor,
    inputs: torch.Tensor,
    initial_state: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """States x_1 .. x_T [B, T, N] and the last one [B, N] (complex).

    Args:
        scores: [B, T, N, N] real, each token's mixed score matrix M (P's 1 in column j at
            the row of M's largest entry in that column).
        diagonal: [B, T, N] complex, D_t.
        inputs: [B, T, N] complex, b_t = B u_t.
        initial_state: [B, N] complex, x_0.
    """
    P = column_one_hot(scores).to(diagonal.dtype)
    x = initial_state
    states = []
    for t in range(scores.shape[1]):
        x = (P[:, t] @ (diagonal[:, t] * x)[..., None])[..., 0] + inputs[:, t]
        states.append(x)
    return torch.stack(states, dim=1), x
