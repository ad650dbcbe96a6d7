"""The model card of a pushed checkpoint, rendered from the package's
``templates/checkpoint.md``.

The metadata carries the validation loss (and any extra metrics) as ``model-index``
evaluation results, which the Hub reads. huggingface_hub 2.x also knows the newer
``.eval_results/*.yaml`` files (``EvalResultEntry``): they point at a benchmark dataset
on the Hub, so they are written only when ``card_fields["dataset_id"]`` names one. The task
datasets register as benchmarks with the ``eval.yaml`` their builder writes
(`data.hub_folder.eval_spec`), whose task ids are the configs these entries name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from huggingface_hub import (
    EvalResult,
    EvalResultEntry,
    ModelCard,
    ModelCardData,
    eval_result_entries_to_yaml,
)

from .. import tasks
from ..templates import read_template

# card_fields: what the card needs, and what it may carry.
REQUIRED_FIELDS = ("task", "config", "model", "n", "learning_rate", "seed", "steps",
                   "validation_loss")
OPTIONAL_FIELDS = ("epsilon", "dataset_id", "results_repo", "metrics", "license", "tags")
# Config fields that say nothing about the function the model computes.
_VOLATILE = {"transformers_version", "_name_or_path", "architectures", "auto_map", "dtype",
             "torch_dtype", "return_dict", "output_attentions", "output_hidden_states",
             "id2label", "label2id", "problem_type", "chunk_size_feed_forward",
             "is_encoder_decoder"}


def _check_fields(card_fields: Mapping[str, Any]) -> None:
    missing = [k for k in REQUIRED_FIELDS if card_fields.get(k) is None]
    if missing:
        raise ValueError(f"card_fields needs {', '.join(missing)} (optional: "
                         f"{', '.join(OPTIONAL_FIELDS)})")


def _metrics(card_fields: Mapping[str, Any]) -> dict[str, float]:
    """validation_loss first, then the extra ``metrics`` (e.g. OOD accuracy)."""
    return {"validation_loss": float(card_fields["validation_loss"]),
            **{k: float(v) for k, v in dict(card_fields.get("metrics") or {}).items()}}


def checkpoint_card_data(repo_id: str, card_fields: Mapping[str, Any]) -> ModelCardData:
    """Metadata: library, license, tags, datasets and the ``model-index`` eval results."""
    _check_fields(card_fields)
    task, config = card_fields["task"], card_fields["config"]
    dataset_id = card_fields.get("dataset_id")
    cell = tasks.parse_or_none(task, config)
    eval_results = [
        EvalResult(
            task_type="text-generation",
            task_name=cell.TASK_NAME if cell is not None else task,
            dataset_type=dataset_id or task,
            dataset_name=f"{task} {config}",
            dataset_config=config,
            dataset_split="validation",
            metric_type="loss" if name == "validation_loss" else name,
            metric_name=name.replace("_", " "),
            metric_value=value,
        )
        for name, value in _metrics(card_fields).items()
    ]
    return ModelCardData(
        model_name=repo_id.split("/")[-1],
        eval_results=eval_results,
        library_name="transformers",
        pipeline_tag="text-generation",
        license=card_fields.get("license", "apache-2.0"),
        datasets=[dataset_id] if dataset_id else None,
        tags=list(dict.fromkeys(["hf-induction", *(cell.TAGS if cell is not None else ()), task,
                                 card_fields["model"], *card_fields.get("tags", ())])),
    )


def _template_values(repo_id: str, card_fields: Mapping[str, Any], model_config: Any) -> dict:
    task, config = card_fields["task"], card_fields["config"]
    values: dict[str, Any] = {"format": "?", "group": "?", "lengths": "?",
                              "example_input": "0 1 1"}
    cell = tasks.parse_or_none(task, config)
    if cell is not None:
        names = cell.symbol_names()
        lengths = cell.lengths
        values.update(
            format=cell.kind,
            group=cell.variant,
            lengths=f"{lengths[0]}..{lengths[-1]}" if len(lengths) > 1 else str(lengths[0]),
            example_input=" ".join(names[i % len(names)] for i in (1, 2, 3)),
        )
    config_dict = {} if model_config is None else {
        k: v for k, v in model_config.to_dict().items() if k not in _VOLATILE
    }
    extra = [(k.replace("_", " "), v) for k, v in _metrics(card_fields).items()
             if k != "validation_loss"]
    return {
        **{k: card_fields.get(k) for k in REQUIRED_FIELDS + OPTIONAL_FIELDS},
        **values,
        "epsilon": card_fields.get("epsilon", "—"),
        "repo_id": repo_id,
        "model_name": repo_id.split("/")[-1],
        "extra_rows": extra,
        "model_config_json": json.dumps(config_dict, indent=2, sort_keys=True, default=str),
    }


def checkpoint_card(repo_id: str, card_fields: Mapping[str, Any], *, model_config: Any = None,
                    template_path: str | Path | None = None) -> ModelCard:
    """The README of a checkpoint repo: the template filled with ``card_fields``.

    ``card_fields``: task ("modadd" | "permutation"), config ("acot_L5"), model, n,
    learning_rate, seed, steps, validation_loss; optionally epsilon, dataset_id (the task
    dataset on the Hub), results_repo (the results dataset), metrics (a dict of extra
    evaluation numbers, e.g. normalised OOD accuracy), license, tags.
    """
    data = checkpoint_card_data(repo_id, card_fields)
    template = (Path(template_path).read_text(encoding="utf-8") if template_path is not None
                else read_template("checkpoint.md"))
    return ModelCard.from_template(
        data, template_str=template, **_template_values(repo_id, card_fields, model_config))


def write_model_card(folder: Path, repo_id: str, card_fields: Mapping[str, Any], *,
                     model_config: Any = None, template_path: str | Path | None = None) -> Path:
    card = checkpoint_card(repo_id, card_fields, model_config=model_config,
                           template_path=template_path)
    path = Path(folder) / "README.md"
    card.save(path)
    return path


def eval_result_entries(card_fields: Mapping[str, Any]) -> list[EvalResultEntry]:
    """``.eval_results`` entries: one per metric, on the task dataset, task id = the config."""
    dataset_id = card_fields.get("dataset_id")
    if not dataset_id:
        return []
    return [
        EvalResultEntry(dataset_id=dataset_id, task_id=card_fields["config"], value=value,
                        notes=name)
        for name, value in _metrics(card_fields).items()
    ]


def write_eval_results(folder: Path, card_fields: Mapping[str, Any]) -> Path | None:
    """``.eval_results/<config>.yaml`` when the task dataset is on the Hub; else nothing."""
    entries = eval_result_entries(card_fields)
    if not entries:
        return None
    path = Path(folder) / ".eval_results" / f"{card_fields['config']}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False),
                    encoding="utf-8")
    return path
