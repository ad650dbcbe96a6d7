"""The slow, obviously-correct Dense-SSM: a plain loop that builds A(x_t) for every example.

The fast path in `modeling_dense_ssm.py` is tested against this on outputs and gradients.
"""

import torch


def naive_dense_ssm_states(
    input_ids: torch.LongTensor,
    initial_state: torch.Tensor,
    transition: torch.Tensor | None = None,
    transition_u: torch.Tensor | None = None,
    transition_v: torch.Tensor | None = None,
    transition_w: torch.Tensor | None = None,
    state_norm: str = "step",
    eps: float = 1e-8,
) -> torch.Tensor:
    """States h_1..h_T [B, T, d] as the read-out sees them.

    Pass either `transition` [V, d, d] (A(x)_ij = sum_k transition[k, i, j] x_k) or the factors
    `transition_u` [d, R], `transition_v` [V, R], `transition_w` [d, R] (A(x) = U diag(V^T x) W^T).
    """
    vocab_size = transition.shape[0] if transition is not None else transition_v.shape[0]
    batch_size, seq_len = input_ids.shape
    examples = []
    for b in range(batch_size):
        h = initial_state
        states = []
        for t in range(seq_len):
            x = torch.nn.functional.one_hot(input_ids[b, t], vocab_size).to(initial_state.dtype)
            if transition is not None:
                A = torch.einsum("kij,k->ij", transition, x)
            else:
                A = transition_u @ torch.diag(transition_v.T @ x) @ transition_w.T
            h = A @ h
            if state_norm == "step":
                h = h / torch.sqrt(h.pow(2).mean() + eps)
            states.append(h)
        examples.append(torch.stack(states))
    states = torch.stack(examples)
    if state_norm == "readout":
        states = states / torch.sqrt(states.pow(2).mean(-1, keepdim=True) + eps)
    return states


def naive_dense_ssm_logits(model, input_ids: torch.LongTensor) -> torch.Tensor:
    """Logits [B, T, V] of a `DenseSSMForCausalLM`, computed with the naive recurrence."""
    layer = model.model.layer
    factors = {}
    if layer.rank is None:
        factors["transition"] = layer.transition
    else:
        factors["transition_u"] = layer.transition_u
        factors["transition_v"] = layer.transition_v
        factors["transition_w"] = layer.transition_w
    states = naive_dense_ssm_states(
        input_ids,
        layer.initial_state,
        state_norm=model.config.state_norm,
        eps=model.config.state_norm_eps,
        **factors,
    )
    return states @ model.lm_head.weight.T + model.lm_head.bias
