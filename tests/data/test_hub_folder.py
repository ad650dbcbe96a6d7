"""A materialised Hub dataset folder read back with the real `load_dataset`."""

import sys
from pathlib import Path

import datasets
import pytest

from hf_induction.data import build_folder, read_configs, to_dataset
from hf_induction.tasks import WordProblemCell, generate
from hf_induction.tasks.tokenizer import build_tokenizer
from hf_induction.templates import dataset_card_template
from tests.runner.helpers import run_script

ROOT = Path(__file__).resolve().parents[2]


def template(dataset):
    return dataset_card_template(dataset)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("hub") / "modadd"
    cfgs = [WordProblemCell.parse("modadd", n) for n in ("acot_L5", "cot_L4_uniform")]
    build_folder(out, "modadd", cfgs, template("modadd"), train_size=300, seed=2, progress=False)
    return out


def test_load_dataset_reads_every_split(folder):
    for name in ("acot_L5", "cot_L4_uniform"):
        cfg = WordProblemCell.parse("modadd", name)
        ds = datasets.load_dataset(str(folder), name)
        assert set(ds) == {"train", "validation", "test"}
        assert ds["train"].num_rows == 300
        for split in ds:
            expected = generate(cfg, split, 300 if split == "train" else None, seed=2)
            assert ds[split].num_rows == len(expected)
            row = ds[split][7]
            t = int(expected.token_lengths[7])
            assert row["input_ids"] == expected.input_ids[7, :t].tolist()
            assert row["labels"] == expected.labels[7, :t].tolist()
            assert row["length"] == expected.lengths[7]


def test_the_card_metadata_is_the_libraries_own(tmp_path):
    """Written through DatasetCardData, MetadataConfigs and DatasetInfo: a default config (so
    ``load_dataset(repo)`` needs no name), features and split sizes the loader agrees with,
    the size category, the family's tags and an arXiv link the Hub turns into a paper page."""
    from huggingface_hub import DatasetCard

    from hf_induction.data.arrow import features
    from hf_induction.tasks import parse

    out = tmp_path / "retrieval"
    cells = [parse("retrieval", n) for n in ("UR_L6", "NRLast_L8_uniform")]
    build_folder(out, "retrieval", cells, template("retrieval"), train_size=40, progress=False)
    card = DatasetCard.load(out / "README.md")
    data = card.data.to_dict()
    total = sum(datasets.load_dataset(str(out), c.name)[s].num_rows for c in cells
                for s in ("train", "validation", "test", "test_long"))
    low, high = (int(x.replace("K", "000")) for x in data["size_categories"][0].split("<n<"))
    assert low < total < high and "retrieval" in data["tags"]
    assert "group-word-problem" not in data["tags"]
    assert [c["config_name"] for c in data["configs"] if c.get("default")] == ["NRLast_L8_uniform"]
    assert "https://arxiv.org/abs/2505.21785" in card.text
    default = datasets.load_dataset(str(out))  # no config name: the default one
    assert default["train"].num_rows == 40
    assert default["train"].features == features(cells[1])
    infos = {i["config_name"]: i for i in data["dataset_info"]}
    assert {s["name"]: s["num_examples"] for s in infos["UR_L6"]["splits"]} == {
        split: datasets.load_dataset(str(out), "UR_L6")[split].num_rows
        for split in ("train", "validation", "test", "test_long")}


def test_rebuild_adds_configs_and_keeps_the_others(folder):
    build_folder(folder, "modadd", [WordProblemCell.parse("modadd", "outcome_L3_m3")],
                 template("modadd"), train_size=10, progress=False)
    assert set(read_configs(folder)) == {"acot_L5", "cot_L4_uniform", "outcome_L3_m3"}
    card = (folder / "README.md").read_text()
    assert card.startswith("---\n") and "config_name: outcome_L3_m3" in card
    assert "config_name: acot_L5" in card and "$" not in card.split("---", 2)[2].split("```")[0]
    assert datasets.load_dataset(str(folder), "acot_L5")["train"].num_rows == 300
    assert datasets.load_dataset(str(folder), "outcome_L3_m3")["validation"].num_rows == 5


def test_permutation_folder_through_the_cli(tmp_path):
    out = tmp_path / "permutation"
    done = run_script("build_datasets.py", "--dataset", "permutation", "--configs",
                      "acot_L3_S4", "outcome_L4_s2l", "--out", str(out), "--train-size", "200")
    assert done.returncode == 0, done.stderr
    ds = datasets.load_dataset(str(out), "outcome_L4_s2l")
    assert ds["train"].num_rows == 200 and ds["test"][0]["length"] == 8
    ex = ds["validation"][0]
    # outcome: [BOS, g.., SEP, s_n] with s_n its own (only) target.
    assert ex["labels"][-1] == ex["states"][-1] == ex["input_ids"][-1]
    assert ex["input_ids"][-2] == 121 and ex["labels"][:-1] == [-100] * (len(ex["labels"]) - 1)


def test_cli_rejects_bad_names_without_writing(tmp_path):
    r = run_script("build_datasets.py", "--dataset", "modadd", "--configs", "acot_L5", "acot_L0",
                   "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "L=0" in r.stderr
    assert not (tmp_path / "x").exists()


def test_cli_builds_only_the_splits_asked(tmp_path):
    """An in-context evaluation reads train and validation only: ``--splits`` writes those
    (the rows a full build writes), the card lists them, and an unknown split is one line
    naming the allowed ones, before anything is written."""
    import yaml

    from hf_induction.tasks import parse

    out = tmp_path / "retrieval"
    done = run_script("build_datasets.py", "--dataset", "retrieval", "--configs", "UR_L6",
                      "--out", str(out), "--train-size", "20", "--splits", "validation", "train")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (out / "UR_L6").iterdir()) == [
        "train-00000-of-00001.parquet", "validation-00000-of-00001.parquet"]
    ds = datasets.load_dataset(str(out), "UR_L6")
    assert set(ds) == {"train", "validation"} and ds["train"].num_rows == 20
    full = generate(parse("retrieval", "UR_L6"), "validation", None, seed=0)
    assert ds["validation"].to_list() == to_dataset(full).to_list()
    # A config without a validation split is no benchmark task of eval.yaml.
    done = run_script("build_datasets.py", "--dataset", "retrieval", "--configs", "UL_L6",
                      "--out", str(out), "--train-size", "20", "--splits", "train")
    assert done.returncode == 0, done.stderr
    assert set(datasets.load_dataset(str(out), "UL_L6")) == {"train"}
    assert [t["config"] for t in yaml.safe_load((out / "eval.yaml").read_text())["tasks"]] == [
        "UR_L6"]
    bad = run_script("build_datasets.py", "--dataset", "retrieval", "--configs", "UR_L6",
                     "--out", str(tmp_path / "x"), "--splits", "train", "tset")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    assert "unknown split 'tset'" in bad.stderr and "test_long" in bad.stderr
    assert not (tmp_path / "x").exists()


def test_builder_matches_the_parquet_build(tmp_path):
    sys.path.insert(0, str(ROOT))
    from dataset_builders.permutation.permutation import Permutation

    builder = Permutation(config_name="cot_L5_uniform", cache_dir=str(tmp_path), train_size=50,
                          seed=4)
    builder.download_and_prepare()
    built = builder.as_dataset()
    cfg = WordProblemCell.parse("permutation", "cot_L5_uniform")
    for split in ("train", "validation"):
        fast = to_dataset(generate(cfg, split, 50 if split == "train" else None, seed=4))
        assert built[split].to_list() == fast.to_list()
    assert len(Permutation.BUILDER_CONFIGS) == 36


def test_tokenizer_follows_the_layout(tmp_path):
    tok = build_tokenizer(WordProblemCell.parse("modadd", "outcome_L3"))
    assert tok("3 1 4 =").input_ids == [5, 3, 1, 4, 6]
    assert len(tok) == 9 and tok.pad_token_id == 8 and tok.eos_token_id == 7
    perm = build_tokenizer(WordProblemCell.parse("permutation", "acot_L3"))
    assert perm("01234 10234").input_ids == [120, 0, 24]
    perm.save_pretrained(tmp_path)
    from transformers import AutoTokenizer

    assert AutoTokenizer.from_pretrained(tmp_path)("01234 =").input_ids == [120, 0, 121]


@pytest.mark.slow
def test_build_and_push_then_load_from_the_hub(hub_server, tmp_path):
    out = tmp_path / "modadd"
    cmd = [sys.executable, str(ROOT / "scripts" / "build_datasets.py"), "--dataset", "modadd",
           "--configs", "acot_L5", "outcome_L4_m3", "--out", str(out), "--train-size", "50",
           "--push-to-hub", "induction-bias/modadd"]
    done = hub_server.run(cmd, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    code = ("from datasets import load_dataset\n"
            "ds = load_dataset('induction-bias/modadd', 'outcome_L4_m3')\n"
            "print('ROWS', ds['train'].num_rows, ds['train'][0]['labels'])\n")
    loaded = hub_server.run([sys.executable, "-c", code], timeout=300, cwd=str(tmp_path))
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    local = datasets.load_dataset(str(out), "outcome_L4_m3")["train"]
    assert f"ROWS 50 {local[0]['labels']}" in loaded.stdout


def test_eval_yaml_registers_every_config_that_eval_results_name(tmp_path):
    import yaml

    from hf_induction.hub.cards import eval_result_entries

    out = tmp_path / "modadd"
    build_folder(out, "modadd", [WordProblemCell.parse("modadd", n) for n in ("acot_L3", "cot_L3")],
                 template("modadd"), train_size=20, progress=False)
    spec = yaml.safe_load((out / "eval.yaml").read_text())
    # The fields the Hub validates at push time (docs/hub/eval-results.md).
    assert {"name", "description", "evaluation_framework", "tasks"} <= set(spec)
    assert spec["tasks"] == [{"id": c, "config": c, "split": "validation"}
                             for c in ("acot_L3", "cot_L3")]
    # Each task's config and split are ones the folder holds.
    for task in spec["tasks"]:
        assert datasets.load_dataset(str(out), task["config"])[task["split"]].num_rows > 0
    # A checkpoint trained on acot_L3 points its .eval_results at one of these task ids.
    entries = eval_result_entries({"config": "acot_L3", "validation_loss": 1e-5,
                                   "dataset_id": "induction-bias/modadd"})
    assert {e.task_id for e in entries} <= {t["id"] for t in spec["tasks"]}


def test_the_validation_rule_reaches_the_folder_the_card_and_the_builder(tmp_path):
    """``--validation in-distribution`` writes the rule's validation split (every row a word of
    the pool, the pool of acot_L2_m3 whole), the card's configs table names the rule of each
    config, and the builder takes the same rule as a config keyword."""
    sys.path.insert(0, str(ROOT))
    from dataset_builders.modadd.modadd import ModAdd

    out = tmp_path / "modadd"
    done = run_script("build_datasets.py", "--dataset", "modadd", "--configs", "acot_L2_m3",
                      "--out", str(out), "--validation", "in-distribution")
    assert done.returncode == 0, done.stderr
    done = run_script("build_datasets.py", "--dataset", "modadd", "--configs", "acot_L3_m3",
                      "--out", str(out))
    assert done.returncode == 0, done.stderr
    within = datasets.load_dataset(str(out), "acot_L2_m3")
    words = {tuple(r["elements"]) for r in within["validation"]}
    assert words == {(a, b) for a in range(3) for b in range(3)}
    assert words == {tuple(r["elements"]) for r in within["train"]}
    disjoint = datasets.load_dataset(str(out), "acot_L3_m3")
    assert not ({tuple(r["elements"]) for r in disjoint["validation"]}
                & {tuple(r["elements"]) for r in disjoint["train"]})
    info = read_configs(out)
    assert (info["acot_L2_m3"]["validation"], info["acot_L3_m3"]["validation"]) == (
        "in-distribution", "disjoint")
    card = (out / "README.md").read_text()
    assert "| validation rule |" in card
    assert any(line.startswith("| `acot_L2_m3` |") and line.endswith("| in-distribution |")
               for line in card.splitlines())
    assert "`in-distribution` (2,000 distinct rows drawn by the training law" in card

    # A config of the builder's grid: Z_2 at length 5, 32 words, validated whole.
    builder = ModAdd(config_name="acot_L5_m2", cache_dir=str(tmp_path / "cache"),
                     validation="in-distribution")
    builder.download_and_prepare()
    cfg = WordProblemCell.parse("modadd", "acot_L5_m2")
    assert builder.as_dataset()["validation"].to_list() == to_dataset(
        generate(cfg, "validation", None, validation="in-distribution")).to_list()
    # `datasets` sets a keyword on a copy of the config, past its __init__: the rule is
    # checked before any row is generated.
    bad = ModAdd(config_name="acot_L5_m2", cache_dir=str(tmp_path / "c2"), validation="overlap")
    with pytest.raises(ValueError, match="unknown validation rule 'overlap'"):
        bad.download_and_prepare()
