"""Where a copy model's heads look while it copies, by the role of each key.

The four head scores (`scores`) ask whether a head follows one edge (t -> s + 1 and so on). A
head can copy without following any single edge: it can spread its attention over every input
symbol still to be copied and let a positional tilt pick the next one, a set difference that
fits the training lengths and need not carry past them. These roles tell the two apart.

On a copy row ``[BOS, x_1..x_n, SEP, y_1..y_n, EOS]`` (`tasks.copying.copy_rows`; distinct
symbols, UF or UB) the model predicts y_j at position t = n + j, which holds y_{j-1}. For each
head, at every such t with j >= 2 (the positions whose token occurred once before, as the head
scores take them):

    source      the weight on the input position y_j is copied from (UF: j, which is also the
                induction target s + 1; UB: n + 1 - j)
    occurrence  the weight on the input position of y_{j-1}, the token at t (UF: j - 1; UB:
                n + 2 - j, the edge the study's anti-induction circuit reads)
    to_copy     the mean weight per key on the input positions not yet copied (the source
                among them)
    copied      the mean weight per key on the input positions already copied (the
                occurrence among them)
    separator   the weight on SEP

A set-difference head has ``to_copy`` well above ``copied`` and a ``source`` no larger than
``to_copy``; an induction head (UF) has ``source`` near 1, the anti-induction circuit's head
(UB) ``occurrence`` near 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROLES = ("source", "occurrence", "to_copy", "copied", "separator")


def source_position(n: int, j: int, backward: bool) -> int:
    """The input position of the symbol copied as y_j (1-based j) in a row of length n."""
    return n + 1 - j if backward else j


def copy_roles(attentions: np.ndarray, n: int, backward: bool) -> dict[str, np.ndarray]:
    """``{role: [L, H]}`` from the attention weights of rows of one copy length n >= 2,
    ``attentions`` [L, B, H, T, T] (layer, row, head, query, key), each role averaged over
    rows and over the copy indices j = 2..n."""
    if n < 2 or attentions.ndim != 5 or attentions.shape[-1] < 2 * n + 2:
        raise ValueError(f"need a copy length n >= 2 and attentions [L, B, H, T, T] with "
                         f"T >= 2n + 2, got n = {n} and shape {tuple(attentions.shape)}")
    sums: dict[str, list[np.ndarray]] = {role: [] for role in ROLES}
    inputs = np.arange(1, n + 1)
    for j in range(2, n + 1):
        at_t = attentions[..., n + j, :]  # [L, B, H, keys]
        source = source_position(n, j, backward)
        done = inputs > source if backward else inputs < source
        for role, keys in (("source", [source]),
                           ("occurrence", [source_position(n, j - 1, backward)]),
                           ("to_copy", inputs[~done]), ("copied", inputs[done]),
                           ("separator", [n + 1])):
            sums[role].append(at_t[..., keys].mean(axis=-1).mean(axis=1))
    return {role: np.mean(values, axis=0) for role, values in sums.items()}


@dataclass(frozen=True)
class CopyAttention:
    """One copy length's roles (`copy_roles`) and the model's teacher-forced accuracy at each
    copy index j = 1..n (``accuracy[j - 1]``), over ``rows`` rows."""

    n: int
    rows: int
    roles: dict[str, np.ndarray]
    accuracy: np.ndarray


def copy_attention(model, input_ids: np.ndarray, lengths: np.ndarray,
                   backward: bool) -> list[CopyAttention]:
    """`CopyAttention` for every copy length n >= 2 among ``lengths``, shortest first, read from
    ``model`` (an attention model; eager attention) on copy rows ``input_ids`` [K, T]."""
    import torch

    from .running import NoAttention, reading

    out = []
    with reading(model, "eager"):
        for n in np.unique(lengths[lengths >= 2]).tolist():
            rows = np.asarray(input_ids)[lengths == n, : 2 * n + 3]
            result = model(input_ids=torch.as_tensor(rows, device=model.device),
                           output_attentions=True, use_cache=False)
            if not getattr(result, "attentions", None):
                raise NoAttention(f"{type(model).__name__} returns no attention weights")
            weights = torch.stack(result.attentions).double().cpu().numpy()
            predicted = result.logits.argmax(-1).cpu().numpy()
            copy_at = n + np.arange(1, n + 1)  # t = n + j predicts y_j at t + 1
            right = predicted[:, copy_at] == rows[:, copy_at + 1]
            out.append(CopyAttention(n, len(rows), copy_roles(weights, n, backward),
                                     right.mean(axis=0)))
    return out
