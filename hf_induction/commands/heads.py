"""Attention heads of trained models, as the heads (and patching) table of a results folder.

    hf-induction heads RESULTS_DIR [--model rope gpt2_offset] [--prompts 256] [--patch]
    hf-induction heads --checkpoint PATH --dataset copy --config UF_L10 --out RESULTS_DIR

The first scores every checkpoint RESULTS_DIR/checkpoints/ keeps (``nstar --lengthgen
--keep-checkpoints``) on its family's tasks at its own cell and on repeated random sequences
over its symbols; the second any causal LM folder (ours or transformers') on the cells named
and their repeated sequences. Rows already recorded are skipped; RESULTS_DIR/heads.json is
rewritten from the tables; ``hf-induction report`` draws the heat maps and patching plots.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from ..tasks import DATASETS, parse
from .parsing import Parser, first_line, int_in, nonnegative_int, output_folder, prog, rows

EXAMPLES = """examples:
  hf-induction nstar --dataset copy --config UF_L10 --model rope gpt2_offset --lengthgen \\
      --no-search --keep-checkpoints --out build/lengthgen
  hf-induction heads build/lengthgen --patch
  hf-induction heads --checkpoint build/my-model --dataset retrieval --config UR_L8 \\
      --out build/heads
  hf-induction report build/lengthgen --out docs/results/lengthgen   # tables and heat maps
"""


def build_parser() -> Parser:
    p = Parser(prog=prog(__name__), description=__doc__, epilog=EXAMPLES)
    p.add_argument("results", nargs="?", type=Path, metavar="RESULTS_DIR",
                   help="a results folder whose kept checkpoints (checkpoints/) to score; "
                   "or give --checkpoint with --out")
    p.add_argument("--model", nargs="+", metavar="NAME",
                   help="with RESULTS_DIR: only the checkpoints of these models (default: "
                   "every one; one without attention is then left out, with a line)")
    p.add_argument("--checkpoint", metavar="PATH",
                   help="a causal LM folder to score instead (loaded with "
                   "AutoModelForCausalLM.from_pretrained(PATH, trust_remote_code=True)), on "
                   "--dataset/--config, into --out (default: none)")
    p.add_argument("--dataset", choices=DATASETS,
                   help="with --checkpoint: the task of the prompts (default: none)")
    p.add_argument("--config", nargs="+", metavar="NAME",
                   help="with --checkpoint: the task cells the prompts are drawn from, e.g. "
                   "UF_L10 (default: none)")
    p.add_argument("--out", type=output_folder,
                   help="with --checkpoint: the results folder to write into (default: none)")
    p.add_argument("--prompts", type=rows, default=256,
                   help="prompts drawn from each prompt set's validation split")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the prompts")
    p.add_argument("--patch", action="store_true",
                   help="also patch every head's induction keys and anti-induction values "
                   "(the patching table; one forward per head and kind)")
    p.add_argument("--batch-size", type=rows, default=64, help="prompts per forward")
    p.add_argument("--threads", type=int_in(1, os.cpu_count() or 1, "this machine's cores"),
                   default=1, help="torch threads on the CPU (tiny models run fastest on one; "
                   "give more for a large model)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _check_models(names: list[str]) -> None:
    from ..models.registry import HF_PREFIX, model_spec

    for name in names:
        if not name.startswith(HF_PREFIX):
            model_spec(name)  # ValueError naming the models allowed


def _check_prompts(checkpoints, n_prompts: int) -> None:
    """ValueError, one line, where ``n_prompts`` repeated sequences of a checkpoint (drawn
    ``n_prompts`` at a time; a cell's validation split holds what it holds) take more memory
    than this machine has, by the floor nstar holds a training set to
    (`runner.memory.check_train_rows`)."""
    from ..analysis.prompts import repeated_tokens
    from ..analysis.sets import REPEATED
    from ..runner.memory import check_train_rows, machine_memory

    memory = machine_memory("cpu")
    for checkpoint in checkpoints:
        for prompt_set in checkpoint.sets:
            if prompt_set.dataset == REPEATED:
                check_train_rows("--prompts", n_prompts, n_prompts,
                                 repeated_tokens(prompt_set.cell.max_len), memory,
                                 f"{checkpoint.name} on {prompt_set.config}", what="prompts")


def _plan(args, parser):
    """(folder, checkpoints, notes, skip_without_attention, models loaded), or a one-line
    usage error; a --checkpoint is loaded and checked before its --out is made."""
    from ..analysis.heads import given_checkpoint, kept_checkpoints_of, ready_model
    from ..results import CorruptResults, NestedResults, ResultsFolder

    with_checkpoint = [flag for flag, value in (("--dataset", args.dataset),
                                                ("--config", args.config),
                                                ("--out", args.out)) if value is not None]
    if (args.results is None) == (args.checkpoint is None):
        parser.error("give either RESULTS_DIR (its kept checkpoints) or --checkpoint PATH "
                     "with --dataset, --config and --out")
    try:
        if args.results is not None:
            if with_checkpoint:
                parser.error(f"{', '.join(with_checkpoint)} go with --checkpoint; RESULTS_DIR's "
                             "checkpoints are scored on their own cells")
            _check_models(args.model or [])
            # Read first; written (its new tables made) only once there is work for it.
            folder = ResultsFolder.existing(args.results)
            checkpoints, notes = kept_checkpoints_of(folder, args.model)
            if not checkpoints:
                held = sorted({c.model for c in kept_checkpoints_of(folder)[0]})
                what = (f"no checkpoint of {', '.join(args.model)} (it holds: "
                        f"{', '.join(held)})" if args.model and held else notes[0] if notes
                        else "no checkpoints (nstar --lengthgen --keep-checkpoints keeps them)")
                parser.error(f"{args.results}/checkpoints: {what}")
            _check_prompts(checkpoints, args.prompts)
            return ResultsFolder(folder.path), checkpoints, notes, args.model is None, {}
        if args.model:
            parser.error("--model filters RESULTS_DIR's checkpoints; --checkpoint names one")
        missing = [flag for flag in ("--dataset", "--config", "--out")
                   if flag not in with_checkpoint]
        if missing:
            parser.error(f"--checkpoint needs {', '.join(missing)}")
        if not (Path(args.checkpoint) / "config.json").is_file():
            parser.error(f"--checkpoint {args.checkpoint}: not a model folder (no config.json)")
        cells = [parse(args.dataset, name) for name in args.config]
        checkpoint = given_checkpoint(args.checkpoint, cells)
        _check_prompts([checkpoint], args.prompts)
        options = _options(args)
        model = ready_model(checkpoint, options)
        return ResultsFolder(args.out), [checkpoint], [], False, {checkpoint.name: model}
    except (ValueError, OSError, CorruptResults, NestedResults) as e:
        # NoAttention, a vocabulary the prompts overrun, a folder that holds no model.
        parser.error(first_line(e))


def _options(args):
    from ..analysis.heads import HeadsOptions

    return HeadsOptions(n_prompts=args.prompts, seed=args.seed, patch=args.patch,
                        batch_size=args.batch_size)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    folder, checkpoints, notes, skip, loaded = _plan(args, parser)
    from ..analysis.heads import score_checkpoints

    for note in notes:
        print(f"heads: {note}", file=sys.stderr)
    try:
        summary = score_checkpoints(folder, checkpoints, _options(args),
                                    progress=not args.no_progress,
                                    skip_without_attention=skip, loaded=loaded)
    except (ValueError, OSError) as e:
        # NoAttention, a vocabulary the prompts overrun, a folder that holds no model.
        parser.error(first_line(e))
    folder.record_command(sys.argv if argv is None else ["hf-induction", "heads", *argv])
    for line in summary.skipped:
        print(f"heads: {line}", file=sys.stderr)
    print(f"{summary.heads_added} heads rows and {summary.patching_added} patching rows "
          f"added, {summary.sets_recorded_before} prompt sets already recorded; "
          f"{summary.heads_json}")
    print(f"tables and heat maps: hf-induction report {folder.path} --out DIR")
    return 0
