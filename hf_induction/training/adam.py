"""Adam over stacked parameters: one optimizer step for a whole grid of runs."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class StackedAdam:
    """``torch.optim.Adam`` with its defaults, for parameters with a leading run dimension.

    Every tensor in ``params`` is ``[R, ...]``; run r has its own learning rate ``lrs[r]`` and
    its own moments. All runs start together, so they share the step counts that drive the
    bias correction. The arithmetic follows ``torch.optim.Adam`` (betas (0.9, 0.999),
    eps 1e-8, bias-corrected, no weight decay) operation by operation.

    Args:
        params: name -> stacked parameter ``[R, ...]``.
        lrs: R learning rates, kept in float64 like torch.optim.Adam's Python floats.
    """

    def __init__(
        self,
        params: dict[str, torch.Tensor],
        lrs: Sequence[float],
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
    ) -> None:
        device = next(iter(params.values())).device
        self.lrs = torch.tensor(list(lrs), dtype=torch.float64, device=device)  # [R]
        self.beta1, self.beta2 = betas
        self.eps = eps
        # Per parameter, as in torch.optim.Adam, where a step without gradient does not count.
        self.steps = dict.fromkeys(params, 0)
        self.exp_avg = {k: torch.zeros_like(p) for k, p in params.items()}
        self.exp_avg_sq = {k: torch.zeros_like(p) for k, p in params.items()}

    @torch.no_grad()
    def step(self, params: dict[str, torch.Tensor], grads: dict[str, torch.Tensor | None]) -> None:
        """Update ``params`` in place; a ``None`` gradient leaves that parameter unchanged."""
        for name, param in params.items():
            grad = grads[name]
            if grad is None:
                continue
            self.steps[name] += 1
            bias_correction1 = 1 - self.beta1 ** self.steps[name]
            bias_correction2_sqrt = (1 - self.beta2 ** self.steps[name]) ** 0.5
            # Formed in float64, as torch.optim.Adam forms it from Python floats.
            step_size = self.lrs / bias_correction1  # [R]
            exp_avg, exp_avg_sq = self.exp_avg[name], self.exp_avg_sq[name]
            exp_avg.lerp_(grad, 1 - self.beta1)
            exp_avg_sq.mul_(self.beta2).addcmul_(grad, grad, value=1 - self.beta2)
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(self.eps)
            run_step = step_size.to(param.dtype).view(-1, *([1] * (param.dim() - 1)))
            param.sub_((exp_avg / denom).mul_(run_step))

    def keep(self, index: torch.Tensor) -> None:
        """Keep only the runs at ``index`` (the grid shrinks as runs finish)."""
        self.lrs = self.lrs[index]
        self.exp_avg = {k: v[index] for k, v in self.exp_avg.items()}
        self.exp_avg_sq = {k: v[index] for k, v in self.exp_avg_sq.items()}
