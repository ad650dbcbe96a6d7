"""Every cell's refined search with the default rule (`Forecast`) and without it: same
budget, same grid; both N*, both step counts, and the totals. --quick runs 3 cells.
--record trains each search once with every run to its end; --replay decides both
searches, and the rule with succeeded-first run order, from that recording (`replay`)."""

from __future__ import annotations

import json
from pathlib import Path

from hf_induction.models import build_model
from hf_induction.search import SearchSettings
from hf_induction.training import Forecast, TrainSettings, parse_early_failure
from hf_induction.training.grid import has_stacked_forward

from .common import cell_data, search_cell
from .options import BenchOptions
from .replay import KnownFate, Unrecorded, replay_search

# The early-decision set: three formats, both groups, the recurrent models and GPT-2 (cot, whose
# loss sits on plateaus), each at a budget whose whole search this machine affords, and where
# the model learns the cell (so that N* exists on most of them).
_CPU = dict(max_steps=1500, eval_every=50, lrs=(3e-2, 1e-2), seeds=(10, 20))
_LSTM = dict(max_steps=3000, eval_every=50, lrs=(1e-2, 3e-3), seeds=(10, 20))
_GPT2 = dict(max_steps=5000, eval_every=100, lrs=(1e-3,), seeds=(10, 20))
EARLY_DECISION_CELLS = [
    ("modadd", "acot_L4", "dense_ssm", _CPU),
    ("modadd", "outcome_L4_m3", "dense_ssm", _CPU),
    ("modadd", "cot_L3_m3", "dense_ssm", _CPU),
    ("permutation", "acot_L3_S3", "dense_ssm", _CPU),
    ("permutation", "outcome_L3_S3", "dense_ssm", _CPU),
    ("modadd", "acot_L4_m3", "lstm", _LSTM),
    ("permutation", "acot_L3_S3", "lstm", _LSTM),
    ("modadd", "outcome_L3_m3", "lstm", _LSTM),
    ("modadd", "cot_L3", "gpt2", _GPT2),
    # The cell where a 1,000-step patience window moved the LSTM's N* by +19%.
    ("modadd", "acot_L5", "lstm", dict(max_steps=5000, eval_every=100, lrs=(1e-2, 3e-3),
                                       seeds=(10, 20))),
    ("permutation", "cot_L3_S3", "gpt2", _GPT2),
    # Tiny pools, where every batch holds the whole training set and the first forecast rule
    # moved N*: a 3-word Z_2 set the Dense-SSM generalises from only at step 17,500 (the
    # README's kappa), and the 7-word acot_L3_m2 set Mamba learns at step 2,600 of 3,000.
    ("modadd", "acot_L2_m2", "dense_ssm", dict(max_steps=20000, eval_every=100, lrs=(3e-2,),
                                                seeds=(10, 20))),
    ("modadd", "acot_L3_m2", "mamba", dict(max_steps=3000, eval_every=100, lrs=(1e-2, 3e-3),
                                           seeds=(10, 20))),
]


def _grid_is_stacked(model: str, vocab) -> bool:
    """Whether `train_grid` stacks this model's grid on the CPU (else runs one at a time)."""
    built = build_model(model, vocab, "tiny")
    return has_stacked_forward(built) and getattr(built, "stacked_grid_wins_on_cpu", False)


def _curve_recorder(runs: dict):
    """An ``on_eval`` for `search_cell` that appends each evaluation to ``runs``, keyed
    "N/lr/seed" (read back by `_curve_point`)."""
    def record(n, lr, seed, step, val, train):
        runs.setdefault(f"{n}/{lr!r}/{seed}", []).append((step, val, train))
    return record


def _curve_point(key: str) -> tuple[int, tuple[float, int]]:
    """"N/lr/seed" -> (N, (lr, seed))."""
    n, lr, seed = key.split("/")
    return int(n), (float(lr), int(seed))


def _early_cells(quick: bool, parts: tuple[str, ...] | None) -> list:
    cells = EARLY_DECISION_CELLS[:3] if quick else EARLY_DECISION_CELLS
    if parts:
        cells = [c for c in cells if any(part in "/".join(c[:3]) for part in parts)]
    return cells


def _record(cells: list, path: Path) -> dict:
    """Each cell's search without a rule, every run trained to its own end, its curves
    written to ``path`` after each cell (what --replay reads)."""
    recorded = json.loads(path.read_text()) if path.exists() else {}
    out = {}
    for dataset, config, model, budget in cells:
        key = f"{dataset}/{config}/{model}"
        if key in recorded and recorded[key]["budget"] == json.loads(json.dumps(budget)):
            print(f"  {key}: recorded already", flush=True)
            continue
        runs: dict = {}
        record = _curve_recorder(runs)
        settings = TrainSettings(**budget, stop_on_first_success=False)
        r = search_cell(dataset, config, model, settings, mode="refined", n_start=8,
                        on_eval=record)
        data, vocab = cell_data(dataset, config)
        recorded[key] = {"budget": budget, "stacked": _grid_is_stacked(model, vocab),
                         "pool": data.whole_pool, "runs": runs}
        path.write_text(json.dumps(recorded))
        out[f"early_decisions_{key}_recorded"] = (
            f"N* {r['n_star']} ({r['largest_failing']}, {r['n_star']}] steps {r['steps']} "
            f"wall {r['wall_s']:.0f}s")
        print(f"  {key}: {out[f'early_decisions_{key}_recorded']}", flush=True)
    return out


def _spent_where(log: list, pool: int, epsilon: float, curves: dict, rule) -> dict:
    """Where a replayed search's steps went: the runs that reached ε, the whole pool's
    probe, runs the rule stopped, runs stacked beside a winner until it won, and failing
    runs the rule let train on, split by whether they came within the rule's margin of ε
    (converging slowly) or never memorised by the rule's gap (the plateaus it spares by
    design)."""
    where = dict.fromkeys(("reached_eps", "whole_pool", "stopped_by_rule", "beside_the_winner",
                           "within_10x_eps", "never_memorised", "other_failing"), 0)
    for n, runs in log:
        for point, reason, steps in runs:
            seen = [(v, t) for s, v, t in curves[n][point] if s <= steps]
            if reason == "epsilon":
                part = "reached_eps"
            elif n >= pool:
                part = "whole_pool"
            elif reason == "early_failure":
                part = "stopped_by_rule"
            elif reason == "probe_decided":  # stacked beside the run that reached ε
                part = "beside_the_winner"
            elif seen and min(v for v, _ in seen) < rule.margin * epsilon:
                part = "within_10x_eps"
            elif not any(t <= rule.gap * v for v, t in seen):
                part = "never_memorised"
            else:
                part = "other_failing"
            where[part] += steps
    return where


def _replay(cells: list, path: Path, forecast: dict) -> dict:
    """Each recorded cell replayed without the rule and with it (`replay`), and under the
    known-fate bound (`replay.KnownFate`) that no stopping rule can beat."""
    recorded = json.loads(path.read_text())
    # forecast-v1 decided the whole pool's probe too; "ordered" trains the points that
    # succeeded at earlier probes first, as the nstar command does; the known_fate columns
    # bound any rule, and any rule that waits at the whole pool as forecast does.
    rule = Forecast(**forecast)
    rules = {"off": (None, False, None),
             "forecast-v1": (parse_early_failure("forecast-v1"), False, None),
             "forecast": (rule, False, None), "forecast_ordered": (rule, True, None),
             "known_fate": (None, False, KnownFate()),
             "known_fate_waiting_at_whole_pool": (None, False, KnownFate(whole_pool=False))}
    out: dict = {"early_decisions_rule": repr(rule)}
    totals = dict.fromkeys(rules, 0)
    where_total: dict = {}
    moved: dict = {tag: [] for tag in rules}
    for dataset, config, model, _ in cells:
        key = f"{dataset}/{config}/{model}"
        if key not in recorded:
            print(f"  {key}: not recorded", flush=True)
            continue
        cell = recorded[key]
        curves: dict = {}
        for name, curve in cell["runs"].items():
            n, point = _curve_point(name)
            curves.setdefault(n, {})[point] = curve
        found = {}
        for tag, (stop_rule, ordered, fate) in rules.items():
            settings = TrainSettings(**cell["budget"], early_failure=stop_rule)
            search = SearchSettings(mode="refined", n_start=8,
                                    n_max=settings.max_steps * settings.batch_size)
            log: list = []
            try:
                r = replay_search(curves, cell["pool"], search, settings, cell["stacked"],
                                  ordered, fate, log)
                found[tag] = (r.n_star, r.largest_failing, r.total_steps)
            except Unrecorded as e:
                found[tag] = (f"moved (the replay reached {e.args[0]})", None, 0)
            totals[tag] += found[tag][2]
            n_star, failing, steps = found[tag]
            out[f"early_decisions_{key}_{tag}"] = f"N* {n_star} ({failing}, {n_star}] steps {steps}"
            if tag != "off" and found[tag][:2] != found["off"][:2]:
                moved[tag].append(key)
            if tag == "forecast_ordered":
                for part, spent in _spent_where(log, cell["pool"], settings.epsilon,
                                                curves, stop_rule).items():
                    where_total[part] = where_total.get(part, 0) + spent
        for tag in rules:
            if tag != "off" and found[tag][2]:
                out[f"early_decisions_{key}_{tag}_ratio"] = found["off"][2] / found[tag][2]
    out["early_decisions_cells"] = len(cells)
    for tag in rules:
        out[f"early_decisions_steps_{tag}"] = totals[tag]
        if tag != "off":
            out[f"early_decisions_{tag}_nstar_moved"] = ", ".join(moved[tag]) or "none"
            out[f"early_decisions_{tag}_steps_ratio"] = totals["off"] / max(totals[tag], 1)
    # Where the rule's steps go, as fractions of its total (the default rule, ordered runs).
    spent = max(sum(where_total.values()), 1)
    for part, steps in where_total.items():
        out[f"early_decisions_forecast_spent_{part}"] = f"{steps} ({steps / spent:.0%})"
    return out


def run(options: BenchOptions) -> dict:
    cells = _early_cells(options.quick, options.cells)
    if options.record:
        return _record(cells, Path(options.record))
    if options.replay:
        return _replay(cells, Path(options.replay), options.forecast)
    curves: dict = {}
    out: dict = {"early_decisions_rule": repr(Forecast())}
    totals = {"off": 0, "forecast": 0}
    moved = []
    for dataset, config, model, budget in cells:
        key = f"{dataset}/{config}/{model}"
        found = {}
        for tag, rule in (("off", None), ("forecast", Forecast())):
            settings = TrainSettings(**budget, early_failure=rule)
            record = None
            if tag == "off" and options.curves:
                record = _curve_recorder(
                    curves.setdefault(key, {"budget": budget, "runs": {}})["runs"])
            found[tag] = r = search_cell(dataset, config, model, settings, mode="refined",
                                         n_start=8, on_eval=record, ordered=rule is not None)
            if record is not None:
                Path(options.curves).write_text(json.dumps(curves))
            totals[tag] += r["steps"]
            out[f"early_decisions_{key}_{tag}"] = (
                f"N* {r['n_star']} ({r['largest_failing']}, {r['n_star']}] "
                f"steps {r['steps']} wall {r['wall_s']:.0f}s")
            print(f"  {key} {tag}: {out[f'early_decisions_{key}_{tag}']}", flush=True)
        if (found["off"]["n_star"], found["off"]["largest_failing"]) != (
                found["forecast"]["n_star"], found["forecast"]["largest_failing"]):
            moved.append(key)
        off, on = found["off"]["steps"], found["forecast"]["steps"]
        out[f"early_decisions_{key}_steps_ratio"] = off / on
    out["early_decisions_cells"] = len(cells)
    out["early_decisions_nstar_moved"] = ", ".join(moved) or "none"
    out["early_decisions_steps_off"] = totals["off"]
    out["early_decisions_steps_forecast"] = totals["forecast"]
    out["early_decisions_steps_ratio"] = totals["off"] / totals["forecast"]
    return out
