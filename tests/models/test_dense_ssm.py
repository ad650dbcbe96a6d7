import pytest
import torch

from bench.dense_ssm_fast_vs_reference import bench_fast_vs_reference
from hf_induction.models.dense_ssm import DenseSSMConfig, DenseSSMForCausalLM
from hf_induction.models.dense_ssm.naive import naive_dense_ssm_logits

from .model_checks import assert_cache_continues, stacked_logits

VOCAB = 7


def make_model(seed: int = 0, dtype=torch.float32, **config) -> DenseSSMForCausalLM:
    torch.manual_seed(seed)
    config = {"vocab_size": VOCAB, "hidden_size": 8, **config}
    return DenseSSMForCausalLM(DenseSSMConfig(**config)).to(dtype)


def random_ids(batch_size: int, seq_len: int, seed: int = 1) -> torch.LongTensor:
    return torch.randint(
        0, VOCAB, (batch_size, seq_len), generator=torch.Generator().manual_seed(seed)
    )


VARIANTS = [
    pytest.param(rank, kernel, norm, id=f"rank{rank or 'full'}-{kernel}-norm_{norm}")
    for rank, kernel in (
        (None, "grouped"), (None, "all_tokens"), (None, "gather"), (3, "all_tokens")
    )
    for norm in ("none", "step", "readout")
]


@pytest.mark.parametrize(("rank", "kernel", "norm"), VARIANTS)
@pytest.mark.parametrize(("batch_size", "seq_len"), [(3, 5), (1, 1)], ids=lambda v: str(v))
def test_fast_path_matches_reference_outputs_and_gradients(rank, kernel, norm, batch_size, seq_len):
    model = make_model(
        dtype=torch.float64, transition_rank=rank, transition_kernel=kernel, state_norm=norm
    )
    input_ids = random_ids(batch_size, seq_len)
    # A loss that depends on every logit, with unequal weights, so every gradient is exercised.
    weights = torch.randn(batch_size, seq_len, VOCAB, dtype=torch.float64)

    fast = model(input_ids=input_ids).logits
    (fast * weights).sum().backward()
    fast_grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad(set_to_none=True)
    reference = naive_dense_ssm_logits(model, input_ids)
    (reference * weights).sum().backward()

    assert fast.shape == (batch_size, seq_len, VOCAB)
    torch.testing.assert_close(fast, reference, rtol=1e-10, atol=1e-12)
    for name, param in model.named_parameters():
        torch.testing.assert_close(fast_grads[name], param.grad, rtol=1e-9, atol=1e-11, msg=name)


@pytest.mark.parametrize("rank", [None, 3], ids=["rank_full", "rank3"])
def test_step_and_readout_normalisation_compute_the_same_logits(rank):
    # The equivalence is exact up to eps; a low-rank transition shrinks the raw state quickly.
    config = {"dtype": torch.float64, "transition_rank": rank, "state_norm_eps": 1e-200}
    step = make_model(state_norm="step", **config)
    readout = make_model(state_norm="readout", **config)
    readout.load_state_dict(step.state_dict())
    input_ids = random_ids(4, 9)
    torch.testing.assert_close(
        step(input_ids=input_ids).logits, readout(input_ids=input_ids).logits
    )


@pytest.mark.parametrize("seq_len", [40], ids=lambda v: f"2L{v}")
def test_orthogonal_init_keeps_the_state_norm_without_normalisation(seq_len):
    model = make_model(dtype=torch.float64, hidden_size=32, state_norm="none")
    layer = model.model.layer
    states, _ = layer(random_ids(4, seq_len))
    ratio = states.norm(dim=-1) / layer.initial_state.norm()
    # Exact in exact arithmetic; the matrices were drawn in float32.
    torch.testing.assert_close(ratio, torch.ones_like(ratio), rtol=1e-5, atol=1e-5)


def test_dense_ssm_cache_continues_a_sequence():
    assert_cache_continues(make_model(), random_ids(2, 7), split=4)


@pytest.mark.parametrize("kernel", ["grouped", "all_tokens", "gather"])
def test_vmap_over_stacked_copies_matches_separate_models(kernel):
    models = [make_model(seed=s, transition_kernel=kernel) for s in range(3)]
    input_ids = random_ids(4, 6)
    stacked = stacked_logits(models, input_ids)
    for i, model in enumerate(models):
        torch.testing.assert_close(stacked[i], model(input_ids=input_ids).logits)


def test_vmap_over_stacked_factorised_copies_matches_separate_models():
    models = [make_model(seed=s, transition_rank=3) for s in range(3)]
    input_ids = random_ids(4, 6)
    stacked = stacked_logits(models, input_ids)
    for i, model in enumerate(models):
        torch.testing.assert_close(stacked[i], model(input_ids=input_ids).logits)


def test_labels_give_the_shifted_causal_lm_loss():
    model = make_model()
    input_ids = random_ids(2, 6)
    out = model(input_ids=input_ids, labels=input_ids)
    expected = torch.nn.functional.cross_entropy(
        out.logits[:, :-1].reshape(-1, VOCAB), input_ids[:, 1:].reshape(-1)
    )
    torch.testing.assert_close(out.loss, expected)


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param({"num_hidden_layers": 2}, id="two_layers"),
        pytest.param({"state_norm": "layer"}, id="state_norm"),
        pytest.param({"transition_kernel": "loop"}, id="transition_kernel"),
        pytest.param({"transition_rank": 0}, id="rank0"),
        pytest.param({"tie_word_embeddings": True}, id="tied"),
    ],
)
def test_bad_config_raises_value_error(bad):
    with pytest.raises(ValueError):
        DenseSSMConfig(**bad)


def test_input_ids_are_required():
    with pytest.raises(ValueError, match="input_ids"):
        make_model()(inputs_embeds=torch.zeros(1, 2, 8))


def test_bench_reports_a_ratio_on_a_small_batch():
    result = bench_fast_vs_reference(
        batch_size=2, seq_len=3, hidden_size=8, vocab_size=VOCAB, repeats=1
    )
    assert result["ratio"] > 0
    assert result["max_abs_diff"] < 1e-5


def test_grid_stacks_on_the_cpu_only_below_d_128():
    # docs/benchmarks.md: 15 stacked runs win at d 16 and 64, break even at 128, lose at 256.
    assert make_model(hidden_size=64).stacked_grid_wins_on_cpu
    assert not make_model(hidden_size=128).stacked_grid_wins_on_cpu

