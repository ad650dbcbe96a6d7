"""The lm-evaluation-harness tasks, offline.

The shipped YAML is what `utils.FAMILIES` writes. In this process, every task loads through the
harness's `TaskManager` on a few rows of its cell (drawn here, written by the family's encoder)
and the prompt the harness builds is checked against the study's shape, with every answer in
it recomputed by brute force; an oracle model is scored by the harness as a hand count does.
One ``lm-eval run`` (the console script's entry point, with only these tasks indexed) scores
a handful of tasks from dataset folders that hold only the splits the harness reads, with a
tiny random GPT-2, and a hand-written exact-match scorer agrees with its numbers on the same
completions; ``lm-eval ls tasks`` lists every task and group. The group family's answers are
recomputed from each group's permutations, composed by hand."""

import json
import os
import re
import string
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("lm_eval")

from hf_induction.lm_eval_tasks import (  # noqa: E402
    FOLDER,
    groups,
    tasks,
    template_config,
    utils,
    write_tasks,
)
from hf_induction.tasks import hub_dataset_id, registry  # noqa: E402
from hf_induction.tasks.copying import repeated_symbols  # noqa: E402

G = utils.GROUP
FAMILIES = ("modadd", "permutation", "group", "retrieval", "copy", "lorem", "git")
# The group family's cells, by hand: both formats at L = 10 on each group shipped.
GROUP_CELLS = [f"{f}_L10_{g}" for g in ("A4", "S4", "A5", "D6", "Q8", "A4xZ5", "S5")
               for f in ("outcome", "cot")]
# The symbol families' names, by hand: letters, then x52, x53, ...
NAMES = [*string.ascii_lowercase, *string.ascii_uppercase, *(f"x{i}" for i in range(52, 400))]
# The study's prompts: solved rows before the row (lorem: none, after its two fixed examples),
# where a completion stops, one block (a solved example, or the row without its answer), the
# opening of the rule variant's text and how many blank lines it holds.
SHOTS = {"modadd": 3, "permutation": 3, "group": 3, "retrieval": 4, "copy": 5, "lorem": 0, "git": 5}
FIXED = {"lorem": 2}
UNTIL = {"modadd": ["\n"], "permutation": ["\n"], "group": ["\n"], "retrieval": ["\n"],
         "copy": ["\n\n", "<eos>"], "lorem": ["<end>"], "git": ["<end>"]}
BLOCK = {
    "retrieval": re.compile(r" (?P<given>.+) \| (?P<query>\S+):(?: (?P<answer>\S+))?"),
    "copy": re.compile(r"<bos> (?P<given>.+) :(?: (?P<answer>.+) <eos>)?"),
    "modadd": re.compile(r"Elements: (?P<given>.+)\nStates:(?: (?P<answer>.+))?"),
    "lorem": re.compile(r"Paragraph:\n<start> (?P<given>.+) <end>\nEcho:\n<start>"
                        r"(?: (?P<answer>.+) <end>)?"),
    "git": re.compile(r"=== NEW HISTORY ===\n(?P<given>(?:.+\n)+)=== ANSWER ===\n<start>"
                      r"(?:\n(?P<answer>(?:.+\n)+)<end>)?"),
}
BLOCK["permutation"] = BLOCK["group"] = BLOCK["modadd"]
RULE = {"retrieval": ("Each line is written as ‘context|query: target’.", 2),
        "copy": ("Here are some samples of the format <bos> input : output <eos> where", 1),
        "lorem": ("# RULE : Paragraphs are repeated **exactly** as is", 1),
        "git": ("Below is", 2)}
LINE = re.compile(r"[0-9a-f]{7} \w+ \w+")


def names(dataset: str, config: str, variant: str = utils.BARE) -> str:
    return utils.task_name(dataset, config, variant)


def all_tasks() -> set[str]:
    return {names(*t) for t in tasks()}


def group_of(dataset: str, config: str):
    """The group of a group-family cell (its names are read through its permutations), else
    None."""
    return registry.parse(dataset, config).group if dataset == "group" else None


def test_the_shipped_task_files_are_what_the_writer_writes(tmp_path):
    written = write_tasks(tmp_path)
    shipped = {p.name for p in FOLDER.iterdir() if p.suffix == ".yaml" or p.name.endswith("_yaml")}
    assert {p.name for p in written} == shipped
    for path in written:
        assert path.read_text() == (FOLDER / path.name).read_text(), path.name


def test_the_studys_tasks_at_its_lengths_in_two_variants():
    """Every retrieval and copy task of the study at L = 10..50 and its natural scenarios at
    its sizes, a bare and a rule task each, the word problems kept; every task in its family's
    group and its variant's, and a synthetic one in its length's."""
    study = [("retrieval", t) for t in ("UR", "UL", "NRFirst", "NRLast", "NLFirst", "NLLast")]
    study += [("copy", t) for t in ("UF", "UB", "NF", "NB")]
    cells = {(d, registry.parse(d, c).kind, registry.parse(d, c).max_len): c
             for d, c in utils.TASKS}
    natural = [("lorem", "copy", 500)]
    natural += [("git", t, n) for t in ("revert", "cherry_pick") for n in (20, 25, 30)]
    for dataset, task, n in [(d, t, n) for d, t in study for n in (10, 20, 30, 40, 50)] + natural:
        config = cells[(dataset, task, n)]
        assert {names(dataset, config, v) for v in ("bare", "rule")} <= all_tasks()
    for kind in ("outcome", "cot", "acot"):
        assert names("modadd", f"{kind}_L10") in all_tasks()
    assert {names("group", c) for c in GROUP_CELLS} <= all_tasks()
    assert len(all_tasks()) == (10 * 5 + len(natural)) * 2 + 5 + len(GROUP_CELLS)
    member = groups()
    assert member[G] == [f"{G}_{d}" for d in FAMILIES]
    for task in all_tasks():
        dataset = next(d for d in FAMILIES if task.startswith(f"{G}_{d}_"))
        expected = [f"{G}_{dataset}", f"{G}_{'rule' if task.endswith('_rule') else 'bare'}"]
        if dataset not in ("lorem", "git"):  # whole config names: no length group
            n = re.search(r"_L(\d+)", task).group(1)
            expected.append(f"{G}_L{n}")
        homes = [g for g, tasks_ in member.items() if task in tasks_]
        assert sorted(homes) == sorted(expected), task


def test_the_harness_indexes_every_task_and_group_through_its_templates(harness):
    """The harness lists the shipped tasks and groups, not the templates; every task carries
    the shared keys, and a rule task is its bare task with a description (the include chain)."""
    manager, _ = harness
    assert set(manager.all_subtasks) == all_tasks()
    assert set(manager.all_groups) == set(groups())
    shared = template_config()
    for dataset, config, variant in tasks():
        cfg = manager.task_index[names(dataset, config, variant)].cfg
        assert {k: cfg[k] for k in shared} == shared
        assert "include" not in cfg and cfg["dataset_name"] == config
        assert cfg["num_fewshot"] == SHOTS[dataset]
        assert cfg["generation_kwargs"]["until"] == UNTIL[dataset]
        if variant == "rule":
            bare = manager.task_index[names(dataset, config)].cfg
            assert {k: v for k, v in cfg.items() if k not in ("task", "description")} == {
                k: v for k, v in bare.items() if k != "task"}


def _items(cell, k: int, rng) -> np.ndarray:
    """k items of a cell at its length L. A symbol family's stream draws thousands at once to
    keep a few distinct: its items are drawn here (by rejection or construction) and checked by
    its `valid`; the others' streams draw a few."""
    n = cell.max_len
    if cell.dataset == "retrieval":
        items = rng.integers(0, cell.family_param, (200 * k, n + 1))
        items = items[cell.valid(items, n)][:k]
    elif cell.dataset == "copy" and cell.unique:
        items = rng.random((k, cell.family_param)).argsort(axis=1)[:, :n]
    elif cell.dataset == "copy":  # p symbols twice each, the rest from them, shuffled
        p = repeated_symbols(n)
        items = np.array([rng.permutation(np.concatenate([s, s, rng.choice(s, n - 2 * p)]))
                          for s in (rng.permutation(cell.family_param)[:p] for _ in range(k))])
    elif cell.dataset in ("modadd", "permutation", "group"):
        return rng.integers(0, cell.alphabet_size, (k, n))
    else:
        return cell.stream(n, k, rng)
    assert len(items) == k and cell.valid(items, n).all()
    return items


@pytest.fixture(scope="module")
def harness():
    """The shipped task files indexed and loaded by the harness, each task's dataset a few rows
    per split in memory (the only change: `download` reads them instead of the Hub)."""
    import datasets
    from lm_eval.api.task import ConfigurableTask
    from lm_eval.tasks import TaskManager

    from hf_induction.data import to_dataset

    rng = np.random.default_rng(0)
    rows = {}
    for dataset, config in utils.TASKS:
        cell = registry.parse(dataset, config)
        rows[(hub_dataset_id(dataset), config)] = datasets.DatasetDict({
            split: to_dataset(cell.encode(_items(cell, 6, rng), np.full(6, cell.max_len)))
            for split in ("train", "validation")})
    def download(self, dataset_kwargs=None, **kwargs):
        self.dataset = rows[(self.DATASET_PATH, self.DATASET_NAME)]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ConfigurableTask, "download", download)
        manager = TaskManager(include_path=str(FOLDER), include_defaults=False)
        loaded = manager.load([G])
        for task in loaded["tasks"].values():
            task.set_fewshot_seed(0)
        yield manager, loaded


def brute_force(dataset: str, kind: str, given: str, query: str | None, group=None) -> str:
    """The answer to one block of a prompt, from its text alone (and, for the group family,
    its ``group``'s names and permutations)."""
    if dataset == "lorem":
        return given
    if dataset == "git":
        lines = given.splitlines()
        assert all(LINE.fullmatch(line) for line in lines)
        return "\n".join(lines[::-1] if kind == "cherry_pick" else lines)
    words = given.split()
    if dataset == "retrieval":
        where = [i for i, w in enumerate(words) if w == query]
        assert len(where) == 1 if kind.startswith("U") else len(where) >= 2
        i = where[-1] if kind.endswith("Last") else where[0]
        return words[i + 1] if kind[1] == "R" else words[i - 1]
    if dataset == "copy":
        distinct = len(set(words))
        assert distinct == len(words) if kind.startswith("U") else distinct < len(words)
        return " ".join(words[::-1] if kind.endswith("B") else words)
    if dataset == "modadd":
        ids = [int(w) for w in words]
        states = [str(sum(ids[: i + 1]) % 5) for i in range(len(ids))]
    elif group is None:  # permutation: a name is its one-line notation
        states = ["".join(map(str, s)) for s in compose([[int(c) for c in w] for w in words])]
    else:  # group: each name's permutation, the state named back
        perm = dict(zip(group.element_names(), group.permutations, strict=True))
        name = {p: w for w, p in perm.items()}
        states = [name[s] for s in compose([perm[w] for w in words])]
    return " ".join(states[-1:] if kind == "outcome" else states)


def compose(perms) -> list[tuple[int, ...]]:
    """The states of a word of permutations in one-line notation: s_1 = g_1,
    s_i = g_i o s_(i-1), with (g o s)[j] = g[s[j]]."""
    state, states = None, []
    for g in perms:
        state = tuple(g) if state is None else tuple(g[j] for j in state)
        states.append(state)
    return states


def without_rule(dataset: str, prompt: str) -> str:
    """The prompt after its rule text, which ends in a blank line (and may hold others)."""
    return prompt.split("\n\n", RULE[dataset][1])[-1]


def blocks(dataset: str, prompt: str) -> list[re.Match]:
    """The solved examples of a bare prompt and the row last, each parsed."""
    parts = prompt.split("\n") if dataset == "copy" else prompt.split("\n\n")
    matches = [BLOCK[dataset].fullmatch(p) for p in parts]
    assert all(matches), prompt
    return matches


def test_every_prompt_is_the_studys_and_every_answer_in_it_brute_force(harness):
    """For every task and validation row: the few-shot prompt the harness builds is the study's
    (its solved examples, the row last; the rule variant the same after the rule of its own
    task), the row's words are its ids, and every answer, shown or the target, is the one
    recomputed from the prompt's words."""
    _, loaded = harness
    built = loaded["tasks"]
    assert set(built) == all_tasks()
    for dataset, config, variant in tasks():
        task = built[names(dataset, config, variant)]
        cell = registry.parse(dataset, config)
        kind, n = cell.kind, cell.max_len
        for i, doc in enumerate(task.validation_docs()):
            bare = built[names(dataset, config)]
            bare.set_fewshot_seed(i)
            task.set_fewshot_seed(i)
            prompt = task.fewshot_context(doc, task.config.num_fewshot)
            target = task.doc_to_target(doc)
            if variant == "rule":
                rest = bare.fewshot_context(doc, bare.config.num_fewshot)
                rule = prompt.removesuffix(rest)
                assert prompt == rule + rest and rest == without_rule(dataset, prompt)
                assert rule.startswith(RULE[dataset][0]) and rule.endswith("\n\n")
                stated = rule.lower()
                if dataset == "retrieval":
                    assert ("right" in stated) == (kind[1] == "R") != ("left" in stated)
                    occurrence = {"U": "single", "F": "first", "L": "last"}
                    assert [w for w in ("single", "first", "last") if w in stated] == [
                        occurrence[kind[0] if kind[0] == "U" else kind[2]]]
                elif dataset == "copy":
                    assert ("reverse" in stated) == kind.endswith("B") != ("same" in stated)
                elif dataset == "git":
                    order = "oldest to newest" if kind == "cherry_pick" else "newest to oldest"
                    assert order in stated
                prompt = rest
            *shots, last = blocks(dataset, prompt)
            assert len(shots) == SHOTS[dataset] + FIXED.get(dataset, 0)
            assert last["answer"] is None
            for block in [*shots, last]:
                query = block["query"] if dataset == "retrieval" else None
                answer = brute_force(dataset, kind, block["given"], query, cell.group
                                     if dataset == "group" else None)
                if block is not last:
                    assert block["answer"].rstrip("\n") == answer, (config, block.string)
            assert target == answer, (config, prompt)
            given = last["given"]
            if dataset == "retrieval":
                assert given.split() == [NAMES[c] for c in doc["context"]]
                assert last["query"] == NAMES[doc["query"]]
            elif dataset == "copy":
                assert given.split() == [NAMES[c] for c in doc["source"]]
            elif dataset == "lorem":
                words = cell.symbol_names()
                assert re.findall(r"\w+|\.", given.lower()) == [words[c] for c in doc["source"]]
            elif dataset == "git":
                assert [int(line[:7], 16) for line in given.splitlines()] == doc["hash"]
            elif dataset == "group":
                words = cell.symbol_names()
                assert given.split() == [words[c] for c in doc["elements"][: doc["length"]]]
            if dataset in ("retrieval", "copy"):
                assert len(given.split()) == n


def test_the_harness_scores_an_oracle_as_a_hand_count_does(harness):
    """A model that answers by brute force from the prompt, right on the rows whose prompt's
    character codes sum to an even number and wrong on the others: every task's exact match
    is its share answered right, a family group's the mean of its tasks, the top group's the
    mean of all of them; and the length and variant groups hold what they say."""
    from lm_eval.api.model import LM
    from lm_eval.evaluator import evaluate

    manager, loaded = harness
    of = {names(d, c, v): (d, registry.parse(d, c).kind, group_of(d, c)) for d, c, v in tasks()}
    right: dict[str, list[bool]] = {}

    class Oracle(LM):
        def generate_until(self, requests):
            out = []
            for request in requests:
                prompt = request.args[0]
                dataset, kind, group = of[request.task_name]
                if request.task_name.endswith("_rule"):
                    prompt = without_rule(dataset, prompt)
                last = blocks(dataset, prompt)[-1]
                query = last["query"] if dataset == "retrieval" else None
                answer = brute_force(dataset, kind, last["given"], query, group)
                good = sum(map(ord, prompt)) % 2 == 0
                right.setdefault(request.task_name, []).append(good)
                out.append(f" {answer}" if good else f" {answer} x")
            return out

        def loglikelihood(self, requests):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests):
            raise NotImplementedError

    results = evaluate(Oracle(), loaded, limit=3, bootstrap_iters=0, log_samples=False,
                       verbosity="ERROR")["results"]
    assert set(right) == all_tasks()
    share = {}
    for name, flags in right.items():
        assert len(flags) == 3
        share[name] = sum(flags) / 3
        assert results[name]["exact_match,none"] == pytest.approx(share[name]), name
    assert 0 < sum(share.values()) < len(share)  # some rows right, some wrong
    member = groups()
    for family in member[G]:
        mean = np.mean([share[t] for t in member[family]])
        assert results[family]["exact_match,none"] == pytest.approx(mean), family
    assert results[G]["exact_match,none"] == pytest.approx(np.mean(list(share.values())))
    for name in member:
        if name != G and name not in member[G]:
            listed = manager.load([name])["group_map"][name]
            assert listed == member[name]


def test_a_group_tasks_target_is_its_state_composed_by_hand(harness):
    """For each group task and validation row, the target is the row's last state (outcome) or
    its every state (cot), each composed by hand from the permutations of the row's element
    ids (``group.permutations``) and named as the group names that permutation."""
    _, loaded = harness
    for config in GROUP_CELLS:
        cell = registry.parse("group", config)
        perms, words = cell.group.permutations, cell.symbol_names()
        task = loaded["tasks"][names("group", config)]
        docs = list(task.validation_docs())
        assert len(docs) >= 3
        for doc in docs:
            states = compose([perms[g] for g in doc["elements"][: doc["length"]]])
            assert len(states) == cell.max_len
            named = [words[perms.index(s)] for s in states]
            expected = named[-1:] if cell.kind == "outcome" else named
            assert task.doc_to_target(doc) == " ".join(expected), (config, doc)


def _offline(tmp: Path) -> dict[str, str]:
    """The environment of a console-script run that reads nothing from the Hub."""
    return {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
            "HF_HOME": str(tmp / "hf"), "TOKENIZERS_PARALLELISM": "false"}


@pytest.mark.slow
def test_lm_eval_ls_lists_every_task_and_group(tmp_path):
    """``lm-eval ls tasks`` on the shipped folder (`lm_eval_cli`: only it indexed) lists every
    task and group, the group family's among them."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("lm_eval_cli.py")), str(tmp_path / "model"),
         "ls", "tasks", "--include_path", str(FOLDER)],
        env=_offline(tmp_path), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    listed = set(re.findall(rf"^\|({G}\w*)\s*\|", done.stdout, re.MULTILINE))
    assert {names("group", config) for config in GROUP_CELLS} <= listed
    assert listed == all_tasks() | set(groups())


# The handful the real command line scores: a cell's two variants, a cell whose V its length
# sets, and a group word problem.
CLI_TASKS = [names("retrieval", "NLLast_L10"), names("retrieval", "NLLast_L10", "rule"),
             names("copy", "UB_L20_V60"), names("group", "outcome_L10_A5")]
LIMIT = 3


@pytest.fixture(scope="module")
def harness_run(tmp_path_factory):
    """The handful's dataset folders with only the train and validation splits the harness
    reads, then one ``lm-eval run`` of them (`lm_eval_cli`: the console script on a tiny
    random GPT-2)."""
    from hf_induction.data import build_folder
    from hf_induction.templates import dataset_card_template

    tmp = tmp_path_factory.mktemp("lm_eval")
    for dataset, config in (("retrieval", "NLLast_L10"), ("copy", "UB_L20_V60")):
        build_folder(tmp / dataset, dataset, [registry.parse(dataset, config)],
                     dataset_card_template(dataset), train_size=12, progress=False,
                     splits=("train", "validation"))
    # The group family has no card template: the harness reads the card's YAML header (its
    # configs and their files), which the folder writes whatever the body.
    build_folder(tmp / "group", "group", [registry.parse("group", "outcome_L10_A5")],
                 "# $dataset\n\n$configs_table\n", train_size=12, progress=False,
                 splits=("train", "validation"))
    folder = tmp / "tasks"
    # The README's offline recipe: task files that read the folders just built.
    from hf_induction.lm_eval_tasks.__main__ import main as write_main

    assert write_main(["--out", str(folder), "--datasets-from", str(tmp)]) == 0
    assert f"dataset_path: {tmp / 'copy'}" in (folder / "_copy_template_yaml").read_text()
    out = tmp / "out"
    env = _offline(tmp)
    # The README's `lm-eval run`, through the console script's entry point (`lm_eval_cli`).
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("lm_eval_cli.py")), str(tmp / "model"),
         "run", "--model", "hf", "--model_args", f"pretrained={tmp / 'model'},dtype=float32",
         "--device", "cpu", "--batch_size", "4", "--include_path", str(folder),
         "--tasks", ",".join(CLI_TASKS), "--limit", str(LIMIT),
         # A random model stops at no newline: a few tokens show what it completes.
         "--gen_kwargs", "max_gen_toks=12",
         "--log_samples", "--output_path", str(out), "--seed", "0"],
        env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def _results(out: Path) -> tuple[dict, dict[str, list[dict]]]:
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    samples = {}
    for path in out.rglob("samples_*.jsonl"):
        task = path.name.removeprefix("samples_").rsplit("_", 1)[0]
        samples[task] = [json.loads(line) for line in path.read_text().splitlines() if line]
    return results, samples


@pytest.mark.slow
def test_lm_eval_run_scores_the_tasks_as_a_hand_checked_scorer_does(harness_run):
    results, samples = _results(harness_run)
    assert set(samples) == set(CLI_TASKS) and set(CLI_TASKS) <= set(results["results"])
    prompts = {}
    for name, rows in samples.items():
        assert len(rows) == LIMIT
        ours = [float(r["filtered_resps"][0].strip() == r["target"].strip()) for r in rows]
        assert [r["exact_match"] for r in rows] == ours, name
        assert results["results"][name]["exact_match,none"] == pytest.approx(sum(ours) / LIMIT)
        dataset = name.split("_")[2]
        prompts[name] = [r["arguments"]["gen_args_0"]["arg_0"] for r in rows]
        for prompt, row in zip(prompts[name], rows, strict=True):
            if name.endswith("_rule"):
                prompt = without_rule(dataset, prompt)
            *shots, last = blocks(dataset, prompt)
            assert len(shots) == SHOTS[dataset] and last["answer"] is None, name
            kind = name.split("_")[3]
            query = last["query"] if dataset == "retrieval" else None
            group = group_of(dataset, name.removeprefix(f"{G}_{dataset}_"))
            assert row["target"] == brute_force(dataset, kind, last["given"], query, group)
    # The two variants of one cell score the same rows.
    bare, rule = (prompts[n] for n in CLI_TASKS[:2])
    assert [without_rule("retrieval", p).rsplit("\n\n", 1)[-1] for p in rule] == [
        p.rsplit("\n\n", 1)[-1] for p in bare]


def test_local_task_files_need_a_folder_of_their_own(capsys):
    from hf_induction.lm_eval_tasks.__main__ import main as write_main

    for argv, why in [(["--datasets-from", "build/hub"], "add --out DIR"),
                      (["--out", str(FOLDER), "--datasets-from", "x"], "package's own folder")]:
        with pytest.raises(SystemExit):
            write_main(argv)
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert why in line
