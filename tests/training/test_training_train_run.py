import math

import pytest
import torch

from hf_induction.training import Patience, TrainData, TrainSettings, train_run
from tests.training.helpers import EmbedLinear, Scaled, echo_data


@pytest.fixture(scope="module")
def data():
    return echo_data()


def test_learnable_task_succeeds_under_epsilon(data):
    # The run stops at ε (about 280 steps here); the budget is its cap, ample for another
    # machine's rounding, and spent only if the run does not learn.
    settings = TrainSettings(max_steps=1000, eval_every=10)
    result = train_run(lambda: EmbedLinear(hidden=32), data, 32, 3e-2, 10, settings)
    assert result.success and result.stop_reason == "epsilon"
    assert result.best_val_loss < settings.epsilon
    assert result.final_val_loss == result.best_val_loss
    assert result.steps < settings.max_steps and result.steps % settings.eval_every == 0


def test_budget_spent_is_a_failure(data):
    settings = TrainSettings(max_steps=15, eval_every=10)
    result = train_run(lambda: EmbedLinear(), data, 32, 1e-4, 10, settings)
    assert not result.success and result.stop_reason == "budget"
    # The last step is evaluated even off the cadence.
    assert result.steps == 15 and math.isfinite(result.final_val_loss)


def test_nonfinite_loss_is_a_failure_not_an_exception(data):
    settings = TrainSettings(max_steps=50, eval_every=10)
    result = train_run(lambda: Scaled(math.inf), data, 32, 1e-3, 10, settings)
    assert not result.success and result.stop_reason == "nonfinite"
    assert result.steps == 1 and result.best_val_loss == math.inf


def test_huge_learning_rate_never_raises(data):
    settings = TrainSettings(max_steps=30, eval_every=10)
    result = train_run(lambda: EmbedLinear(), data, 32, 1e6, 10, settings)
    # Adam's steps are about lr in size: the logits explode, whatever the outcome.
    assert result.stop_reason in ("epsilon", "budget", "nonfinite")


def test_same_inputs_same_result(data):
    settings = TrainSettings(max_steps=20, eval_every=10)
    runs = [train_run(lambda: EmbedLinear(), data, 16, 1e-2, 30, settings) for _ in range(2)]
    assert runs[0].best_val_loss == runs[1].best_val_loss
    assert runs[0].steps == runs[1].steps


def test_seed_changes_the_run_and_leaves_the_global_rng_alone(data):
    settings = TrainSettings(max_steps=10, eval_every=10)
    torch.manual_seed(123)
    expected = torch.rand(1)
    torch.manual_seed(123)
    a = train_run(lambda: EmbedLinear(), data, 16, 1e-2, 10, settings)
    assert torch.rand(1) == expected
    b = train_run(lambda: EmbedLinear(), data, 16, 1e-2, 20, settings)
    assert a.final_val_loss != b.final_val_loss


def test_early_failure_stops_a_stalled_run(data):
    settings = TrainSettings(max_steps=1000, eval_every=10,
                             early_failure=Patience(30, min_improvement=0.5))
    result = train_run(lambda: EmbedLinear(), data, 32, 1e-7, 10, settings)
    assert result.stop_reason == "early_failure" and not result.success
    assert result.steps == 40


def test_training_set_is_the_first_n_rows():
    data = echo_data(pool=8)
    other_tail = TrainData(
        torch.cat([data.train_input_ids[:4], data.train_input_ids[4:].flip(0)]),
        torch.cat([data.train_labels[:4], data.train_labels[4:].flip(0)]),
        data.val_input_ids,
        data.val_labels,
    )
    settings = TrainSettings(max_steps=10, eval_every=5)
    a = train_run(lambda: EmbedLinear(), data, 4, 1e-2, 10, settings)
    b = train_run(lambda: EmbedLinear(), other_tail, 4, 1e-2, 10, settings)
    assert a.final_val_loss == b.final_val_loss


def test_bad_sizes_and_settings_raise(data):
    with pytest.raises(ValueError, match="pool size"):
        train_run(lambda: EmbedLinear(), data, data.pool_size + 1, 1e-2, 10, TrainSettings(5))
    with pytest.raises(ValueError, match="grid_mode"):
        TrainSettings(5, grid_mode="parallel")
    with pytest.raises(ValueError, match="label other than -100"):
        TrainData(
            data.train_input_ids,
            torch.full_like(data.train_labels, -100),
            data.val_input_ids,
            data.val_labels,
        )


def test_compact_int16_pools_train_exactly_like_int64():
    """Pools may be held as int16 (paper-size pools); runs see the same int64 batches."""
    import torch

    from hf_induction.training import TrainData, TrainSettings, train_run
    from tests.training.helpers import EmbedLinear, echo_data

    wide = echo_data()
    narrow = TrainData(*(t.to(torch.int16) for t in (wide.train_input_ids, wide.train_labels,
                                                     wide.val_input_ids, wide.val_labels)))
    settings = TrainSettings(max_steps=30, eval_every=10, lrs=(1e-2,), seeds=(10,))
    a = train_run(EmbedLinear, wide, 16, 1e-2, 10, settings)
    b = train_run(EmbedLinear, narrow, 16, 1e-2, 10, settings)
    assert (a.best_val_loss, a.final_val_loss, a.steps) == (b.best_val_loss, b.final_val_loss,
                                                           b.steps)
