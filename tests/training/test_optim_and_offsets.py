"""AdamW, the warmed-up schedule and gradient clipping (the second study's fine-tuning), and
random position offsets: each as torch / transformers compute it, the same stacked as alone."""

import dataclasses

import pytest
import torch

from hf_induction.training import (
    StackedAdam,
    TrainSettings,
    train_grid,
    train_run,
    vmap_unsupported_reason,
)
from hf_induction.training.optim import lr_factor, stacked_clip
from tests.training.helpers import EmbedLinear, echo_data, tiny_gpt2

pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop:UserWarning")

FINETUNE = dict(weight_decay=0.01, warmup=0.15, lr_schedule="linear", max_grad_norm=1.0)


@pytest.mark.parametrize("schedule", ["linear", "constant"])
def test_the_schedule_is_transformers_own(schedule):
    from transformers import get_constant_schedule_with_warmup, get_linear_schedule_with_warmup

    steps, warmup = 20, 0.15
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    # What the Trainer builds from warmup_ratio: ceil(0.15 x 20) = 3 warmup steps.
    reference = (get_linear_schedule_with_warmup(optimizer, 3, steps) if schedule == "linear"
                 else get_constant_schedule_with_warmup(optimizer, 3))
    expected = []
    for _ in range(steps):
        expected.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        reference.step()
    assert [lr_factor(k, steps, warmup, schedule) for k in range(steps)] == expected
    assert expected[:4] == [0.0, 1 / 3, 2 / 3, 1.0]


def test_stacked_adamw_with_a_schedule_matches_torch_adamw_per_run():
    lrs, wd = [1e-1, 1e-3], 0.01
    g = torch.Generator().manual_seed(0)
    shapes = {"w": (4, 3), "b": (3,)}
    init = {k: torch.randn(len(lrs), *s, generator=g, dtype=torch.float64)
            for k, s in shapes.items()}
    grads = [{k: torch.randn(len(lrs), *s, generator=g, dtype=torch.float64)
              for k, s in shapes.items()} for _ in range(5)]
    scales = [0.0, 0.5, 1.0, 0.75, 0.25]
    stacked = {k: v.clone() for k, v in init.items()}
    adam = StackedAdam(stacked, lrs, weight_decay=wd, decay={"w"})
    for step_grads, scale in zip(grads, scales, strict=True):
        adam.step(stacked, step_grads, lr_scale=scale)
    for r, lr in enumerate(lrs):
        params = {k: torch.nn.Parameter(v[r].clone()) for k, v in init.items()}
        reference = torch.optim.AdamW([{"params": [params["w"]], "weight_decay": wd},
                                       {"params": [params["b"]], "weight_decay": 0.0}], lr=lr)
        for step_grads, scale in zip(grads, scales, strict=True):
            for group in reference.param_groups:
                group["lr"] = lr * scale
            for k, p in params.items():
                p.grad = step_grads[k][r].clone()
            reference.step()
        for k, p in params.items():
            torch.testing.assert_close(stacked[k][r], p.detach(), rtol=0, atol=1e-14)
    # Decay moved the decayed matrix and only it: the bias is plain Adam's.
    plain = {k: v.clone() for k, v in init.items()}
    no_decay = StackedAdam(plain, lrs)
    for step_grads, scale in zip(grads, scales, strict=True):
        no_decay.step(plain, step_grads, lr_scale=scale)
    torch.testing.assert_close(plain["b"], stacked["b"], rtol=0, atol=0)
    assert not torch.equal(plain["w"], stacked["w"])


def test_stacked_clipping_is_clip_grad_norm_per_run():
    g = torch.Generator().manual_seed(1)
    grads = [torch.randn(3, 4, 2, generator=g) * 3, torch.randn(3, 5, generator=g), None]
    # The third run's norm is below the bound: left as it is.
    grads[0][2] *= 1e-2
    grads[1][2] *= 1e-2
    expected = []
    for r in range(3):
        params = [torch.nn.Parameter(torch.zeros_like(grads[0][r])),
                  torch.nn.Parameter(torch.zeros_like(grads[1][r]))]
        params[0].grad, params[1].grad = grads[0][r].clone(), grads[1][r].clone()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        expected.append([p.grad for p in params])
    small = grads[1][2].clone()
    stacked_clip(grads, 1.0)
    for r in range(3):
        torch.testing.assert_close(grads[0][r], expected[r][0])
        torch.testing.assert_close(grads[1][r], expected[r][1])
    norm = torch.cat([grads[0][0].flatten(), grads[1][0]]).norm()
    assert norm == pytest.approx(1.0, rel=1e-5) and torch.equal(grads[1][2], small)


@pytest.fixture(scope="module")
def data():
    # Rows of up to 8 tokens; the longest row a check would score has 12.
    return dataclasses.replace(echo_data(), positions=12)


class Recording(torch.nn.Module):
    """A GPT-2 whose forward records the position ids it is given (None: none given)."""

    def __init__(self, seen: list) -> None:
        super().__init__()
        self.inner = tiny_gpt2()
        self.config = self.inner.config
        self.seen = seen

    def forward(self, input_ids, position_ids=None):
        if self.training:
            self.seen.append((input_ids.shape[-1], position_ids))
        return self.inner(input_ids=input_ids, position_ids=position_ids)


def test_offsets_are_drawn_per_row_within_the_longest_scored_row(data):
    seen = []
    settings = TrainSettings(max_steps=10, eval_every=10, batch_size=16, lrs=(1e-2,),
                             seeds=(1,), position_offsets=True)
    train_run(lambda: Recording(seen), data, 24, 1e-2, 1, settings)
    assert len(seen) == 10
    starts = []
    for width, position_ids in seen:
        assert position_ids is not None and position_ids.shape == (16, width)
        # Each row counts up by one from its own offset, and never past the 12 positions.
        first = position_ids[:, :1]
        assert torch.equal(position_ids, first + torch.arange(width))
        assert int(first.min()) >= 0 and int(position_ids.max()) <= 11
        starts += first.flatten().tolist()
    # The starts 0..12 - width are drawn (widths 7 and 8 here): positions up to 11 train.
    assert set(range(5)) <= set(starts) <= set(range(6))
    seen.clear()
    train_run(lambda: Recording(seen), data, 24, 1e-2, 1,
              dataclasses.replace(settings, position_offsets=False))
    assert all(position_ids is None for _, position_ids in seen)


def test_a_model_without_absolute_positions_trains_as_before(data):
    settings = TrainSettings(max_steps=20, eval_every=10, lrs=(1e-2,), seeds=(1,))
    plain = train_run(EmbedLinear, data, 24, 1e-2, 1, settings)
    offsets = train_run(EmbedLinear, data, 24, 1e-2, 1,
                        dataclasses.replace(settings, position_offsets=True))
    assert plain == dataclasses.replace(offsets, wall_s=plain.wall_s)


class LearnedPositions(torch.nn.Module):
    """Token and learned absolute position embeddings, a linear head: a GPT-2 in what offsets
    touch (its config says GPT-2, 16 positions), that also runs under vmap with them."""

    def __init__(self) -> None:
        super().__init__()
        from transformers import GPT2Config

        self.config = GPT2Config(vocab_size=6, n_positions=16)
        self.tokens = torch.nn.Embedding(6, 8, dtype=torch.float64)
        self.positions = torch.nn.Embedding(16, 8, dtype=torch.float64)
        self.head = torch.nn.Linear(8, 6, dtype=torch.float64)

    def forward(self, input_ids, position_ids=None):
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[-1])
        return self.head(torch.tanh(self.tokens(input_ids) + self.positions(position_ids)))


def test_offsets_and_adamw_train_the_same_stacked_as_alone_and_change_the_loss(data):
    # It does run stacked: vmap takes its position ids.
    sample = data.train_input_ids[:2, :6].long()
    assert vmap_unsupported_reason(LearnedPositions(), sample, torch.arange(3, 9).expand(2, -1)
                                   ) is None
    settings = TrainSettings(max_steps=12, eval_every=4, lrs=(1e-1, 1e-2), seeds=(1, 2),
                             stop_on_first_success=False, position_offsets=True, **FINETUNE)
    stacked = train_grid(LearnedPositions, data, 24,
                         dataclasses.replace(settings, grid_mode="stacked"))
    alone = train_grid(LearnedPositions, data, 24,
                       dataclasses.replace(settings, grid_mode="sequential"))
    for a, b in zip(stacked, alone, strict=True):
        assert (a.lr, a.seed, a.steps) == (b.lr, b.seed, b.steps)
        assert a.best_val_loss == pytest.approx(b.best_val_loss, rel=1e-9)
    at_zero = train_grid(LearnedPositions, data, 24, dataclasses.replace(
        settings, grid_mode="sequential", position_offsets=False))
    assert all(a.best_val_loss != b.best_val_loss for a, b in zip(alone, at_zero, strict=True))
    adam = train_grid(LearnedPositions, data, 24, dataclasses.replace(
        settings, grid_mode="sequential", weight_decay=0.0, warmup=0.0, lr_schedule="constant",
        max_grad_norm=None))
    assert all(a.best_val_loss != b.best_val_loss for a, b in zip(alone, adam, strict=True))


def test_transformers_gpt2_with_offsets_trains_run_by_run_and_its_loss_moves(data):
    sample = data.train_input_ids[:2, :6].long()
    positions = torch.arange(3, 9).expand(2, -1)
    # Given position ids, transformers looks for packed sequences in a branch vmap refuses.
    assert vmap_unsupported_reason(tiny_gpt2(), sample) is None
    assert vmap_unsupported_reason(tiny_gpt2(), sample, positions).startswith("RuntimeError")
    settings = TrainSettings(max_steps=6, eval_every=3, lrs=(1e-2,), seeds=(1, 2),
                             stop_on_first_success=False, position_offsets=True, **FINETUNE)
    stacked = train_grid(tiny_gpt2, data, 24, dataclasses.replace(settings, grid_mode="stacked"))
    alone = train_grid(tiny_gpt2, data, 24, dataclasses.replace(settings, grid_mode="sequential"))
    assert stacked == [dataclasses.replace(a, wall_s=s.wall_s)
                       for a, s in zip(alone, stacked, strict=True)]
    at_zero = train_grid(tiny_gpt2, data, 24, dataclasses.replace(
        settings, grid_mode="sequential", position_offsets=False))
    assert all(a.best_val_loss != b.best_val_loss for a, b in zip(alone, at_zero, strict=True))


@pytest.mark.parametrize("field, value", [("weight_decay", -0.1), ("warmup", 1.0),
                                          ("lr_schedule", "cosine"), ("max_grad_norm", 0.0)])
def test_bad_optimizer_settings_are_one_line(field, value):
    with pytest.raises(ValueError, match=field) as e:
        TrainSettings(max_steps=10, **{field: value})
    assert len(str(e.value).splitlines()) == 1
