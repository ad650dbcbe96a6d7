"""The selective SSM's own checks: the chunked kernel against the naive recurrence in every
transition, the rotations against complex arithmetic, the eigenvalues each setting can give a
token, the settings differing in the transition alone, and the state `generate()` continues
from."""

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.selective_ssm.chunked import chunk_ssm
from hf_induction.models.selective_ssm.configuration_selective_ssm import SelectiveSSMConfig
from hf_induction.models.selective_ssm.naive import naive_ssm

from .model_checks import (
    assert_cache_continues,
    assert_generate_steps_with_a_constant_state,
    perturbed,
)

SETTINGS = ("selective_ssm", "selective_ssm_neg", "selective_ssm_complex")


def operands(length: int = 21, seed: int = 0, N: int = 6, P: int = 5):
    """x, B, C, log |a| in (-2, 0), signs, angles and a state, in float64."""
    gen = torch.Generator().manual_seed(seed)
    batch, heads = 2, 3

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    log_a = -2 * torch.rand(batch, heads, length, generator=gen, dtype=torch.float64)
    sign = torch.where(torch.rand(batch, heads, length, generator=gen) < 0.5, -1.0, 1.0)
    return (randn(batch, heads, length, P), randn(batch, heads, length, N),
            randn(batch, heads, length, N), log_a, sign.double(),
            randn(batch, heads, length, N // 2), randn(batch, heads, N, P))


@pytest.mark.parametrize("transition", ["real", "negative", "complex", "negative and complex"])
@pytest.mark.parametrize("chunk_size, length", [(4, 21), (8, 16), (64, 21), (5, 1)])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "state"])
def test_the_chunked_kernel_is_the_recurrence_on_outputs_states_and_gradients(
        transition, chunk_size, length, with_state):
    x, B, C, log_a, sign, theta, state = operands(length)
    sign = sign if "negative" in transition else None
    theta = theta.requires_grad_() if "complex" in transition else None
    leaves = [t.requires_grad_() for t in (x, B, C, log_a)] + ([theta] if theta is not None
                                                              else [])
    state = state.requires_grad_() if with_state else None
    leaves += [state] if with_state else []
    weights = torch.randn(2, 3, length, 5, dtype=torch.float64)

    def run(kernel, **kw):
        y, last = kernel(x, B, C, log_a, sign, theta, initial_state=state, **kw)
        loss = (y * weights).sum() + last.pow(2).sum()
        return y, last, torch.autograd.grad(loss, leaves)

    y1, s1, g1 = run(naive_ssm)
    y2, s2, g2 = run(chunk_ssm, chunk_size=chunk_size)
    torch.testing.assert_close(y2, y1, rtol=0, atol=1e-11)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-11)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-9)


def test_a_turned_pair_of_rows_is_one_complex_state():
    # Written independently in complex arithmetic: state rows 2i, 2i + 1 as the real and
    # imaginary parts of z_i, updated z_t = a_t e^{i theta_t} z_{t-1} + (B_t,2i + i B_t,2i+1) x_t
    # and read as Re(conj(C_t,2i + i C_t,2i+1) z_t).
    x, B, C, log_a, _, theta, state = operands(length=9)
    to_complex = lambda t: torch.complex(t[..., 0::2, :], t[..., 1::2, :])  # noqa: E731
    z = to_complex(state)
    Bc, Cc = torch.complex(B[..., 0::2], B[..., 1::2]), torch.complex(C[..., 0::2], C[..., 1::2])
    outputs = []
    for t in range(9):
        eig = log_a[:, :, t, None].exp() * torch.exp(1j * theta[:, :, t])
        z = eig[..., None] * z + Bc[:, :, t, :, None] * x[:, :, t, None, :]
        outputs.append((Cc[:, :, t, :, None].conj() * z).real.sum(-2))
    y, last = naive_ssm(x, B, C, log_a, None, theta, initial_state=state)
    torch.testing.assert_close(y, torch.stack(outputs, dim=2), rtol=0, atol=1e-12)
    torch.testing.assert_close(to_complex(last), z, rtol=0, atol=1e-12)


def test_the_longest_chunk_stays_finite_in_float32_at_strong_decays():
    x, B, C, log_a, sign, theta, _ = (t.float() for t in operands(128, N=4, P=4))
    log_a = torch.full_like(log_a, -30.0)  # a = 1e-13 a token
    y, last = chunk_ssm(x, B, C, log_a, sign, theta, chunk_size=128)
    ref, ref_last = naive_ssm(x, B, C, log_a, sign, theta)
    assert torch.isfinite(y).all() and torch.isfinite(last).all()
    torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="chunk_size must be positive"):
        chunk_ssm(x, B, C, log_a, chunk_size=0)


def transitions(name: str, dt: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """The eigenvalues [B, H, T, N] (for the complex setting N / 2: a e^{i theta} per turned
    pair, whose other is its conjugate) of the transitions a perturbed model's first mixer gives
    tokens of time steps ``dt`` [B, H, T] and angles [B, T, N/2]."""
    mixer = perturbed(name).model.layers[0].mixer
    with torch.no_grad():
        log_a, sign, theta = mixer.transition(dt, angles)
    a = log_a.exp() * (1 if sign is None else sign)
    if theta is None:
        return a[..., None].expand(-1, -1, -1, mixer.config.state_size).to(torch.complex128)
    return a[..., None] * torch.exp(1j * theta)


def test_each_setting_gives_a_token_the_eigenvalues_it_names():
    gen = torch.Generator().manual_seed(0)
    heads, pairs = 4, 4  # the tiny preset's
    # Time steps across the softplus's range, from ~0 to well past the initial [1e-3, 0.1],
    # and angles of either sign up to several turns.
    dt = torch.nn.functional.softplus(4 * torch.randn(1, heads, 400, generator=gen,
                                                      dtype=torch.float64))
    angles = 20 * torch.randn(1, 400, pairs, generator=gen, dtype=torch.float64)
    real, negative, complex_ = (transitions(name, dt, angles) for name in SETTINGS)
    assert (real.imag == 0).all() and (real.real > 0).all() and (real.real <= 1).all()
    assert (negative.imag == 0).all() and (negative.real.abs() <= 1).all()
    assert negative.real.min() < -0.9  # a flip: the state taken to (nearly) minus itself
    assert (complex_.abs() <= 1).all() and complex_.imag.abs().max() > 0.5
    # The rotation's flip: a half turn at a small time step, where the decay keeps the state.
    small = torch.full((1, heads, 1), 0.01, dtype=torch.float64)
    half_turn = transitions("selective_ssm_complex", small,
                            torch.full((1, 1, pairs), torch.pi / 0.01, dtype=torch.float64))
    assert (half_turn.real < -0.8).all() and (half_turn.imag.abs() < 1e-9).all()


def test_the_settings_differ_in_the_transition_alone():
    # The complex model with its angle projection at zero is the real model with the same
    # weights: the angles are the only parameters the setting adds.
    real, complex_ = perturbed("selective_ssm"), perturbed("selective_ssm_complex")
    weights = real.state_dict()
    for key, value in complex_.state_dict().items():
        if key.endswith("mixer.in_proj.weight"):
            angle_rows = value.shape[0] - weights[key].shape[0]
            assert angle_rows == complex_.config.state_size // 2
            weights[key] = torch.cat([weights[key], torch.zeros(angle_rows, value.shape[1],
                                                                dtype=value.dtype)])
    complex_.load_state_dict(weights)
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, reference = complex_(input_ids=ids).logits, real(input_ids=ids).logits
    torch.testing.assert_close(ours, reference, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", SETTINGS)
def test_the_chunked_model_computes_the_recurrent_models_logits(name):
    chunked = perturbed(name, chunk_size=4)
    recurrent = perturbed(name, ssm_kernel="recurrent")
    recurrent.load_state_dict(chunked.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, reference = chunked(input_ids=ids).logits, recurrent(input_ids=ids).logits
    assert reference.abs().mean() > 0.1
    torch.testing.assert_close(ours, reference, rtol=0, atol=1e-10)


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(name, split):
    # The state (turned back to the tokens' frame after a chunked prompt) and the convolution
    # window carry across the split; chunks of 4 so that either side may span several.
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(perturbed(name, chunk_size=4), ids, split)


@pytest.mark.parametrize("name", SETTINGS)
def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state(name):
    assert_generate_steps_with_a_constant_state(build_model(name, vocab_size=9, preset="tiny"))


@pytest.mark.parametrize("fields, message", [
    ({"transition": "quaternion"}, "transition must be one of"),
    ({"transition": "complex", "state_size": 7}, "state_size must be even"),
    ({"head_dim": 24}, "must be a multiple of head_dim"),
    ({"ssm_kernel": "scan"}, "ssm_kernel must be one of"),
    ({"chunk_size": 0}, "chunk_size must be positive"),
    ({"dt_min": 0.2}, "need 0 < dt_min <= dt_max"),
])
def test_bad_settings_are_one_line_errors(fields, message):
    with pytest.raises(ValueError, match=message):
        SelectiveSSMConfig(**{"hidden_size": 32, "head_dim": 16, **fields})
