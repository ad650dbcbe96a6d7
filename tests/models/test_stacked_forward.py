"""`stacked_forward` (R runs batched into bmm/baddbmm) against each run's own `forward`.

The LSTM's own forward is the fused `nn.LSTM`, so the stacked cell is held to it directly.
"""

import pytest
import torch
from torch.func import stack_module_state

from hf_induction.models import build_model

VOCAB = 9
CASES = [
    pytest.param("dense_ssm", {}, id="dense-grouped"),
    pytest.param("dense_ssm", {"transition_kernel": "all_tokens"}, id="dense-all_tokens"),
    pytest.param("dense_ssm", {"transition_kernel": "gather"}, id="dense-gather"),
    pytest.param("dense_ssm", {"transition_rank": 5}, id="dense-factorised"),
    pytest.param("dense_ssm", {"state_norm": "readout"}, id="dense-readout"),
    pytest.param("dense_ssm", {"state_norm": "none"}, id="dense-no-norm"),
    pytest.param(
        "dense_ssm", {"state_norm": "none", "transition_kernel": "all_tokens"},
        id="dense-all_tokens-no-norm",
    ),
    pytest.param("lstm", {}, id="lstm"),
    pytest.param("lstm", {"num_hidden_layers": 2, "embedding_size": 12}, id="lstm-L2-E12"),
    pytest.param("lstm", {"tie_word_embeddings": True}, id="lstm-tied"),
]


@pytest.mark.parametrize("name, overrides", CASES)
@pytest.mark.parametrize("runs, batch, length", [(3, 4, 7), (1, 2, 1)], ids=lambda v: str(v))
def test_stacked_forward_matches_each_run(name, overrides, runs, batch, length):
    models = []
    for seed in range(runs):
        torch.manual_seed(seed)
        models.append(build_model(name, VOCAB, "tiny", **overrides).to(torch.float64))
    g = torch.Generator().manual_seed(0)
    input_ids = torch.randint(0, VOCAB, (runs, batch, length), generator=g)
    targets = torch.randn(runs, batch, length, VOCAB, generator=g, dtype=torch.float64)

    params, _ = stack_module_state(models)
    stacked = models[0].stacked_forward(params, input_ids)  # [R, B, T, V]
    (stacked * targets).sum().backward()

    for r, model in enumerate(models):
        logits = model(input_ids=input_ids[r]).logits
        torch.testing.assert_close(stacked[r], logits, rtol=1e-10, atol=1e-10)
        (logits * targets[r]).sum().backward()
        for param_name, param in model.named_parameters():
            torch.testing.assert_close(
                params[param_name].grad[r], param.grad, rtol=1e-9, atol=1e-10, msg=param_name
            )


def test_stacked_lstm_recurrence_backward_passes_gradcheck():
    from hf_induction.models.lstm.modeling_lstm import StackedLSTMRecurrence

    g = torch.Generator().manual_seed(0)
    projected = torch.randn(2, 3, 4, 4 * 5, generator=g, dtype=torch.float64, requires_grad=True)
    w_hh_t = torch.randn(2, 5, 4 * 5, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(StackedLSTMRecurrence.apply, (projected, w_hh_t))
