"""Experiment trackers (``--report-to``) through Accelerate's tracker classes.

One tracker run per search job, named ``{model}/{dataset}/{config}``, so a dashboard filters
by model and cell with the run name. Inside it, every training run of every probe is its own
curve, ``n{N}/lr{lr}-seed{seed}/val_loss`` against the training step (filter by N with the tag),
with that run's ``steps`` and ``success`` once it ends; each probe logs ``probe/success``,
``probe/best_val_loss`` and ``probe/steps`` at step N. The run's config holds the job's keys
and the protocol.

Searches run on every process, so each process logs its own jobs: Accelerate's
``Accelerator.log`` would keep the main process's only.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

REPORT_TO = ("none", "tensorboard", "trackio", "wandb")
# The package each tracker needs (pip install NAME).
PACKAGES = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}


def check_available(report_to) -> None:
    """ValueError naming the package to install, for a tracker that cannot start here."""
    import importlib.util

    for name in report_to:
        if name in PACKAGES and importlib.util.find_spec(PACKAGES[name]) is None:
            raise ValueError(f"--report-to {name} needs the {PACKAGES[name]} package: "
                             f"pip install {PACKAGES[name]}")


def curve_prefix(n: int, lr: float, seed: int) -> str:
    return f"n{n}/lr{lr:g}-seed{seed}"


def _flat_config(values: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalars only (TensorBoard's hparams take bool, str, int, float): nested keys dotted,
    sequences as text."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        if isinstance(value, Mapping):
            out.update(_flat_config(value, f"{prefix}{key}."))
        elif value is None or isinstance(value, bool | int | float | str):
            out[f"{prefix}{key}"] = value
        else:
            out[f"{prefix}{key}"] = str(list(value) if isinstance(value, tuple) else value)
    return out


class JobTracker:
    """The tracker runs of one search job (one per name in ``report_to``)."""

    def __init__(self, trackers: list) -> None:
        self.trackers = trackers

    def log(self, values: dict[str, float], step: int) -> None:
        for tracker in self.trackers:
            tracker.log(values, step=step)

    def on_eval(self, n: int, lr: float, seed: int, step: int, val_loss: float,
                train_loss: float) -> None:
        prefix = curve_prefix(n, lr, seed)
        self.log({f"{prefix}/val_loss": float(val_loss),
                  f"{prefix}/train_loss": float(train_loss)}, step)

    def on_run(self, row: Mapping[str, Any]) -> None:
        prefix = curve_prefix(row["n"], row["lr"], row["seed"])
        self.log({f"{prefix}/steps": int(row["steps"]), f"{prefix}/success": int(row["success"])},
                 int(row["steps"]))

    def on_probe(self, n: int, success: bool, best_val_loss: float, steps: int) -> None:
        self.log({"probe/success": int(success), "probe/best_val_loss": float(best_val_loss),
                  "probe/steps": int(steps)}, n)

    def finish(self) -> None:
        for tracker in self.trackers:
            tracker.finish()


class Trackers:
    """Makes a `JobTracker` per search job for the names in ``report_to`` ("none": nothing).

    ``logging_dir`` is where TensorBoard writes; trackio writes to its own store
    (``TRACKIO_DIR``) under the project ``project``, wandb to its own (``WANDB_DIR``, offline
    with ``WANDB_MODE=offline``).
    """

    def __init__(self, report_to: tuple[str, ...], logging_dir: Path, project: str,
                 config: Mapping[str, Any]) -> None:
        unknown = sorted(set(report_to) - set(REPORT_TO))
        if unknown:
            raise ValueError(f"unknown tracker(s) {unknown}; allowed: {', '.join(REPORT_TO)}")
        self.names = tuple(n for n in dict.fromkeys(report_to) if n != "none")
        self.logging_dir = Path(logging_dir)
        self.project = project
        self.config = dict(config)

    @property
    def enabled(self) -> bool:
        return bool(self.names)

    def for_job(self, run_name: str, job_config: Mapping[str, Any]) -> JobTracker:
        from accelerate.tracking import LOGGER_TYPE_TO_CLASS

        trackers = []
        for name in self.names:
            cls = LOGGER_TYPE_TO_CLASS[name]
            if name == "tensorboard":
                tracker = cls(run_name, self.logging_dir)
            else:
                # trackio and wandb take the project as Accelerate's run name, the run as name.
                tracker = cls(self.project, name=run_name)
            # Every process logs its own jobs (see the module docstring).
            tracker.main_process_only = False
            tracker.start()
            tracker.store_init_configuration(_flat_config({**self.config, **job_config}))
            trackers.append(tracker)
        return JobTracker(trackers)
