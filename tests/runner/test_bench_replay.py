"""`scripts/bench.py --replay` on a synthetic recording: the rule's columns, the known-fate
bounds and the split of the rule's steps, recomputed here by hand."""

import json

from bench.cli import main as bench_main

KEY = "modadd/acot_L4/dense_ssm"  # a benchmark cell's key; its curves here are made up
BUDGET = {"max_steps": 200, "eval_every": 10, "lrs": [0.01], "seeds": [1, 2]}
POOL = 40
N_STAR = 20


def curve(n: int, seed: int) -> list:
    """Below N*, a run memorises (training loss 1e-5) and its validation loss stays at 0.5:
    the forecast rule stops it at 10% of the budget, step 20. From N*, seed 1 reaches ε
    at step 100 (generalising: training loss as high as validation loss); seed 2 never does."""
    if n >= N_STAR and seed == 1:
        return [(s, 1e-5 if s >= 100 else 0.1, 1e-5 if s >= 100 else 0.1)
                for s in range(10, 201, 10)]
    return [(s, 0.5, 1e-5) for s in range(10, 201, 10)]


def test_the_replay_reports_both_bounds_and_where_the_rules_steps_went(tmp_path):
    runs = {f"{n}/{0.01!r}/{seed}": curve(n, seed) for n in range(1, POOL + 1)
            for seed in (1, 2)}
    recording = tmp_path / "curves.json"
    recording.write_text(json.dumps({KEY: {"budget": BUDGET, "stacked": False, "pool": POOL,
                                           "runs": runs}}))
    out = tmp_path / "bench.json"
    # The benchmark's own command (`scripts/bench.py` is a shim for it), in this process.
    assert bench_main(["--only", "early_decisions", "--replay", str(recording), "--cells", KEY,
                       "--json", str(out)]) == 0
    text = out.read_text()
    figures = json.loads(text)
    figures = figures.get("results", figures)
    # The refined search from 8: 8 fails, 32 succeeds, then bisection down to (19, 20].
    probes = [8, 32, 16, 23, 19, 21, 20]
    failing = [n for n in probes if n < N_STAR]
    succeeding = [n for n in probes if n >= N_STAR]
    # Without a rule: failing probes train both runs to 200; succeeding ones stop at seed 1.
    off = 400 * len(failing) + 100 * len(succeeding)
    # The rule stops every failing run at step 20 (none of these probes is the whole pool).
    rule = 40 * len(failing) + 100 * len(succeeding)
    # Knowing the fate: failing runs stop at their first evaluation, step 10.
    known = 20 * len(failing) + 100 * len(succeeding)
    assert figures["early_decisions_steps_off"] == off
    assert figures["early_decisions_steps_forecast"] == rule
    assert figures["early_decisions_steps_known_fate"] == known
    assert figures["early_decisions_steps_known_fate_waiting_at_whole_pool"] == known
    for tag in ("forecast", "known_fate"):
        assert figures[f"early_decisions_{tag}_nstar_moved"] == "none"
    assert figures[f"early_decisions_{KEY}_forecast"] == f"N* {N_STAR} (19, 20] steps {rule}"
    spent = {k.rsplit("_spent_", 1)[1]: int(v.split()[0])
             for k, v in figures.items() if "_forecast_spent_" in k}
    assert spent["reached_eps"] == 100 * len(succeeding)
    assert spent["stopped_by_rule"] == 40 * len(failing)
    assert sum(spent.values()) == rule
