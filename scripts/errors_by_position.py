"""Where a trained run's state errors lie at test length: one run retrained (its rate, seed, size
and step budget, as an OOD row of a results folder records them) and its accuracy on the k-th
state of the test rows, k = 1..2L.

    python scripts/errors_by_position.py --dataset modadd --config acot_L5 --model xlstm \\
        --n 2500 --lr 0.003 --seed 20 --max-steps 3000

The pooled state and final-state accuracies are printed beside it, so that a rerun can be
checked against the row it repeats (the same settings give the same run). Not part of the
package: an analysis that reads a results folder's figures.
"""

from __future__ import annotations

import argparse

import torch

from hf_induction.data import cell_arrays
from hf_induction.metrics import state_accuracy_by_position, state_tracking_metrics
from hf_induction.models import build_model
from hf_induction.runner.best_run import predict
from hf_induction.tasks import generate, parse, train_pool_size
from hf_induction.training import TrainData, TrainSettings, train_model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--n", type=int, required=True, help="training rows")
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--max-steps", type=int, required=True)
    parser.add_argument("--preset", default="tiny")
    args = parser.parse_args()
    # One thread, as a campaign's processes train (`--threads 1`): the order of a reduction,
    # and so a run's trajectory, can depend on the thread count.
    torch.set_num_threads(1)

    try:
        cell = parse(args.dataset, args.config)
    except ValueError as e:
        parser.error(str(e))
    pool = train_pool_size(cell)
    if not 1 <= args.n <= pool:
        parser.error(f"--n {args.n}: {args.dataset}/{args.config} has {pool:,} training rows")
    arrays = cell_arrays(cell, seed=0, max_train=args.n)
    data = TrainData(*(torch.from_numpy(a) for a in (
        arrays.train_input_ids, arrays.train_labels, arrays.val_input_ids, arrays.val_labels)),
        whole_pool=pool)
    settings = TrainSettings(max_steps=args.max_steps, lrs=(args.lr,), seeds=(args.seed,))
    result, model = train_model(lambda: build_model(args.model, cell.vocab, args.preset), data,
                                args.n, args.lr, args.seed, settings)
    test = generate(cell, "test", None, 0)
    predictions = predict(model, test.input_ids, "cpu")
    order = cell.vocab.order
    print(f"{args.model} {args.dataset}/{args.config}: N={args.n}, lr {args.lr}, seed {args.seed}, "
          f"{result.steps} steps, best validation loss {result.best_val_loss:.3g}")
    print({k: round(v, 4) for k, v in state_tracking_metrics(predictions, test.labels,
                                                             order).items()})
    print("| state | " + " | ".join(str(k + 1) for k in range(cell.test_length)) + " |")
    print("|---|" + "---:|" * cell.test_length)
    by_position = state_accuracy_by_position(predictions, test.labels, order)
    print("| accuracy | " + " | ".join(f"{a:.3f}" for a in by_position) + " |")


if __name__ == "__main__":
    main()
