"""Deciding a failing run before its budget is spent, without deciding a succeeding one.

A probe below N* fails only after every run of its grid has trained its whole budget (the
paper: 15 × 250,000 steps), so failing probes are most of a search's compute. The rule here,
``forecast``, stops a run as failed when two things hold at an evaluation:

- **It cannot reach ε in time at its current pace.** The best validation loss b(t) of a run
  falls, on these tasks, roughly as a power of the step (a straight line on log-log axes).
  The slope over the last half of the run so far,
  log(b(t) / b(t/2)) / log 2, extrapolated to the end of the budget, predicts b(max_steps);
  the run is hopeless when that forecast stays above ``margin`` × ε. A flat curve (slope 0)
  forecasts its own level.
- **It has memorised its rows.** Its training loss (the mean batch loss since the previous
  evaluation) is at most ``gap`` times its validation loss. A run on an optimisation plateau
  (GPT-2 sits at 1.46 for hundreds of steps before it falls to 0.005) has its training loss
  as high as its validation loss: it is still learning the rows it sees, and a flat
  validation curve there says nothing about what comes after, so the rule leaves it alone.
  A run that fits its training rows far better than unseen ones and whose validation loss
  no longer falls fast enough is generalising no further.

Nothing is decided before ``start`` × max_steps steps, so the slope is measured over at least
half of that. Nor, unless ``whole_pool``, at a probe of the cell's whole training pool: that
probe alone decides whether N* exists at all, the strongest claim a search makes ("not
learned from all the data"), and the late generalisation seen there gives no sign beforehand.
The Dense-SSM reached ε on all 3 training words of Z_2 at length 2 at step 17,500 of 20,000,
flat at its memorised level from step ~1,000; Mamba on all 7 of modadd acot_L3_m2 at step
2,600 of 3,000. The rule's first version (``forecast-v1``, ``whole_pool=True``) stopped both
and reported no N* (docs/benchmarks.md). It costs at most one probe at the full budget per
search, and only in searches that reach the whole pool.

The margin, gap and start were chosen on the recorded curves of the benchmark cells
(``scripts/bench.py --only early_decisions --record``, then ``--replay``: bench/replay.py;
docs/benchmarks.md). The gap is what keeps N*: GPT-2's loss falls in late jumps no forecast
sees coming (0.038 to 0.0006 in 500 steps, at 62% of the budget), and its succeeding runs had
a training loss of at least 0.08× their validation loss before they did, while failing runs
went down to 0.0007×; a gap of 0.1 stopped the run that would have succeeded and moved N* on
modadd cot_L3.

``patience`` is the older rule (``--early-failure STEPS``): stop when the best validation loss
has not fallen by ``min_improvement`` within a window of steps. It ignores plateaus, and a
1,000-step window moved the LSTM's N* by +19% (docs/benchmarks.md); it is kept for the folders
made with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial


@dataclass(frozen=True)
class Forecast:
    """The ``forecast`` early-failure rule (module docstring); ``name`` keys the protocol."""

    margin: float = 10.0
    gap: float = 0.02
    start: float = 0.1
    whole_pool: bool = False
    name: str = "forecast"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.margin) and self.margin >= 1):
            raise ValueError(f"forecast margin must be a finite number >= 1, got {self.margin}")
        if not 0 < self.gap <= 1:
            raise ValueError(f"forecast gap must lie in (0, 1], got {self.gap}")
        if not 0 < self.start < 1:
            raise ValueError(f"forecast start must lie in (0, 1), got {self.start}")

    def state(self, n: int | None = None, pool: int | None = None) -> ForecastState:
        return ForecastState(self, n, pool)


class ForecastState:
    """One run's history under `Forecast`: (step, best validation loss) at every evaluation."""

    def __init__(self, rule: Forecast, n: int | None = None, pool: int | None = None) -> None:
        self.rule = rule
        self.history: list[tuple[int, float]] = []
        self.waits = not rule.whole_pool and None not in (n, pool) and n >= pool

    def hopeless(self, step: int, best: float, val_loss: float, train_loss: float,
                 max_steps: int, epsilon: float) -> bool:
        self.history.append((step, best))
        rule = self.rule
        if self.waits or step < rule.start * max_steps or not train_loss <= rule.gap * val_loss:
            return False
        earlier = [(s, b) for s, b in self.history if s <= step / 2]
        if not earlier:
            return False
        then, best_then = earlier[-1]
        slope = min(0.0, math.log(best / best_then) / math.log(step / then))
        return best * (max_steps / step) ** slope > rule.margin * epsilon


@dataclass(frozen=True)
class Patience:
    """Stop when the best validation loss has not fallen below ``min_improvement`` times the
    best at its last such fall within ``window`` steps."""

    window: int
    min_improvement: float = 0.5
    name: str = "patience"

    def __post_init__(self) -> None:
        if isinstance(self.window, bool) or not isinstance(self.window, int) or self.window < 1:
            raise ValueError(f"patience window must be an integer >= 1 steps, got {self.window!r}")
        if not 0 < self.min_improvement < 1:
            raise ValueError(
                f"min_improvement must lie in (0, 1), got {self.min_improvement}")

    def state(self, n: int | None = None, pool: int | None = None) -> PatienceState:
        return PatienceState(self)


class PatienceState:
    def __init__(self, rule: Patience) -> None:
        self.rule = rule
        self.ref_best = math.inf
        self.ref_step = 0

    def hopeless(self, step: int, best: float, val_loss: float, train_loss: float,
                 max_steps: int, epsilon: float) -> bool:
        if best <= self.rule.min_improvement * self.ref_best:
            self.ref_best, self.ref_step = best, step
            return False
        return step - self.ref_step >= self.rule.window


EarlyFailure = Forecast | Patience

# What `--early-failure` accepts by name; an integer is a `Patience` window. forecast-v1 is
# the first version, which decided the whole pool's probe too; kept so that folders made with
# it resume.
RULES: dict[str, Callable[[], EarlyFailure]] = {
    "forecast": Forecast, "forecast-v1": partial(Forecast, whole_pool=True)}
OFF = "off"


def parse_early_failure(text: str) -> EarlyFailure | None:
    """``off`` (None), a rule name of `RULES`, or a whole number of steps (`Patience`)."""
    value = str(text).strip().lower()
    if value == OFF:
        return None
    if value in RULES:
        return RULES[value]()
    if value.isdigit() and int(value) >= 1:
        return Patience(int(value))
    raise ValueError(
        f"early failure must be {OFF!r}, one of {', '.join(RULES)}, or a patience window "
        f"in steps (an integer >= 1); got {text!r}")
