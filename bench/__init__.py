"""Benchmarks of this project's training and search, one module per section, behind one
command (``python -m bench`` from the repository root, or ``python scripts/bench.py``).

Not part of the installed package: nothing a user runs needs it. It holds what only the
benchmarks use beside the sections: the `transformers.Trainer` baseline
(`hf_trainer_baseline`), the replay of recorded curves (`replay`) and the Dense-SSM timing
of the fast path against its naive reference, which stays in the model's folder
(`hf_induction/models/dense_ssm/naive.py`). The tests hold the baseline and the replay to
the package's trainer (`train_run`, `train_grid`), which is their reference.

Sections: architecture_steps (every registered model's step time at both presets beside
GPT-2's), copy_draw (copy's unique sources drawn as before against now, the same rows),
delta_rule_chunked_vs_recurrent (DeltaNet's, RWKV-7's and the complex selective SSM's chunked
kernels against their naive recurrences, training steps at T = 64 and 256), generation
(examples per second of the task generator), gemm (the machine's fp32 matrix-multiply rate, the
practical peak every achieved rate is compared with), paper_step (per model, paper preset,
batch 64, length 20: step time, analytic FLOPs, GFLOP/s and its ratio to gemm),
dense_ssm_fast_vs_reference, dense_ssm_stacking (15 stacked Dense-SSMs against 15 separate ones
per state size), grid_speedup (15 separate runs over the stacked grid, same steps),
gpt2_activation (GPT-2's gelu_new against the fused tanh kernel), compile (torch.compile
against eager), search_speedup_vs_trainer (a whole N* search with transformers.Trainer over
ours, same budget, both N*, and the steps spent against the paper protocol), early_failure (N*
with and without the patience rule on small cells), early_decisions (refined searches of 13
cells with the default forecast rule and without it: N*, steps; with --replay also the first
rule, the known-fate bounds and where the rule's steps go), threads (searches per hour: 1
process x 2 threads vs 2 processes x 1 thread), scheduling (a skewed fake campaign's makespan
over its lower bound, static split against the dynamic queue, at 2, 4 and 8 processes),
warm_start (the published campaigns' refined searches replayed from their recorded probes, cold
and from the hint their folder held: probes, steps, and whether any N* moved). Ratios are
measured side by side in one run; absolute times on a shared machine are noisy.
"""

# Each is a module of this package with ``run(options: BenchOptions) -> dict``; the command
# imports only the sections it runs, so ``--help`` needs no torch.
SECTIONS = (
    "architecture_steps",
    "compile",
    "copy_draw",
    "dense_ssm_fast_vs_reference",
    "dense_ssm_stacking",
    "delta_rule_chunked_vs_recurrent",
    "early_decisions",
    "early_failure",
    "gemm",
    "generation",
    "gpt2_activation",
    "grid_speedup",
    "paper_step",
    "scheduling",
    "search_speedup_vs_trainer",
    "threads",
    "warm_start",
)
