"""The N* search of one cell through the public API: cell -> model -> probe -> search.

    python examples/nstar_one_cell.py                # N* = 8; about two minutes on one CPU core
    EXAMPLE_SIZE=small python examples/nstar_one_cell.py   # seconds: the tests' size

A cell is one dataset config (here Z_3, length 4, answers at every position); N* is the
smallest number of its training rows from which one run of the grid (learning rates × seeds)
reaches validation loss < ε. `hf-induction nstar` does the same with a results folder that
journals every run, resumes, and spreads searches over processes; this is the bare loop.
"""

from __future__ import annotations

import os

import torch

from hf_induction.data import cell_arrays
from hf_induction.models import build_model
from hf_induction.search import ProbeOutcome, SearchSettings, run_search
from hf_induction.tasks import parse, train_pool_size
from hf_induction.training import TrainData, TrainSettings, train_grid

# "small" keeps the budget to a few steps, so that a test can run the whole script in seconds
# (it then finds no N*, which is still a complete answer: the largest size that failed).
SMALL = os.environ.get("EXAMPLE_SIZE", "full") == "small"

# 1. The cell: a dataset and a config name of its grammar; a pure function of the seed.
cell = parse("modadd", "acot_L4_m3")
pool = train_pool_size(cell)                      # 81 words, less the validation set

# 2. Its rows as tensors: the whole training pool (a size-N set is its first N rows, so the
#    sets a search probes are nested) and the validation set.
arrays = cell_arrays(cell, seed=0, max_train=pool)
data = TrainData(
    *(torch.from_numpy(a) for a in (arrays.train_input_ids, arrays.train_labels,
                                    arrays.val_input_ids, arrays.val_labels)),
    whole_pool=pool)


# 3. The model: a fresh one per run; `train_grid` seeds each call.
def new_model():
    return build_model("dense_ssm", cell.vocab, preset="tiny")


# 4. The probe: train the grid on the first n rows; success when any run reaches ε.
settings = TrainSettings(max_steps=20 if SMALL else 1500, eval_every=10 if SMALL else 50,
                         lrs=(3e-2,), seeds=(10, 20))


def probe(n: int) -> ProbeOutcome:
    runs = train_grid(new_model, data, n, settings)
    return ProbeOutcome(n=n, success=any(run.success for run in runs),
                        best_val_loss=min(run.best_val_loss for run in runs),
                        steps=sum(run.steps for run in runs),
                        runs=tuple({"lr": run.lr, "seed": run.seed, "steps": run.steps,
                                    "stop_reason": run.stop_reason} for run in runs))


# 5. The search: bracket N upward by ×4 from n_start, then bisect until hi/lo <= 1.1.
search = SearchSettings(mode="refined", n_start=2, n_max=4 if SMALL else pool)
result = run_search(probe, pool, search)
print(result.summary())
