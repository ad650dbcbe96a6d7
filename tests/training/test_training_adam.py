import pytest
import torch

from hf_induction.training import StackedAdam


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32], ids=["f64", "f32"])
def test_stacked_adam_matches_torch_adam_per_run(dtype):
    lrs = [1e-1, 1e-3, 1e-5]
    g = torch.Generator().manual_seed(0)
    shapes = {"w": (4, 3), "b": (3,)}
    init = {k: torch.randn(len(lrs), *s, generator=g, dtype=dtype) for k, s in shapes.items()}
    grads = [
        {k: torch.randn(len(lrs), *s, generator=g, dtype=dtype) for k, s in shapes.items()}
        for _ in range(6)
    ]

    stacked = {k: v.clone() for k, v in init.items()}
    adam = StackedAdam(stacked, lrs)
    for step_grads in grads:
        adam.step(stacked, step_grads)

    for r, lr in enumerate(lrs):
        params = {k: torch.nn.Parameter(v[r].clone()) for k, v in init.items()}
        reference = torch.optim.Adam(params.values(), lr=lr)
        for step_grads in grads:
            for k, p in params.items():
                p.grad = step_grads[k][r].clone()
            reference.step()
        for k, p in params.items():
            torch.testing.assert_close(
                stacked[k][r], p.detach(), rtol=0, atol=1e-6 if dtype == torch.float32 else 1e-14
            )


def test_keep_drops_runs_and_their_moments():
    params = {"w": torch.zeros(3, 2)}
    adam = StackedAdam(params, [1.0, 2.0, 3.0])
    adam.step(params, {"w": torch.ones(3, 2)})
    kept = torch.tensor([0, 2])
    params = {"w": params["w"][kept]}
    adam.keep(kept)
    adam.step(params, {"w": torch.ones(2, 2)})
    torch.testing.assert_close(params["w"][:, 0], torch.tensor([-2.0, -6.0]))


def test_missing_gradient_leaves_parameter_and_state_alone():
    params = {"w": torch.zeros(2, 2), "unused": torch.ones(2, 2)}
    adam = StackedAdam(params, [0.1, 0.2])
    adam.step(params, {"w": torch.ones(2, 2), "unused": None})
    torch.testing.assert_close(params["unused"], torch.ones(2, 2))
    assert adam.steps == {"w": 1, "unused": 0}
