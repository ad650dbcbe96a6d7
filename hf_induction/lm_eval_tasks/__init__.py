"""lm-evaluation-harness tasks of the datasets: this folder is an ``--include_path``.

    lm_eval --model hf --model_args pretrained=gpt2 \\
        --include_path $(python -c "import hf_induction.lm_eval_tasks as t; print(t.FOLDER)") \\
        --tasks induction_bias

The YAML files are written from `utils.TASKS` by ``python -m hf_induction.lm_eval_tasks``
(tests check the shipped ones are what it writes): each task file ``include:``s the shared
keys from `TEMPLATE` and adds its own; the prompts live in `utils`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import yaml

from ..tasks import hub_dataset_id
from . import utils

FOLDER = Path(__file__).resolve().parent
_FUNCTION = "__function__"


# The keys every task shares, in the harness's own template file: named without ``.yaml`` so
# that the harness, which reads every ``*.yaml`` as a task or group, reads it only through
# ``include:``.
TEMPLATE = "_default_template_yaml"


def template_config() -> dict:
    """What every task shares: few-shot from train, scored on validation by exact match."""
    return {
        "output_type": "generate_until",
        "training_split": "train",
        "validation_split": "validation",
        "fewshot_split": "train",
        "num_fewshot": 3,
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True,
                         # The completion follows "States:" after a space; compare the words.
                         "regexes_to_ignore": ["^\\s+", "\\s+$"]}],
        "metadata": {"version": 1.0},
    }


def task_config(dataset: str, config: str, dataset_path: str) -> dict:
    """One task: the template and what is its own (dataset, prompt, room for the answer)."""
    name = utils.task_name(dataset, config)
    cell = utils.registry.parse(dataset, config)
    # Room for the longest target in symbols of any tokenizer, and a margin.
    words = cell.max_len if cell.kind in ("cot", "acot") or dataset == "copy" else 1
    return {
        "include": TEMPLATE,
        "task": name,
        "tag": [f"{utils.GROUP}_{dataset}"],
        "dataset_path": dataset_path,
        "dataset_name": config,
        "doc_to_text": f"{_FUNCTION}utils.{name}_text",
        "doc_to_target": f"{_FUNCTION}utils.{name}_target",
        # The harness merges included keys whole, so the task gives all of generation_kwargs.
        "generation_kwargs": {"until": ["\n"], "do_sample": False, "max_gen_toks": 8 * words + 16},
    }


class _Dumper(yaml.SafeDumper):
    """Strings with a newline double-quoted ("\n"), as lm-eval's own task files write them."""


_Dumper.add_representer(str, lambda dumper, s: dumper.represent_scalar(
    "tag:yaml.org,2002:str", s, style='"' if "\n" in s else None))


def _dump(data: dict) -> str:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True)
    # lm-eval's `!function` tag, which safe_dump cannot write.
    return re.sub(rf"'?{_FUNCTION}([\w.]+)'?", r"!function \1", text)


def write_tasks(out: str | Path = FOLDER,
                dataset_path: Callable[[str], str] = hub_dataset_id) -> list[Path]:
    """The template, the task YAML files that include it and the ``induction_bias`` group into
    ``out`` (and utils.py, when ``out`` is another folder); ``dataset_path(dataset)`` says where
    each dataset is read."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / TEMPLATE).write_text(_dump(template_config()))
    written = [out / TEMPLATE]
    for dataset, config in utils.TASKS:
        path = out / f"{utils.task_name(dataset, config)}.yaml"
        path.write_text(_dump(task_config(dataset, config, dataset_path(dataset))))
        written.append(path)
    group = {"group": utils.GROUP, "task": [utils.task_name(*t) for t in utils.TASKS],
             "aggregate_metric_list": [{"metric": "exact_match", "aggregation": "mean",
                                        "weight_by_size": False}],
             "metadata": {"version": 1.0}}
    (out / f"{utils.GROUP}.yaml").write_text(_dump(group))
    written.append(out / f"{utils.GROUP}.yaml")
    if out.resolve() != FOLDER:
        (out / "utils.py").write_text((FOLDER / "utils.py").read_text())
    return written
