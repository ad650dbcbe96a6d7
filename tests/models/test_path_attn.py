"""PaTH attention's own checks: the chunked kernel against the explicit products on outputs,
keys and gradients, both against a transcription of fla's reference, the algebra of its
positions, and the key cache `generate()` continues from."""

import pytest
import torch
import torch.nn.functional as F

from hf_induction.models import build_model
from hf_induction.models.path_attn.chunked import chunk_path_attn
from hf_induction.models.path_attn.configuration_path_attn import PaTHAttnConfig
from hf_induction.models.path_attn.naive import naive_path_attn

from . import path_attn_reference as reference
from .model_checks import assert_cache_continues, perturbed


def operands(length: int = 13, seed: int = 0, d: int = 5, cached: int = 0):
    """q, k, v, unit w, beta in (0, 2), and ``cached`` past keys and values, in float64
    [B, H, T, d]."""
    gen = torch.Generator().manual_seed(seed)
    batch, heads = 2, 3

    def randn(*shape):
        return torch.randn(*shape, generator=gen, dtype=torch.float64)

    q, k, v = (randn(batch, heads, length, d) for _ in range(3))
    w = F.normalize(randn(batch, heads, length, d), dim=-1)
    beta = 2 * torch.rand(batch, heads, length, generator=gen, dtype=torch.float64)
    return q, k, v, w, beta, randn(batch, heads, cached, d), randn(batch, heads, cached, d)


@pytest.mark.parametrize("length, chunk_size", [(13, 4), (16, 8), (13, 64), (1, 4), (9, 1)],
                         ids=lambda v: str(v))
@pytest.mark.parametrize("cached", [0, 6], ids=["empty", "cached"])
def test_the_chunked_kernel_is_the_explicit_products_on_outputs_keys_and_gradients(
        length, chunk_size, cached):
    q, k, v, w, beta, past_k, past_v = operands(length, cached=cached)
    leaves = [t.requires_grad_() for t in (q, k, v, w, beta, past_k, past_v)]
    weights = torch.randn(q.shape, generator=torch.Generator().manual_seed(1),
                          dtype=torch.float64)
    past = (past_k, past_v) if cached else (None, None)

    def run(kernel, **kw):
        o, keys, values = kernel(q, k, v, w, beta, *past, **kw)
        loss = (o * weights).sum() + keys.pow(2).sum()
        grads = torch.autograd.grad(loss, leaves if cached else leaves[:5])
        return o, keys, values, grads

    o1, k1, v1, g1 = run(naive_path_attn)
    o2, k2, v2, g2 = run(chunk_path_attn, chunk_size=chunk_size)
    assert k1.shape == (2, 3, cached + length, 5)
    torch.testing.assert_close(o2, o1, rtol=0, atol=1e-12)
    torch.testing.assert_close(k2, k1, rtol=0, atol=1e-12)
    torch.testing.assert_close(v2, v1, rtol=0, atol=0)
    for a, b in zip(g2, g1, strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-10)


def to_fla(*tensors):
    """Ours [B, H, T, ...] -> fla's [B, T, H, ...]."""
    return [t.transpose(1, 2) for t in tensors]


@pytest.mark.parametrize("length, BT", [(13, 4), (8, 8), (7, 16)], ids=lambda v: str(v))
@pytest.mark.parametrize("kernel", [naive_path_attn, chunk_path_attn], ids=["naive", "chunked"])
def test_the_kernels_are_fla_references_outputs_and_key_cache(length, BT, kernel):
    q, k, v, w, beta, _, _ = operands(length, seed=2)
    theirs, their_cache = reference.prefill(*to_fla(q, k, v, w, beta), scale=5**-0.5, BT=BT)
    o, keys, _ = kernel(q, k, v, w, beta)
    torch.testing.assert_close(o, theirs.transpose(1, 2), rtol=0, atol=1e-12)
    torch.testing.assert_close(keys, their_cache.transpose(1, 2), rtol=0, atol=1e-12)


@pytest.mark.parametrize("kernel", [naive_path_attn, chunk_path_attn], ids=["naive", "chunked"])
def test_decoding_token_by_token_is_fla_references_decoding(kernel):
    q, k, v, w, beta, _, _ = operands(11, seed=3)
    # fla's prefill of 4 tokens, then its decoding step by step; ours in one call from the
    # prefill's cache, and one token at a time from our own.
    _, cache = reference.prefill(*to_fla(q[:, :, :4], k[:, :, :4], v[:, :, :4], w[:, :, :4],
                                         beta[:, :, :4]), scale=5**-0.5)
    their_k, their_v = cache, v[:, :, :4].transpose(1, 2)
    theirs = []
    for t in range(4, 11):
        step = [x[:, :, t:t + 1] for x in (q, k, v, w, beta)]
        o, their_k, their_v = reference.decode_step(their_k, their_v, *to_fla(*step),
                                                    scale=5**-0.5)
        theirs.append(o)
    theirs = torch.cat(theirs, dim=1).transpose(1, 2)
    past = (cache.transpose(1, 2), v[:, :, :4])
    o, keys, _ = kernel(*(x[:, :, 4:] for x in (q, k, v, w, beta)), *past)
    torch.testing.assert_close(o, theirs, rtol=0, atol=1e-12)
    torch.testing.assert_close(keys, their_k.transpose(1, 2), rtol=0, atol=1e-12)
    steps, (keys, values) = [], past
    for t in range(4, 11):
        o, keys, values = kernel(*(x[:, :, t:t + 1] for x in (q, k, v, w, beta)), keys, values)
        steps.append(o)
    torch.testing.assert_close(torch.cat(steps, dim=2), theirs, rtol=0, atol=1e-12)


def test_with_no_reflections_it_is_attention_without_positions():
    # beta = 0 makes every H_t the identity: softmax(q k^T / sqrt(d)) v, causal, with no
    # position at all; the keys come back as they went in.
    q, k, v, w, beta, _, _ = operands(9, seed=4)
    o, keys, _ = chunk_path_attn(q, k, v, w, torch.zeros_like(beta), chunk_size=4)
    causal = torch.ones(9, 9, dtype=torch.bool).tril()
    scores = (q @ k.transpose(-1, -2) / 5**0.5).masked_fill(~causal, float("-inf"))
    torch.testing.assert_close(o, scores.softmax(-1) @ v, rtol=0, atol=1e-12)
    torch.testing.assert_close(keys, k, rtol=0, atol=0)


def test_a_full_reflection_turns_a_key_against_its_direction():
    # beta = 2 makes H_t the reflection I - 2 w w^T: a key along w_t is read as its negative
    # by every later query, one orthogonal to it as itself.
    d = 4
    e = torch.eye(d, dtype=torch.float64)
    q = e[None, None, [0, 0, 0]]  # three queries along e_0
    k = torch.stack([e[0], e[1], e[1]])[None, None]  # the first key along e_0
    w = torch.stack([e[1], e[0], e[2]])[None, None]  # token 1 reflects e_0, token 2 e_2
    beta = torch.tensor([[[2.0, 2.0, 2.0]]], dtype=torch.float64)
    _, keys, _ = naive_path_attn(q, k, torch.zeros_like(k), w, beta)
    torch.testing.assert_close(keys[0, 0], torch.stack([-e[0], e[1], e[1]]))


def test_the_chunk_size_must_be_positive():
    q, k, v, w, beta, _, _ = operands(3)
    with pytest.raises(ValueError, match="chunk_size must be positive"):
        chunk_path_attn(q, k, v, w, beta, chunk_size=0)


def test_the_chunked_model_computes_the_naive_models_logits_and_gradients():
    chunked = perturbed("path_attn", chunk_size=4)
    naive = perturbed("path_attn", attn_kernel="naive")
    naive.load_state_dict(chunked.state_dict())
    ids = torch.randint(0, 9, (3, 11), generator=torch.Generator().manual_seed(1))
    logits = [model(input_ids=ids).logits for model in (chunked, naive)]
    torch.testing.assert_close(logits[0], logits[1], rtol=0, atol=1e-11)
    for out in logits:
        out.logsumexp(-1).sum().backward()
    for (name, a), b in zip(chunked.named_parameters(), naive.parameters(), strict=True):
        torch.testing.assert_close(a.grad, b.grad, rtol=0, atol=1e-10, msg=name)


@pytest.mark.parametrize("split", [1, 4, 10])
def test_the_cache_continues_the_sequence(split):
    assert_cache_continues(perturbed("path_attn", chunk_size=4),
                           torch.randint(0, 9, (2, 11), generator=torch.Generator().manual_seed(2)),
                           split)


def test_generate_feeds_one_token_a_step_and_continues_as_the_full_forward():
    model = perturbed("path_attn")
    lengths, cached = [], []

    def hook(module, args, kwargs, output):
        lengths.append(kwargs["input_ids"].shape[1])
        cached.append({keys.shape[2] for keys, _ in output.cache.memories})

    handle = model.register_forward_hook(hook, with_kwargs=True)
    prompt = torch.tensor([[1, 2, 3, 4, 0], [4, 4, 0, 1, 2]])
    out = model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    handle.remove()
    assert lengths == [5, 1, 1, 1]
    assert cached == [{5}, {6}, {7}, {8}]
    # Greedy decoding from the cache picks what the full forward over each prefix picks.
    with torch.no_grad():
        for t in range(5, 9):
            assert torch.equal(model(input_ids=out[:, :t]).logits[:, -1].argmax(-1), out[:, t])


def test_a_length_1000_forward_runs_on_the_cpu_at_the_tiny_preset():
    torch.manual_seed(0)
    model = build_model("path_attn", vocab_size=9, preset="tiny").eval()
    ids = torch.randint(0, 9, (2, 1000), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    assert logits.shape == (2, 1000, 9) and torch.isfinite(logits).all()
    # Causal: the first 100 positions read as if the rest were not there.
    with torch.no_grad():
        torch.testing.assert_close(model(input_ids=ids[:, :100]).logits, logits[:, :100])


@pytest.mark.parametrize("field, value, message", [
    ("num_heads", 3, "hidden_size \\(256\\) must be a multiple of num_heads"),
    ("num_heads", 0, "num_heads must be positive"),
    ("w_low_rank_dim", 0, "w_low_rank_dim must be positive or None"),
    ("conv_size", -1, "conv_size must be 0"),
    ("attn_kernel", "fast", "attn_kernel must be one of \\('chunked', 'naive'\\)"),
    ("chunk_size", 0, "chunk_size must be positive"),
])
def test_bad_fields_get_one_line_errors(field, value, message):
    with pytest.raises(ValueError, match=message) as error:
        PaTHAttnConfig(**{field: value})
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("overrides", [{"w_low_rank_dim": None}, {"conv_size": 0}],
                         ids=["full-rank-w", "no-conv"])
def test_the_other_settings_of_w_build_and_continue(overrides):
    assert_cache_continues(perturbed("path_attn", **overrides),
                           torch.randint(0, 9, (2, 9), generator=torch.Generator().manual_seed(3)),
                           5)


def test_reordering_the_cache_moves_every_rows_keys_values_and_window():
    model = perturbed("path_attn")
    ids = torch.randint(0, 9, (3, 6), generator=torch.Generator().manual_seed(4))
    with torch.no_grad():
        cache = model(input_ids=ids, use_cache=True).cache
        swapped = model(input_ids=ids[[2, 0, 1]], use_cache=True).cache
    cache.reorder_cache(torch.tensor([2, 0, 1]))
    for index in range(model.config.num_hidden_layers):
        (keys, values), window = cache.layer(index)
        (their_keys, their_values), their_window = swapped.layer(index)
        for ours, theirs in ((keys, their_keys), (values, their_values), (window, their_window)):
            torch.testing.assert_close(ours, theirs, rtol=0, atol=1e-12)


def test_its_heads_are_named_as_attentions_so_long_lengths_bound_their_batch():
    """The reach check bounds a forward's rows by attention's T x T scores, found under
    transformers' `num_attention_heads`: doubling the length about quadruples a row's bytes."""
    from hf_induction.runner.reach import eval_row_bytes

    config = build_model("path_attn", vocab_size=9, preset="tiny").config
    assert config.num_attention_heads == config.num_heads
    assert eval_row_bytes(config, 20_000) > 3.5 * eval_row_bytes(config, 10_000)
