"""The project's models under the grid trainer: stacked training equals run-by-run training."""

import dataclasses
import types

import pytest
import torch

from hf_induction.models import build_model
from hf_induction.models.lstm.naive import lstm_reference
from hf_induction.training import TrainSettings, train_grid, vmap_unsupported_reason
from hf_induction.training.steps import seeded_model
from tests.training.helpers import echo_data

VOCAB = 9
NO_DROPOUT = {"resid_pdrop": 0.0, "embd_pdrop": 0.0, "attn_pdrop": 0.0}

# The trainer logs it; transformers' SDPA on CPU has no vmap batching rule (loops over runs).
pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop:UserWarning")


def lstm_reference_forward(self, input_ids: torch.Tensor) -> torch.Tensor:
    """The LSTM's forward through `lstm_reference`, for models that do not declare their own."""
    lstm = self.model.lstm
    weights = {name: getattr(lstm, name) for name in lstm._flat_weights_names}
    hidden, _ = lstm_reference(self.model.embeddings(input_ids), weights, lstm.num_layers)
    return self.lm_head(hidden)


def factory(name: str):
    overrides = NO_DROPOUT if name == "gpt2" else {}

    def build() -> torch.nn.Module:
        model = build_model(name, VOCAB, "tiny", **overrides).to(torch.float64)
        if name == "lstm" and not hasattr(model, "vmap_forward"):
            model.vmap_forward = types.MethodType(lstm_reference_forward, model)
        return model

    return build


@pytest.fixture(scope="module")
def data():
    return echo_data(vocab=VOCAB - 4, max_len=6)


@pytest.mark.parametrize("name", ["dense_ssm", "lstm", "gpt2"])
def test_model_trains_stacked_and_matches_sequential(data, name):
    build = factory(name)
    model = seeded_model(build, 1, torch.device("cpu"))
    assert vmap_unsupported_reason(model, data.train_input_ids[:2]) is None
    settings = TrainSettings(
        max_steps=4,
        eval_every=2,
        lrs=(1e-2, 1e-3),
        seeds=(1, 2),
        stop_on_first_success=False,
        grid_mode="stacked",
    )
    stacked = train_grid(build, data, 24, settings)
    sequential = train_grid(build, data, 24, dataclasses.replace(settings, grid_mode="sequential"))
    for a, b in zip(stacked, sequential, strict=True):
        assert (a.lr, a.seed, a.steps, a.stop_reason) == (b.lr, b.seed, b.steps, b.stop_reason)
        assert a.best_val_loss == pytest.approx(b.best_val_loss, rel=1e-9)
