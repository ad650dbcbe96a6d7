"""PD-SSM's own checks: the scan kernel against the dense recurrence, both against a
transcription of the reference's maths, one layer following the S_3 word problem and Z_5
counting exactly with planted weights, and the state `generate()` continues from."""

import itertools
import math

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.pd_ssm.configuration_pd_ssm import PDSSMConfig
from hf_induction.models.pd_ssm.modeling_pd_ssm import PDSSMModel
from hf_induction.models.pd_ssm.naive import column_one_hot, naive_pd_ssm
from hf_induction.models.pd_ssm.scan import scan_pd_ssm

from . import pd_ssm_reference as reference
from .model_checks import (
    assert_cache_continues,
    assert_generate_steps_with_a_constant_state,
    perturbed,
)

KERNELS = [pytest.param(naive_pd_ssm, id="recurrent"), pytest.param(scan_pd_ssm, id="scan")]


def operands(length: int, seed: int = 0, batch: int = 2, N: int = 5):
    """Scores, diagonals of magnitude in (0, 1), inputs and a first state, in float64."""
    gen = torch.Generator().manual_seed(seed)
    scores = torch.randn(batch, length, N, N, generator=gen, dtype=torch.float64)
    magnitude = torch.rand(batch, length, N, generator=gen, dtype=torch.float64)
    phase = 2 * math.pi * torch.rand(batch, length, N, generator=gen, dtype=torch.float64)
    inputs = torch.randn(batch, length, N, generator=gen, dtype=torch.complex128)
    state = torch.randn(batch, N, generator=gen, dtype=torch.complex128)
    return scores, torch.polar(magnitude, phase), inputs, state


@pytest.mark.parametrize("length", [1, 2, 7, 16, 33])
def test_the_scan_is_the_recurrence_on_outputs_states_and_gradients(length):
    leaves = [t.requires_grad_() for t in operands(length)]
    weights = torch.randn(2, length, 5, dtype=torch.complex128,
                          generator=torch.Generator().manual_seed(1))

    def run(kernel):
        states, last = kernel(*leaves)
        loss = (states * weights).real.sum() + last.abs().pow(2).sum()
        return states, last, torch.autograd.grad(loss, leaves)

    y1, s1, g1 = run(naive_pd_ssm)
    y2, s2, g2 = run(scan_pd_ssm)
    torch.testing.assert_close(y2, y1, rtol=0, atol=1e-12)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-12)
    assert g1[0].abs().max() > 1e-3  # the scores get the straight-through gradient
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-10)


def test_the_transition_is_column_one_hot_with_the_softmax_gradient():
    scores = torch.randn(3, 6, 6, dtype=torch.float64, requires_grad=True)
    P = column_one_hot(scores)
    assert set(P.detach().unique().tolist()) == {0.0, 1.0}
    assert (P.detach().sum(-2) == 1).all()  # each column one 1, rows may hold several
    assert (P.detach().argmax(-2) == scores.detach().argmax(-2)).all()
    upstream = torch.randn(3, 6, 6, dtype=torch.float64)
    (ours,) = torch.autograd.grad((P * upstream).sum(), scores)
    (soft,) = torch.autograd.grad((scores.softmax(-2) * upstream).sum(), scores)
    torch.testing.assert_close(ours, soft, rtol=0, atol=0)


def reference_parameters(H: int, N: int, K: int, seed: int = 0) -> dict:
    """The reference JAX layer's parameters, random, in its shapes."""
    gen = torch.Generator().manual_seed(seed)

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    return {"P_dict": randn(K, N, N), "P_selector": randn(K, H), "W1_mag": randn(N, H),
            "b1_mag": randn(N), "W1_pha": randn(N, H), "b1_pha": randn(N), "B_re": randn(N, H),
            "B_im": randn(N, H), "C_re": randn(H, N), "C_im": randn(H, N), "D": randn(H)}


@pytest.mark.parametrize("kernel", KERNELS)
def test_the_kernels_give_the_reference_layers_states_and_outputs(kernel):
    H, N, K, T = 6, 5, 4, 19
    params = reference_parameters(H, N, K)
    x = torch.randn(3, T, H, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    expected = [reference.pdssm_layer(sequence, **params) for sequence in x]
    states_ref, y_ref, scores, diagonal, inputs = (torch.stack(parts)
                                                   for parts in zip(*expected, strict=True))
    # The JAX scan starts from zero.
    states, last = kernel(scores, diagonal, inputs, torch.zeros(3, N, dtype=torch.complex128))
    torch.testing.assert_close(states, states_ref, rtol=0, atol=1e-12)
    torch.testing.assert_close(last, states_ref[:, -1], rtol=0, atol=1e-12)

    # Our layer with the reference's S, dictionary, B, C and D forms the same scores and
    # inputs, and reads the same outputs out of the states.
    config = PDSSMConfig(hidden_size=H, state_size=N, dictionary_size=K, num_hidden_layers=1)
    layer = PDSSMModel(config).double().layers[0].mixer
    with torch.no_grad():
        layer.S.weight.copy_(params["P_selector"])
        layer.A_dict.copy_(params["P_dict"])
        layer.B_re.copy_(params["B_re"])
        layer.B_im.copy_(params["B_im"])
        layer.readout.weight.copy_(torch.cat([params["C_re"], -params["C_im"]], dim=1))
        layer.readout.bias.zero_()
        layer.D.copy_(params["D"])
        ours_scores, ours_diagonal, ours_inputs = layer.operands(x)
        torch.testing.assert_close(ours_scores, scores, rtol=0, atol=1e-12)
        torch.testing.assert_close(ours_inputs, inputs, rtol=0, atol=1e-12)
        torch.testing.assert_close(layer.read(states, x), y_ref, rtol=0, atol=1e-12)
        # Its diagonal is the state-tracking layer's two-layer generators', and its first
        # state that layer's one-hot.
        layers = [[(m.weight, m.bias) for m in (g[0], g[2])]
                  for g in (layer.D_magnitude_generator, layer.D_phase_generator)]
        torch.testing.assert_close(ours_diagonal, reference.pd_block_diagonal(x, *layers),
                                   rtol=0, atol=1e-12)
        torch.testing.assert_close(layer.initial_state(3, ours_diagonal),
                                   reference.initial_hidden_state(3, N), rtol=0, atol=0)


def planted_layer(vocab: int, states: int, diagonal_expand: int = 2):
    """A one-layer model in float64 whose tokens are one-hot embeddings, with every map of its
    layer zero: the test plants what it needs."""
    config = PDSSMConfig(vocab_size=vocab, hidden_size=vocab, num_hidden_layers=1,
                         state_size=states, dictionary_size=vocab,
                         diagonal_expand=diagonal_expand)
    model = PDSSMModel(config).double().eval()
    with torch.no_grad():
        for param in model.parameters():
            param.zero_()
        model.embeddings.weight.copy_(torch.eye(vocab))
    return model, model.layers[0].mixer


def layer_states(model, layer, ids: torch.LongTensor, kernel):
    """Every state x_1 .. x_T of the planted layer, and the one its cache carries."""
    with torch.no_grad():
        scores, diagonal, inputs = layer.operands(model.embeddings(ids))
        states, _ = kernel(scores, diagonal, inputs, layer.initial_state(ids.shape[0], diagonal))
        cached = model(input_ids=ids, use_cache=True).cache.memories[0]
    return states, cached


@pytest.mark.parametrize("kernel", KERNELS)
def test_one_layer_follows_the_s3_word_problem_exactly(kernel):
    # The automaton of S_3 acting on itself: one state per element, token g taking state h to
    # g h, so that x_t is one-hot on g_t ... g_1. P(g) is that permutation of the states; D
    # is 1 (magnitude sigmoid(40) = 1 in float64, phase 2 pi sigmoid(-40) ~ 3e-17); B = 0.
    elements = list(itertools.permutations(range(3)))  # the identity first: x_0 = e_0
    position = {g: i for i, g in enumerate(elements)}

    def compose(g, h):  # (g h)(i) = g(h(i))
        return tuple(g[h[i]] for i in range(3))

    model, layer = planted_layer(vocab=6, states=6)
    with torch.no_grad():
        layer.S.weight.copy_(30 * torch.eye(6))  # token g selects score matrix g
        for k, g in enumerate(elements):
            for j, h in enumerate(elements):
                layer.A_dict[k, position[compose(g, h)], j] = 1.0
        layer.D_magnitude_generator[2].bias.fill_(40.0)
        layer.D_phase_generator[2].bias.fill_(-40.0)
    ids = torch.randint(0, 6, (4, 60), generator=torch.Generator().manual_seed(0))
    expected = torch.zeros(4, 60, 6, dtype=torch.complex128)
    for b in range(4):
        product = elements[0]
        for t, token in enumerate(ids[b].tolist()):
            product = compose(elements[token], product)
            expected[b, t, position[product]] = 1
    states, cached = layer_states(model, layer, ids, kernel)
    torch.testing.assert_close(states, expected, rtol=0, atol=1e-14)
    torch.testing.assert_close(cached, expected[:, -1], rtol=0, atol=1e-14)


@pytest.mark.parametrize("kernel", KERNELS)
def test_one_complex_state_counts_mod_5_exactly(kernel):
    # The reference's compact form of a modular counter: one state, token g turning it by
    # 2 pi g / 5 (phase 2 pi sigmoid(z_g), z_g = logit(g / 5); token 0 z = -40), magnitude 1.
    model, layer = planted_layer(vocab=5, states=1, diagonal_expand=5)
    hidden_one = torch.nn.functional.gelu(torch.tensor(1.0, dtype=torch.float64))
    logits = torch.tensor([-40.0] + [math.log(g / (5 - g)) for g in range(1, 5)],
                          dtype=torch.float64)
    with torch.no_grad():
        layer.D_magnitude_generator[2].bias.fill_(40.0)
        layer.D_phase_generator[0].weight.copy_(torch.eye(5))
        layer.D_phase_generator[2].weight.copy_(logits[None] / hidden_one)
    ids = torch.randint(0, 5, (4, 60), generator=torch.Generator().manual_seed(1))
    counts = (ids.cumsum(1) % 5).double()
    expected = torch.polar(torch.ones(4, 60, dtype=torch.float64), 2 * math.pi * counts / 5)
    states, cached = layer_states(model, layer, ids, kernel)
    torch.testing.assert_close(states[..., 0], expected, rtol=0, atol=1e-12)
    torch.testing.assert_close(cached[:, 0], expected[:, -1], rtol=0, atol=1e-12)


def test_the_scan_model_computes_the_recurrent_models_logits_and_gradients():
    scan = perturbed("pd_ssm")
    recurrent = perturbed("pd_ssm", ssm_kernel="recurrent")
    recurrent.load_state_dict(scan.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    ours, reference_logits = scan(input_ids=ids).logits, recurrent(input_ids=ids).logits
    assert reference_logits.abs().mean() > 0.1
    torch.testing.assert_close(ours, reference_logits, rtol=0, atol=1e-10)
    ours.logsumexp(-1).sum().backward()
    reference_logits.logsumexp(-1).sum().backward()
    for (name, a), b in zip(scan.named_parameters(), recurrent.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad, rtol=0, atol=1e-9, msg=name)


@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(split):
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(perturbed("pd_ssm"), ids, split)


def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state():
    assert_generate_steps_with_a_constant_state(build_model("pd_ssm", vocab_size=9, preset="tiny"))


@pytest.mark.parametrize("fields, message", [
    ({"state_size": 0}, "state_size must be positive"),
    ({"dictionary_size": -1}, "dictionary_size must be positive"),
    ({"diagonal_expand": 0}, "diagonal_expand must be positive"),
    ({"layer_norm_eps": 0.0}, "layer_norm_eps must be positive"),
    ({"ssm_kernel": "chunked"}, "ssm_kernel must be one of"),
])
def test_bad_settings_are_one_line_errors(fields, message):
    with pytest.raises(ValueError, match=message):
        PDSSMConfig(**fields)
