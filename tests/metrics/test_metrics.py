"""hf_induction.metrics on the three label layouts; the evaluate module gives the same numbers."""

from pathlib import Path

import numpy as np
import pytest
import torch

from hf_induction.metrics import (
    final_state_accuracy,
    normalised_accuracy,
    state_accuracy,
    state_accuracy_by_position,
    state_tracking_metrics,
)
from hf_induction.tasks import IGNORE, Vocab

G = 5
EOS = Vocab(G).eos
X = IGNORE

# Causal-LM labels: the output at position j predicts labels[j + 1], so a prediction row is
# as long as its labels and its last entry predicts nothing (6 or 0 below, never scored).
# acot: [BOS, g1..g3, EOS] -> labels [-100 x 2, s1..s3]; the second example gets s2, s3 wrong.
ACOT_LABELS = np.array([[X, X, 1, 3, 0], [X, X, 2, 2, 4]])
ACOT_PRED = np.array([[7, 1, 3, 0, 6], [0, 2, 1, 1, 6]])
# cot: labels [-100 x (n+2), s1..sn, EOS]: the final state is the label BEFORE EOS.
COT_LABELS = np.array([[X, X, X, X, 4, 1, EOS], [X, X, X, X, 3, 3, EOS]])
COT_PRED = np.array([[0, 0, 0, 4, 1, 0, 0], [0, 0, 0, 3, 2, EOS, 0]])
# outcome: one supervised label, at different places for different lengths (padding -100).
OUT_LABELS = np.array([[X, X, X, X, 2, X], [X, X, X, X, X, 0]])
OUT_PRED = np.array([[1, 1, 1, 2, 1, 1], [1, 1, 1, 1, 1, 1]])


def test_acot():
    assert state_accuracy(ACOT_PRED, ACOT_LABELS, G) == pytest.approx(4 / 6)
    assert final_state_accuracy(ACOT_PRED, ACOT_LABELS, G) == 0.5


def test_accuracy_by_position_on_the_three_layouts():
    # acot: s1 right in both rows, s2 and s3 right in the first only.
    assert state_accuracy_by_position(ACOT_PRED, ACOT_LABELS, G) == [1.0, 0.5, 0.5]
    # cot: EOS is not a state; the second row's s2 is wrong.
    assert state_accuracy_by_position(COT_PRED, COT_LABELS, G) == [1.0, 0.5]
    # outcome: one state a row, wherever it sits.
    assert state_accuracy_by_position(OUT_PRED, OUT_LABELS, G) == [0.5]


def test_accuracy_by_position_by_brute_force_over_ragged_rows():
    # Rows of 1..8 states, right-padded; each entry k counted directly from the rows that
    # have a k-th state. Pooled over positions it is `state_accuracy`.
    rng = np.random.default_rng(0)
    lengths = rng.integers(1, 9, size=40)
    T = 2 + int(lengths.max()) + 1
    labels = np.full((40, T), X)
    predictions = rng.integers(0, G, size=(40, T))
    for row, n in enumerate(lengths):
        labels[row, 2:2 + n] = rng.integers(0, G, size=n)
    by_position = state_accuracy_by_position(predictions, labels, G)
    assert len(by_position) == lengths.max()
    for k in range(int(lengths.max())):
        rows = np.flatnonzero(lengths > k)
        expected = np.mean([predictions[r, 1 + k] == labels[r, 2 + k] for r in rows])
        assert by_position[k] == pytest.approx(expected)
    weights = [int((lengths > k).sum()) for k in range(int(lengths.max()))]
    assert np.average(by_position, weights=weights) == pytest.approx(
        state_accuracy(predictions, labels, G))


def test_cot_excludes_eos():
    # with |G| the EOS position is not a state: 3 right of 4 states (EOS miss ignored)
    assert state_accuracy(COT_PRED, COT_LABELS, G) == pytest.approx(3 / 4)
    # without |G| every supervised position counts: EOS is wrong once, right once
    assert state_accuracy(COT_PRED, COT_LABELS) == pytest.approx(4 / 6)
    assert final_state_accuracy(COT_PRED, COT_LABELS, G) == 0.5


def test_outcome_and_empty():
    assert final_state_accuracy(OUT_PRED, OUT_LABELS, G) == 0.5
    assert state_accuracy(OUT_PRED, OUT_LABELS, G) == 0.5
    empty = np.full((2, 3), X)
    assert np.isnan(state_accuracy(empty, empty, G))
    assert np.isnan(final_state_accuracy(empty, empty, G))
    # an example with no state label is left out of the final-state score
    mixed = np.vstack([ACOT_LABELS[:1], np.full((1, 5), X)])
    assert final_state_accuracy(ACOT_PRED, mixed, G) == 1.0


def test_logits_torch_and_normalisation():
    logits = torch.nn.functional.one_hot(torch.as_tensor(ACOT_PRED), 9).float()  # [B, T, V]
    assert state_accuracy(logits, torch.as_tensor(ACOT_LABELS), G) == pytest.approx(4 / 6)
    assert normalised_accuracy(1 / G, G) == pytest.approx(0.0)
    assert normalised_accuracy(1.0, G) == pytest.approx(1.0)
    assert normalised_accuracy(0.6, 5) == pytest.approx((0.6 - 0.2) / 0.8)
    all_ = state_tracking_metrics(ACOT_PRED, ACOT_LABELS, G)
    assert all_["normalised_final_state_accuracy"] == pytest.approx((0.5 - 0.2) / 0.8)
    with pytest.raises(ValueError, match="do not align"):
        state_accuracy(ACOT_PRED[:, :2], ACOT_LABELS, G)


def test_evaluate_module_matches_the_functions():
    evaluate = pytest.importorskip("evaluate")
    path = Path(__file__).resolve().parents[2] / "evaluate_modules" / "state_tracking"
    metric = evaluate.load(str(path))
    cases = [(ACOT_PRED, ACOT_LABELS), (COT_PRED, COT_LABELS), (OUT_PRED, OUT_LABELS)]
    for pred, labels in cases:
        got = metric.compute(predictions=pred.tolist(), references=labels.tolist(), group_order=G)
        assert got == pytest.approx(state_tracking_metrics(pred, labels, G))
    # ragged sequences are padded with -100, which changes nothing
    ragged = [[X, X, 1, 3, 0], [X, X, 2]]
    got = metric.compute(predictions=[[0, 1, 3, 1, 0], [0, 2, 0]], references=ragged,
                         group_order=G)
    assert got["state_accuracy"] == pytest.approx(3 / 4) and got["final_state_accuracy"] == 0.5


@pytest.mark.parametrize("fmt", ["acot", "outcome", "cot"])
def test_a_perfect_next_token_predictor_scores_one_on_generated_rows(fmt):
    from hf_induction.tasks import WordProblemCell, generate

    ex = generate(WordProblemCell("modadd", fmt, 4, "uniform", G), "validation", seed=1)
    # The oracle's output at position j is the label at j + 1.
    oracle = np.roll(np.where(ex.labels == X, 0, ex.labels), -1, axis=1)
    assert state_accuracy(oracle, ex.labels, G) == 1.0
    assert final_state_accuracy(oracle, ex.labels, G) == 1.0
    # The same predictions read without the shift would score near chance, not 1.
    assert state_accuracy(np.roll(oracle, 1, axis=1), ex.labels, G) < 0.5


def test_the_metric_card_is_a_space_card_and_cites_the_one_citation():
    evaluate = pytest.importorskip("evaluate")
    from huggingface_hub import SpaceCard

    from hf_induction.citations import INDUCTION_BIAS

    folder = Path(__file__).resolve().parents[2] / "evaluate_modules" / "state_tracking"
    card = SpaceCard.load(folder / "README.md")
    assert card.data.sdk == "gradio" and (folder / card.data.app_file).exists()
    assert {"evaluate", "metric"} <= set(card.data.tags)
    assert evaluate.load(str(folder)).citation == INDUCTION_BIAS.bibtex
