"""Where a kept copy checkpoint's heads look while it copies (`analysis.copy_roles`): per head,
the weight on the source of the next symbol, per key on the symbols still to copy and on those
already copied, and on the separator; then the accuracy at each copy index, at the training
lengths and past them.

    python scripts/copy_attention.py results/lengthgen/checkpoints/rope-UF_L10_uniform-n192000 \\
        --lengths 2..10 11..20

The checkpoint names its cell (``trained_on.json``, as ``--keep-checkpoints`` writes it); the
rows are the cell's validation rows at its own lengths and its test stream past them. Not part
of the package: an analysis of one checkpoint.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch

from hf_induction.analysis.copy_roles import ROLES, copy_attention
from hf_induction.analysis.heads import load_checkpoint
from hf_induction.tasks import generate, parse
from hf_induction.tasks.sampling import generate_lengths


def lengths_arg(text: str) -> tuple[int, int]:
    low, _, high = text.partition("..")
    try:
        bounds = (int(low), int(high or low))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: give lengths as FROM..TO, e.g. 11..20") from None
    if not 1 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: need 1 <= FROM <= TO")
    return bounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--lengths", type=lengths_arg, nargs="+", required=True,
                        help="copy lengths FROM..TO, one table each")
    parser.add_argument("--rows", type=int, default=400,
                        help="rows per range past the training lengths (default 400)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    try:
        trained = json.loads((args.checkpoint / "trained_on.json").read_text())
    except (OSError, ValueError) as e:
        parser.error(f"{args.checkpoint}: no readable trained_on.json ({e})")
    cell = parse(trained["dataset"], trained["config"])
    if getattr(cell, "task", None) not in ("UF", "UB"):
        parser.error(f"{trained['dataset']}/{trained['config']}: the roles need distinct symbols "
                     "(copy UF or UB)")
    model = load_checkpoint(args.checkpoint)
    seed = int(trained.get("seed", 0))
    print(f"{trained['model']} {trained['dataset']}/{trained['config']}, N = {trained['n']:,}, "
          f"lr {trained['lr']}, seed {seed}")
    for low, high in args.lengths:
        # The validation rows hold the training lengths; the test stream every longer one.
        if low <= cell.max_len < high:
            parser.error(f"--lengths {low}..{high}: a range lies within the training lengths "
                         f"(up to {cell.max_len}) or past them, not across")
        ex = (generate(cell, "validation", None, seed) if high <= cell.max_len else
              generate_lengths(cell, tuple(range(low, high + 1)), args.rows, seed))
        keep = (ex.lengths >= low) & (ex.lengths <= high)
        if not keep.any():
            parser.error(f"--lengths {low}..{high}: {trained['config']} has no rows there")
        parts = copy_attention(model, ex.input_ids[keep], ex.lengths[keep], cell.task == "UB")
        rows = sum(p.rows for p in parts)
        weights = [p.rows for p in parts]
        print(f"\n### lengths {low}..{high} ({rows} rows)\n")
        print("| head | " + " | ".join(ROLES) + " | to_copy / copied |")
        print("|---|" + "---:|" * (len(ROLES) + 1))
        mean = {r: np.average([p.roles[r] for p in parts], axis=0, weights=weights)
                for r in ROLES}
        for layer, head in np.ndindex(mean["source"].shape):
            cells = [f"{mean[r][layer, head]:.3f}" for r in ROLES]
            ratio = mean["to_copy"][layer, head] / max(mean["copied"][layer, head], 1e-12)
            # An induction head copies nothing twice: its ratio is large and says no more.
            shown = "> 100" if ratio > 100 else f"{ratio:.1f}"
            print(f"| L{layer}H{head} | " + " | ".join(cells) + f" | {shown} |")
        j_max = max(p.n for p in parts)
        by_j = [np.average([p.accuracy[j] for p in parts if p.n > j],
                           weights=[p.rows for p in parts if p.n > j]) for j in range(j_max)]
        print("\naccuracy at copy index j = 1..: " + " ".join(f"{a:.2f}" for a in by_j))


if __name__ == "__main__":
    main()
