"""Checks shared by the model tests: each takes a model and asserts one property."""

import torch


def perturbed(name: str, seed: int = 0, **overrides):
    """A tiny model of ``name`` in float64 with every parameter moved off its initialisation
    (which may zero blocks' output projections, so that any kernel would give the same
    logits)."""
    from hf_induction.models import build_model

    torch.manual_seed(seed)
    model = build_model(name, vocab_size=9, preset="tiny", **overrides).double().eval()
    with torch.no_grad():
        for param in model.parameters():
            param.add_(0.3 * torch.randn_like(param))
    return model


def assert_cache_continues(model, input_ids: torch.LongTensor, split: int) -> None:
    """Logits of a prefix + cached state + suffix equal those of the whole sequence."""
    model.eval()
    with torch.no_grad():
        full = model(input_ids=input_ids).logits
        head = model(input_ids=input_ids[:, :split], use_cache=True)
        tail = model(input_ids=input_ids[:, split:], cache=head.cache, use_cache=True).logits
    torch.testing.assert_close(torch.cat([head.logits, tail], dim=1), full)


def assert_generate_steps_with_a_constant_state(model) -> None:
    """`generate()` reads the prompt once, then one token a step, from a state (the cache's
    ``memories``) whose size does not grow with the length."""
    model.eval()
    lengths, sizes = [], []

    def hook(module, args, kwargs, output):
        lengths.append(kwargs["input_ids"].shape[1])
        sizes.append(sum(m.numel() for m in output.cache.memories))

    model.register_forward_hook(hook, with_kwargs=True)
    model.generate(torch.tensor([[1, 2, 3, 4, 0]]), max_new_tokens=4, min_new_tokens=4,
                   do_sample=False)
    assert lengths == [5, 1, 1, 1] and len(set(sizes)) == 1


def assert_backward_reaches_all_parameters(model, input_ids: torch.LongTensor) -> None:
    model.train()
    model.zero_grad(set_to_none=True)
    logits = model(input_ids=input_ids).logits
    logits.float().logsumexp(-1).mean().backward()
    for name, param in model.named_parameters():
        assert param.grad is not None, name
        assert torch.isfinite(param.grad).all(), name


def stacked_logits(models, input_ids: torch.LongTensor) -> torch.Tensor:
    """Logits [n_models, B, T, V] of stacked copies, through functional_call + vmap."""
    params, buffers = torch.func.stack_module_state(models)
    base = models[0]

    def one(p, b, ids):
        return torch.func.functional_call(base, (p, b), (), {"input_ids": ids}).logits

    return torch.func.vmap(one, in_dims=(0, 0, None))(params, buffers, input_ids)
