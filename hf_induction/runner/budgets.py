"""Named budgets: the model preset, the step budget and the grid Φ a search runs under."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# The fields a preset may set per model: architectures learn at their own rates and paces.
MODEL_FIELDS = ("max_steps", "eval_every", "lrs")


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
    # {model: {field: value}} for the MODEL_FIELDS a model trains with in place of the ones
    # above; a flag given on the command line wins over both.
    per_model: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for model, fields in self.per_model.items():
            unknown = sorted(set(fields) - set(MODEL_FIELDS))
            if unknown:
                raise ValueError(f"budget of {model}: {', '.join(unknown)} cannot be set per "
                                 f"model; allowed: {', '.join(MODEL_FIELDS)}")


BUDGETS: dict[str, Budget] = {
    # The paper: 250,000 Adam steps at batch 64, lr {1e-3, 1e-4, 1e-5} x seed {10..50}.
    "paper": Budget("paper", 250_000, 1000, (1e-3, 1e-4, 1e-5), (10, 20, 30, 40, 50)),
    # A CPU-sized budget, the default: the tiny Dense-SSM learns Z_5 words of
    # length 3-4 in a few hundred steps at these learning rates (lower ones need more than
    # 1,500 steps to reach 1e-4), and a 2 x 2 grid keeps a kappa table to minutes.
    # The forecast rule changed no N* on the 13 benchmark cells and cut their steps 2.15x
    # (docs/benchmarks.md, early decisions).
    # Each other model at its own rates and pace. GPT-2 leaves its loss plateaus at lr 1e-3
    # and 3e-4 within 5,000 steps (it learned cot_L5 with N* = 49 there: docs/results.md);
    # on acot_L3_m2's 7 words lr 1e-3 came closest (1.3e-4 at 3,000 steps; 1e-2 and 3e-3 no
    # lower than 1e-2). The tiny LSTM learned acot_L5 and acot_L10_uniform at 1e-2 in 5,000
    # steps, and 3e-2 did best of four on acot_L3_m2 (0.11). The tiny Mamba learned
    # acot_L3_m2 at 1e-2 in 2,600 steps (3e-2 diverged, 3e-3 and 1e-3 were still near 2).
    "cpu": Budget("tiny", 1500, 50, (3e-2, 1e-2), (10, 20), n_start=8,
                  early_failure="forecast", per_model={
                      "gpt2": {"lrs": (1e-3, 3e-4), "max_steps": 5000, "eval_every": 100},
                      "lstm": {"lrs": (3e-2, 1e-2), "max_steps": 5000, "eval_every": 100},
                      "mamba": {"lrs": (1e-2, 3e-3), "max_steps": 3000, "eval_every": 100},
                  }),
}
