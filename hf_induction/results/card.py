"""The README.md that makes a results folder a Hub dataset repo with four configs."""

from __future__ import annotations

from ..citations import BORN_A_TRANSFORMER, INDUCTION_BIAS
from .rows import KappaRow, LengthGenRow, NstarRow, OodRow, features_yaml

_BODY = """
# hf-induction results

Results of the N* search, the sharing factor κ and length generalisation
([{induction.title}]({induction.url}); [{born.title}]({born.url})).

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
""".format(induction=INDUCTION_BIAS, born=BORN_A_TRANSFORMER)


TABLES = {"nstar": NstarRow, "kappa": KappaRow, "ood": OodRow, "lengthgen": LengthGenRow,
          "journal": None, "pushes": None}


def render_card() -> str:
    """Through the libraries' own metadata classes: `DatasetCardData`, and `MetadataConfigs`
    for the tables (nstar the default, so ``load_dataset(repo)`` reads the N* rows)."""
    # Imported here: a command line reads results folders before its arguments are checked,
    # and `datasets` costs a second to import.
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard, DatasetCardData

    data = DatasetCardData(license="apache-2.0", pretty_name="hf-induction results",
                           tags=["hf-induction", "induction-bias", "results"])
    MetadataConfigs({
        name: {"data_files": [{"split": "train", "path": f"{name}/*.jsonl"}],
               **({"default": True} if name == "nstar" else {})}
        for name in TABLES}).to_dataset_card_data(data)
    # Declared types keep a column typed even when every row so far holds null.
    data["dataset_info"] = [{"config_name": name, "features": features_yaml(row)}
                            for name, row in TABLES.items() if row is not None]
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n{_BODY}"))
