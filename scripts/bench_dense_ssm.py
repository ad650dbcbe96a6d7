"""Print the speed of the fast Dense-SSM path against the naive reference (same batch, same run)."""

import argparse

from hf_induction.models.dense_ssm.bench import bench_fast_vs_reference
from hf_induction.models.dense_ssm.configuration_dense_ssm import TRANSITION_KERNELS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--seq-len", type=int, default=20)
    parser.add_argument("--hidden-size", type=int, default=256)
    parser.add_argument("--vocab-size", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--kernel", default="grouped", choices=list(TRANSITION_KERNELS))
    parser.add_argument("--backward", action="store_true", help="time forward + backward")
    args = parser.parse_args()
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
