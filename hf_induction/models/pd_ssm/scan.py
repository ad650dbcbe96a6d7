"""PD-SSM as an associative scan: the training fast path.

A column one-hot matrix times a diagonal, A = P D, is a pair (index, d): column j holds d[j]
at row index[j]. Applied to a vector, entry j moves to row index[j] scaled by d[j] (a scatter
add); and the product of two is again one (a gather):

    (P_2 D_2)(P_1 D_1) = (index_2[index_1], d_1 * d_2[index_1])

So each token is the affine map x -> A_t x + b_t, and composing maps, later after earlier,

    (A_e, b_e) then (A_l, b_l) = (A_l A_e, A_l b_e + b_l),

is associative: log2(T) rounds of Hillis-Steele's inclusive scan give every prefix, each round
a gather and a scatter over all tokens at once. The first token's map absorbs x_0, so each
prefix's offset is the state x_t itself. The combine is the reference's own (its JAX layer's
`binary_operator_efficient`).

The dense P of the straight-through estimator never appears: its value is one-hot, and its
gradient, dL/dP_t = g_t (D_t x_{t-1})^T with g_t the gradient at x_t, is routed to the column
softmax by adding to each input b_t the term (soft_t - soft_t.detach()) (D_t x_{t-1}), exactly
0 in value, with x_{t-1} from a first scan without gradients. Tests hold it to `naive.py` on
outputs, final states and gradients.
"""

import torch


def move(index: torch.Tensor, diagonal: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """(P D) x for P D given as (index, diagonal), all [..., N]: entry j of x scaled by
    diagonal[j] and added into row index[j]."""
    return torch.zeros_like(x).scatter_add(-1, index, diagonal * x)


def affine_scan(
    index: torch.Tensor,
    diagonal: torch.Tensor,
    inputs: torch.Tensor,
    initial_state: torch.Tensor,
) -> torch.Tensor:
    """States x_t = P_t D_t x_{t-1} + b_t [..., T, N] for transitions given as (index [..., T, N],
    diagonal [..., T, N]), inputs b_t [..., T, N] and x_0 [..., N]."""
    length = index.shape[-2]
    first = move(index[..., 0, :], diagonal[..., 0, :], initial_state) + inputs[..., 0, :]
    offsets = torch.cat([first[..., None, :], inputs[..., 1:, :]], dim=-2)
    offset = 1
    while offset < length:
        # Element t becomes (element t - offset) then (element t); the first `offset` hold.
        early = (index[..., :-offset, :], diagonal[..., :-offset, :], offsets[..., :-offset, :])
        late = (index[..., offset:, :], diagonal[..., offset:, :], offsets[..., offset:, :])
        combined = move(late[0], late[1], early[2]) + late[2]
        offsets = torch.cat([offsets[..., :offset, :], combined], dim=-2)
        if 2 * offset < length:
            index, diagonal = (
                torch.cat([index[..., :offset, :], late[0].gather(-1, early[0])], dim=-2),
                torch.cat([diagonal[..., :offset, :],
                           early[1] * late[1].gather(-1, early[0])], dim=-2),
            )
        offset *= 2
    return offsets


def scan_pd_ssm(
    scores: torch.Tensor,
    diagonal: torch.Tensor,
    inputs: torch.Tensor,
    initial_state: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """`naive_pd_ssm` as a scan: states [B, T, N] and the last one [B, N]; arguments as its."""
    index = scores.argmax(-2)  # [B, T, N]: the row of column j's 1
    with torch.no_grad():
        states = affine_scan(index, diagonal, inputs, initial_state)
    previous = torch.cat([initial_state[:, None], states[:, :-1]], dim=1).detach()
    moved = diagonal.detach() * previous  # D_t x_{t-1}
    soft = scores.softmax(-2)
    zero = soft - soft.detach()
    # Real products: the complex einsum would multiply by zero imaginary parts.
    straight_through = torch.complex(zero @ moved.real[..., None], zero @ moved.imag[..., None])
    states = affine_scan(index, diagonal, inputs + straight_through[..., 0], initial_state)
    return states, states[:, -1]
