"""The Trainer baseline of scripts/bench.py: with the protocol's batches it must follow the
same trajectory as our trainer, or the benchmark's equal-N* claim means nothing."""

import dataclasses

import pytest
import torch

from bench.hf_trainer_baseline import ProtocolBatches, trainer_run
from hf_induction.models import build_model
from hf_induction.training import TrainSettings, train_run

from .helpers import echo_data

SETTINGS = TrainSettings(
    max_steps=30, eval_every=10, batch_size=16, epsilon=1e-30, stop_on_first_success=False
)


def factory():
    return build_model("dense_ssm", 6, "tiny").to(torch.float64)


def test_protocol_batches_are_the_rows_train_run_draws():
    sampler = ProtocolBatches(n=10, batch_size=4, steps=3, seed=7)
    g = torch.Generator().manual_seed(7)
    expected = [i for _ in range(3) for i in torch.randint(10, (4,), generator=g).tolist()]
    assert list(sampler) == expected and len(sampler) == 12


def test_trainer_with_protocol_batches_follows_train_run():
    data = echo_data(pool=40, n_val=16)
    ours = train_run(factory, data, 40, 3e-2, 5, SETTINGS)
    theirs = trainer_run(factory, data, 40, 3e-2, 5, SETTINGS)
    assert theirs.steps == ours.steps == 30
    # float64 models and the same rows; the Trainer trains on the model's own loss, which
    # transformers computes from float32 logits, so the two agree to float32 rounding.
    assert theirs.best_val_loss == pytest.approx(ours.best_val_loss, rel=1e-6)
    assert theirs.final_val_loss == pytest.approx(ours.final_val_loss, rel=1e-6)
    # The Trainer's own epochs train on other batches: a different trajectory.
    epochs = trainer_run(factory, data, 40, 3e-2, 5, SETTINGS, batches="epochs")
    assert epochs.final_val_loss != pytest.approx(ours.final_val_loss, rel=1e-6)


def test_unknown_batch_order_is_refused():
    with pytest.raises(ValueError, match=r"batches must be one of \('protocol', 'epochs'\)"):
        trainer_run(factory, echo_data(), 8, 1e-2, 0, dataclasses.replace(SETTINGS), "shuffled")
