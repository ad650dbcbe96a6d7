"""Speed of the fast Dense-SSM path against the naive reference, same batch, same run."""

import time

import torch

from .configuration_dense_ssm import DenseSSMConfig
from .modeling_dense_ssm import DenseSSMForCausalLM
from .naive import naive_dense_ssm_logits


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def bench_fast_vs_reference(
    batch_size: int = 64,
    seq_len: int = 20,
    hidden_size: int = 256,
    vocab_size: int = 9,
    repeats: int = 3,
    backward: bool = False,
    num_threads: int | None = 1,
    seed: int = 0,
    transition_kernel: str | None = None,
) -> dict[str, float]:
    """Best-of-`repeats` wall time of one forward (and backward, if asked) for both paths.

    ``transition_kernel`` None times the model's default kernel. Returns a dict with
    `fast_s`, `reference_s`, `ratio` (reference / fast) and `max_abs_diff`
    between the two paths' logits.
    """
    previous_threads = torch.get_num_threads()
    if num_threads is not None:
        torch.set_num_threads(num_threads)
    try:
        generator = torch.Generator().manual_seed(seed)
        torch.manual_seed(seed)
        kernel = {} if transition_kernel is None else {"transition_kernel": transition_kernel}
        config = DenseSSMConfig(vocab_size=vocab_size, hidden_size=hidden_size, **kernel)
        model = DenseSSMForCausalLM(config)
        input_ids = torch.randint(0, vocab_size, (batch_size, seq_len), generator=generator)

        def run(forward):
            def step():
                logits = forward()
                if backward:
                    model.zero_grad(set_to_none=True)
                    logits.sum().backward()
                return logits

            return step

        fast = run(lambda: model(input_ids=input_ids).logits)
        reference = run(lambda: naive_dense_ssm_logits(model, input_ids))
        with torch.set_grad_enabled(backward):
            max_abs_diff = (fast() - reference()).abs().max().item()
            fast_s = _best_time(fast, repeats)
            reference_s = _best_time(reference, repeats)
    finally:
        torch.set_num_threads(previous_threads)
    return {
        "fast_s": fast_s,
        "reference_s": reference_s,
        "ratio": reference_s / fast_s,
        "max_abs_diff": max_abs_diff,
    }
