"""A search trains first the grid points that succeeded at its earlier probes, also after a
resume, and the order never changes a probe's outcome."""

import pytest

from hf_induction.results import ResultsFolder
from hf_induction.runner import probe as probe_module
from hf_induction.training import RunResult

GRID_ARGS = ["--dataset", "modadd", "--config", "acot_L3_m3", "--model", "dense_ssm",
             "--lrs", "0.03,0.01", "--seeds", "10,20", "--no-progress"]
WINS = {(0.01, 20)}  # the only point that reaches ε, at every size


def fake_train_grid(calls, wall_s=0.0):
    """Trains nothing: records each call's ``first`` and ends the runs in training order,
    the way the sequential trainer does (the first success spares the rest)."""
    def train_grid(factory, data, n, settings, on_run_done=None, skip=(), on_eval=None,
                   first=(), on_weights=None):
        points = [p for p in first if p not in skip]
        points += [p for p in settings.grid if p not in skip and p not in points]
        calls.append((n, list(first), points))
        results, decided = [], False
        for lr, seed in points:
            success = not decided and (lr, seed) in WINS
            steps = 0 if decided else 100 if success else 1500
            result = RunResult(lr=lr, seed=seed, success=success,
                               best_val_loss=5e-5 if success else 0.5, final_val_loss=0.5,
                               steps=steps, wall_s=0.0 if decided else wall_s,
                               stop_reason="probe_decided" if decided else
                               "epsilon" if success else "budget")
            decided = decided or success
            results.append(result)
            if on_run_done is not None:
                on_run_done(result)
        return results
    return train_grid


def make_probe(out):
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args
    from hf_induction.runner.run import CampaignJob

    parser = build_parser()
    campaign = campaign_from_args(parse_args(parser, [*GRID_ARGS, "--out", str(out)]), parser)
    folder = ResultsFolder(out)
    job = CampaignJob(campaign.jobs[0], campaign, folder.check_protocol(campaign.protocol()))
    return job.probe(folder)


def test_winners_train_first_and_a_resumed_search_remembers_them(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(probe_module, "train_grid", fake_train_grid(calls))
    probe = make_probe(tmp_path / "out")
    first = probe(16)
    assert first.success and first.steps == 3 * 1500 + 100  # grid order: the winner is last
    second = probe(8)
    assert calls[1][1] == [(0.01, 20)] and second.success and second.steps == 100
    # A new process recalls 16 and 8 from the journal, then trains 12 winner first.
    resumed = make_probe(tmp_path / "out")
    assert resumed(16).steps == first.steps and resumed(8).steps == 100
    assert len(calls) == 2  # both recalled, nothing trained
    assert resumed(12).steps == 100 and calls[2][1] == [(0.01, 20)]


@pytest.mark.parametrize("wins", [set(), {(0.03, 10)}, {(0.01, 20)}])
def test_the_order_never_changes_the_outcome(tmp_path, monkeypatch, wins):
    monkeypatch.setitem(globals(), "WINS", wins)
    calls = []
    monkeypatch.setattr(probe_module, "train_grid", fake_train_grid(calls))
    probe = make_probe(tmp_path / "out")
    probe.winners = [(0.01, 10)]  # a stale winner that fails now
    outcome = probe(16)
    assert outcome.success == bool(wins)
    assert calls[0][2][0] == (0.01, 10)
    assert probe.winners == [*sorted(wins), (0.01, 10)]


def test_a_recalled_run_counts_the_time_it_took_when_trained(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(probe_module, "train_grid", fake_train_grid(calls, wall_s=50.0))
    trained = make_probe(tmp_path / "out")(16)
    assert trained.wall_s < 50.0  # the fake trains in no time; its runs only claim 50 s each
    # A new sitting recalls the four runs: the probe costs what they cost then (the search
    # row sums its probes), so a resumed search's compute counts every sitting.
    recalled = make_probe(tmp_path / "out")(16)
    assert len(calls) == 1 and 4 * 50.0 <= recalled.wall_s < 4 * 50.0 + 10.0


@pytest.mark.parametrize("search", ["paper", "refined"])
def test_a_job_builds_its_config_once_and_generates_its_arrays_once(tmp_path, monkeypatch,
                                                                     search):
    """A job's search and its checks after it (OOD, length generalisation) share its config
    and its arrays: the rows are generated again only to hold more of them. The config the
    command line checks is the one the job runs with: the model is resolved once."""
    from hf_induction.commands.nstar import build_parser, campaign_from_args, parse_args
    from hf_induction.models import build as build_module
    from hf_induction.runner import run as run_module

    generated, configs = [], []
    # Every config of a registered model, by whichever caller, is built through its builder's
    # base fields here.
    real_arrays, real_base = probe_module.cell_arrays, build_module._FromSpec.base
    monkeypatch.setattr(probe_module, "cell_arrays", lambda cell, seed, rows, **kw: generated
                        .append((str(cell), rows)) or real_arrays(cell, seed, rows, **kw))
    monkeypatch.setattr(build_module._FromSpec, "base", lambda self, *a: configs.append(a) or
                        real_base(self, *a))
    monkeypatch.setattr(probe_module, "train_grid", fake_train_grid([]))
    parser = build_parser()
    campaign = campaign_from_args(parse_args(parser, [
        *GRID_ARGS, "--search", search, "--ood", "--lengthgen", "--max-steps", "20",
        "--eval-every", "10", "--out", str(tmp_path / "out")]), parser)
    results = run_module.run_campaign(campaign)
    assert len(results.nstar) == len(results.ood) == len(results.lengthgen) == 1
    assert len(configs) == len(campaign.jobs) == 1
    rows = [r for _, r in generated]
    # Algorithm 1 probes its largest size first, so one generation serves the whole job;
    # the refined search grows its pool as its probes grow, never regenerating rows held.
    assert rows == sorted(set(rows)) and rows[-1] == results.ood[0].n
    if search == "paper":
        assert len(rows) == 1
