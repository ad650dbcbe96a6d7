"""The length-generalisation check: recorded per split with the family's metrics, reproducible
from its run, reused on rerun, read by the dataset loader, the report and the leaderboard."""

import json

import datasets
import pytest
import yaml

from hf_induction.results import ResultsFolder
from hf_induction.results.rows import KappaRow, LengthGenRow, NstarRow
from tests.runner.helpers import run_cli

CELL = ["--dataset", "retrieval", "--config", "UR_L4_V4", "--model", "dense_ssm",
        "--max-steps", "200", "--eval-every", "50", "--lrs", "0.03", "--seeds", "10,20",
        "--no-progress"]


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    out = tmp_path_factory.mktemp("lengthgen") / "lengthgen-results"
    proc = run_cli([*CELL, "--lengthgen", "150", "--no-search", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_every_split_is_scored_with_the_tasks_metric(checked):
    out, proc = checked
    (row,) = ResultsFolder(out).read(LengthGenRow)
    assert (row.dataset, row.config, row.model, row.n) == ("retrieval", "UR_L4_V4", "dense_ssm",
                                                           150)
    table = row.table()
    assert list(table) == ["validation", "test", "test_long"]
    assert [table[s]["lengths"] for s in table] == ["4", "5..8", "9..12"]
    assert all(set(scores) == {"lengths", "accuracy"} for scores in table.values())
    assert all(0.0 <= scores["accuracy"] <= 1.0 for scores in table.values())
    # --no-search: the grid at N trained (journaled), no N* row.
    assert not ResultsFolder(out).read(NstarRow)
    journal = ResultsFolder(out).read_journal()
    assert {r["n"] for r in journal} == {150} and len(journal) == 2
    assert "Length generalisation" in proc.stdout and "test_long" in proc.stdout


def test_the_row_is_what_its_run_gives(checked):
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args
    from hf_induction.runner.best_run import predict
    from hf_induction.runner.run import Campaign, CampaignJob
    from hf_induction.tasks import generate
    from hf_induction.training import train_model

    out, _ = checked
    (row,) = ResultsFolder(out).read(LengthGenRow)
    parser = build_parser()
    campaign: Campaign = campaign_from_args(parse_args(parser, [*CELL, "--out", str(out)]),
                                            parser)
    job = campaign.jobs[0]
    folder = ResultsFolder(out)
    probe = CampaignJob(job, campaign, folder.check_protocol(campaign.protocol())).probe(folder)
    _, model = train_model(probe.model_factory, probe.data(row.n), row.n, row.lr, row.seed,
                           campaign.train)
    test = generate(job.cell, "test_long", None, job.data_seed)
    again = job.cell.metrics(predict(model, test.input_ids, "cpu"), test.labels)
    assert again == {"accuracy": row.table()["test_long"]["accuracy"]}


def test_a_rerun_reuses_the_check_and_the_loaders_read_it(checked, tmp_path):
    out, _ = checked
    before = (out / "journal" / "rank0.jsonl").read_text()
    again = run_cli([*CELL, "--lengthgen", "150", "--no-search", "--out", str(out)])
    assert again.returncode == 0, again.stderr
    assert (out / "journal" / "rank0.jsonl").read_text() == before
    assert len(ResultsFolder(out).read(LengthGenRow)) == 1
    rows = datasets.load_dataset(str(out), "lengthgen", split="train")
    assert rows.num_rows == 1 and json.loads(rows[0]["results"])["test"]["lengths"] == "5..8"
    from hf_induction.display.report import render_tables
    from hf_induction.hub.leaderboard import write_leaderboard

    assert "| retrieval | UR_L4_V4 | dense_ssm | yes | 150 |" in render_tables(
        ResultsFolder(out))
    (md, *_) = write_leaderboard(out, tmp_path / "board")
    assert "## Length generalisation" in md.read_text()


def test_bad_requests_are_one_line(tmp_path):
    ood = run_cli([*CELL, "--ood", "--out", str(tmp_path / "a")])
    assert ood.returncode == 2 and "use --lengthgen" in ood.stderr
    nothing = run_cli([*CELL, "--no-search", "--out", str(tmp_path / "b")])
    assert nothing.returncode == 2 and "nothing to run" in nothing.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_sweep_asks_for_checks_without_searches(tmp_path):
    from hf_induction.runner.sweep import load_sweep

    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump({"sweep": [
        {"dataset": "copy", "configs": ["UF_L4", "NB_L4_uniform"], "models": ["lstm"],
         "lengthgen": True, "search": False},
        {"dataset": "retrieval", "configs": ["NRLast_L6"], "models": ["lstm"]}]}))
    sweep = load_sweep(path)
    assert [(str(j.cell), j.search) for j in sweep.jobs] == [
        ("UF_L4", False), ("NB_L4_uniform", False), ("NRLast_L6", True)]
    assert [str(c) for c in sweep.lengthgen_cells] == ["UF_L4", "NB_L4_uniform"]


@pytest.mark.parametrize("dataset,config,by_length,extra", [
    ("copy", "UB_L3_uniform_V9", ["UB_L2_V9", "UB_L3_V9"], []),
    ("lorem", "copy_L6_uniform_V3", ["copy_L5_V3", "copy_L6_V3"], []),
    # Histories have no small pool: the searches are held to 64 rows (half the time).
    ("git", "revert_L3_uniform", ["revert_L2", "revert_L3"], ["--n-max", "64"]),
], ids=["copy", "lorem", "git"])
def test_nstar_and_kappa_run_on_the_new_families_unchanged(tmp_path, dataset, config,
                                                           by_length, extra):
    out = tmp_path / f"{dataset}-kappa"
    proc = run_cli(["--dataset", dataset, "--config", config, "--model", "lstm",
                    "--max-steps", "40", "--eval-every", "20", "--lrs", "0.01", "--seeds", "1",
                    "--n-start", "4", "--kappa", "--no-progress", "--out", str(out), *extra])
    assert proc.returncode == 0, proc.stderr
    folder = ResultsFolder(out)
    # N*_n at each length and N*_joint over all of them, then κ from them, as for a word
    # problem.
    assert sorted(r.config for r in folder.read(NstarRow)) == sorted([*by_length, config])
    (kappa,) = folder.read(KappaRow)
    assert kappa.config == config and len(kappa.nstar_by_length) == len(by_length)
