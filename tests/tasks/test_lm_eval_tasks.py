"""The lm-evaluation-harness tasks, offline: the shipped YAML is what `utils.TASKS` writes;
`lm_eval` runs the whole `induction_bias` group on local dataset folders with a tiny random
GPT-2, and a hand-written exact-match scorer agrees with its numbers on the same completions."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("lm_eval")

from hf_induction.data import build_folder  # noqa: E402
from hf_induction.lm_eval_tasks import (  # noqa: E402
    FOLDER,
    TEMPLATE,
    template_config,
    utils,
    write_tasks,
)
from hf_induction.tasks import generate, registry  # noqa: E402
from hf_induction.templates import dataset_card_template  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 4
# The console script beside this interpreter, where pip put it.
_SCRIPT = Path(sys.executable).with_name("lm-eval")
LM_EVAL = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "lm_eval"]


def test_the_shipped_task_files_are_what_the_writer_writes(tmp_path):
    written = write_tasks(tmp_path)
    assert {p.name for p in written} == {p.name for p in FOLDER.glob("*.yaml")} | {TEMPLATE}
    for path in written:
        assert path.read_text() == (FOLDER / path.name).read_text(), path.name


def test_the_harness_reads_the_template_only_through_include():
    """The harness lists the group and the 13 tasks, not the template, and every task it
    reads carries the template's keys."""
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(FOLDER), include_defaults=False)
    names = {utils.task_name(*t) for t in utils.TASKS}
    assert set(manager.all_subtasks) == names
    assert set(manager.all_groups) == {utils.GROUP}
    shared = template_config()
    for name in names:
        config = manager.task_index[name].cfg
        assert {k: config[k] for k in shared} == shared, name
        assert "include" not in config, name


def solve(dataset: str, config: str, prompt: str) -> list[str]:
    """The answer to the last row of a prompt, by brute force from its text alone."""
    lines = prompt.rsplit("\n\n", 1)[-1].split("\n")
    given = lines[0].split()[1:]
    cell = registry.parse(dataset, config)
    if dataset == "modadd":
        ids = [int(w) for w in given]
        states = [str(sum(ids[: i + 1]) % cell.group.order) for i in range(len(ids))]
        return states[-1:] if cell.kind == "outcome" else states
    if dataset == "permutation":  # s_1 = g_1, s_i = g_i o s_(i-1), (g o s)[j] = g[s[j]]
        state, states = None, []
        for g in ([int(c) for c in w] for w in given):
            state = g if state is None else [g[j] for j in state]
            states.append("".join(map(str, state)))
        return states[-1:] if cell.kind == "outcome" else states
    if dataset == "retrieval":
        query = lines[1].split()[1]
        where = [i for i, w in enumerate(given) if w == query]
        i = where[-1] if config.startswith(("NRLast", "NLLast")) else where[0]
        return [given[i - 1] if config.startswith(("UL", "NL")) else given[i + 1]]
    return given[::-1] if config.startswith(("UB", "NB")) else given


def test_prompts_and_targets_recompute_the_rows():
    for dataset, config in utils.TASKS:
        ex = generate(registry.parse(dataset, config), "validation", None, 0)
        text, target = utils.prompt_functions(dataset, config)
        for i in range(5):
            doc = {k: v[i].tolist() if hasattr(v[i], "tolist") else v[i]
                   for k, v in ex.columns.items()}
            doc["length"] = int(ex.lengths[i])
            assert target(doc).split() == solve(dataset, config, text(doc)), (dataset, config)


def _tiny_model(out: Path, texts: list[str]) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(texts, trainers.BpeTrainer(
        vocab_size=400, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|endoftext|>",
                                   bos_token="<|endoftext|>", pad_token="<|endoftext|>")
    fast.save_pretrained(out)
    eos = fast.eos_token_id
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(fast), n_positions=1024, n_embd=32,
                                       n_layer=1, n_head=2, bos_token_id=eos,
                                       eos_token_id=eos))
    model.save_pretrained(out)
    return out


def _cells_by_dataset() -> dict:
    by_dataset = {}
    for dataset, config in utils.TASKS:
        by_dataset.setdefault(dataset, []).append(registry.parse(dataset, config))
    return by_dataset


@pytest.fixture(scope="module")
def task_data(tmp_path_factory) -> Path:
    """Every task's dataset folder, built once for both harness runs (the longer splits' draws
    take seconds)."""
    data = tmp_path_factory.mktemp("lm_eval_data")
    for dataset, cells in _cells_by_dataset().items():
        build_folder(data / f"local_{dataset}", dataset, cells, dataset_card_template(dataset),
                     train_size=40, progress=False)
    return data


@pytest.fixture(scope="module")
def harness_run(tmp_path_factory, task_data):
    tmp = tmp_path_factory.mktemp("lm_eval")
    texts = []
    for dataset, cells in _cells_by_dataset().items():
        for cell in cells:
            ex = generate(cell, "train", 40, 0)
            text, target = utils.prompt_functions(dataset, str(cell))
            for i in range(len(ex)):
                doc = {k: v[i].tolist() if hasattr(v[i], "tolist") else v[i]
                       for k, v in ex.columns.items()}
                doc["length"] = int(ex.lengths[i])
                texts.append(f"{text(doc)} {target(doc)}\n\n")
    model = _tiny_model(tmp / "model", texts)
    tasks = tmp / "tasks"
    write_tasks(tasks, dataset_path=lambda d: str(task_data / f"local_{d}"))
    out = tmp / "out"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
           "HF_HOME": str(tmp / "hf"), "TOKENIZERS_PARALLELISM": "false"}
    # The harness's own command line, as the README gives it: `lm-eval run` (0.4.13 reads a
    # bare `lm_eval --tasks list` as a task name).
    done = subprocess.run(
        [*LM_EVAL, "run", "--model", "hf", "--model_args",
         f"pretrained={model},dtype=float32", "--device", "cpu", "--batch_size", "4",
         "--include_path", str(tasks), "--tasks", utils.GROUP, "--limit", str(LIMIT),
         "--log_samples", "--output_path", str(out), "--seed", "0"],
        env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _results(out: Path) -> tuple[dict, dict[str, list[dict]]]:
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line]
    return results, samples


def test_the_harness_runs_every_task_and_reports_exact_match(harness_run):
    results, samples = _results(harness_run)
    names = {utils.task_name(*t) for t in utils.TASKS}
    assert names <= set(results["results"])
    assert utils.GROUP in results["results"]
    assert set(samples) == names
    for name in names:
        assert len(samples[name]) == LIMIT
        assert 0.0 <= results["results"][name]["exact_match,none"] <= 1.0


def test_a_hand_checked_scorer_agrees_on_the_same_completions(harness_run):
    results, samples = _results(harness_run)
    for name, rows in samples.items():
        ours = [float(r["filtered_resps"][0].strip() == r["target"].strip()) for r in rows]
        assert [r["exact_match"] for r in rows] == ours, name
        assert results["results"][name]["exact_match,none"] == pytest.approx(sum(ours) / len(ours))
        # The prompt the harness scored is the row's, with three solved training rows first.
        assert rows[0]["arguments"]["gen_args_0"]["arg_0"].count("\n\n") == 3, name


def test_the_harness_scores_an_oracle_as_a_hand_count_does(tmp_path, monkeypatch, task_data):
    """In process, with a model that answers some rows right by brute force from the prompt
    (those whose last block's character codes sum to an even number) and the rest wrong, the
    harness's exact match per task must be the share answered right, and the group's mean."""
    import lm_eval
    from lm_eval.api.model import LM
    from lm_eval.tasks import TaskManager

    write_tasks(tmp_path / "tasks", dataset_path=lambda d: str(task_data / f"local_{d}"))
    task_of = {}
    right = {}

    class Oracle(LM):
        def generate_until(self, requests):
            out = []
            for request in requests:
                prompt = request.args[0]
                dataset, config = task_of[request.task_name]
                answer = " ".join(solve(dataset, config, prompt))
                good = sum(map(ord, prompt.rsplit("\n\n", 1)[-1])) % 2 == 0
                right.setdefault(request.task_name, []).append(good)
                out.append(" " + answer if good else " " + answer + " x")
            return out

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

    for dataset, config in utils.TASKS:
        task_of[utils.task_name(dataset, config)] = (dataset, config)
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    results = lm_eval.simple_evaluate(
        model=Oracle(), tasks=[utils.GROUP], limit=6,
        task_manager=TaskManager(include_path=str(tmp_path / "tasks")))["results"]
    means = []
    for name, flags in right.items():
        assert len(flags) == 6
        assert results[name]["exact_match,none"] == pytest.approx(sum(flags) / 6), name
        means.append(sum(flags) / 6)
    assert set(right) == {utils.task_name(*t) for t in utils.TASKS}
    assert 0 < sum(means) < len(means)  # some rows right, some wrong
    assert results[utils.GROUP]["exact_match,none"] == pytest.approx(sum(means) / len(means))
