"""DeltaNet's and DeltaProduct's own checks: the chunked kernel against the naive recurrence,
the product of Householder factors against its factor-by-factor reference, the eigenvalue
switch, and the recurrent state that `generate()` continues from."""

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.deltanet.chunked import chunk_delta_rule
from hf_induction.models.deltanet.naive import naive_delta_product, naive_delta_rule
from hf_induction.models.deltanet.product import delta_product

from .model_checks import assert_cache_continues, assert_generate_steps_with_a_constant_state

VARIANTS = ["deltanet", "deltanet_neg", "gated_deltanet", "gated_deltanet_neg"]
PRODUCTS = ["deltaproduct2", "deltaproduct2_neg", "deltaproduct3_neg", "gated_deltaproduct2_neg"]


def operands(gated: bool, neg: bool, length: int = 21, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    B, H, dk, dv = 2, 3, 6, 5

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    q, v = randn(B, H, length, dk), randn(B, H, length, dv)
    k = torch.nn.functional.normalize(randn(B, H, length, dk), dim=-1)
    beta = torch.rand(B, H, length, generator=gen, dtype=torch.float64) * (2 if neg else 1)
    g = -torch.rand(B, H, length, generator=gen, dtype=torch.float64) if gated else None
    state = randn(B, H, dk, dv)
    return q, k, v, beta, g, state


@pytest.mark.parametrize("gated", [False, True], ids=["delta", "gated"])
@pytest.mark.parametrize("neg", [False, True], ids=["eig01", "eig-11"])
@pytest.mark.parametrize("chunk_size, length", [(4, 21), (8, 16), (64, 21), (5, 1)])
def test_the_chunked_kernel_is_the_recurrence_on_outputs_states_and_gradients(
        gated, neg, chunk_size, length):
    inputs = [t.requires_grad_() if t is not None else None
              for t in operands(gated, neg, length)]
    q, k, v, beta, g, state = inputs
    weights = torch.randn(2, 3, length, 5, dtype=torch.float64)

    def run(kernel, **kw):
        o, last = kernel(q, k, v, beta, g, initial_state=state, **kw)
        loss = (o * weights).sum() + last.pow(2).sum()
        grads = torch.autograd.grad(loss, [t for t in inputs if t is not None])
        return o, last, grads

    o1, s1, g1 = run(naive_delta_rule)
    o2, s2, g2 = run(chunk_delta_rule, chunk_size=chunk_size)
    torch.testing.assert_close(o2, o1, rtol=0, atol=1e-12)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-12)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-11)


def test_the_naive_recurrence_is_the_rank_one_update_written_out():
    # One step from a known state, by the formula S' = a (I - b k k^T) S + b k v^T.
    q, k, v, beta, g, state = operands(gated=True, neg=True, length=1)
    o, new = naive_delta_rule(q, k, v, beta, g, initial_state=state)
    a, b = g[..., 0].exp()[..., None, None], beta[..., 0, None, None]
    kk = k[:, :, 0, :, None] @ k[:, :, 0, None, :]
    eye = torch.eye(k.shape[-1], dtype=k.dtype)
    expected = a * (eye - b * kk) @ state + b * k[:, :, 0, :, None] @ v[:, :, 0, None, :]
    torch.testing.assert_close(new, expected)
    torch.testing.assert_close(o[:, :, 0], (q[:, :, 0, None, :] @ expected)[:, :, 0]
                               * k.shape[-1] ** -0.5)


def test_a_step_size_of_two_reflects_the_memory_along_the_key():
    # b = 2 and v = 0: the transition I - 2 k k^T has eigenvalue -1 along k, so what the memory
    # returns for k flips sign; the rest of the memory is untouched. Only the _neg models can
    # take steps above 1.
    q, k, v, _, _, state = operands(gated=False, neg=True, length=1)
    _, new = naive_delta_rule(q, k, torch.zeros_like(v), torch.full((2, 3, 1), 2.0,
                                                                   dtype=torch.float64),
                              initial_state=state)
    key = k[:, :, 0, None, :]
    torch.testing.assert_close(key @ new, -(key @ state))


@pytest.mark.parametrize("name, top", [("deltanet", 1.0), ("deltanet_neg", 2.0)])
def test_the_eigenvalue_switch_sets_the_step_size_range(name, top, monkeypatch):
    from hf_induction.models.deltanet import modeling_deltanet

    steps = []

    def recording(q, k, v, beta, *args, **kwargs):
        steps.append(beta)
        return chunk_delta_rule(q, k, v, beta, *args, **kwargs)

    monkeypatch.setattr(modeling_deltanet, "chunk_delta_rule", recording)
    model = build_model(name, vocab_size=9, preset="tiny").eval()
    with torch.no_grad():
        # The first block's normalised input is then all ones, and its step-size logits 10 d.
        model.model.embeddings.weight.fill_(1.0)
        model.model.layers[0].mixer.b_proj.weight.fill_(10.0)
        model(input_ids=torch.tensor([[1, 2, 3, 4]]))
    beta = steps[0]
    # The transition's smallest eigenvalue is 1 - b: near 0 for DeltaNet, near -1 with _neg.
    assert ((top - 1e-3 < beta) & (beta <= top)).all()


@pytest.mark.parametrize("name", VARIANTS + PRODUCTS)
def test_the_chunked_model_computes_the_recurrent_models_logits(name):
    torch.manual_seed(0)
    chunked = build_model(name, vocab_size=9, preset="tiny", chunk_size=4).double().eval()
    recurrent = build_model(name, vocab_size=9, preset="tiny",
                            delta_rule_kernel="recurrent").double().eval()
    recurrent.load_state_dict(chunked.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(chunked(input_ids=ids).logits,
                                   recurrent(input_ids=ids).logits, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", ["deltanet_neg", "gated_deltanet", "gated_deltaproduct2_neg"])
@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(name, split):
    # Chunks of 4 so that the prompt, the continuation or both span several chunks; the
    # convolution window carries across the split.
    torch.manual_seed(0)
    model = build_model(name, vocab_size=9, preset="tiny", chunk_size=4).double()
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(model, ids, split)


def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state():
    assert_generate_steps_with_a_constant_state(
        build_model("gated_deltanet_neg", vocab_size=9, preset="tiny"))


def test_the_causal_convolution_is_a_grouped_conv1d_and_continues_from_its_window():
    from hf_induction.models.deltanet.modeling_deltanet import causal_conv

    gen = torch.Generator().manual_seed(3)
    x, weight = torch.randn(2, 9, 6, generator=gen), torch.randn(6, 1, 4, generator=gen)
    reference = torch.nn.functional.conv1d(
        torch.nn.functional.pad(x.transpose(1, 2), (3, 0)), weight, groups=6).transpose(1, 2)
    out, _ = causal_conv(x, weight, None)
    torch.testing.assert_close(out, reference)
    head, window = causal_conv(x[:, :5], weight, None)
    tail, _ = causal_conv(x[:, 5:], weight, window)
    torch.testing.assert_close(torch.cat([head, tail], dim=1), reference)


def product_operands(n_h: int, gated: bool, neg: bool, length: int = 9, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    B, H, dk, dv = 2, 3, 6, 5

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    q, v = randn(B, H, length, dk), randn(B, H, length, n_h, dv)
    k = torch.nn.functional.normalize(randn(B, H, length, n_h, dk), dim=-1)
    beta = torch.rand(B, H, length, n_h, generator=gen, dtype=torch.float64) * (2 if neg else 1)
    g = -torch.rand(B, H, length, generator=gen, dtype=torch.float64) if gated else None
    return q, k, v, beta, g, randn(B, H, dk, dv)


@pytest.mark.parametrize("n_h", [2, 3])
@pytest.mark.parametrize("gated", [False, True], ids=["delta", "gated"])
@pytest.mark.parametrize("rule, kwargs", [(naive_delta_rule, {}),
                                          (chunk_delta_rule, {"chunk_size": 4}),
                                          (chunk_delta_rule, {"chunk_size": 64})],
                         ids=["naive", "chunk4", "chunk64"])
def test_the_product_through_either_rule_is_the_factor_by_factor_reference(n_h, gated, rule,
                                                                           kwargs):
    inputs = [t.requires_grad_() if t is not None else None
              for t in product_operands(n_h, gated, neg=True)]
    q, k, v, beta, g, state = inputs
    weights = torch.randn(2, 3, 9, 5, dtype=torch.float64)

    def run(kernel, *args, **kw):
        o, last = kernel(*args, q, k, v, beta, g, initial_state=state, **kw)
        loss = (o * weights).sum() + last.pow(2).sum()
        return o, last, torch.autograd.grad(loss, [t for t in inputs if t is not None])

    o1, s1, g1 = run(naive_delta_product)
    o2, s2, g2 = run(delta_product, rule, **kwargs)
    torch.testing.assert_close(o2, o1, rtol=0, atol=1e-12)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-12)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-11)


@pytest.mark.parametrize("rule", [naive_delta_rule, chunk_delta_rule])
def test_one_householder_factor_is_the_delta_rule_bit_for_bit(rule):
    q, k, v, beta, g, state = product_operands(1, gated=True, neg=True)
    o, last = delta_product(rule, q, k, v, beta, g, initial_state=state)
    o_rule, last_rule = rule(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], g,
                             initial_state=state)
    assert torch.equal(o, o_rule) and torch.equal(last, last_rule)
    reference, last_reference = naive_delta_product(q, k, v, beta, g, initial_state=state)
    torch.testing.assert_close(reference, o_rule, rtol=0, atol=1e-12)
    torch.testing.assert_close(last_reference, last_rule, rtol=0, atol=1e-12)


def test_two_reflections_make_a_three_cycle_that_one_cannot():
    # The mechanism of DeltaProduct's claim: with b = 2 and v = 0 a factor is the reflection
    # I - 2 k k^T; k = (e_i - e_j)/sqrt 2 swaps coordinates i and j. Two of them compose S_3's
    # 3-cycle (an even permutation, determinant +1); one reflection has determinant -1 and
    # so is never a 3-cycle, whatever its key.
    e = torch.eye(3, dtype=torch.float64)
    keys = torch.stack([(e[0] - e[1]), (e[1] - e[2])]) / 2**0.5  # [n_h, d_k]
    memory = e[None, None]  # S = I: the state after the token is the transition itself
    _, after = naive_delta_product(torch.zeros(1, 1, 1, 3, dtype=torch.float64),
                                   keys[None, None, None], torch.zeros(1, 1, 1, 2, 3,
                                                                       dtype=torch.float64),
                                   torch.full((1, 1, 1, 2), 2.0, dtype=torch.float64),
                                   initial_state=memory)
    transition = after[0, 0]
    # Swap 0<->1, then 1<->2: row i holds e_{pi(i)} with pi = (0 -> 2 -> 1 -> 0) as permutations
    # of coordinates; it is a permutation matrix of a 3-cycle (no fixed point).
    permutation = transition.round()
    torch.testing.assert_close(transition, permutation, rtol=0, atol=1e-12)
    assert set(permutation.flatten().tolist()) == {0.0, 1.0}
    assert torch.equal(permutation.sum(0), torch.ones(3, dtype=torch.float64))
    assert torch.equal(permutation.sum(1), torch.ones(3, dtype=torch.float64))
    assert torch.trace(permutation) == 0  # no fixed point: a 3-cycle
    assert torch.equal(permutation @ permutation @ permutation, e)
    for key in torch.nn.functional.normalize(torch.randn(20, 3, dtype=torch.float64), dim=-1):
        one = e - 2 * key[:, None] @ key[None, :]
        assert torch.det(one).item() == pytest.approx(-1.0)


def test_deltaproduct_with_one_factor_is_deltanet():
    # The same weights in a DeltaProduct of n_h = 1 and in a DeltaNet give the same logits.
    from hf_induction.models.deltanet import DeltaProductConfig, DeltaProductForCausalLM

    torch.manual_seed(0)
    deltanet = build_model("gated_deltanet_neg", vocab_size=9, preset="tiny").double().eval()
    fields = {k: v for k, v in deltanet.config.to_dict().items()
              if k in DeltaProductConfig.__dataclass_fields__ and k != "model_type"}
    product = DeltaProductForCausalLM(DeltaProductConfig(**{**fields, "num_householder": 1}))
    product = product.double().eval()
    product.load_state_dict(deltanet.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        assert torch.equal(product(input_ids=ids).logits, deltanet(input_ids=ids).logits)


def test_each_factor_has_its_own_key_value_and_step_size():
    model = build_model("deltaproduct3_neg", vocab_size=9, preset="tiny")
    mixer, inner = model.model.layers[0].mixer, 32
    assert model.config.num_householder == 3
    assert mixer.qkv_proj.out_features == (1 + 2 * 3) * inner
    assert mixer.b_proj.out_features == 3 * model.config.num_heads
