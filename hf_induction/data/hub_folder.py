"""Materialise cells into a folder laid out as a Hub dataset repo.

    DIR/README.md                                  YAML `configs:` + the dataset card
    DIR/build_info.json                            seed, sizes and generator version per config
    DIR/{config}/{split}-00000-of-00001.parquet    one shard per split

so that ``load_dataset(DIR, config)`` works offline and the same folder can be uploaded
as is. A rebuild adds configs and keeps the ones already there.
"""

from __future__ import annotations

import json
import os
import string
from collections.abc import Iterable
from pathlib import Path

import pyarrow.parquet as pq
import yaml
from datasets import DatasetInfo, SplitDict, SplitInfo
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from filelock import FileLock
from huggingface_hub import DatasetCard, DatasetCardData
from tqdm.auto import tqdm

from ..tasks import (
    DISJOINT,
    GENERATOR_VERSION,
    LAYOUT_VERSION,
    TaskCell,
    family,
    generate,
    grammar,
    hub_dataset_id,
)
from .arrow import examples_to_table, features

README = "README.md"
BUILD_INFO = "build_info.json"
BUILD_LOCK = ".build.lock"


def _atomic_write_text(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def shard_path(config: str, split: str) -> str:
    return f"{config}/{split}-00000-of-00001.parquet"


def read_configs(folder: str | os.PathLike) -> dict[str, dict]:
    """Build info of the configs already in ``folder`` (empty if none)."""
    path = Path(folder) / BUILD_INFO
    return json.loads(path.read_text()) if path.exists() else {}


SIZE_CATEGORIES = ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                   (1_000_000, "100K<n<1M"), (10_000_000, "1M<n<10M"),
                   (100_000_000, "10M<n<100M"))


def size_category(rows: int) -> str:
    """The Hub's size category of a dataset of ``rows`` rows in all."""
    return next((label for bound, label in SIZE_CATEGORIES if rows < bound), "100M<n<1B")


def card_data(dataset: str, info: dict[str, dict]) -> DatasetCardData:
    """The card's metadata, written by the libraries: `huggingface_hub`'s `DatasetCardData`,
    `datasets`' `MetadataConfigs` (data files; the first config is the default, so that
    ``load_dataset(repo)`` works) and `DatasetInfo` (features and split sizes per config)."""
    cell = family(dataset)
    data = DatasetCardData(
        license="apache-2.0", pretty_name=hub_dataset_id(dataset),
        task_categories=["text-generation"], tags=list(cell.TAGS),
        size_categories=[size_category(sum(n for i in info.values() for n in i["rows"].values()))],
    )
    names = sorted(info)
    MetadataConfigs({
        name: {"data_files": [{"split": s, "path": shard_path(name, s)}
                              for s in info[name]["rows"]],
               **({"default": True} if name == names[0] else {})}
        for name in names}).to_dataset_card_data(data)
    DatasetInfosDict({
        name: DatasetInfo(features=features(cell), splits=SplitDict(
            {s: SplitInfo(name=s, num_examples=n) for s, n in info[name]["rows"].items()}))
        for name in names}).to_dataset_card_data(data)
    return data


EVAL_YAML = "eval.yaml"
# What the checkpoints' `.eval_results` name as their harness (hub/cards.py writes them).
EVALUATION_FRAMEWORK = "hf-induction"


def eval_spec(dataset: str, info: dict[str, dict]) -> dict:
    """``eval.yaml``: the Hub's benchmark registration (docs/hub/eval-results.md). One task
    per config that holds a validation split, scored on it: the ``task_id`` a checkpoint's
    ``.eval_results`` entry names is its config."""
    cell, paper = family(dataset), family(dataset).PAPER
    return {
        "name": f"{hub_dataset_id(dataset)} ({cell.TASK_NAME})",
        "description": f"{cell.TASK_NAME} task cells of {paper.title} ({paper.url}); a model "
                       "is scored by its loss on each config's validation split.",
        "evaluation_framework": EVALUATION_FRAMEWORK,
        "tasks": [{"id": name, "config": name, "split": "validation"} for name in sorted(info)
                  if "validation" in info[name]["rows"]],
    }


def _configs_table(info: dict[str, dict]) -> str:
    """One row per config: the family's facts (`TaskCell.describe`), lengths, rows per split."""
    facts = list(dict.fromkeys(k for i in info.values() for k in i.get("describe", {})))
    splits = list(dict.fromkeys(s for i in info.values() for s in i["rows"]))
    header = ["config", *facts, "lengths", "pool", *(f"{s} ({i})" if (i := _split_lengths(info, s))
                                                    else s for s in splits), "seed",
              "validation rule"]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name in sorted(info):
        i = info[name]
        cells = [f"`{name}`", *(str(i.get("describe", {}).get(k, "")) for k in facts),
                 i["lengths"], i.get("pool", ""), *(str(i["rows"].get(s, "")) for s in splits),
                 str(i["seed"]), i.get("validation", DISJOINT)]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _split_lengths(info: dict[str, dict], split: str) -> str:
    """How a test split's lengths relate to L, if every config says the same (e.g. "2L")."""
    labels = {i.get("split_lengths", {}).get(split) for i in info.values()} - {None}
    return labels.pop() if len(labels) == 1 else ""


# The cards' words on the two validation rules (`tasks.sampling`), after each family's own
# sentence on its validation split.
VALIDATION_RULES_TEXT = (
    "Two rules set the validation split apart, and the configs table says which made each "
    "config: `disjoint` (the sizes above; no training set holds a validation row) and "
    "`in-distribution` (2,000 distinct rows drawn by the training law on a stream of their "
    "own, a pool smaller than its share taken whole; the whole pool is left to `train`, so "
    "a training set may hold validation rows).")


def render_card(template: str, dataset: str, info: dict[str, dict]) -> str:
    paper = family(dataset).PAPER
    body = string.Template(template).safe_substitute(
        dataset=dataset, configs_table=_configs_table(info),
        generator_version=GENERATOR_VERSION, grammar=grammar(dataset),
        validation_rules=VALIDATION_RULES_TEXT,
        layout_version=LAYOUT_VERSION,
        layout_table=family(dataset).layout_table(), citation=paper.bibtex,
    )
    # The Hub links a card to the paper's page from an arxiv.org/abs/ link in its text.
    heading, _, rest = body.partition("\n")
    body = f"{heading}\n\nPaper: [{paper.title}]({paper.url})\n{rest}"
    # Not DatasetCard.from_template: it renders the body with jinja, and the grammar's braces
    # are not jinja.
    card = DatasetCard(f"---\n{card_data(dataset, info).to_yaml()}\n---\n{body}")
    return str(card)


def build_folder(out: str | os.PathLike, dataset: str, configs: Iterable[TaskCell],
                 card_template: str, train_size: int | None = None, seed: int = 0,
                 progress: bool = True, splits: Iterable[str] | None = None,
                 validation: str = DISJOINT) -> dict[str, dict]:
    """Write every split of each config into ``out`` (or only ``splits``, e.g. the train and
    validation splits an in-context evaluation reads), the validation set set apart by the
    ``validation`` rule (`tasks.VALIDATION_RULES`, recorded per config); returns the
    folder's build info."""
    out = Path(out)
    configs = list(configs)
    splits = None if splits is None else list(splits)
    for cfg in configs:
        if cfg.dataset != dataset:
            raise ValueError(f"config {cfg} belongs to {cfg.dataset}, not {dataset}")
        unknown = [s for s in splits or () if s not in cfg.splits]
        if unknown or splits == []:
            what = f"unknown split {', '.join(map(repr, unknown))}" if unknown else "no split"
            raise ValueError(f"config {cfg}: {what}; allowed: {', '.join(cfg.splits)}")
    chosen = {cfg: [s for s in cfg.splits if splits is None or s in splits] for cfg in configs}
    out.mkdir(parents=True, exist_ok=True)
    info = read_configs(out)
    bar = tqdm(total=sum(map(len, chosen.values())), desc=f"building {dataset}",
               disable=not progress)
    for cfg in configs:
        rows = {}
        for split in chosen[cfg]:
            bar.set_postfix_str(f"{cfg}/{split}")
            ex = generate(cfg, split, train_size if split == "train" else None, seed,
                          validation)
            path = out / shard_path(str(cfg), split)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            pq.write_table(examples_to_table(ex), tmp)
            os.replace(tmp, path)
            rows[split] = len(ex)
            bar.update()
        entry = {
            "describe": cfg.describe(), "dist": cfg.dist,
            # Distinct items at the training lengths (before validation takes its share).
            "pool": f"{sum(cfg.pool_size(n) for n in cfg.lengths):,}",
            "lengths": f"{cfg.lengths[0]}..{cfg.lengths[-1]}", "seed": seed, "rows": rows,
            "validation": validation,
            "split_lengths": {s: cfg.split_label(s) for s in cfg.test_splits if s in rows},
            "generator_version": GENERATOR_VERSION, "layout_version": LAYOUT_VERSION,
        }
        # Card and build info are rewritten after each config, so an interrupted build
        # leaves a loadable folder listing exactly the configs that are complete. Under the
        # folder's lock, from what is on disk then: a build beside this one keeps its configs.
        with FileLock(str(out / BUILD_LOCK)):
            info = {**read_configs(out), str(cfg): entry}
            _atomic_write_text(out / BUILD_INFO, json.dumps(info, indent=1, sort_keys=True))
            _atomic_write_text(out / README, render_card(card_template, dataset, info))
            _atomic_write_text(out / EVAL_YAML, yaml.safe_dump(eval_spec(dataset, info),
                                                               sort_keys=False))
    bar.close()
    return info
