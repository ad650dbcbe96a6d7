import dataclasses
import logging

import pytest
import torch

from hf_induction.training import Patience, TrainSettings, grid, train_grid, vmap_unsupported_reason
from tests.training.helpers import (
    EmbedLinear,
    NoVmap,
    NoVmapWithHook,
    SometimesNan,
    echo_data,
    tiny_gpt2,
)

# The trainer logs it; transformers' SDPA on CPU has no vmap batching rule (loops over runs).
pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop:UserWarning")


@pytest.fixture(scope="module")
def data():
    return echo_data()


def both_modes(factory, data, n, settings):
    stacked = train_grid(factory, data, n, dataclasses.replace(settings, grid_mode="stacked"))
    sequential = train_grid(factory, data, n, dataclasses.replace(settings, grid_mode="sequential"))
    return stacked, sequential


def assert_same_runs(stacked, sequential, rtol=1e-9):
    assert [(r.lr, r.seed) for r in stacked] == [(r.lr, r.seed) for r in sequential]
    for a, b in zip(stacked, sequential, strict=True):
        assert (a.success, a.steps, a.stop_reason) == (b.success, b.steps, b.stop_reason), (a, b)
        assert a.best_val_loss == pytest.approx(b.best_val_loss, rel=rtol)
        assert a.final_val_loss == pytest.approx(b.final_val_loss, rel=rtol, nan_ok=True)


@pytest.mark.parametrize(
    "factory, reason",
    [
        (EmbedLinear, None),
        (tiny_gpt2, None),
        (SometimesNan, None),
        (NoVmapWithHook, None),
        (NoVmap, "RuntimeError"),
    ],
    ids=["embed-linear", "gpt2", "sometimes-nan", "hook", "no-vmap"],
)
def test_vmap_verdict(data, factory, reason):
    verdict = vmap_unsupported_reason(factory(), data.train_input_ids[:2, :5])
    assert verdict == reason or verdict.startswith(reason)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_transformers_stack_on_cuda(data):
    # CUDA's fused attention kernels fail under vmap; the stacked call runs attention on the
    # math backend there, or every transformer's grid would train run by run.
    model = tiny_gpt2().to("cuda")
    assert vmap_unsupported_reason(model, data.train_input_ids[:2, :5].to("cuda")) is None


def test_stacked_equals_sequential(data):
    settings = TrainSettings(
        max_steps=60,
        eval_every=10,
        lrs=(3e-2, 1e-3, 1e-7),
        seeds=(1, 2),
        stop_on_first_success=False,
        early_failure=Patience(20),
        epsilon=1e-30,
    )
    stacked, sequential = both_modes(lambda: EmbedLinear(hidden=32), data, 24, settings)
    assert_same_runs(stacked, sequential)
    # No run gets below an ε of 1e-30 in 60 steps, and lr 1e-7 cannot gain 0.5 in 20: both
    # stops are met on any machine (at ε = 1e-4, the lr 3e-2 runs ended at 2e-4, near it).
    assert {r.stop_reason for r in stacked} >= {"budget", "early_failure"}


def test_stacked_equals_sequential_gpt2(data):
    settings = TrainSettings(
        max_steps=6, eval_every=3, lrs=(1e-2, 1e-3), seeds=(1, 2), stop_on_first_success=False
    )
    stacked, sequential = both_modes(tiny_gpt2, data, 24, settings)
    assert_same_runs(stacked, sequential)


def test_nonfinite_runs_end_alone(data):
    settings = TrainSettings(max_steps=20, eval_every=10, lrs=(1e-2,), seeds=(1, 2, 3, 4))
    stacked, sequential = both_modes(SometimesNan, data, 24, settings)
    assert_same_runs(stacked, sequential)
    reasons = [r.stop_reason for r in stacked]
    assert "nonfinite" in reasons and "budget" in reasons
    assert all(r.steps == 1 for r in stacked if r.stop_reason == "nonfinite")


@pytest.mark.parametrize("mode", ["stacked", "sequential"])
def test_first_success_decides_the_probe(data, mode):
    settings = TrainSettings(
        max_steps=200, eval_every=10, lrs=(1e-1, 1e-5), seeds=(1, 2), grid_mode=mode
    )
    done = []
    results = train_grid(
        lambda: EmbedLinear(hidden=16), data, 24, settings, on_run_done=done.append
    )
    assert sorted(done, key=results.index) == results
    winners = [r for r in results if r.success]
    assert winners and all(r.stop_reason == "epsilon" for r in winners)
    decided = [r for r in results if r.stop_reason == "probe_decided"]
    assert len(decided) + len(winners) == len(results)
    # Stacked runs stop at the deciding evaluation; sequential ones never start.
    expected_steps = {winners[0].steps} if mode == "stacked" else {0}
    assert {r.steps for r in decided} == expected_steps


def test_full_grid_keeps_every_run(data):
    # lr 1e-1 reaches ε (at 20 steps here) well within the cap; lr 1e-5 cannot.
    settings = TrainSettings(
        max_steps=100, eval_every=10, lrs=(1e-1, 1e-5), seeds=(1, 2), stop_on_first_success=False
    )
    results = train_grid(lambda: EmbedLinear(hidden=16), data, 24, settings)
    assert {r.stop_reason for r in results} == {"epsilon", "budget"}
    assert all(r.steps == 100 for r in results if r.lr == 1e-5)


@pytest.mark.parametrize("mode", ["stacked", "sequential"])
def test_skip_set_is_not_trained(data, mode):
    settings = TrainSettings(
        max_steps=10, eval_every=10, lrs=(1e-2, 1e-3), seeds=(1, 2), grid_mode=mode
    )
    skip = {(1e-2, 1), (1e-3, 2)}
    results = train_grid(EmbedLinear, data, 24, settings, skip=skip)
    assert [(r.lr, r.seed) for r in results] == [(1e-2, 2), (1e-3, 1)]
    assert train_grid(EmbedLinear, data, 24, settings, skip=set(settings.grid)) == []
    with pytest.raises(ValueError, match="pool size"):
        train_grid(EmbedLinear, data, 0, settings)


def test_stacked_grid_is_deterministic(data):
    settings = TrainSettings(max_steps=20, eval_every=10, lrs=(1e-2, 1e-3), seeds=(1, 2))
    runs = [train_grid(EmbedLinear, data, 24, settings) for _ in range(2)]
    strip = [[dataclasses.replace(r, wall_s=0.0) for r in rs] for rs in runs]
    assert strip[0] == strip[1]


def test_time_shares_split_each_interval_among_the_runs_trained_in_it():
    clock = grid.TimeShares(3, start=10.0)
    clock.charge([0, 1, 2], now=13.0)  # 3 s, three runs: 1 s each
    clock.charge([1, 2], now=17.0)  # run 0 retired: 4 s between two runs
    clock.charge([], now=20.0)  # nothing trained: nobody is charged
    assert clock.shares == [1.0, 3.0, 3.0]


def test_stacked_runs_share_the_grid_time_instead_of_each_counting_all_of_it(data):
    import time

    settings = TrainSettings(max_steps=40, eval_every=10, lrs=(1e-1, 1e-5), seeds=(1, 2),
                             stop_on_first_success=False, grid_mode="stacked")
    start = time.perf_counter()
    results = train_grid(EmbedLinear, data, 24, settings)
    elapsed = time.perf_counter() - start
    assert all(r.wall_s > 0 for r in results)
    # The shares partition the grid's time: their sum is the probe's cost, not R times it.
    assert sum(r.wall_s for r in results) <= elapsed


def test_model_without_vmap_falls_back_to_sequential(data, caplog, monkeypatch):
    monkeypatch.setattr(grid, "_LOGGED_VERDICTS", set())
    settings = TrainSettings(max_steps=10, eval_every=5, lrs=(1e-2,), seeds=(1, 2))
    with caplog.at_level(logging.WARNING, logger="hf_induction.training"):
        stacked, sequential = both_modes(NoVmap, data, 24, settings)
    assert_same_runs(stacked, sequential, rtol=0)
    assert "NoVmap does not train under torch.func.vmap" in caplog.text


def test_runs_train_on_the_requested_device(data):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    settings = TrainSettings(max_steps=5, eval_every=5, lrs=(1e-2,), seeds=(1, 2), device=device)
    assert len(train_grid(EmbedLinear, data, 24, settings)) == 2


def test_declared_vmap_forward_trains_stacked(data, caplog):
    settings = TrainSettings(
        max_steps=20, eval_every=10, lrs=(1e-2, 1e-3), seeds=(1,), stop_on_first_success=False
    )
    with caplog.at_level(logging.WARNING, logger="hf_induction.training"):
        stacked, sequential = both_modes(NoVmapWithHook, data, 24, settings)
    assert "NoVmapWithHook" not in caplog.text
    assert_same_runs(stacked, sequential)


class WithStackedForward(EmbedLinear):
    """EmbedLinear with a hand-batched ``stacked_forward`` over a leading run dimension."""

    stacked_grid_wins_on_cpu = True

    def stacked_forward(self, params, input_ids):
        runs, vocab = input_ids.shape[0], params["embed.weight"].shape[1]
        offset = torch.arange(runs)[:, None, None] * vocab
        hidden = torch.tanh(params["embed.weight"].flatten(0, 1)[input_ids + offset])
        logits = torch.einsum("rbth,rvh->rbtv", hidden, params["head.weight"])
        return logits + params["head.bias"][:, None, None, :]


@pytest.mark.parametrize(
    "factory, mode, stacked",
    [
        (EmbedLinear, "auto", False),
        (WithStackedForward, "auto", True),
        (EmbedLinear, "stacked", True),
        (WithStackedForward, "sequential", False),
    ],
    ids=["auto-vmap-cpu", "auto-hand-batched", "forced-vmap", "forced-sequential"],
)
def test_grid_mode_picks_the_path(data, monkeypatch, factory, mode, stacked):
    calls = []
    real = grid._train_sequential
    monkeypatch.setattr(
        grid, "_train_sequential", lambda *a: calls.append("sequential") or real(*a)
    )
    settings = TrainSettings(max_steps=4, eval_every=2, lrs=(1e-2,), seeds=(1, 2), grid_mode=mode)
    train_grid(factory, data, 24, settings)
    assert calls == ([] if stacked else ["sequential"])


def test_hand_batched_grid_equals_sequential(data):
    settings = TrainSettings(
        max_steps=30,
        eval_every=10,
        lrs=(3e-2, 1e-7),
        seeds=(1, 2),
        stop_on_first_success=False,
        early_failure=Patience(10),
    )
    stacked, sequential = both_modes(lambda: WithStackedForward(hidden=32), data, 24, settings)
    assert_same_runs(stacked, sequential)


@pytest.mark.parametrize(
    "factory, mode",
    [
        (EmbedLinear, "sequential"),
        (EmbedLinear, "stacked"),
        (WithStackedForward, "stacked"),
        (tiny_gpt2, "stacked"),
    ],
    ids=["sequential", "vmap", "hand-batched", "gpt2-vmap"],
)
def test_each_runs_weights_reload_into_a_fresh_model_as_they_ended(data, factory, mode):
    # Runs end at different steps (a patience stop, the budget): each one's weights, loaded
    # into a fresh model of the factory, give the validation loss of its last evaluation.
    from hf_induction.training import evaluate
    from hf_induction.training.steps import validation_chunks
    from hf_induction.training.weights import load_weights

    settings = TrainSettings(max_steps=30, eval_every=10, lrs=(3e-2, 1e-7), seeds=(1, 2),
                             stop_on_first_success=False, early_failure=Patience(10),
                             grid_mode=mode)
    kept = {}
    results = train_grid(factory, data, 24, settings,
                         on_weights=lambda r, w: kept.__setitem__((r.lr, r.seed), w))
    assert set(kept) == {(r.lr, r.seed) for r in results}
    assert len({r.steps for r in results}) > 1
    chunks = validation_chunks(data, settings, torch.device("cpu"))
    for r in results:
        fresh = factory()
        assert evaluate(fresh, chunks) != pytest.approx(r.final_val_loss, rel=1e-6)
        loss = evaluate(load_weights(fresh, kept[(r.lr, r.seed)]), chunks)
        assert loss == pytest.approx(r.final_val_loss, rel=1e-5), r


def test_weights_missing_a_parameter_are_refused():
    from hf_induction.training.weights import load_weights, weights_of

    weights = weights_of(EmbedLinear())
    del weights["head.bias"]
    with pytest.raises(KeyError, match="head.bias"):
        load_weights(EmbedLinear(), weights)
