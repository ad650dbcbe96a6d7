"""What the search command says reads right: a search whose runs all diverged is said to
have measured nothing (never "converged"), the plan's sizes and times are the ones the cell
allows, and κ names the cell it is over in the user's words."""

from __future__ import annotations

import json

from hf_induction.results import ResultsFolder
from hf_induction.results.rows import NstarRow
from tests.runner.helpers import run_command


def test_a_search_whose_every_run_diverged_says_so_and_exits_1(tmp_path):
    out = tmp_path / "div"
    done = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L3_m2", "--model",
                        "dense_ssm", "--lrs", "1e10", "--seeds", "10,20", "--max-steps", "200",
                        "--eval-every", "20", "--no-progress", "--out", str(out)])
    assert done.returncode == 1, done.stdout + done.stderr
    text = done.stdout
    assert "converged" not in text
    assert "every run diverged (loss not finite) at lr 1e+10" in text
    assert "not measured (every run diverged)" in text and "(whole pool)" not in text
    assert "Warning: dense_ssm modadd/acot_L3_m2: every run diverged" in text
    assert "--lrs 1e+08" in text
    # Each run stopped at its first non-finite loss, with its own stop reason in the journal.
    runs = ResultsFolder(out).read_journal()
    assert runs and all(r["stop_reason"] == "nonfinite" and r["steps"] < 20 for r in runs)
    (row,) = ResultsFolder(out).read(NstarRow)
    assert row.search_end == "every run diverged" and row.bracket == (None, None)
    # A rerun answers from the folder, and says the same.
    again = run_command(["nstar", "--dataset", "modadd", "--config", "acot_L3_m2", "--model",
                         "dense_ssm", "--lrs", "1e10", "--seeds", "10,20", "--max-steps", "200",
                         "--eval-every", "20", "--no-progress", "--out", str(out)])
    assert again.returncode == 1 and "Warning: dense_ssm" in again.stdout


def legacy_row(n_star, largest_failing, converged, stop_reason="budget"):
    probe = {"n": 7, "success": n_star is not None, "best_val_loss": None, "steps": 6,
             "runs": [{"lr": 1e10, "stop_reason": stop_reason, "steps": 3}]}
    return {"key": "k", "dataset": "modadd", "config": "acot_L3_m2", "model": "dense_ssm",
            "model_config_hash": "h", "search_mode": "refined", "pool_size": 7, "n_cap": 7,
            "n_star": n_star, "largest_failing": largest_failing, "converged": converged,
            "num_probes": 1, "total_steps": 6, "probes": json.dumps([probe]),
            "search_settings": "{}", "epsilon": 1e-4, "protocol_hash": "p",
            "package_version": "0.1.0", "git_commit": "", "hardware": "", "wall_s": 0.1,
            "finished_at": "2026-01-01T00:00:00+00:00"}


def test_rows_written_with_a_converged_flag_read_as_how_their_search_ended():
    assert NstarRow.from_dict(legacy_row(None, 7, True)).search_end == "largest size failed"
    assert NstarRow.from_dict(legacy_row(None, 7, True, "nonfinite")).search_end == \
        "every run diverged"
    assert NstarRow.from_dict(legacy_row(None, 7, False)).search_end == "probe limit reached"
    row = NstarRow.from_dict(legacy_row(None, 7, True))
    assert "converged" not in row.to_dict()


def test_the_plan_names_the_sizes_the_pool_allows_and_a_short_time_in_words():
    from hf_induction.runner.job import SearchJob
    from hf_induction.runner.plan import describe_plan
    from hf_induction.search import SearchSettings
    from hf_induction.tasks import WordProblemCell, train_pool_size
    from hf_induction.training import TrainSettings

    job = SearchJob(WordProblemCell.parse("modadd", "acot_L3_m2"), "dense_ssm")
    assert train_pool_size(job.cell) == 7
    train = TrainSettings(max_steps=300, lrs=(3e-2,), seeds=(10,))
    search = SearchSettings(mode="refined", n_start=8, n_max=19_200)
    text = describe_plan([job], lambda model: (train, search), {"dense_ssm": 1e-4})
    assert "refined search starting at N = 7 (the whole pool)" in text
    assert "19,200" not in text and "at most 0 s" not in text and "under 1 s" in text
    assert "a search stops at N*, and a run at success or by the early-failure rule" in text
    small = SearchSettings(mode="refined", n_start=2, n_max=5)
    text = describe_plan([job], lambda model: (train, small), {"dense_ssm": 1e-4})
    assert "refined search from N = 2 up to 5\n" in text
    # Cells of pools 3, 7 and 10 (the README's κ): each search stops at its own pool.
    jobs = [SearchJob(WordProblemCell.parse("modadd", name), "dense_ssm")
            for name in ("acot_L2_m2", "acot_L3_m2", "acot_L3_uniform_m2")]
    text = describe_plan(jobs, lambda model: (train, search), {"dense_ssm": 1e-4})
    assert ("refined search from N = 8 (or a smaller cell's whole pool) up to each cell's "
            "whole pool (3 to 10)") in text


def test_kappa_names_the_cell_it_is_over_in_the_users_words():
    from hf_induction.results import KAPPA_COLUMNS, kappa_lines
    from hf_induction.results.rows import KappaRow

    def nstar(config, n_star, failing):
        return NstarRow.from_dict({**legacy_row(n_star, failing, True), "config": config,
                                   "key": config})

    row = KappaRow.build(key="kk", by_length={2: nstar("acot_L2_m2", 3, 2),
                                              3: nstar("acot_L3_m2", 2, 1)},
                         joint=nstar("acot_L3_uniform_m2", 3, 2))
    (line,) = kappa_lines([row])
    assert line["cell"] == "acot_L3_m2" and line["joint config"] == "acot_L3_uniform_m2"
    assert line["lengths"] == "2..3" and set(line) == set(KAPPA_COLUMNS)


def test_a_kappa_bound_is_spelled_alike_in_every_column():
    from hf_induction.results.render import kappa_bounds_text, kappa_text, number

    low = 1261.6
    assert number(low) == "1,262"
    assert kappa_text(None, low, None) == "≥ 1,262 (lower bound)"
    assert kappa_bounds_text(low, None) == "[1,262, ∞]"


def test_a_folder_of_converged_rows_is_rewritten_when_opened_for_writing(tmp_path, caplog):
    import shutil
    from pathlib import Path

    import datasets

    source = Path(__file__).resolve().parents[2] / "results" / "lengthgen"
    folder = tmp_path / "older"
    shutil.copytree(source, folder)
    for path in (folder / "nstar").glob("rank*.jsonl"):
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        for row in rows:
            row["converged"] = row.pop("search_end") != "probe limit reached"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with caplog.at_level("WARNING"):
        opened = ResultsFolder(folder)
    assert "in place of converged" in caplog.text
    assert all("converged" not in r and r["search_end"] for r in opened.table(NstarRow).read())
    table = datasets.load_dataset(str(folder), "nstar", split="train",
                                  cache_dir=str(tmp_path / "cache"))
    assert "search_end" in table.column_names and "converged" not in table.column_names
