"""A pure-tensor LSTM with `nn.LSTM`'s parameter names and layout, for `torch.func.vmap`.

`nn.LSTM` has no vmap batching rule; this function computes the same thing from the same
parameters (`weight_ih_l{k}` [4H, E], `weight_hh_l{k}` [4H, H], `bias_ih_l{k}`, `bias_hh_l{k}`
[4H], gates stacked in the order i, f, g, o) with a loop over time steps only.
"""

from collections.abc import Mapping

import torch


def lstm_reference(
    inputs: torch.Tensor,
    weights: Mapping[str, torch.Tensor],
    num_layers: int = 1,
    state: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """Run a batch-first LSTM.

    Args:
        inputs: [B, T, E].
        weights: `nn.LSTM(...).state_dict()`-style tensors; biases may be absent.
        num_layers: number of stacked layers.
        state: optional (h_0, c_0), each [num_layers, B, H], as `nn.LSTM` takes them.

    Returns:
        outputs [B, T, H] of the top layer, and (h_n, c_n), each [num_layers, B, H].
    """
    batch_size, seq_len, _ = inputs.shape
    hidden_size = weights["weight_hh_l0"].shape[1]
    layer_input = inputs
    last_h, last_c = [], []
    for k in range(num_layers):
        w_ih, w_hh = weights[f"weight_ih_l{k}"], weights[f"weight_hh_l{k}"]
        bias = 0
        if f"bias_ih_l{k}" in weights:
            bias = weights[f"bias_ih_l{k}"] + weights[f"bias_hh_l{k}"]
        if state is None:
            h = layer_input.new_zeros(batch_size, hidden_size)
            c = layer_input.new_zeros(batch_size, hidden_size)
        else:
            h, c = state[0][k], state[1][k]
        # The input projection does not depend on the state: one matrix product for all steps.
        projected = layer_input @ w_ih.T + bias  # [B, T, 4H]
        outputs = []
        for t in range(seq_len):
            gates = projected[:, t] + h @ w_hh.T  # [B, 4H]
            i, f, g, o = gates.chunk(4, dim=-1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            outputs.append(h)
        layer_input = torch.stack(outputs, dim=1)  # [B, T, H]
        last_h.append(h)
        last_c.append(c)
    return layer_input, (torch.stack(last_h), torch.stack(last_c))
