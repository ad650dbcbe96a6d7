"""RWKV-7's own checks: the chunked kernel against the naive recurrence, the recurrence against
the paper's state layout, the eigenvalues its transitions can take, and the state `generate()`
continues from."""

import math

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.rwkv7.chunked import chunk_rwkv7
from hf_induction.models.rwkv7.configuration_rwkv7 import MAX_CHUNK, RWKV7Config
from hf_induction.models.rwkv7.naive import naive_rwkv7

from .model_checks import (
    assert_cache_continues,
    assert_generate_steps_with_a_constant_state,
    perturbed,
)

LOWEST_LOG_DECAY = -math.exp(-0.5)


def operands(length: int = 21, seed: int = 0, dk: int = 6, dv: int = 5):
    """r, log w, k, v, kk, a and a state as the model makes them: log w in (-e^-0.5, 0), a in
    (0, 1), kk of unit length."""
    gen = torch.Generator().manual_seed(seed)
    B, H = 2, 3

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    def rand(*shape):
        return torch.rand(*shape, generator=gen, dtype=torch.float64)

    r, k, v = randn(B, H, length, dk), randn(B, H, length, dk), randn(B, H, length, dv)
    log_w = LOWEST_LOG_DECAY * rand(B, H, length, dk)
    kk = torch.nn.functional.normalize(randn(B, H, length, dk), dim=-1)
    a = rand(B, H, length, dk)
    return r, log_w, k, v, kk, a, randn(B, H, dk, dv)


@pytest.mark.parametrize("chunk_size, length", [(4, 21), (8, 16), (16, 37), (64, 21), (5, 1)])
@pytest.mark.parametrize("with_state", [False, True], ids=["zeros", "state"])
def test_the_chunked_kernel_is_the_recurrence_on_outputs_states_and_gradients(
        chunk_size, length, with_state):
    *inputs, state = operands(length)
    inputs = [t.requires_grad_() for t in inputs]
    state = state.requires_grad_() if with_state else None
    leaves = inputs + ([state] if with_state else [])
    weights = torch.randn(2, 3, length, 5, dtype=torch.float64)

    def run(kernel, **kw):
        o, last = kernel(*inputs, initial_state=state, **kw)
        loss = (o * weights).sum() + last.pow(2).sum()
        return o, last, torch.autograd.grad(loss, leaves)

    o1, s1, g1 = run(naive_rwkv7)
    o2, s2, g2 = run(chunk_rwkv7, chunk_size=chunk_size)
    torch.testing.assert_close(o2, o1, rtol=0, atol=1e-11)
    torch.testing.assert_close(s2, s1, rtol=0, atol=1e-11)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-9)


def test_the_longest_chunk_stays_finite_in_float32_at_the_strongest_decay():
    r, log_w, k, v, kk, a, _ = (t.float() for t in operands(MAX_CHUNK, dk=4, dv=4))
    log_w = torch.full_like(log_w, LOWEST_LOG_DECAY)
    o, last = chunk_rwkv7(r, log_w, k, v, kk, a, chunk_size=MAX_CHUNK)
    ref, ref_last = naive_rwkv7(r, log_w, k, v, kk, a)
    assert torch.isfinite(o).all() and torch.isfinite(last).all()
    torch.testing.assert_close(o, ref, rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="chunk_size must be in 1..64"):
        chunk_rwkv7(r, log_w, k, v, kk, a, chunk_size=MAX_CHUNK + 1)


def test_the_recurrence_is_the_papers_update_in_its_own_layout():
    # The paper's state S [d_v, d_k] (fla's derivation): S_t = S_{t-1} diag(w_t) + (S_{t-1} z_t)
    # b_t^T + v_t k_t^T with z = -kk and b = kk * a, read as o_t = S_t r_t. Ours is its transpose.
    r, log_w, k, v, kk, a, state = operands(length=7)
    S = state.transpose(-1, -2).clone()
    outputs = []
    for t in range(7):
        z, b = -kk[:, :, t], kk[:, :, t] * a[:, :, t]
        sz = (S * z[:, :, None, :]).sum(-1)  # [B, H, d_v]
        S = (S * log_w[:, :, t].exp()[:, :, None, :] + sz[..., None] * b[:, :, None, :]
             + v[:, :, t, :, None] * k[:, :, t, None, :])
        outputs.append((S * r[:, :, t, None, :]).sum(-1))
    o, last = naive_rwkv7(r, log_w, k, v, kk, a, initial_state=state)
    torch.testing.assert_close(o, torch.stack(outputs, dim=2), rtol=0, atol=1e-12)
    torch.testing.assert_close(last, S.transpose(-1, -2), rtol=0, atol=1e-12)


def test_a_tokens_eigenvalues_are_real_and_reach_below_zero_but_not_to_minus_one():
    # Transition G = diag(w) - (a * kk) kk^T: similar to the symmetric diag(w) - z z^T with
    # z = sqrt(a) kk, so real eigenvalues in (min w - 1, 1). Checked on 2,000 random tokens.
    gen = torch.Generator().manual_seed(0)
    d = 8
    w = (LOWEST_LOG_DECAY * torch.rand(2000, d, generator=gen, dtype=torch.float64)).exp()
    a = torch.rand(2000, d, generator=gen, dtype=torch.float64)
    kk = torch.nn.functional.normalize(torch.randn(2000, d, generator=gen,
                                                   dtype=torch.float64), dim=-1)
    G = torch.diag_embed(w) - (a * kk)[:, :, None] * kk[:, None, :]
    eig = torch.linalg.eigvals(G)
    assert eig.imag.abs().max() < 1e-9
    assert (eig.real < 1).all() and (eig.real > w.min(-1).values[:, None] - 1).all()
    # The most negative a token can make: the slowest-kept channel removed at full rate.
    w_low, a_high = math.exp(LOWEST_LOG_DECAY), 1.0
    one = torch.diag_embed(torch.tensor([w_low, 1.0], dtype=torch.float64))
    one = one - a_high * torch.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=torch.float64)
    smallest = torch.linalg.eigvalsh(one).min().item()
    assert smallest == pytest.approx(w_low - 1) and -0.46 < smallest < -0.45


def test_the_chunked_model_computes_the_recurrent_models_logits():
    chunked = perturbed("rwkv7", chunk_size=4)
    recurrent = perturbed("rwkv7", rwkv_kernel="recurrent")
    recurrent.load_state_dict(chunked.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        ours, reference = chunked(input_ids=ids).logits, recurrent(input_ids=ids).logits
    assert reference.abs().mean() > 0.1  # the blocks contribute
    torch.testing.assert_close(ours, reference, rtol=0, atol=1e-10)


@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(split):
    # The memory and both token shifts carry across the split; chunks of 4 so that the prompt,
    # the continuation or both span several chunks.
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(perturbed("rwkv7", chunk_size=4), ids, split)


def test_later_blocks_mix_in_the_first_blocks_values():
    model = perturbed("rwkv7")
    first, second = (block.time_mix for block in model.model.layers)
    assert not hasattr(first, "v_lora") and hasattr(second, "v_lora")
    ids = torch.randint(0, 9, (2, 6), generator=torch.Generator().manual_seed(3))
    seen = {}

    def grab(module, args, output):
        seen["v_first"] = args[2]

    second.register_forward_hook(grab)
    with torch.no_grad():
        model(input_ids=ids)
    assert seen["v_first"] is not None and seen["v_first"].shape == (2, 6, 32)


def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state():
    assert_generate_steps_with_a_constant_state(
        build_model("rwkv7", vocab_size=9, preset="tiny"))


@pytest.mark.parametrize("field, value, message", [
    ("chunk_size", 0, "chunk_size must be in 1..64"),
    ("chunk_size", 65, "chunk_size must be in 1..64"),
    ("rwkv_kernel", "scan", "rwkv_kernel must be one of"),
    ("head_dim", 24, "must be a multiple of head_dim"),
    ("a_low_rank_dim", 0, "a_low_rank_dim must be positive"),
])
def test_bad_settings_are_one_line_errors(field, value, message):
    with pytest.raises(ValueError, match=message):
        RWKV7Config(**{"hidden_size": 32, "head_dim": 16, field: value})
