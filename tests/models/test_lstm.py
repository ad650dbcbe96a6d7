import pytest
import torch

from hf_induction.models.lstm import LSTMConfig, LSTMForCausalLM, lstm_reference

from .model_checks import assert_cache_continues, stacked_logits

VOCAB = 7


def make_model(seed: int = 0, **config) -> LSTMForCausalLM:
    torch.manual_seed(seed)
    return LSTMForCausalLM(LSTMConfig(**{"vocab_size": VOCAB, "hidden_size": 8, **config}))


def random_ids(batch_size: int, seq_len: int, seed: int = 1) -> torch.LongTensor:
    return torch.randint(
        0, VOCAB, (batch_size, seq_len), generator=torch.Generator().manual_seed(seed)
    )


@pytest.mark.parametrize("num_layers", [1, 2], ids=lambda n: f"L{n}")
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
def test_lstm_reference_matches_nn_lstm_outputs_and_gradients(num_layers, with_state):
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(5, 6, num_layers=num_layers, batch_first=True).double()
    inputs = torch.randn(3, 4, 5, dtype=torch.float64)
    state = None
    if with_state:
        state = (
            torch.randn(num_layers, 3, 6, dtype=torch.float64),
            torch.randn(num_layers, 3, 6, dtype=torch.float64),
        )

    expected, (h_expected, c_expected) = lstm(inputs, state)
    (expected.sum() + h_expected.sum() + 2 * c_expected.sum()).backward()
    expected_grads = {n: p.grad.clone() for n, p in lstm.named_parameters()}
    lstm.zero_grad(set_to_none=True)
    outputs, (h_n, c_n) = lstm_reference(inputs, dict(lstm.named_parameters()), num_layers, state)
    (outputs.sum() + h_n.sum() + 2 * c_n.sum()).backward()

    torch.testing.assert_close(outputs, expected)
    torch.testing.assert_close(h_n, h_expected)
    torch.testing.assert_close(c_n, c_expected)
    for name, param in lstm.named_parameters():
        torch.testing.assert_close(param.grad, expected_grads[name], msg=name)


def test_reference_implementation_gives_the_fused_logits():
    fused = make_model()
    reference = make_model(lstm_implementation="reference")
    reference.load_state_dict(fused.state_dict())
    input_ids = random_ids(2, 5)
    torch.testing.assert_close(
        reference(input_ids=input_ids).logits, fused(input_ids=input_ids).logits
    )


@pytest.mark.parametrize("implementation", ["fused", "reference"])
def test_lstm_cache_continues_a_sequence(implementation):
    assert_cache_continues(
        make_model(lstm_implementation=implementation), random_ids(2, 7), split=3
    )


def test_vmap_over_stacked_reference_copies_matches_separate_models():
    models = [make_model(seed=s, lstm_implementation="reference") for s in range(3)]
    input_ids = random_ids(4, 5)
    stacked = stacked_logits(models, input_ids)
    for i, model in enumerate(models):
        torch.testing.assert_close(stacked[i], model(input_ids=input_ids).logits)


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param({"lstm_implementation": "cudnn"}, id="implementation"),
        pytest.param({"hidden_size": 0}, id="hidden0"),
        pytest.param({"tie_word_embeddings": True, "embedding_size": 4}, id="tied_mismatch"),
    ],
)
def test_bad_config_raises_value_error(bad):
    with pytest.raises(ValueError):
        LSTMConfig(**bad)


def test_embedding_size_defaults_to_hidden_size():
    assert LSTMConfig(hidden_size=12).embedding_size == 12
