"""Experiment trackers (``--report-to``) through Accelerate's tracker classes.

One tracker run per search job, named ``{model}/{dataset}/{config}``, so a dashboard filters
by model and cell with the run name. Inside it, every training run of every probe is its own
curve, ``n{N}/lr{lr}-seed{seed}/val_loss`` against the training step (filter by N with the tag),
with that run's ``steps`` and ``success`` once it ends; each probe logs ``probe/success``,
``probe/best_val_loss`` and ``probe/steps`` at step N. The run's config holds the job's keys
and the protocol.

wandb keeps one step counter per run and drops a row logged at a lower step than the last,
while every training run's curve starts again at its first evaluation and probes log at N:
there each curve, and the probes, log their own x axis (``{curve}/step``, ``probe/n``),
declared with ``define_metric``. wandb runs offline unless ``WANDB_MODE`` says otherwise (no
login, no network; ``wandb sync`` uploads a run later), its files under the logging dir.

Searches run on every process, so each process logs its own jobs: Accelerate's
``Accelerator.log`` would keep the main process's only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# The package each tracker needs (pip install NAME).
PACKAGES = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}


def check_available(report_to) -> None:
    """ValueError naming the package to install, for a tracker that cannot start here."""
    import importlib.util

    for name in report_to:
        if name in PACKAGES and importlib.util.find_spec(PACKAGES[name]) is None:
            raise ValueError(f"--report-to {name} needs the {PACKAGES[name]} package: "
                             f"pip install {PACKAGES[name]}")
    if "wandb" in report_to and "WANDB_MODE" in os.environ:
        _check_wandb_mode(os.environ["WANDB_MODE"])


def _check_wandb_mode(mode: str) -> None:
    """wandb refuses a mode it does not know only when the run starts, with a traceback."""
    import typing

    import wandb

    allowed = typing.get_args(wandb.Settings.model_fields["mode"].annotation)
    if mode not in allowed:
        raise ValueError(f"WANDB_MODE={mode!r} is not a wandb mode; allowed: "
                         f"{', '.join(allowed)} (unset: offline)")


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

    def log(self, values: dict[str, float], step: int, axis: str = "step") -> None:
        """Log ``values`` at ``step``, which counts ``axis`` (training steps, or N)."""
        for tracker in self.trackers:
            tracker.log(values, step, axis)

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
                  "probe/steps": int(steps)}, n, axis="n")

    def finish(self) -> None:
        for tracker in self.trackers:
            tracker.finish()


class SharedAxis:
    """An Accelerate tracker that takes any step for any key (TensorBoard, trackio)."""

    def __init__(self, tracker) -> None:
        self.tracker = tracker

    def log(self, values: dict[str, float], step: int, axis: str) -> None:
        self.tracker.log(values, step=step)

    def finish(self) -> None:
        self.tracker.finish()


class OwnAxes(SharedAxis):
    """A wandb tracker whose curves each count their own x axis (see the module docstring):
    a row holds its values and ``{group}/{axis}``, where the group is the keys' prefix up to
    the last "/", and is logged at wandb's own next step."""

    def __init__(self, tracker) -> None:
        super().__init__(tracker)
        self.declared: set[str] = set()

    def log(self, values: dict[str, float], step: int, axis: str) -> None:
        groups = {key.rpartition("/")[0] for key in values}
        for group in sorted(groups - self.declared):
            # define_metric reads "." as nesting (lr0.03 would name a metric "03-seed10"
            # under "lr0"): escaped, the names are the logged keys.
            name = group.replace(".", "\\.")
            self.tracker.run.define_metric(f"{name}/*", step_metric=f"{name}/{axis}")
            self.declared.add(group)
        self.tracker.log({**values, **{f"{group}/{axis}": step for group in groups}})


def _wandb(cls, project: str, run_name: str, logging_dir: Path):
    import wandb

    # Offline unless the user chose a mode: no login prompt, nothing sent.
    mode = {} if os.environ.get("WANDB_MODE") else {"mode": "offline"}
    logging_dir.mkdir(parents=True, exist_ok=True)
    # The logging dir is part of the results folder, which is pushed as it is: no link to a
    # folder ("latest-run", the run again) in it.
    return cls(project, name=run_name, dir=str(logging_dir),
               settings=wandb.Settings(symlink=False), **mode)


# How each tracker is made from its Accelerate class (the project, the job's run name and the
# logging dir), and how it logs. trackio and wandb take the project as Accelerate's run name.
KINDS = {
    "tensorboard": (lambda cls, project, run, logging_dir: cls(run, logging_dir), SharedAxis),
    "trackio": (lambda cls, project, run, logging_dir: cls(project, name=run), SharedAxis),
    "wandb": (_wandb, OwnAxes),
}
REPORT_TO = ("none", *KINDS)


class Trackers:
    """Makes a `JobTracker` per search job for the names in ``report_to`` ("none": nothing).

    ``logging_dir`` is where TensorBoard and wandb write (wandb under ``wandb/`` there);
    trackio writes to its own store (``TRACKIO_DIR``). trackio and wandb file the runs under
    the project ``project``.
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
            make, logs = KINDS[name]
            tracker = make(LOGGER_TYPE_TO_CLASS[name], self.project, run_name, self.logging_dir)
            # Every process logs its own jobs (see the module docstring).
            tracker.main_process_only = False
            tracker.start()
            tracker.store_init_configuration(_flat_config({**self.config, **job_config}))
            trackers.append(logs(tracker))
        return JobTracker(trackers)
