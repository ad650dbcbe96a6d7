"""Speed of the fast Dense-SSM path against the naive reference, same batch, same run.

The reference (`naive.py`) stays in the model's folder, where the tests hold the fast path
to it; only the timing is the benchmark's. As a section it times the default (grouped)
kernel and all_tokens, forward and forward + backward; ``python scripts/bench_dense_ssm.py``
(`main`) times one configuration of any size.
"""

from __future__ import annotations

import argparse
import time

import torch

from hf_induction.models.dense_ssm.configuration_dense_ssm import (
    TRANSITION_KERNELS,
    DenseSSMConfig,
)
from hf_induction.models.dense_ssm.modeling_dense_ssm import DenseSSMForCausalLM
from hf_induction.models.dense_ssm.naive import naive_dense_ssm_logits

from .options import BenchOptions


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


def run(options: BenchOptions) -> dict:
    out = {}
    for kernel in ("grouped", "all_tokens"):
        for backward in (False, True):
            r = bench_fast_vs_reference(
                repeats=1 if options.quick else 3,
                backward=backward,
                num_threads=torch.get_num_threads(),
                transition_kernel=kernel,
            )
            tag = f"{kernel}_{'fwd_bwd' if backward else 'fwd'}"
            out[f"dense_ssm_fast_{tag}_s"] = r["fast_s"]
            out[f"dense_ssm_reference_{tag}_s"] = r["reference_s"]
            out[f"dense_ssm_fast_vs_reference_{tag}"] = r["ratio"]
    out["dense_ssm_fast_vs_reference"] = out["dense_ssm_fast_vs_reference_grouped_fwd_bwd"]
    return out


def main(argv=None) -> None:
    """Print the speed of the fast Dense-SSM path against the naive reference (same batch,
    same run)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seq-len", type=int, default=20)
    parser.add_argument("--hidden-size", type=int, default=256)
    parser.add_argument("--vocab-size", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kernel", default="grouped", choices=list(TRANSITION_KERNELS))
    parser.add_argument("--backward", action="store_true", help="time forward + backward")
    args = parser.parse_args(argv)
    result = bench_fast_vs_reference(
        batch_size=args.batch_size,
        seq_len=args.seq_len,
        hidden_size=args.hidden_size,
        vocab_size=args.vocab_size,
        repeats=args.repeats,
        backward=args.backward,
        num_threads=args.threads,
        transition_kernel=args.kernel,
    )
    print(
        f"B={args.batch_size} T={args.seq_len} d={args.hidden_size} V={args.vocab_size} "
        f"kernel={args.kernel} threads={args.threads} backward={args.backward}: "
        f"fast {result['fast_s'] * 1e3:.1f} ms, reference {result['reference_s'] * 1e3:.1f} ms, "
        f"ratio {result['ratio']:.1f}x (max |diff| {result['max_abs_diff']:.1e})"
    )


if __name__ == "__main__":
    main()
