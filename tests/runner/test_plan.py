import pytest

from hf_induction.results import NstarRow, kappa_from_nstar
from hf_induction.runner.job import SearchJob, kappa_groups, plan_jobs
from hf_induction.tasks import WordProblemCell


def cell(name):
    return WordProblemCell.parse("modadd", name)


@pytest.mark.parametrize("name", ["acot_L5", "acot_L5_uniform", "acot_L5_s2l"])
def test_kappa_schedule_is_every_fixed_length_plus_the_joint_cell(name):
    jobs = plan_jobs([cell(name)], ["dense_ssm", "lstm"], kappa=True)
    names = [str(j.cell) for j in jobs if j.model == "lstm"]
    family = ["acot_L2", "acot_L3", "acot_L4", "acot_L5", "acot_L5_uniform"]
    assert names == family + (["acot_L5_s2l"] if name.endswith("s2l") else [])
    groups = kappa_groups(jobs)
    assert set(groups) == {(cell("acot_L5_uniform"), "dense_ssm"),
                           (cell("acot_L5_uniform"), "lstm")}
    assert [str(j.cell) for j in groups[(cell("acot_L5_uniform"), "lstm")]] == \
        ["acot_L2", "acot_L3", "acot_L4", "acot_L5"]


def test_without_kappa_one_job_per_cell_and_model_and_no_duplicates():
    jobs = plan_jobs([cell("cot_L10_uniform"), cell("cot_L10_uniform")], ["gpt2"], kappa=False)
    assert jobs == [SearchJob(cell("cot_L10_uniform"), "gpt2")]
    assert kappa_groups(jobs) == {}


def nstar_row(config, n_star, failing, model="lstm"):
    return NstarRow(
        key=f"k-{config}-{model}", dataset="modadd", config=config, model=model,
        model_config_hash="h", search_mode="refined", pool_size=10**6, n_cap=10**5,
        n_star=n_star, largest_failing=failing, search_end="bracket closed", num_probes=5,
        total_steps=1,
        probes="[]", search_settings="{}", epsilon=1e-4, protocol_hash="p",
        package_version="0", git_commit="", hardware="", wall_s=1.0, finished_at="",
    )


def test_kappa_from_recorded_rows():
    rows = [nstar_row("acot_L2", 20, 10), nstar_row("acot_L3", 100, 90),
            nstar_row("acot_L3_uniform", 60, 50), nstar_row("acot_L3_uniform", 60, 50, "gpt2")]
    (k,) = kappa_from_nstar(rows)
    assert k.model == "lstm" and k.lengths == (2, 3)
    assert k.kappa == pytest.approx((20 + 100) / 60)
    # Bounds from the brackets, N* in (largest_failing, n_star]: (11 + 91) / 60 and 120 / 51.
    assert k.kappa_low == pytest.approx(102 / 60) and k.kappa_high == pytest.approx(120 / 51)


def test_sweep_file_expands_the_paper_grid(tmp_path):
    from pathlib import Path

    from hf_induction.runner.sweep import load_sweep

    root = Path(__file__).resolve().parents[2]
    jobs = load_sweep(root / "scripts" / "sweeps" / "paper_grid.yaml").jobs
    assert len(jobs) == len(set(jobs))
    # Per (format, group, model): fixed lengths 2..30 (shared by every L), and for each of the
    # four L a joint (uniform) and an s2l cell; 3 formats x (9 + 1) groups x 3 models.
    assert len(jobs) == (29 + 4 + 4) * 3 * 10 * 3
    assert SearchJob(cell("cot_L20_s2l_m50"), "gpt2") in jobs
    bad = tmp_path / "bad.yaml"
    bad.write_text("sweep:\n  - dataset: modadd\n    formats: [acot]\n    lengths: [0]\n"
                   "    models: [lstm]\n")
    with pytest.raises(ValueError, match="sweep entry 0.*L=0"):
        load_sweep(bad)


def test_sweep_entry_asks_for_the_ood_check_of_its_own_cells(tmp_path):
    from hf_induction.runner.sweep import load_sweep

    f = tmp_path / "s.yaml"
    f.write_text("sweep:\n"
                 "  - {dataset: modadd, formats: [acot], lengths: [3], dists: [uniform],\n"
                 "     groups: [5], models: [lstm], kappa: true, ood: true}\n"
                 "  - {dataset: modadd, formats: [cot], lengths: [3], models: [lstm]}\n")
    sweep = load_sweep(f)
    assert sweep.ood_cells == (cell("acot_L3_uniform_m5"),)
    # The κ schedule's fixed-length cells are searched but not OOD-checked.
    assert SearchJob(cell("acot_L2_m5"), "lstm") in sweep.jobs
    assert SearchJob(cell("cot_L3"), "lstm") in sweep.jobs
    f.write_text("sweep:\n  - {dataset: modadd, formats: [cot], lengths: [3], models: [lstm],"
                 " oood: true}\n")
    with pytest.raises(ValueError, match="unknown keys \\['oood'\\]"):
        load_sweep(f)


def test_the_printed_plan_bounds_time_by_the_probes_of_a_search_that_never_succeeds():
    from hf_induction.runner.plan import describe_plan, search_bound
    from hf_induction.search import SearchSettings
    from hf_induction.tasks import train_pool_size
    from hf_induction.training import TrainSettings

    # Z_3 at length 4: 81 words, 16 held out, so a pool of 65 training words.
    job = SearchJob(cell("acot_L4_m3"), "lstm")
    assert train_pool_size(job.cell) == 65
    search = SearchSettings(mode="refined", n_start=2, n_max=10_000)
    # Never succeeding, the search probes 2, 8, 32 and then the whole pool, 65.
    assert search_bound(job, search) == 4
    train = TrainSettings(max_steps=500, lrs=(1e-2, 3e-3), seeds=(10, 20))
    text = describe_plan([job], lambda model: (train, search), {"lstm": 0.01})
    assert text.startswith("Plan: 1 search over 1 process")
    assert "lr {0.01, 0.003} × seed {10, 20} (grid 4), 500 steps a run" in text
    # 4 probes × 500 steps of the grid × 10 ms = 20 s.
    assert "at most 20 s (2,000 grid steps" in text
    # A check alone (no search) trains the grid at N and retrains its best run: 2 × 500 steps.
    check = SearchJob(cell("acot_L4_m3"), "lstm", search=False)
    text = describe_plan([job, check], lambda model: (train, search), {"lstm": 0.01})
    assert text.startswith("Plan: 1 search and 1 check over 1 process")
    assert "at most 30 s (3,000 grid steps" in text


def test_each_model_trains_at_its_own_cpu_budget_and_published_protocols_still_match():
    import json
    from pathlib import Path

    from hf_induction.models import MODEL_NAMES
    from hf_induction.models.registry import HF_CPU_BUDGET, model_spec
    from hf_induction.runner.budgets import BUDGETS

    cpu, paper = BUDGETS["cpu"], BUDGETS["paper"]
    named = cpu.per_model_for([*MODEL_NAMES, "hf:org/name"])
    gpt2 = {"lrs": (1e-3, 3e-4), "max_steps": 5000, "eval_every": 100}
    assert named["gpt2"] == named["rope"] == named["gpt2_offset"] == gpt2
    assert named["hf:org/name"] == HF_CPU_BUDGET.fields() == gpt2
    assert named["dense_ssm"] == {"lrs": cpu.value("lrs"), "max_steps": cpu.value("max_steps"),
                                  "eval_every": cpu.value("eval_every")}
    assert all(named[m] == model_spec(m).cpu_budget.fields() for m in MODEL_NAMES)
    assert paper.per_model_for(MODEL_NAMES) == {}
    # What every cpu protocol records, named or not, is what the published folders made
    # under the cpu preset hold: a rerun on them is not refused.
    assert cpu.per_model == {
        "gpt2": gpt2, "lstm": {"lrs": (3e-2, 1e-2), "max_steps": 5000, "eval_every": 100},
        "mamba": {"lrs": (1e-2, 3e-3), "max_steps": 3000, "eval_every": 100}}
    results = Path(__file__).resolve().parents[2] / "results"
    recorded = [json.loads(p.read_text())["by_model"] for p in results.glob("*/protocol.json")
                if "by_model" in json.loads(p.read_text())]
    # A folder made since holds, beside those, the models its launches named.
    assert recorded and all(set(cpu.per_model) <= set(by_model) <= {*cpu.per_model, *MODEL_NAMES}
                            for by_model in recorded)
