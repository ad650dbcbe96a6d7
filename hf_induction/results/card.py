"""The README.md that makes a results folder a Hub dataset repo with four configs."""

from __future__ import annotations

import yaml

from .rows import KappaRow, LengthGenRow, NstarRow, OodRow, features_yaml

_BODY = """
# hf-induction results

Results of the N* search, the sharing factor κ and length generalisation
("On the 'Induction Bias' in Sequence Models", arXiv 2602.18333; "Born a Transformer --
Always a Transformer?", arXiv 2505.21785).

- `nstar`: one row per finished search: N* (`n_star`, the smallest succeeding training-set
  size; null when even the largest size tried failed) and `largest_failing`, so the true
  N* lies in (largest_failing, n_star]. `probes` is a JSON list of every probe with its runs.
- `kappa`: one row per κ = Σ_n N*_n / N*_joint, with bounds from the search brackets.
- `ood`: one row per out-of-distribution check: the best run at a large training size,
  tested at length 2L; accuracies normalised so that chance is 0 and perfect is 1.
- `lengthgen`: one row per length-generalisation check: the best run at a training size,
  scored with the task's own metrics on the validation set (the training lengths) and on
  each longer test split; `results` is JSON, split -> lengths and metrics.
- `journal`: one row per finished training run, as the trainer recorded it.
- `pushes`: one row per checkpoint pushed to the Hub (`--push-checkpoints`).

`protocol.json` holds what every result here depends on (ε, grid, budget, search settings).

```python
from datasets import load_dataset
nstar = load_dataset("<this folder or repo>", "nstar", split="train")
```
"""


def render_card() -> str:
    metadata = {
        "configs": [
            {"config_name": "nstar", "data_files": [{"split": "train", "path": "nstar/*.jsonl"}]},
            {"config_name": "kappa", "data_files": [{"split": "train", "path": "kappa/*.jsonl"}]},
            {"config_name": "ood", "data_files": [{"split": "train", "path": "ood/*.jsonl"}]},
            {
                "config_name": "lengthgen",
                "data_files": [{"split": "train", "path": "lengthgen/*.jsonl"}],
            },
            {
                "config_name": "journal",
                "data_files": [{"split": "train", "path": "journal/*.jsonl"}],
            },
            {
                "config_name": "pushes",
                "data_files": [{"split": "train", "path": "pushes/*.jsonl"}],
            },
        ],
        # Declared types keep a column typed even when every row so far holds null.
        "dataset_info": [
            {"config_name": "nstar", "features": features_yaml(NstarRow)},
            {"config_name": "kappa", "features": features_yaml(KappaRow)},
            {"config_name": "ood", "features": features_yaml(OodRow)},
            {"config_name": "lengthgen", "features": features_yaml(LengthGenRow)},
        ],
    }
    front = yaml.safe_dump(metadata, sort_keys=False)
    return f"---\n{front}---\n{_BODY}"
