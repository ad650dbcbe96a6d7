"""The reach check: a planted exact model carries to every length, one that memorises the
training lengths carries nowhere past them, one with learned positions is scored only as far
as they go; the rows resume from the folder, and the evaluation forwards stay in memory."""

from types import SimpleNamespace

import pytest
import torch

from hf_induction.results import ReachRow, ResultsFolder
from hf_induction.results.reach import REACH_FACTORS, reach_groups
from hf_induction.results.rows import OodRow
from hf_induction.runner import reach
from hf_induction.runner.job import SearchJob
from hf_induction.runner.probe import JournalProbe
from hf_induction.tasks import WordProblemCell
from hf_induction.training import RunResult, TrainSettings

# L = 1 keeps the rows of 1,000L short: the check is the same at any L.
CELL = WordProblemCell.parse("modadd", "acot_L1_m3")
M = 3


class Planted(torch.nn.Module):
    """acot on Z_m by its algebra: the output after reading input_ids[:t+1] is the sum of the
    group elements (ids below m) read so far, mod m; past ``exact_to`` tokens (memorised
    lengths) it always answers 0, right one time in m."""

    def __init__(self, exact_to: int | None = None, model_type: str = "planted",
                 positions: int = 0):
        super().__init__()
        self.exact_to = exact_to
        self.config = SimpleNamespace(model_type=model_type, max_position_embeddings=positions,
                                      hidden_size=4, num_hidden_layers=1, vocab_size=M + 4)
        self.calls: list[tuple[int, int]] = []

    def forward(self, input_ids):
        self.calls.append(tuple(input_ids.shape))
        elements = torch.where(input_ids < M, input_ids, 0)
        state = elements.cumsum(-1) % M
        if self.exact_to is not None:
            state[:, self.exact_to:] = 0
        logits = torch.nn.functional.one_hot(state, M + 4).float()
        return SimpleNamespace(logits=logits)


def probe(tmp_path):
    settings = TrainSettings(max_steps=1, lrs=(0.01,), seeds=(1,))
    fields = {"dataset": CELL.dataset, "config": str(CELL), "model": "planted",
              "model_config_hash": "x", "protocol": "p", "data_seed": 0}
    return JournalProbe(SearchJob(CELL, "planted"), ResultsFolder(tmp_path / "r"), settings,
                        lambda: None, fields)


def checked(tmp_path, monkeypatch, model, rows=60):
    result = RunResult(lr=0.01, seed=1, success=True, best_val_loss=1e-5, final_val_loss=1e-5,
                       steps=10, wall_s=0.0, stop_reason="epsilon")
    monkeypatch.setattr(reach, "best_model", lambda probe, n, reproduce: (result, model))
    return reach.reach_check(probe(tmp_path), 50, "p", rows=rows)


def test_an_exact_model_carries_to_every_length(tmp_path, monkeypatch):
    rows = checked(tmp_path, monkeypatch, Planted())
    assert [r.length for r in rows] == [2, 4, 10, 100, 1000]
    assert [r.factor for r in rows] == list(REACH_FACTORS)
    for r in rows:
        assert r.scored and r.chance == pytest.approx(1 / M)
        assert r.rows == min(60, M ** r.length)
        assert r.normalised_final_state_accuracy == r.normalised_state_accuracy == 1.0
    (group,) = reach_groups(rows)
    assert group.carries_to.length == 1000


def test_a_model_that_memorised_the_training_lengths_carries_nowhere_past_them(
        tmp_path, monkeypatch):
    # Exact over the first L + 1 tokens (BOS and g_1..g_L), a constant after them.
    rows = checked(tmp_path, monkeypatch, Planted(exact_to=CELL.max_len + 1), rows=300)
    finals = [r.normalised_final_state_accuracy for r in rows]
    # At chance (0 normalised) up to the sampling noise of 300 rows.
    assert all(abs(f) < 0.2 for f in finals), finals
    assert reach_groups(rows)[0].carries_to is None
    # Every state: the first L right, the rest at chance.
    assert rows[0].normalised_state_accuracy == pytest.approx(0.5, abs=0.15)


def test_learned_positions_are_scored_as_far_as_they_go(tmp_path, monkeypatch):
    # 40 positions hold the rows of lengths 2, 4 and 10 (acot: n + 2 tokens), not 100.
    rows = checked(tmp_path, monkeypatch, Planted(model_type="gpt2", positions=40))
    assert [r.scored for r in rows] == [True, True, True, False, False]
    assert all(r.normalised_final_state_accuracy is None and r.rows == 0 for r in rows[3:])
    assert reach_groups(rows)[0].carries_to.length == 10


def test_rows_resume_from_the_folder(tmp_path, monkeypatch):
    first = checked(tmp_path, monkeypatch, Planted())
    monkeypatch.setattr(reach, "best_model", lambda probe, n: pytest.fail("retrained"))
    again = reach.reach_check(probe(tmp_path), 50, "p", rows=60)
    assert again == first
    assert len(ResultsFolder(tmp_path / "r").read(ReachRow)) == 5


def test_forwards_are_bounded_by_memory(tmp_path, monkeypatch):
    # An attention model's rows of 3,002 tokens hold 4 x heads x T^2 bytes of scores each:
    # with 1 GiB to spend, a forward takes a handful of rows, not 256. The check's longest
    # rows (1,002 tokens) go through in forwards of the bound's rows.
    config = SimpleNamespace(hidden_size=64, num_hidden_layers=2, vocab_size=7,
                             num_attention_heads=4)
    per_row = reach.eval_row_bytes(config, 3002)
    assert per_row >= 4 * 4 * 3002 ** 2
    rows = reach.eval_rows(config, 3002, 1 << 30)
    assert rows * per_row <= (1 << 30) // reach.EVAL_SHARE and rows >= 1
    assert reach.eval_rows(config, 3002, 1) == 1
    model = Planted()
    monkeypatch.setattr(reach, "machine_memory",
                        lambda device: SimpleNamespace(
                            size=64 * reach.eval_row_bytes(config, 1002)))
    model.config.num_attention_heads = 4
    model.config.hidden_size = 64
    model.config.num_hidden_layers = 2
    checked(tmp_path, monkeypatch, model)
    longest = [batch for batch, tokens in model.calls if tokens == 1002]
    assert longest and max(longest) <= 64 // reach.EVAL_SHARE


def test_the_command_line_runs_it_after_the_ood_check_and_needs_it(tmp_path):
    from .helpers import run_cli

    base = ["--dataset", "modadd", "--config", "acot_L1_m2", "--model", "dense_ssm",
            "--max-steps", "40", "--eval-every", "20", "--lrs", "0.03", "--seeds", "10",
            "--no-progress", "--out", str(tmp_path / "r")]
    refused = run_cli([*base, "--reach"])
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1].endswith(
        "--reach scores the OOD check's best run at longer lengths: add --ood")
    done = run_cli([*base, "--ood", "--reach"])
    assert done.returncode == 0, done.stderr
    rows = ResultsFolder(tmp_path / "r").read(ReachRow)
    assert sorted(r.length for r in rows) == [2, 4, 10, 100, 1000]
    # Z_2 at length 2 holds 4 words: the row says how many it scored.
    assert sorted(r.rows for r in rows) == [4, 16, 500, 500, 500]
    assert "Reach (the OOD check's best run at 2L .. 1,000L" in done.stdout
    # The OOD check and the reach at 2L score the same rows with the same model.
    (ood,) = ResultsFolder(tmp_path / "r").read(OodRow)
    at_2l = next(r for r in rows if r.factor == 2)
    assert (at_2l.lr, at_2l.seed, at_2l.n) == (ood.lr, ood.seed, ood.n)


def test_a_run_trained_again_that_ends_elsewhere_is_not_taken_for_the_recorded_one():
    """Reach scores the OOD check's weights or none: a run trained again counts as the run the
    grid recorded only if it ends as that run did."""
    from hf_induction.runner.best_run import NotReproduced, check_reproduced

    def again(loss, success):
        return RunResult(lr=0.01, seed=10, success=success, best_val_loss=loss,
                         final_val_loss=loss, steps=10, wall_s=0.0, stop_reason="budget")

    recorded = {"success": True, "best_val_loss": 8.46e-5}
    check_reproduced(again(8.46e-5, True), recorded, 26)
    check_reproduced(again(8.5e-5, True), recorded, 26)
    with pytest.raises(NotReproduced, match="reaches validation loss 0.649, where the grid "
                       "recorded 8.46e-05") as e:
        check_reproduced(again(0.649, False), recorded, 26)
    assert len(str(e.value).splitlines()) == 1
    with pytest.raises(NotReproduced):
        check_reproduced(again(2e-4, False), {"success": False, "best_val_loss": 1e-4}, 26)
    check_reproduced(again(float("inf"), False), {"success": False, "best_val_loss": None}, 26)


def test_nothing_is_written_where_the_run_is_not_reproduced(tmp_path, monkeypatch):
    from hf_induction.runner.best_run import NotReproduced

    def not_reproduced(probe, n, reproduce):
        assert reproduce
        raise NotReproduced("not the weights the check scored")

    monkeypatch.setattr(reach, "best_model", not_reproduced)
    with pytest.raises(NotReproduced):
        reach.reach_check(probe(tmp_path), 50, "p", rows=10)
    assert not ResultsFolder(tmp_path / "r").read(ReachRow)
