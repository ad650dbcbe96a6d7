"""lm-evaluation-harness tasks of the datasets: this folder is an ``--include_path``.

    lm-eval run --model hf --model_args pretrained=gpt2 \\
        --include_path $(python -c "import hf_induction.lm_eval_tasks as t; print(t.FOLDER)") \\
        --tasks induction_bias_retrieval

The YAML files are written from `utils.FAMILIES` by ``python -m hf_induction.lm_eval_tasks``
(tests check the shipped ones are what it writes), in the harness's own shape: the keys every
task shares in `TEMPLATE`, each family's in its template (``_copy_template_yaml``), which a
task file ``include:``s, adding its cell; a ``rule`` variant includes its bare task and adds
the rule. Groups: ``induction_bias`` (every family), one per family
(``induction_bias_copy``), per length of the families shipped at several
(``induction_bias_L20``) and per prompt variant (``induction_bias_bare``,
``induction_bias_rule``). The prompts live in `prompts`, the list of what ships in `utils`.
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
# Of every task and group (2: retrieval and copy read as the study's prompts).
VERSION = 2.0


def family_template(dataset: str) -> str:
    """The file of a family's shared keys, named as `TEMPLATE` is."""
    return f"_{dataset}_template_yaml"


def template_config() -> dict:
    """What every task shares: few-shot from train, scored on validation by exact match."""
    return {
        "output_type": "generate_until",
        "training_split": "train",
        "validation_split": "validation",
        "fewshot_split": "train",
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True,
                         # The completion follows the prompt after a space or a newline;
                         # compare what is between.
                         "regexes_to_ignore": ["^\\s+", "\\s+$"]}],
        "metadata": {"version": VERSION},
    }


def family_config(dataset: str, dataset_path: str) -> dict:
    """A family's shared keys: where its dataset is read and how its solved examples join."""
    prompt = utils.PROMPTS[dataset]
    return {"include": TEMPLATE, "dataset_path": dataset_path, "num_fewshot": prompt.shots,
            "target_delimiter": prompt.target_delimiter,
            "fewshot_delimiter": prompt.fewshot_delimiter}


def task_config(dataset: str, config: str) -> dict:
    """One cell's bare task: its family's keys and what is its own (config, prompt functions,
    room for the answer)."""
    name = utils.task_name(dataset, config)
    prompt = utils.PROMPTS[dataset]
    # Room for the longest target in symbols of any tokenizer, and a margin.
    words = prompt.answer_words(utils.registry.parse(dataset, config))
    return {
        "include": family_template(dataset),
        "task": name,
        "dataset_name": config,
        "doc_to_text": f"{_FUNCTION}utils.{name}_text",
        "doc_to_target": f"{_FUNCTION}utils.{name}_target",
        # The harness merges included keys whole, so the task gives all of generation_kwargs.
        "generation_kwargs": {"until": list(prompt.until), "do_sample": False,
                              "max_gen_toks": 8 * words + 16},
    }


def variant_config(dataset: str, config: str, variant: str) -> dict:
    """A prompt variant of a cell's task: the bare task and what comes before its examples."""
    cell = utils.registry.parse(dataset, config)
    return {"include": f"{utils.task_name(dataset, config)}.yaml",
            "task": utils.task_name(dataset, config, variant),
            "description": utils.PROMPTS[dataset].description(cell, variant)}


def tasks() -> list[tuple[str, str, str]]:
    """(dataset, config, variant) of every task, each cell's variants together."""
    return [(dataset, config, variant) for dataset, config in utils.TASKS
            for variant in utils.PROMPTS[dataset].variants]


def groups() -> dict[str, list[str]]:
    """Every group and its members: the top group holds the family groups; a family group,
    a length group (of the families listed by length) and a variant group hold tasks."""
    lengths = {family.dataset: family.lengths for family in utils.FAMILIES}
    members: dict[str, list[str]] = {utils.GROUP: []}
    for dataset, config, variant in tasks():
        family = f"{utils.GROUP}_{dataset}"
        if family not in members:
            members[utils.GROUP].append(family)
        homes = [family, f"{utils.GROUP}_{variant}"]
        n = utils.registry.parse(dataset, config).max_len
        if n in lengths[dataset]:
            homes.insert(1, f"{utils.GROUP}_L{n}")
        for group in homes:
            members.setdefault(group, []).append(utils.task_name(dataset, config, variant))
    return members


def group_config(name: str, members: list[str]) -> dict:
    return {"group": name, "task": members,
            "aggregate_metric_list": [{"metric": "exact_match", "aggregation": "mean",
                                       "weight_by_size": False}],
            "metadata": {"version": VERSION}}


class _Dumper(yaml.SafeDumper):
    """Strings with a newline double-quoted ("\n"), as lm-eval's own task files write them."""


_Dumper.add_representer(str, lambda dumper, s: dumper.represent_scalar(
    "tag:yaml.org,2002:str", s, style='"' if "\n" in s else None))


def _dump(data: dict) -> str:
    # One line a string (a rule sentence reads whole), as the harness's own files write them.
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=float("inf"))
    # lm-eval's `!function` tag, which safe_dump cannot write.
    return re.sub(rf"'?{_FUNCTION}([\w.]+)'?", r"!function \1", text)


def write_tasks(out: str | Path = FOLDER,
                dataset_path: Callable[[str], str] = hub_dataset_id) -> list[Path]:
    """The templates, the task and group YAML files into ``out``, after removing those there
    (``_*_yaml``, ``induction_bias*.yaml``: a task dropped from the list goes), and utils.py
    when ``out`` is another folder; ``dataset_path(dataset)`` says where each dataset is read."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for old in [*out.glob(f"{utils.GROUP}*.yaml"), *out.glob("_*_yaml")]:
        old.unlink()
    files = {TEMPLATE: template_config()}
    for dataset in utils.PROMPTS:
        files[family_template(dataset)] = family_config(dataset, dataset_path(dataset))
    for dataset, config, variant in tasks():
        files[f"{utils.task_name(dataset, config, variant)}.yaml"] = (
            task_config(dataset, config) if variant == utils.BARE
            else variant_config(dataset, config, variant))
    for name, members in groups().items():
        files[f"{name}.yaml"] = group_config(name, members)
    for name, data in files.items():
        (out / name).write_text(_dump(data))
    if out.resolve() != FOLDER:
        (out / "utils.py").write_text((FOLDER / "utils.py").read_text())
    return [out / name for name in files]
