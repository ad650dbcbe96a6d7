"""Adam over stacked parameters: one optimizer step for a whole grid of runs."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import torch


class StackedAdam:
    """``torch.optim.Adam`` with its defaults, for parameters with a leading run dimension.

    Every tensor in ``params`` is ``[R, ...]``; run r has its own learning rate ``lrs[r]`` and
    its own moments. All runs start together, so they share the step counts that drive the
    bias correction. The arithmetic follows ``torch.optim.Adam`` (betas (0.9, 0.999),
    eps 1e-8, bias-corrected, no weight decay) operation by operation.

    With ``weight_decay`` it is ``torch.optim.AdamW`` instead, decaying the parameters named
    in ``decay`` (decoupled: each is first scaled by 1 - lr x weight_decay), and ``step``'s
    ``lr_scale`` multiplies every run's learning rate (a schedule, `optim.lr_factor`).

    Args:
        params: name -> stacked parameter ``[R, ...]``.
        lrs: R learning rates, kept in float64 like torch.optim.Adam's Python floats.
        weight_decay: AdamW's decoupled weight decay (0: Adam).
        decay: the names of the parameters it applies to.
    """

    def __init__(
        self,
        params: dict[str, torch.Tensor],
        lrs: Sequence[float],
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
        decay: Collection[str] = (),
    ) -> None:
        device = next(iter(params.values())).device
        self.lrs = torch.tensor(list(lrs), dtype=torch.float64, device=device)  # [R]
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.decay = frozenset(decay) if weight_decay else frozenset()
        # Per parameter, as in torch.optim.Adam, where a step without gradient does not count.
        self.steps = dict.fromkeys(params, 0)
        self.exp_avg = {k: torch.zeros_like(p) for k, p in params.items()}
        self.exp_avg_sq = {k: torch.zeros_like(p) for k, p in params.items()}

    @torch.no_grad()
    def step(self, params: dict[str, torch.Tensor], grads: dict[str, torch.Tensor | None],
             lr_scale: float = 1.0) -> None:
        """Update ``params`` in place; a ``None`` gradient leaves that parameter unchanged.

        Parameters that share a step count (normally all of them) are updated together with
        ``torch._foreach_*`` ops: about ten kernel launches per step instead of ten per tensor.
        """
        groups: dict[int, list[str]] = {}
        for name in params:
            if grads[name] is not None:
                self.steps[name] += 1
                groups.setdefault(self.steps[name], []).append(name)
        # At a scale of 1 the rates are used as they are (bit for bit the Adam of before).
        lrs = self.lrs if lr_scale == 1.0 else self.lrs * lr_scale  # [R]
        decayed = [params[k] for k in params if k in self.decay and grads[k] is not None]
        if decayed:
            # AdamW scales each decayed parameter by 1 - lr x weight_decay before its step.
            shrink = 1 - lrs * self.weight_decay  # [R]
            torch._foreach_mul_(decayed, [shrink.to(p.dtype).view(-1, *([1] * (p.dim() - 1)))
                                          for p in decayed])
        for step, names in groups.items():
            bias_correction1 = 1 - self.beta1**step
            bias_correction2_sqrt = (1 - self.beta2**step) ** 0.5
            # Formed in float64, as torch.optim.Adam forms it from Python floats.
            step_size = lrs / bias_correction1  # [R]
            param_list = [params[k] for k in names]
            grad_list = [grads[k] for k in names]
            exp_avg = [self.exp_avg[k] for k in names]
            exp_avg_sq = [self.exp_avg_sq[k] for k in names]
            torch._foreach_lerp_(exp_avg, grad_list, 1 - self.beta1)
            torch._foreach_mul_(exp_avg_sq, self.beta2)
            torch._foreach_addcmul_(exp_avg_sq, grad_list, grad_list, value=1 - self.beta2)
            denom = torch._foreach_sqrt(exp_avg_sq)
            torch._foreach_div_(denom, bias_correction2_sqrt)
            torch._foreach_add_(denom, self.eps)
            update = torch._foreach_div(exp_avg, denom)
            run_steps = [step_size.to(p.dtype).view(-1, *([1] * (p.dim() - 1))) for p in param_list]
            torch._foreach_mul_(update, run_steps)
            torch._foreach_sub_(param_list, update)

    def keep(self, index: torch.Tensor) -> None:
        """Keep only the runs at ``index`` (the grid shrinks as runs finish)."""
        self.lrs = self.lrs[index]
        self.exp_avg = {k: v[index] for k, v in self.exp_avg.items()}
        self.exp_avg_sq = {k: v[index] for k, v in self.exp_avg_sq.items()}
