"""The README.md that makes a results folder a Hub dataset repo, one config per table.

The card says what the folder holds (its ``campaign.json``: a description and the command
lines that wrote it), under which protocol (``protocol.json``, one line per model that has
settings of its own), and what each table's rows are; its YAML declares every table's columns.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..citations import BORN_A_TRANSFORMER, INDUCTION_BIAS
from .protocol import ADDED_MODELS, protocol_summary
from .rows import features_yaml
from .tables import TABLES as _TABLES

_INDUCTION, _BORN = INDUCTION_BIAS, BORN_A_TRANSFORMER
_TABLES_TEXT = f"""
Results of the N* search, the sharing factor κ and length generalisation
([{_INDUCTION.title}]({_INDUCTION.url}); [{_BORN.title}]({_BORN.url})).

- `nstar`: one row per finished search: N* (`n_star`, the smallest succeeding training-set
  size; null when even the largest size tried failed) and `largest_failing`, so the true
  N* lies in (largest_failing, n_star]. `probes` is a JSON list of every probe with its runs.
- `kappa`: one row per κ = Σ_n N*_n / N*_joint, with bounds from the search brackets.
- `ood`: one row per out-of-distribution check: the best run at a large training size,
  tested at length 2L; accuracies normalised so that chance is 0 and perfect is 1.
- `reach`: one row per (out-of-distribution check, length): the same best run scored at
  2L, 4L, 10L, 100L and 1,000L (`scored` false beyond a model's learned positions), with
  `chance`; the accuracies normalised as `ood`'s.
- `lengthgen`: one row per length-generalisation check: the best run at a training size,
  scored with the task's own metrics on the validation set (the training lengths) and on
  each longer test split; `results` is JSON, split -> lengths and metrics.
- `journal`: one row per finished training run, as the trainer recorded it.
- `pushes`: one row per checkpoint pushed to the Hub (`--push-checkpoints`).
- `heads`: one row per (checkpoint, prompt config, layer, head) that `hf-induction heads`
  scored: the share of the head's attention on the token after the earlier occurrence of the
  current one (`induction`), before it (`anti_induction`), on the previous token and on the
  occurrence itself; `heads.json` holds the same rows nested by checkpoint and config.
- `patching`: one row per (checkpoint, prompt config, kind, layer, head) of
  `hf-induction heads --patch`: the rise in loss (`delta_ce`) when that head's induction keys
  or anti-induction values come from a run without previous-token edges, `rank` 1 the largest.

The models of the length-generalisation checks run with `--keep-checkpoints` are kept under
`checkpoints/<model>-<config>-n<N>/`, each loadable with
`AutoModelForCausalLM.from_pretrained(PATH, trust_remote_code=True)`.

The rows of a cell (nstar, kappa, ood, lengthgen) carry its name (`dataset`, `config`) and
the name parsed: `max_len` (L), `variant` ("Z_5", "S_3", "V16") with `alphabet_size` (|G| or
V), `kind` (the format or task: "acot", "NRLast") and `dist` ("fixed", "uniform", "s2l").

`protocol.json` holds what every result here depends on (ε, grid, budget, search settings);
`campaign.json` holds this card's description and commands.

```python
from datasets import load_dataset
nstar = load_dataset("<this folder or repo>", "nstar", split="train")
```

Only the tables that hold rows are configs of this card (`datasets` cannot load an empty
table); a table joins them with its first row.
"""


# Table name -> row class, in `tables.TABLES`' order.
TABLES = {table.name: table.row for table in _TABLES}


def protocol_lines(protocol: Mapping[str, Any] | None) -> list[str]:
    """The protocol in words: the folder's line, then one per model with settings of its own."""
    if not protocol:
        return ["- not recorded yet (the first search writes `protocol.json`)"]
    own = sorted(protocol.get("by_model", {}))
    lines = [f"- {'every other model' if own else 'every model'}: "
             f"{protocol_summary(protocol, values=True)}"]
    added = set(protocol.get(ADDED_MODELS, ()))
    lines += [f"- {model}{' (added to the folder later)' if model in added else ''}: "
              f"{protocol_summary(protocol, model, values=True)}" for model in own]
    return lines


TITLE = "# hf-induction results: "


def card_name(text: str) -> str | None:
    """The folder name a card's title gives (a folder copied or renamed keeps it), None where
    the text holds no title."""
    for line in text.splitlines():
        if line.startswith(TITLE):
            return line[len(TITLE):]
    return None


def card_body(name: str, description: str, protocol: Mapping[str, Any] | None,
              commands: Sequence[str]) -> str:
    """The card's text under its YAML: what, under which protocol, made how, then the tables."""
    parts = [f"{TITLE}{name}", "",
             description or "(no description: `ResultsFolder(DIR).describe(TEXT)` gives one)",
             "", "## Protocol", "", *protocol_lines(protocol), "", "## Commands", ""]
    if commands:
        parts += ["```bash", *commands, "```"]
    else:
        parts += ["(none recorded)"]
    return "\n".join(parts) + "\n\n## Tables\n" + _TABLES_TEXT


def render_card(name: str = "", description: str = "",
                protocol: Mapping[str, Any] | None = None,
                commands: Sequence[str] = (), tables: Collection[str] = ()) -> str:
    """Through the libraries' own metadata classes: `DatasetCardData`, and `MetadataConfigs`
    for the tables that hold rows (``tables``), the first of them in `TABLES` order the
    default, so ``load_dataset(repo)`` reads the N* rows where there are some.

    A table with no row is not declared: `datasets` cannot load an empty split (it ends in
    "Instruction 'train' corresponds to no data", and a zero-row parquet file fails sooner),
    and neither can the Hub's dataset viewer, so a declared empty table would be a config
    that fails."""
    # Imported here: a command line reads results folders before its arguments are checked,
    # and `datasets` costs a second to import.
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard, DatasetCardData

    data = DatasetCardData(license="apache-2.0", pretty_name="hf-induction results",
                           tags=["hf-induction", "induction-bias", "results"])
    declared = [table for table in TABLES if table in tables]
    if declared:
        MetadataConfigs({
            table: {"data_files": [{"split": "train", "path": f"{table}/*.jsonl"}],
                    **({"default": True} if table == declared[0] else {})}
            for table in declared}).to_dataset_card_data(data)
        # Declared types keep a column typed even when every row so far holds null, and spare
        # `datasets` inferring them from a first file that may be empty.
        data["dataset_info"] = [{"config_name": table, "features": features_yaml(TABLES[table])}
                                for table in declared]
    body = card_body(name, description, protocol, commands)
    return str(DatasetCard(f"---\n{data.to_yaml()}\n---\n\n{body}"))
