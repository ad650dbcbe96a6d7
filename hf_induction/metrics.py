"""State-tracking metrics on causal-LM labels: plain functions of numpy or torch arrays.

Labels follow the token layout (``hf_induction.tasks.token_layout``) and the causal-LM
convention: the output at position j predicts ``labels[b, j + 1]``, -100 where nothing is
supervised. Predictions are what the model outputs on the row's ``input_ids``, as token ids
``[B, T]`` or logits ``[B, T, V]`` (argmax is taken), the shape `transformers.Trainer` hands
to ``compute_metrics``; the functions shift them against the labels themselves.

A *state* target is a supervised label that is a group element id, i.e.
``0 <= label < group_order``. That leaves out cot's final EOS label, so for every format
the final state of an example is its last state target:

    acot:     labels = [-100 x 2, s_1..s_n]                -> s_n, the last label
    outcome:  labels = [-100 x (n+2), s_n]                 -> s_n
    cot:      labels = [-100 x (n+2), s_1..s_n, EOS]       -> s_n, the label before EOS

Every function returns a Python float; NaN when there is nothing to score.
"""

from __future__ import annotations

from typing import Any

import numpy as np

IGNORE = -100


def _as_numpy(array: Any) -> np.ndarray:
    if hasattr(array, "detach"):
        array = array.detach().cpu().numpy()
    return np.asarray(array)


def _shifted(predictions_or_logits: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """(predicted ids [B, T-1], targets [B, T-1]): output j beside label j + 1."""
    labels = _as_numpy(labels)
    predictions = _as_numpy(predictions_or_logits)
    if predictions.ndim == labels.ndim + 1:
        predictions = predictions.argmax(-1)  # logits [B, T, V] -> ids [B, T]
    if predictions.shape != labels.shape:
        raise ValueError(
            f"predictions {predictions.shape} and labels {labels.shape} do not align "
            "(expected the model's ids [B, T] or logits [B, T, V] on input_ids, with the "
            "row's labels [B, T])"
        )
    return predictions[..., :-1], labels[..., 1:]


def outputs_and_targets(predictions_or_logits: Any, labels: Any) -> tuple[np.ndarray, np.ndarray]:
    """(predicted ids [B, T-1], targets [B, T-1]): each output beside the label it is scored
    against, for a family's own metrics (a line's exact match, an error's position)."""
    return _shifted(predictions_or_logits, labels)


def _state_mask(labels: np.ndarray, group_order: int | None) -> np.ndarray:
    if group_order is None:
        return labels != IGNORE
    return (labels >= 0) & (labels < group_order)


def token_accuracy(predictions: Any, labels: Any, symbols: int | None = None) -> float:
    """Accuracy over the supervised targets of every example, pooled.

    With ``symbols`` only targets that are symbols (ids below it) count, so EOS labels are
    left out; without it every label other than -100 counts.
    """
    predictions, labels = _shifted(predictions, labels)
    mask = _state_mask(labels, symbols)
    if not mask.any():
        return float("nan")
    return float((predictions[mask] == labels[mask]).mean())


def exact_match(predictions: Any, labels: Any, symbols: int | None = None) -> float:
    """Fraction of examples whose every (symbol) target is right; examples without any are left
    out. Teacher-forced, and equal to greedy generation's exact match: a generation is exactly
    right if and only if every step's prediction from the right prefix is."""
    predictions, labels = _shifted(predictions, labels)
    mask = _state_mask(labels, symbols)  # [B, T-1]
    has_target = mask.any(axis=1)
    if not has_target.any():
        return float("nan")
    wrong = (mask & (predictions != labels)).any(axis=1)
    return float((~wrong[has_target]).mean())


def state_accuracy(predictions: Any, labels: Any, group_order: int | None = None) -> float:
    """Accuracy over the state targets of a word problem: `token_accuracy` with the group's
    elements as symbols (cot's EOS label is left out)."""
    return token_accuracy(predictions, labels, group_order)


def final_state_accuracy(predictions: Any, labels: Any, group_order: int) -> float:
    """Fraction of examples whose final state (the last label < ``group_order``) is right.

    Examples without any state label are left out.
    """
    predictions, labels = _shifted(predictions, labels)
    mask = _state_mask(labels, group_order)  # [B, T]
    has_state = mask.any(axis=1)
    if not has_state.any():
        return float("nan")
    # The last True per row: the first True of the reversed row, counted from the end.
    last = labels.shape[1] - 1 - mask[:, ::-1].argmax(axis=1)  # [B]
    rows = np.flatnonzero(has_state)
    hits = predictions[rows, last[rows]] == labels[rows, last[rows]]
    return float(hits.mean())


def normalised_accuracy(accuracy: float, group_order: int) -> float:
    """(acc - 1/|G|) / (1 - 1/|G|): chance is 0, perfect is 1 (the paper's OOD score)."""
    if group_order < 2:
        raise ValueError(f"group_order must be at least 2, got {group_order}")
    chance = 1.0 / group_order
    return float((accuracy - chance) / (1.0 - chance))


def state_accuracy_by_position(predictions: Any, labels: Any, group_order: int) -> list[float]:
    """Accuracy of the k-th state target for k = 1, 2, ...: entry k - 1 over the examples that
    have at least k state targets (NaN past the longest). Where `state_accuracy` pools the
    positions, this says where the errors are: a model right up to its training length and at
    chance after it, or wrong from the start."""
    predictions, labels = _shifted(predictions, labels)
    mask = _state_mask(labels, group_order)
    right = mask & (predictions == labels)
    # Each state target's rank within its row: 0 for the first, 1 for the second, ...
    rank = np.cumsum(mask, axis=1) - 1
    longest = int(mask.sum(axis=1).max(initial=0))
    counts = np.bincount(rank[mask], minlength=longest)
    hits = np.bincount(rank[right], minlength=longest)
    return [float(h / c) if c else float("nan") for h, c in zip(hits, counts, strict=True)]


def state_tracking_metrics(predictions: Any, labels: Any, group_order: int) -> dict[str, float]:
    """All of the above at once, under the names the ``evaluate`` module returns."""
    state = state_accuracy(predictions, labels, group_order)
    final = final_state_accuracy(predictions, labels, group_order)
    return {
        "state_accuracy": state,
        "final_state_accuracy": final,
        "normalised_state_accuracy": normalised_accuracy(state, group_order),
        "normalised_final_state_accuracy": normalised_accuracy(final, group_order),
    }
