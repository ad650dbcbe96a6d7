"""Materialise task configs into a folder laid out as a Hub dataset repo (parquet + card).

    hf-induction build-datasets --dataset modadd --configs acot_L20 cot_L10_uniform \\
        --out build/hub/induction-bias/modadd [--train-size N] [--seed S] \\
        [--splits train validation] [--push-to-hub REPO]

Then ``load_dataset("build/hub/induction-bias/modadd", "acot_L20")`` works offline.
"""

from __future__ import annotations

import sys

from hf_induction.commands.parsing import (
    Parser,
    add_groups_flag,
    nonnegative_int,
    once,
    output_folder,
    prog,
    push_outcome,
    register_groups,
    repo_id,
    rows,
)
from hf_induction.tasks import DATASETS, DISJOINT, VALIDATION_RULES, parse
from hf_induction.templates import dataset_card_template


def check_train_size(size: int, configs, validation: str = DISJOINT) -> None:
    """ValueError, one line, if ``size`` training rows of a config (at most its pool) exceed
    this machine's memory as the sampler draws them (`runner.memory.check_train_rows`)."""
    from hf_induction.runner.memory import check_train_rows, machine_memory
    from hf_induction.tasks import train_pool_size

    memory = machine_memory("cpu")
    for cell in configs:
        check_train_rows("--train-size", size, train_pool_size(cell, validation),
                         cell.token_length(cell.max_len), memory, f"{cell.dataset}/{cell}")


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("--dataset", required=True, choices=DATASETS, help="the task")
    p.add_argument("--configs", required=True, nargs="+", metavar="NAME",
                   help="config names, e.g. acot_L20 cot_L10_uniform (grammar in the card)")
    add_groups_flag(p)
    p.add_argument("--out", required=True, type=output_folder, help="the dataset repo folder")
    p.add_argument("--train-size", type=rows, default=None,
                   help="training rows per config (default: 100,000 or the pool)")
    p.add_argument("--seed", type=nonnegative_int, default=0,
                   help="the seed every split is drawn with")
    p.add_argument("--validation", choices=VALIDATION_RULES, default=DISJOINT,
                   help="how the validation split relates to train: disjoint (set apart from "
                   "every training set) or in-distribution (drawn by the training law, the "
                   "whole pool left to train); the card's table names it per config "
                   "(default: disjoint)")
    p.add_argument("--splits", nargs="+", metavar="SPLIT", default=None,
                   help="only these splits, e.g. train validation (what an in-context "
                   "evaluation reads; default: every split of the config)")
    p.add_argument("--push-to-hub", metavar="REPO", default=None, type=repo_id,
                   help="upload the folder to this Hub dataset repo in one commit (default: no "
                   "upload)")
    args = p.parse_args(argv)
    try:
        register_groups(args)
        configs = [parse(args.dataset, name) for name in args.configs]
        once("--configs", args.configs, configs)
        once("--splits", args.splits or ())
        if args.train_size is not None:
            check_train_size(args.train_size, configs, args.validation)
    except ValueError as e:
        p.error(str(e))
    template = dataset_card_template(args.dataset)
    from hf_induction.data import build_folder  # after the arguments: usage errors are fast

    try:
        info = build_folder(args.out, args.dataset, configs, template, args.train_size, args.seed,
                            splits=args.splits, validation=args.validation)
    except ValueError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {len(info)} configs ({', '.join(sorted(info))})")
    if args.push_to_hub:
        from hf_induction.hub.commit import upload_folder_once

        outcome = push_outcome(p.prog, lambda: upload_folder_once(
            args.out, args.push_to_hub, repo_type="dataset", token=None, create=True,
            commit_message=f"Add configs: {', '.join(args.configs)}"),
            f"the folder {args.out} is kept")
        if outcome is None:
            return 1
        print(f"pushed to {args.push_to_hub}: {outcome}")
    return 0

