"""Mamba-3's own checks: the chunked kernel against the naive recurrence (SISO and MIMO),
both against a transcription of the reference's step (`mamba3_reference.py`), the mixer
against the reference layer (SISO and MIMO), the trapezoid at lam = 1 against the selective
SSM's recurrence, and the state `generate()` continues from."""

import math

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.mamba3.chunked import chunk_mamba3
from hf_induction.models.mamba3.configuration_mamba3 import Mamba3Config
from hf_induction.models.mamba3.naive import naive_mamba3, rotate_pairs, rotate_state
from hf_induction.models.selective_ssm.naive import naive_ssm

from . import mamba3_reference as reference
from .model_checks import (
    assert_cache_continues,
    assert_generate_steps_with_a_constant_state,
    perturbed,
)

KERNELS = {"naive": naive_mamba3, "chunked": lambda *a, **k: chunk_mamba3(*a, chunk_size=4, **k)}


def operands(length: int = 21, seed: int = 0, N: int = 6, P: int = 5, R: int = 1):
    """x, B, C (R of each a token), log a in (-2, 0), dt in (0, 1), lam in (0, 1), angles, and
    a state, the previous token's B and x, in float64."""
    gen = torch.Generator().manual_seed(seed)
    batch, heads = 2, 3

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    def rand(*shape):
        return torch.rand(*shape, generator=gen, dtype=torch.float64)

    return (randn(batch, heads, length, R, P), randn(batch, heads, length, R, N),
            randn(batch, heads, length, R, N), -2 * rand(batch, heads, length),
            rand(batch, heads, length), rand(batch, heads, length),
            randn(batch, heads, length, N // 2),
            (randn(batch, heads, N, P), randn(batch, heads, R, N), randn(batch, heads, R, P)))


@pytest.mark.parametrize("rank", [1, 3], ids=["siso", "mimo3"])
@pytest.mark.parametrize("rotate", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("chunk_size, length", [(4, 21), (8, 16), (64, 21), (5, 1)])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "state"])
def test_the_chunked_kernel_is_the_recurrence_on_outputs_states_and_gradients(
        rank, rotate, chunk_size, length, with_state):
    x, B, C, log_a, dt, lam, theta, state = operands(length, R=rank)
    theta = theta if rotate else None
    state = tuple(s.requires_grad_() for s in state) if with_state else (None, None, None)
    leaves = [t.requires_grad_() for t in (x, B, C, log_a, dt, lam)]
    leaves += ([theta.requires_grad_()] if rotate else []) + ([*state] if with_state else [])
    weights = torch.randn(2, 3, length, rank, 5, dtype=torch.float64)

    def run(kernel, **kw):
        y, last = kernel(x, B, C, log_a, dt, lam, theta, *state, **kw)
        loss = (y * weights).sum() + last.pow(2).sum()
        return y, last, torch.autograd.grad(loss, leaves)

    y1, s1, g1 = run(naive_mamba3)
    y2, s2, g2 = run(chunk_mamba3, chunk_size=chunk_size)
    torch.testing.assert_close(y2, y1, rtol=0, atol=1e-11)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-11)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-9)


@pytest.mark.parametrize("rank", [1, 3], ids=["siso", "mimo3"])
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "state"])
def test_the_kernels_give_the_reference_steps_outputs_and_states(rank, kernel, with_state):
    # The reference's layout: tokens before heads (ranks before both), the state [headdim,
    # d_state], B and C turned by the running angle (half of the pairs: S = 2 of N / 2 = 4), D,
    # the gate and MIMO's weights inside; its SISO step (rank 1) has no MIMO weights.
    gen = torch.Generator().manual_seed(3)
    batch, length, heads, N, P, S, R = 2, 13, 3, 8, 5, 2, rank

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    Q, K = randn(batch, length, R, heads, N), randn(batch, length, R, heads, N)
    V, Z = randn(batch, length, heads, P), randn(batch, length, heads, P)
    DT = torch.nn.functional.softplus(randn(batch, heads, length))
    ADT = -DT * torch.rand(batch, heads, length, generator=gen, dtype=torch.float64)
    Trap, Q_bias, K_bias = randn(batch, heads, length), randn(heads, R, N), randn(heads, R, N)
    Angles, D = 3 * randn(batch, length, heads, S), randn(heads)
    MIMO_V, MIMO_Z, MIMO_O = ((randn(heads, R, P) for _ in range(3)) if R > 1
                              else (torch.ones(heads, 1, P, dtype=torch.float64),) * 3)
    states = None
    if with_state:
        states = (2 * math.pi * torch.rand(batch, heads, S, generator=gen, dtype=torch.float64),
                  randn(batch, heads, P, N), randn(batch, heads, R, N), randn(batch, heads, R, P))
    if R == 1:
        siso = None if states is None else (*states[:2], states[2][:, :, 0], states[3][:, :, 0])
        out, (angle, ssm, k_state, v_state) = reference.step_scan(
            Q[:, :, 0], K[:, :, 0], V, ADT, DT, Trap, Q_bias[:, 0], K_bias[:, 0], Angles, D=D,
            Z=Z, Input_States=siso)
        k_state, v_state = k_state[:, :, None], v_state[:, :, None]
    else:
        out, (angle, ssm, k_state, v_state) = reference.mimo_step_scan(
            Q, K, V, ADT, DT, Trap, Q_bias, K_bias, Angles, MIMO_V, MIMO_O, D=D, Z=Z,
            MIMO_Z=MIMO_Z, Input_States=states)

    # Ours: the state in the tokens' own frame, turning by theta = -pi tanh(angle) dt (the
    # reference turns B and C forward instead); a cache's state and B turned back by the
    # reference's running angle; the MIMO weights applied around the kernel, as the mixer does.
    def to_pairs(angle):
        return torch.nn.functional.pad(angle, (0, N // 2 - S))

    theta = to_pairs(-math.pi * torch.tanh(Angles).transpose(1, 2) * DT[..., None])
    h0 = last_B = last_x = None
    if with_state:
        turned_back = to_pairs(-states[0])
        h0 = rotate_state(states[1].transpose(-1, -2), turned_back)
        last_B, last_x = rotate_pairs(states[2], turned_back[:, :, None]), states[3]
    x = V.transpose(1, 2)[:, :, :, None] * MIMO_V[:, None]  # [B, H, T, R, P]
    B, C = ((t + bias.transpose(0, 1)).permute(0, 3, 1, 2, 4)  # [B, H, T, R, N]
            for t, bias in ((K, K_bias), (Q, Q_bias)))
    y, h = KERNELS[kernel](x, B, C, ADT, DT, torch.sigmoid(Trap), theta, initial_state=h0,
                           last_B=last_B, last_x=last_x)
    z = Z.transpose(1, 2)[:, :, :, None] * MIMO_Z[:, None]
    y = ((y + D[:, None, None, None] * x) * z * torch.sigmoid(z) * MIMO_O[:, None]).sum(3)
    torch.testing.assert_close(y.transpose(1, 2), out, rtol=0, atol=1e-10)
    torch.testing.assert_close(rotate_state(h, to_pairs(angle)).transpose(-1, -2), ssm,
                               rtol=0, atol=1e-10)
    torch.testing.assert_close(rotate_pairs(B[:, :, -1], to_pairs(angle)[:, :, None]), k_state,
                               rtol=0, atol=1e-12)
    torch.testing.assert_close(x[:, :, -1], v_state, rtol=0, atol=0)


@pytest.mark.parametrize("rope_fraction, mimo_rank", [(0.5, 1), (1.0, 1), (0.5, 2)],
                         ids=["half-siso", "all-siso", "half-mimo2"])
def test_the_mixer_is_the_reference_layer_across_a_cache(rope_fraction, mimo_rank):
    # A perturbed tiny model's first mixer and the reference layer on its parameters: a prompt,
    # then the next tokens from each one's state. B and C's norms run in float32 (ours and the
    # reference's), hence the tolerance.
    model = perturbed("mamba3", rope_fraction=rope_fraction, mimo_rank=mimo_rank, chunk_size=4)
    mixer, config = model.model.layers[0].mixer, model.config
    params = {name: p.detach() for name, p in mixer.named_parameters()}
    u = torch.randn(2, 11, config.hidden_size, generator=torch.Generator().manual_seed(4),
                    dtype=torch.float64)
    kwargs = {"d_state": config.state_size, "headdim": config.head_dim,
              "A_floor": config.A_floor, "bc_eps": config.bc_norm_eps}
    with torch.no_grad():
        ref_head, ref_states = reference.mixer_forward(params, u[:, :7], **kwargs)
        ref_tail, _ = reference.mixer_forward(params, u[:, 7:], Input_States=ref_states,
                                              **kwargs)
        head, state = mixer(u[:, :7])
        tail, _ = mixer(u[:, 7:], state)
    ours, theirs = torch.cat([head, tail], 1), torch.cat([ref_head, ref_tail], 1)
    assert theirs.abs().mean() > 0.1
    torch.testing.assert_close(ours, theirs, rtol=1e-5, atol=1e-5)


def test_at_lam_one_the_trapezoid_is_the_selective_ssms_rule():
    # lam = 1 drops the previous token's write: h_t = a_t R_t h_{t-1} + dt_t B_t x_t^T.
    x, B, C, log_a, dt, _, theta, (h0, last_B, last_x) = operands()
    ones = torch.ones_like(dt)
    for kernel in KERNELS.values():
        y, h = kernel(x, B, C, log_a, dt, ones, theta, h0, last_B, last_x)
        ref, ref_h = naive_ssm(x[:, :, :, 0] * dt[..., None], B[:, :, :, 0], C[:, :, :, 0],
                               log_a, None, theta, initial_state=h0)
        torch.testing.assert_close(y[:, :, :, 0], ref, rtol=0, atol=1e-11)
        torch.testing.assert_close(h, ref_h, rtol=0, atol=1e-11)


@pytest.mark.parametrize("mimo_rank", [1, 2], ids=["siso", "mimo2"])
def test_the_chunked_model_computes_the_recurrent_models_logits(mimo_rank):
    chunked = perturbed("mamba3", chunk_size=4, mimo_rank=mimo_rank)
    recurrent = perturbed("mamba3", ssm_kernel="recurrent", mimo_rank=mimo_rank)
    recurrent.load_state_dict(chunked.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, reference_logits = chunked(input_ids=ids).logits, recurrent(input_ids=ids).logits
    assert reference_logits.abs().mean() > 0.1
    torch.testing.assert_close(ours, reference_logits, rtol=0, atol=1e-10)


@pytest.mark.parametrize("mimo_rank", [1, 2], ids=["siso", "mimo2"])
@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(split, mimo_rank):
    # The state and the last token's B and x carry across the split; chunks of 4 so that
    # either side may span several.
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(perturbed("mamba3", chunk_size=4, mimo_rank=mimo_rank), ids, split)


@pytest.mark.parametrize("mimo_rank", [1, 2], ids=["siso", "mimo2"])
def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state(mimo_rank):
    assert_generate_steps_with_a_constant_state(build_model("mamba3", vocab_size=9,
                                                            preset="tiny", mimo_rank=mimo_rank))


def test_mimo_keeps_the_state_and_multiplies_its_use():
    # The same state size at rank 4, with four B and C projections and the three MIMO weights
    # per head, which start as the reference's (inputs and outputs split evenly).
    siso, mimo = (build_model("mamba3", vocab_size=9, preset="tiny", mimo_rank=r) for r in (1, 4))
    with torch.no_grad():
        ids = torch.tensor([[1, 2, 3]])
        states = [m(input_ids=ids, use_cache=True).cache.memories[0].shape for m in (siso, mimo)]
    assert states[0] == states[1]
    mixer, config = mimo.model.layers[0].mixer, mimo.config
    assert mixer.in_proj.out_features - siso.model.layers[0].mixer.in_proj.out_features == (
        3 * 2 * config.state_size)
    assert torch.equal(mixer.mimo_x, torch.full_like(mixer.mimo_x, 0.25))
    assert torch.equal(mixer.mimo_o, torch.full_like(mixer.mimo_o, 0.25))
    assert torch.equal(mixer.mimo_z, torch.ones_like(mixer.mimo_z))


@pytest.mark.parametrize("fields, message", [
    ({"rope_fraction": 0.25}, "rope_fraction must be one of"),
    ({"state_size": 2}, "turns no pair of rows"),
    ({"head_dim": 24}, "must be a multiple of head_dim"),
    ({"ssm_kernel": "scan"}, "ssm_kernel must be one of"),
    ({"chunk_size": 0}, "chunk_size must be positive"),
    ({"dt_min": 0.2}, "need 0 < dt_min <= dt_max"),
    ({"A_floor": 0.0}, "A_floor must be positive"),
    ({"mimo_rank": 0}, "mimo_rank must be positive"),
])
def test_bad_settings_are_one_line_errors(fields, message):
    with pytest.raises(ValueError, match=message) as error:
        Mamba3Config(**{"hidden_size": 32, "head_dim": 16, **fields})
    assert "\n" not in str(error.value)
