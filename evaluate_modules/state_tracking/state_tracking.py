"""State-tracking metrics as an ``evaluate`` module, wrapping ``hf_induction.metrics``.

    import evaluate
    metric = evaluate.load("evaluate_modules/state_tracking")      # a local path, or a Hub id
    metric.compute(predictions=pred_ids, references=labels, group_order=5)

Predictions are the model's token ids on each row's input_ids (argmax of the logits),
references the row's causal-LM labels (-100 where unsupervised; the output at position j
predicts label j + 1), both lists of sequences of the row's length; sequences of different
lengths are padded with -100. Returns state_accuracy, final_state_accuracy and both normalised
so that chance (1/|G|) is 0 and perfect is 1.
"""

import datasets
import evaluate
import numpy as np

from hf_induction.citations import INDUCTION_BIAS
from hf_induction.metrics import IGNORE, state_tracking_metrics

_DESCRIPTION = __doc__
_KWARGS_DESCRIPTION = """
Args:
    predictions: list of lists of int, the model's argmax at every input position.
    references: list of lists of int, causal-LM labels of the same rows; -100 is skipped.
    group_order: int, |G|; labels >= group_order (cot's EOS) are not states.
Returns:
    state_accuracy: accuracy over every state position.
    final_state_accuracy: accuracy of each example's last state position.
    normalised_state_accuracy, normalised_final_state_accuracy: (acc - 1/|G|) / (1 - 1/|G|).
Examples:
    >>> metric = evaluate.load("evaluate_modules/state_tracking")
    >>> out = metric.compute(predictions=[[1, 2, 0]], references=[[-100, 1, 2]], group_order=5)
    >>> out["state_accuracy"], out["final_state_accuracy"], out["normalised_state_accuracy"]
    (1.0, 1.0, 1.0)
"""
# The one citation of the paper, shared by every card (hf_induction/citations.py).
_CITATION = INDUCTION_BIAS.bibtex


def _pad(sequences, width):
    out = np.full((len(sequences), width), IGNORE, dtype=np.int64)
    for i, seq in enumerate(sequences):
        out[i, : len(seq)] = seq
    return out


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class StateTracking(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(
                {
                    "predictions": datasets.Sequence(datasets.Value("int64")),
                    "references": datasets.Sequence(datasets.Value("int64")),
                }
            ),
            reference_urls=["https://arxiv.org/abs/2602.18333"],
        )

    def _compute(self, predictions, references, group_order):
        width = max([len(s) for s in references] + [len(s) for s in predictions] + [1])
        return state_tracking_metrics(_pad(predictions, width), _pad(references, width),
                                      int(group_order))
