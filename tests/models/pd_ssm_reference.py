"""The public reference's PD-SSM maths, transcribed independently in float64, in its own layout
and notation (one sequence, time first; parameters named and shaped as its), for
`test_pd_ssm.py`.

Transcribed from IBM/expressive-sparse-state-space-model, commit
8682e78101be84f67ceb64702855e5d9e820f7d2:

- `time_series_JAX/models/PDSSM.py`, `PDSSMLayer.__call__`: the selection weights
  softmax(P_selector u), the mixed matrix einsum('kmn,k->mn', P_dict, s), its softmax over rows
  (axis 0: a column one-hot P), the diagonal |D| e^{i phi}, B u, and the read-out
  Re(C h) + D * x; `forward_pass`: P's index as the argmax over axis -2; and
  `binary_operator_efficient`, the scan's combine, folded left to right here (the prefixes
  `jax.lax.associative_scan` returns; its first state is zero).
- `state_tracking_PyTorch/models/pdssm.py`, `PD_Block.forward`: the magnitude and phase
  generators sigmoid(W_o gelu(W_i u + b_i) + b_o) (the paper's equations (4) and (5); the JAX
  layer keeps only its first map), and the first state, one-hot [1, 0, ..., 0].
"""

import math

import torch


def binary_operator_efficient(q_i, q_j):
    """The combine of (P, D, b) triples, P an index vector [N]: q_i, then q_j."""
    P_i, D_i, b_i = q_i
    P_j, D_j, b_j = q_j
    P_new = P_j[P_i]
    D_new = D_j[P_i] * D_i
    b_new = torch.zeros_like(b_i).index_add(0, P_j, D_j * b_i) + b_j
    return P_new, D_new, b_new


def indexing_scan(P, D, b):
    """Every prefix's b [T, N] of the triples (P [T, N], D [T, N], b [T, N])."""
    q = (P[0], D[0], b[0])
    out = [q[2]]
    for t in range(1, P.shape[0]):
        q = binary_operator_efficient(q, (P[t], D[t], b[t]))
        out.append(q[2])
    return torch.stack(out)


def pdssm_layer(x, P_dict, P_selector, W1_mag, b1_mag, W1_pha, b1_pha, B_re, B_im, C_re,
                C_im, D):
    """`PDSSMLayer.__call__` on one sequence x [T, H]: (hidden_states [T, N], y [T, H], the
    mixed matrices [T, N, N], the diagonals [T, N], B u [T, N])."""
    B = torch.complex(B_re, B_im)
    C = torch.complex(C_re, C_im)
    magnitudes = torch.stack([torch.sigmoid(W1_mag @ u + b1_mag) for u in x])
    phases = torch.stack([torch.sigmoid(W1_pha @ u + b1_pha) * 2 * math.pi for u in x])
    diagonal_matrices = magnitudes * torch.exp(1j * phases)
    selection_weights = torch.stack([torch.softmax(P_selector @ u, dim=-1) for u in x])
    permutation_matrices = torch.stack(
        [torch.einsum("kmn,k->mn", P_dict, s) for s in selection_weights])
    column_softmax = torch.softmax(permutation_matrices, dim=-2)
    Bu_elements = torch.stack([B @ u.to(B.dtype) for u in x])
    hidden_states = indexing_scan(column_softmax.argmax(dim=-2), diagonal_matrices, Bu_elements)
    y = torch.stack([(C @ h).real + D * u for h, u in zip(hidden_states, x, strict=True)])
    return hidden_states, y, permutation_matrices, diagonal_matrices, Bu_elements


def pd_block_diagonal(x, magnitude_layers, phase_layers):
    """`PD_Block`'s D for x [T, E]: its magnitude and phase generators, each ((W_i, b_i),
    (W_o, b_o)) in nn.Linear's layout ([out, in] weights)."""
    def generator(layers):
        (W_i, b_i), (W_o, b_o) = layers
        return torch.sigmoid(torch.nn.functional.gelu(x @ W_i.T + b_i) @ W_o.T + b_o)

    magnitudes = generator(magnitude_layers)
    phases = 2 * math.pi * generator(phase_layers)
    return torch.complex(magnitudes, torch.zeros_like(magnitudes)) * torch.exp(
        torch.complex(torch.zeros_like(phases), phases))


def initial_hidden_state(batch, N):
    """`PD_Block`'s x_0: [1, 0, ..., 0] per sequence, complex."""
    hidden_state = torch.zeros(batch, N, dtype=torch.float64)
    hidden_state[:, 0] = 1
    return torch.complex(hidden_state, torch.zeros_like(hidden_state))
