"""DeltaNet's own checks: the chunked kernel against the naive recurrence, the eigenvalue
switch, and the recurrent state that `generate()` continues from."""

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.deltanet.chunked import chunk_delta_rule
from hf_induction.models.deltanet.naive import naive_delta_rule

from .model_checks import assert_cache_continues

VARIANTS = ["deltanet", "deltanet_neg", "gated_deltanet", "gated_deltanet_neg"]


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


@pytest.mark.parametrize("name", VARIANTS)
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


@pytest.mark.parametrize("name", ["deltanet_neg", "gated_deltanet"])
@pytest.mark.parametrize("split", [1, 6, 10])
def test_the_cache_continues_the_sequence(name, split):
    # Chunks of 4 so that the prompt, the continuation or both span several chunks; the
    # convolution window carries across the split.
    torch.manual_seed(0)
    model = build_model(name, vocab_size=9, preset="tiny", chunk_size=4).double()
    ids = torch.randint(0, 9, (2, 13), generator=torch.Generator().manual_seed(2))
    assert_cache_continues(model, ids, split)


def test_generate_feeds_one_token_per_step_and_keeps_a_constant_state():
    model = build_model("gated_deltanet_neg", vocab_size=9, preset="tiny").eval()
    lengths, sizes = [], []

    def hook(module, args, kwargs, output):
        lengths.append(kwargs["input_ids"].shape[1])
        sizes.append(sum(m.numel() for m in output.cache.memories))

    model.register_forward_hook(hook, with_kwargs=True)
    model.generate(torch.tensor([[1, 2, 3, 4, 0]]), max_new_tokens=4, min_new_tokens=4,
                   do_sample=False)
    assert lengths == [5, 1, 1, 1] and len(set(sizes)) == 1


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
