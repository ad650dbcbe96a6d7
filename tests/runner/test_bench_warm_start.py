"""`scripts/bench.py --only warm_start` on a folder of searches made here from known
thresholds: the cold replay gives each recorded N*, the warm one skips the climb points the
hints make needless, and a non-monotone recording is counted when it moves N*."""

import json
from datetime import datetime, timedelta, timezone

from bench.cli import main as bench_main
from hf_induction.results import NstarRow, ResultsFolder
from hf_induction.search import ProbeOutcome, SearchSettings, refined_search

SETTINGS = SearchSettings(n_start=16, growth=4, max_search_steps=50)
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def probe(success):
    def outcome(n):
        ok = success(n)
        return ProbeOutcome(n=n, success=ok, best_val_loss=1e-5 if ok else 0.5,
                            steps=100 if ok else 1000,
                            runs=({"lr": 1e-3, "seed": 10, "success": ok},))
    return outcome


def searched(config, success, minute, hint=None):
    """The row a search of modadd/CONFIG by the LSTM would write, finished at START + minute
    (one second long)."""
    result = refined_search(probe(success), 100_000, SETTINGS, hint=hint)
    return NstarRow.from_search(
        result, SETTINGS, key=config, dataset="modadd", config=config, model="lstm",
        model_config_hash="h", epsilon=1e-4, protocol_hash="p", wall_s=1.0,
        finished_at=(START + timedelta(minutes=minute)).isoformat()), result


def replay(tmp_path, rows):
    folder = ResultsFolder(tmp_path / "campaign")
    folder.check_protocol({"search": SETTINGS.to_dict()})
    for row in rows:
        folder.append(row)
    out = tmp_path / "bench.json"
    assert bench_main(["--only", "warm_start", "--quick", "--results", str(folder.path),
                       "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_a_kappa_schedule_saves_its_climbs_and_keeps_every_n_star(tmp_path):
    thresholds = {"acot_L2": 100, "acot_L3": 120, "acot_L4": 900}
    made = {c: searched(c, lambda n, t=t: n >= t, minute) for minute, (c, t)
            in enumerate(thresholds.items())}
    figures = replay(tmp_path, [row for row, _ in made.values()])
    cold = {c: result for c, (_, result) in made.items()}
    # L2 has no neighbour: cold. L3 starts at 256 (the first climb point >= 100), succeeds
    # and descends to 64: it skips the failing 16. L4 starts at 256 too (>= 120), fails and
    # climbs to 1,024 as the cold search does: it skips 16 and 64. Failures cost 1,000 steps.
    warm = {"acot_L2": cold["acot_L2"],
            **{c: searched(c, lambda n, t=thresholds[c]: n >= t, 0, hint=h)[1]
               for c, h in (("acot_L3", 100), ("acot_L4", 120))}}
    assert [p.n for p in warm["acot_L3"].probes][:2] == [256, 64]
    assert figures["warm_start_replayed"] == 3 and figures["warm_start_assumed_probes"] == 0
    assert figures["warm_start_probes_cold"] == sum(r.num_probes for r in cold.values())
    assert figures["warm_start_probes_warm"] == sum(r.num_probes for r in warm.values()) \
        == figures["warm_start_probes_cold"] - 3
    assert figures["warm_start_steps_warm"] == figures["warm_start_steps_cold"] - 3_000
    assert figures["warm_start_same_n_star"] is True
    assert figures["warm_start_probes_ratio"] == figures["warm_start_probes_cold"] / \
        figures["warm_start_probes_warm"]


def test_sizes_the_cold_search_never_probed_are_read_by_monotonicity_and_counted(tmp_path):
    # L3's cold search climbed 16, 64, 256 (first success) and bisected below 256. From L2's
    # N* of 5,000 it starts at 16,384, which the recording lacks: above the recorded success
    # at 256, a success (one size assumed), then it descends through 4,096, 1,024 (recorded
    # nowhere either: assumed successes) to 256 and 64 and bisects as the cold search did.
    l2, _ = searched("acot_L2", lambda n: n >= 5_000, 0)
    l3, _ = searched("acot_L3", lambda n: n >= 200, 1)
    figures = replay(tmp_path, [l2, l3])
    assert figures["warm_start_replayed"] == 2
    assert figures["warm_start_assumed_probes"] == 3
    assert figures["warm_start_probes_warm"] == figures["warm_start_probes_cold"] + 3 - 1
    assert figures["warm_start_same_n_star"] is True


def test_a_recording_the_cold_search_does_not_reproduce_is_left_out(tmp_path):
    row, _ = searched("acot_L2", lambda n: n >= 100, 0)
    data = row.to_dict()
    data["n_star"] = 101  # not what its probes say
    figures = replay(tmp_path, [NstarRow.from_dict(data)])
    assert figures["warm_start_not_replayable"] == 1 and figures["warm_start_replayed"] == 0
