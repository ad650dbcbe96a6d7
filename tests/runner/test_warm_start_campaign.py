"""A κ schedule run cold, then warm on a copy of its journal: the warm searches start from
their neighbours (the log says where), recall every size the cold ones trained, and find the
cold N* wherever their outcomes together are monotone in N (the rule's one assumption)."""

import json
import shutil

from tests.runner.helpers import FAST, run_command

CELL = ["--dataset", "modadd", "--config", "acot_L4_m3", "--model", "dense_ssm", "--kappa"]


def searches(folder):
    rows = [json.loads(line) for path in sorted((folder / "nstar").glob("*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]
    return {r["config"]: r for r in rows}


def monotone(outcomes):
    """Whether no size failed above a size that succeeded."""
    ordered = [ok for _, ok in sorted(outcomes.items())]
    return ordered == sorted(ordered)


def test_warm_searches_recall_the_cold_runs_and_find_the_cold_n_star(tmp_path):
    cold_out, warm_out = tmp_path / "cold", tmp_path / "warm"
    base = [*CELL, *FAST, "--n-start", "1", "--threads", "1"]
    cold = run_command(["nstar", *base, "--no-warm-start", "--out", str(cold_out)])
    assert cold.returncode == 0, cold.stderr
    assert "warm start" not in cold.stdout + cold.stderr
    # The same journal, none of its searches: the warm campaign recalls what it asks again.
    shutil.copytree(cold_out, warm_out, ignore=shutil.ignore_patterns("nstar", "kappa"))
    trained_before = len((warm_out / "journal" / "rank0.jsonl").read_text().splitlines())
    warm = run_command(["nstar", *base, "--out", str(warm_out)])
    assert warm.returncode == 0, warm.stderr
    log = warm.stdout + warm.stderr
    assert "warm start: a refined search starts" in log
    cold_rows, warm_rows = searches(cold_out), searches(warm_out)
    assert set(cold_rows) == set(warm_rows) == {"acot_L2_m3", "acot_L3_m3", "acot_L4_m3",
                                                "acot_L4_uniform_m3"}
    # The first search of the schedule has no finished neighbour; the later ones say theirs.
    assert log.count("warm start from") >= 2
    new_sizes = 0
    for config, warm_row in warm_rows.items():
        outcomes = {p["n"]: p["success"] for p in json.loads(cold_rows[config]["probes"])}
        warm_probes = {p["n"]: p["success"] for p in json.loads(warm_row["probes"])}
        # A size both probed is recalled from the journal: the same outcome.
        assert all(outcomes[n] == ok for n, ok in warm_probes.items() if n in outcomes)
        new_sizes += len(set(warm_probes) - set(outcomes))
        if monotone({**outcomes, **warm_probes}):
            assert (warm_row["largest_failing"], warm_row["n_star"]) == \
                (cold_rows[config]["largest_failing"], cold_rows[config]["n_star"]), config
    # Only sizes the cold searches never probed were trained.
    trained_after = len((warm_out / "journal" / "rank0.jsonl").read_text().splitlines())
    assert trained_after - trained_before <= 2 * new_sizes
