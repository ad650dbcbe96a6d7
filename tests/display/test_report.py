"""The report and the cost estimate, from hand-built rows whose figures are known."""

import dataclasses
import json

import pytest

from hf_induction.display.report import (
    COMPUTE_COLUMNS,
    PAPER_STEPS_PER_PROBE,
    compute_by_model,
    deviations,
    model_preset_of,
    nstar_vs_group,
    render_tables,
)
from hf_induction.estimate import (
    ALGORITHM_1,
    PAPER_GRID,
    REFINED,
    budget_fractions,
    sweep_cost,
)
from hf_induction.models import build_config, model_config_hash
from hf_induction.results import NstarRow, ResultsFolder, kappa_rows
from hf_induction.runner.job import SearchJob
from hf_induction.search.oracle import probes_to_find
from hf_induction.search.settings import PAPER_N_MAX
from hf_induction.tasks import WordProblemCell
from tests.runner.helpers import run_script


def row(config, n_star, failing, model="lstm", preset="tiny", dataset="modadd", probes=3,
        steps=1000, wall_s=36.0, hardware="x86_64 cpu x1 threads"):
    vocab = WordProblemCell.parse(dataset, config).vocab
    runs = [{"n": 8, "lr": 0.01, "seed": 10, "steps": steps // probes}] * probes
    return NstarRow(
        key=f"k-{dataset}-{config}-{model}", dataset=dataset, config=config, model=model,
        model_config_hash=model_config_hash(build_config(model, vocab, preset)),
        search_mode="refined", pool_size=10**6, n_cap=10**5, n_star=n_star,
        largest_failing=failing, search_end="bracket closed", num_probes=probes, total_steps=steps,
        probes=json.dumps([{"n": 8, "success": False, "runs": runs}]), search_settings="{}",
        epsilon=1e-4, protocol_hash="p", package_version="0", git_commit="", hardware=hardware,
        wall_s=wall_s, finished_at="")


def compute_lines(rows):
    return COMPUTE_COLUMNS.lines(compute_by_model(rows))


PROTOCOL = {"train": {"max_steps": 5000, "batch_size": 64, "lrs": [0.01, 0.003],
                      "seeds": [10, 20], "epsilon": 1e-4, "patience_steps": 1000,
                      "min_improvement": 0.5, "stop_on_first_success": True},
            "search": {"mode": "refined", "n_start": 8, "rtol": 0.1, "n_max": 320000}}


def test_model_preset_is_recovered_from_the_config_hash():
    assert model_preset_of(row("acot_L3", 5, 4, "gpt2", "paper")) == "paper"
    assert model_preset_of(row("acot_L3", 5, 4, "dense_ssm", "tiny")) == "tiny"
    custom = dataclasses.replace(row("acot_L3", 5, 4), model_config_hash="0123456789ab")
    assert model_preset_of(custom) == "custom"


def test_deviations_name_every_departure_from_the_paper():
    lines = deviations(PROTOCOL, [row("acot_L3", 5, 4)])
    text = "\n".join(lines)
    assert "steps per run: 5000 (paper: 250000)" in text
    assert "learning rates: [0.01, 0.003]" in text and "seeds: [10, 20]" in text
    assert "batch size" not in text and "ε" not in text.split("a run at its first")[0]
    assert "early failure" in text and "refined" in text
    assert "lstm: preset tiny" in text and "hidden_size=768" in text
    paper = {"train": {"max_steps": 250_000, "batch_size": 64, "lrs": [1e-3, 1e-4, 1e-5],
                       "seeds": [10, 20, 30, 40, 50], "epsilon": 1e-4,
                       "stop_on_first_success": False}, "search": {"mode": "paper"}}
    assert deviations(paper, [row("acot_L3", 5, 4, preset="paper")]) == []
    # The validation rule is named off its default only: the paper does not say which.
    within = {**paper, "train": {**paper["train"], "validation": "in-distribution"}}
    assert deviations(within, [row("acot_L3", 5, 4, preset="paper")]) == [
        "validation: in-distribution, drawn by the training law with the whole pool left to "
        "training, so a training set may hold validation words (default: disjoint, set apart "
        "from every training set; the paper does not say which)"]
    own = {**PROTOCOL, "by_model": {"gpt2": {"train": {"max_steps": 3000, "lrs": [1e-3]}}}}
    assert ("gpt2 trains under its own settings (its preset's): steps per run 3000; "
            "learning rates [0.001]") in deviations(own, [row("acot_L3", 5, 4)])


def test_compute_counts_cpu_hours_and_the_paper_steps_of_the_same_probes():
    rows = [row("acot_L2", 5, 4, steps=3000, wall_s=1800.0),
            row("acot_L3", 9, 8, steps=1000, wall_s=900.0, hardware="x86_64 cpu x2 threads")]
    (line,) = compute_lines(rows)
    assert tuple(line) == COMPUTE_COLUMNS.names
    # 1800 s x 1 thread + 900 s x 2 threads = 1 CPU-hour; 6 probes of 15 x 250,000 steps.
    assert (line["model"], line["searches"], line["CPU-hours"]) == ("lstm", "2", "1.00")
    assert line["paper-protocol steps for the same probes"] == f"{6 * PAPER_STEPS_PER_PROBE:,}"
    assert line["fewer steps"] == f"{6 * PAPER_STEPS_PER_PROBE // 4000:,}×"
    assert line["runs trained"] == "6"  # 3 + 3 journaled runs, each with steps


def test_compute_counts_as_trained_only_the_runs_that_took_steps():
    spared = {"n": 8, "lr": 0.003, "seed": 20, "steps": 0, "stop_reason": "probe_decided"}
    r = row("acot_L2", 5, 4)
    probes = json.loads(r.probes)
    probes[0]["runs"] = [*probes[0]["runs"], spared, spared]
    (line,) = compute_lines([dataclasses.replace(r, probes=json.dumps(probes))])
    assert line["runs trained"] == "3"


def test_nstar_against_group_size_pairs_cells_that_differ_only_in_the_group():
    rows = [row("acot_L10_uniform_m2", 7, 6), row("acot_L10_uniform", 20, 18),
            row("acot_L10_uniform_m10", None, 5000), row("cot_L10_uniform", 3, 2)]
    (series,) = nstar_vs_group(rows)
    assert series.family == "acot_L10_uniform"
    assert [g for g, _ in series.points] == [2, 5, 10]


def test_report_writes_tables_and_figures(tmp_path):
    results = tmp_path / "report_results"
    folder = ResultsFolder(results)
    folder.check_protocol(PROTOCOL)
    for r in (row("acot_L2", 10, 9), row("acot_L3", 30, 28), row("acot_L3_uniform", 20, 18),
              row("acot_L3_uniform_m2", 4, 3)):
        folder.append(r)
    (k,) = kappa_rows(folder)  # derived: no κ row was recorded
    assert k.kappa == pytest.approx(40 / 20)
    text = render_tables(folder)
    assert "| modadd | acot_L3 | 2..3 | acot_L3_uniform | lstm | refined | 2 |" in text
    assert "steps per run: 5000" in text
    out = tmp_path / "out"
    done = run_script("report.py", str(results), "--out", str(out))
    assert done.returncode == 0, done.stderr
    written = {p.name for p in out.iterdir()}
    assert {"tables.md", "kappa_modadd_Z_5.png", "nstar_vs_length_modadd_Z_5.png",
            "nstar_vs_group_modadd_acot_L3_uniform.png"} <= written
    assert "![kappa_modadd_Z_5.png](kappa_modadd_Z_5.png)" in (out / "tables.md").read_text()
    bad = run_script("report.py", str(tmp_path / "none"), "--out", str(out))
    assert bad.returncode == 2 and "is not a results folder" in bad.stderr


@pytest.mark.parametrize("n_star", [1, 2, 37, 1000, 123_457])
def test_probe_counts_come_from_the_searches_themselves(n_star):
    # Algorithm 1 from 16M: every probe either halves the bracket or divides by 1000, so
    # a threshold oracle costs at most 3 geometric probes plus ~log2(1000) bisections.
    paper = probes_to_find(n_star, 10**9, ALGORITHM_1)
    refined = probes_to_find(n_star, 10**9, REFINED)
    assert 2 <= paper <= 20 and 1 <= refined <= 20
    # A search never stops at fewer probes than its bracket needs, checked by brute force.
    lo, hi = 0, PAPER_N_MAX
    seen = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mid >= n_star else (mid, hi)
        seen += 1
    assert paper <= 3 + seen


def test_sweep_cost_multiplies_probes_grid_budget_and_flops():
    from hf_induction.models.flops import train_step_flops

    job = SearchJob(WordProblemCell.parse("modadd", "acot_L10_uniform"), "lstm")
    full = sweep_cost([job], None, ALGORITHM_1)["lstm"]
    from hf_induction.tasks import train_pool_size

    probes = probes_to_find(1000, train_pool_size(job.cell), ALGORITHM_1)
    assert full.probes == probes and full.steps == probes * PAPER_GRID * 250_000
    config = build_config("lstm", 9, "paper")
    assert full.flops == pytest.approx(full.steps * train_step_flops("lstm", config, 64, 11))
    half = sweep_cost([job], {"lstm": 0.5}, ALGORITHM_1)["lstm"]
    assert half.steps == pytest.approx(full.steps / 2)
    assert full.hours(1e12) == pytest.approx(full.flops / 1e12 / 3600)


def test_budget_fraction_is_steps_over_full_grids():
    rows = [row("acot_L2", 5, 4, probes=2, steps=5000), row("acot_L3", 5, 4, probes=3,
                                                            steps=10_000)]
    protocol = {"train": {"max_steps": 5000, "lrs": [1e-2, 3e-3], "seeds": [10, 20]}}
    # 5 probes x 4 runs x 5,000 steps = 100,000 at the full budget; 15,000 were spent.
    assert budget_fractions(rows, protocol) == {"lstm": pytest.approx(0.15)}
    # A model with a budget of its own is measured against it: 5 x 2 x 2 x 3,000 = 60,000.
    protocol["by_model"] = {"lstm": {"train": {"max_steps": 3000, "lrs": [1e-2]}}}
    assert budget_fractions(rows, protocol) == {"lstm": pytest.approx(0.5)}


def test_estimate_script_prints_both_protocols(tmp_path):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("sweep:\n  - {dataset: modadd, formats: [acot], lengths: [3], "
                     "models: [lstm, gpt2], kappa: true}\n")
    done = run_script("estimate_grid.py", "--sweep", str(sweep), "--tflops", "10")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("| paper (Algorithm 1, full budgets) |") == 3  # 2 models + all
    assert "hours at 10 TFLOP/s" in done.stdout


def test_measured_rates_are_each_models_best_and_skip_the_per_count_figures():
    from hf_induction.estimate import measured_rates

    check = {"device": "NVIDIA H200", "dense_ssm_P1_run_steps_per_s": 100.0,
             "dense_ssm_P4_run_steps_per_s": 300.0, "dense_ssm_run_steps_per_s": 300.0,
             "gpt2_run_steps_per_s": 50.0, "lstm_run_steps_per_s": 0.0, "gpt2_step_s": 0.1}
    assert measured_rates(check) == {"dense_ssm": 300.0, "gpt2": 50.0}


def test_estimate_from_a_device_check_divides_run_steps_by_the_measured_rate(tmp_path):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("sweep:\n  - {dataset: modadd, formats: [acot], lengths: [3], "
                     "models: [lstm, gpt2], kappa: true}\n")
    check = tmp_path / "check.json"
    check.write_text(json.dumps({"device": "NVIDIA H200", "lstm_run_steps_per_s": 36.0}))
    done = run_script("estimate_grid.py", "--sweep", str(sweep), "--tflops", "10",
                      "--device-check", str(check))
    assert done.returncode == 0, done.stderr
    assert "hours on NVIDIA H200 (measured)" in done.stdout
    assert "gpt2: not measured" in done.stdout
    # The LSTM's paper-protocol row: its run-steps over 36 a second, in hours.
    line = next(x for x in done.stdout.splitlines()
                if x.startswith("| paper (Algorithm 1, full budgets) | lstm"))
    cells = [c.strip() for c in line.strip("|").split("|")]
    steps = float(cells[5])
    assert float(cells[-1].replace(",", "")) == pytest.approx(steps / 36 / 3600, rel=0.01)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    refused = run_script("estimate_grid.py", "--sweep", str(sweep), "--device-check", str(bad))
    assert refused.returncode == 2 and "no MODEL_run_steps_per_s" in refused.stderr
