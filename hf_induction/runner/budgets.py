"""Named budgets: the model preset, the step budget and the grid Φ a search runs under."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """What ``--preset`` selects; every field can be overridden on the command line."""

    model_preset: str
    max_steps: int
    eval_every: int
    lrs: tuple[float, ...]
    seeds: tuple[int, ...]
    batch_size: int = 64
    epsilon: float = 1e-4
    # Refined search starts here; the paper's Algorithm 1 ignores it.
    n_start: int = 16
    # The early-failure rule (`training.early.parse_early_failure`); "off" trains every run
    # to its budget, as the paper does.
    early_failure: str = "off"


BUDGETS: dict[str, Budget] = {
    # The paper: 250,000 Adam steps at batch 64, lr {1e-3, 1e-4, 1e-5} x seed {10..50}.
    "paper": Budget("paper", 250_000, 1000, (1e-3, 1e-4, 1e-5), (10, 20, 30, 40, 50)),
    # A CPU-sized budget for the README's demo: the tiny Dense-SSM learns Z_5 words of
    # length 3-4 in a few hundred steps at these learning rates (lower ones need more than
    # 1,500 steps to reach 1e-4), and a 2 x 2 grid keeps a kappa table to minutes.
    # The forecast rule changed no N* on the 10 benchmark cells and cut their steps 2.13x
    # (docs/benchmarks.md, early decisions).
    "cpu": Budget("tiny", 1500, 50, (3e-2, 1e-2), (10, 20), n_start=8,
                  early_failure="forecast"),
}
