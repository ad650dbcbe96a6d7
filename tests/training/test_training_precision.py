"""Parameter dtype and mixed precision: what a run trains in is what the settings say."""

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.training import TrainSettings, train_grid, train_run
from tests.training.helpers import EmbedLinear, Output, echo_data


class Recording(EmbedLinear):
    """Records, at every forward, whether autocast is on and the parameters' dtype."""

    seen: list = []

    def __init__(self) -> None:
        super().__init__(hidden=32, dtype=torch.float32)

    def forward(self, input_ids):
        Recording.seen.append((torch.is_autocast_enabled("cpu"), self.head.weight.dtype))
        return Output(super().forward(input_ids).logits)


@pytest.fixture()
def data():
    return echo_data()


@pytest.mark.parametrize("mixed,dtype", [("bf16", None), ("no", "bfloat16"), ("no", None)])
def test_every_forward_runs_in_the_settings_precision(data, mixed, dtype):
    Recording.seen = []
    settings = TrainSettings(max_steps=20, eval_every=10, mixed_precision=mixed, dtype=dtype)
    train_run(Recording, data, 16, 1e-2, 10, settings)
    want_dtype = torch.bfloat16 if dtype == "bfloat16" else torch.float32
    # Training steps and the validation forwards alike.
    assert len(Recording.seen) == 20 + 2
    assert set(Recording.seen) == {(mixed == "bf16", want_dtype)}


@pytest.mark.parametrize("mixed,dtype", [("bf16", None), ("no", "bfloat16")])
def test_a_bfloat16_run_still_learns_and_differs_from_float32(data, mixed, dtype):
    factory = lambda: EmbedLinear(hidden=32, dtype=torch.float32)  # noqa: E731
    # Each run trains to its criterion with a cap: float32 to ε = 1e-4 (about 230 steps
    # here), bfloat16 weights to 1e-3 (about 30 steps; they may stall a little above ε, as
    # updates round away). A cap is spent only where the run does not learn.
    exact = train_run(factory, data, 32, 3e-2, 10, TrainSettings(max_steps=1000, eval_every=10))
    rounded = train_run(factory, data, 32, 3e-2, 10, TrainSettings(
        max_steps=1000, eval_every=10, epsilon=1e-3, mixed_precision=mixed, dtype=dtype))
    assert exact.success and rounded.success
    # The dtype changes results, which is why the protocol records it: the same short run,
    # in one process, in both precisions.
    short = [TrainSettings(max_steps=20, eval_every=10),
             TrainSettings(max_steps=20, eval_every=10, mixed_precision=mixed, dtype=dtype)]
    full, half = (train_run(factory, data, 32, 3e-2, 10, s).best_val_loss for s in short)
    assert full != half


@pytest.mark.parametrize("name", ["dense_ssm", "lstm"])
def test_the_stacked_grid_trains_under_autocast(data, name):
    settings = TrainSettings(max_steps=20, eval_every=10, lrs=(1e-2, 3e-2), seeds=(1,),
                             grid_mode="stacked", stop_on_first_success=False)
    factory = lambda: build_model(name, 6, "tiny")  # noqa: E731
    exact = train_grid(factory, data, 32, settings)
    mixed = train_grid(factory, data, 32, TrainSettings(**{**settings.__dict__,
                                                           "mixed_precision": "bf16"}))
    for a, b in zip(exact, mixed, strict=True):
        # Half precision rounds every step, and the runs drift apart; where the loss has
        # fallen to 1e-3 their relative gap grows (2% here) while the absolute one stays
        # far below 0.01 nats: the tolerance is the larger of the two.
        assert b.stop_reason == "budget" and b.best_val_loss == pytest.approx(a.best_val_loss,
                                                                             rel=0.05, abs=1e-2)
        assert b.best_val_loss != a.best_val_loss


def test_bad_precisions_are_one_clear_error():
    with pytest.raises(ValueError, match="fp16 needs loss scaling"):
        TrainSettings(max_steps=1, mixed_precision="fp16")
    with pytest.raises(ValueError, match="mixed_precision must be one of no, bf16"):
        TrainSettings(max_steps=1, mixed_precision="fp8")
    with pytest.raises(ValueError, match="dtype must be one of float32, bfloat16"):
        TrainSettings(max_steps=1, dtype="float16")
