"""Fine-tuning a pretrained checkpoint (``pretrained:FOLDER``) through the search path, on a
tiny GPT-2 and tokenizer made and pretrained here (tiny_pretrained.py): its weights loaded as
they are, each task token one token of its own tokenizer (checked both ways), the study's
fine-tuning preset and length split, and the from-scratch ``hf:`` path said in one line."""

import dataclasses
import logging

import numpy as np
import pytest
import torch

from hf_induction.data import TokenMap, cell_arrays
from hf_induction.models import build_config, build_model, model_config_hash
from hf_induction.results import ResultsFolder
from hf_induction.results.rows import LengthGenRow, NstarRow
from hf_induction.runner.lengths import LengthRange
from hf_induction.tasks import IGNORE, generate, parse
from tests.runner.helpers import run_cli
from tests.runner.tiny_pretrained import pretrain, train_tokenizer

# End to end: pretrains a tiny GPT-2, then fine-tunes it through the search.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return pretrain(tmp_path_factory.mktemp("tiny-gpt2"))


def test_the_checkpoint_was_pretrained(checkpoint):
    # "Pretrained" means something: held-out English is predicted better than at init.
    assert checkpoint.loss_after < checkpoint.loss_at_init - 0.5


def test_pretrained_loads_the_checkpoint_weights_and_its_vocabulary(checkpoint):
    from transformers import GPT2LMHeadModel

    spec = f"pretrained:{checkpoint.folder}"
    model = build_model(spec, parse("copy", "UF_L3_V9").vocab)
    saved = GPT2LMHeadModel.from_pretrained(checkpoint.folder)
    assert model.config.vocab_size == saved.config.vocab_size == len(train_tokenizer())
    ours, theirs = model.state_dict(), saved.state_dict()
    assert ours.keys() == theirs.keys()
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
    # Keyed apart from its architecture trained from scratch, and from other weights.
    scratch = build_config(f"hf:{checkpoint.folder}", parse("copy", "UF_L3_V9").vocab)
    assert scratch.vocab_size == 13 and model_config_hash(model) != model_config_hash(scratch)
    with pytest.raises(ValueError, match="keeps its checkpoint's architecture") as e:
        build_config(spec, 9, n_layer=1)
    assert len(str(e.value).splitlines()) == 1


def test_from_scratch_is_said_once_in_one_line(checkpoint, caplog):
    from hf_induction.models import build as build_module

    build_module._FROM_SCRATCH_SAID.discard(str(checkpoint.folder))
    with caplog.at_level(logging.WARNING, logger=build_module.__name__):
        build_config(f"hf:{checkpoint.folder}", parse("copy", "UF_L3_V9").vocab)
        build_config(f"hf:{checkpoint.folder}", parse("copy", "UF_L3_V9").vocab)
    said = [r.getMessage() for r in caplog.records if "fresh weights" in r.getMessage()]
    assert len(said) == 1 and len(said[0].splitlines()) == 1
    assert f"pretrained:{checkpoint.folder}" in said[0] and "13 tokens" in said[0]


@pytest.mark.parametrize("dataset,config", [("copy", "NB_L4_V9"), ("retrieval", "UR_L5_V8"),
                                            ("modadd", "acot_L3_m5"), ("git", "revert_L2")])
def test_every_task_token_is_one_token_of_the_tokenizer_both_ways(checkpoint, dataset, config):
    tokenizer = train_tokenizer()
    cell = parse(dataset, config)
    tokens = TokenMap.build(cell, tokenizer)
    ids = list(tokens.ids)
    symbols = ids[: cell.vocab.order]
    assert len(set(symbols)) == len(symbols)
    specials = set(ids[cell.vocab.order:])
    assert not specials & set(symbols)
    for i, text in zip(symbols, tokens.strings, strict=True):
        assert tokenizer.encode(text, add_special_tokens=False) == [i]
        assert tokenizer.decode([i], clean_up_tokenization_spaces=False) == text
    # The separator is the study's ">" where the tokenizer holds it; BOS and EOS its own.
    assert tokenizer.decode([ids[cell.vocab.sep]]) == ">"
    assert ids[cell.vocab.bos] == ids[cell.vocab.eos] == tokenizer.eos_token_id
    # A cell's rows, mapped and read back: every label, by brute force, position by position.
    ex = generate(cell, "validation", 50, 0)
    mapped_ids, mapped_labels = tokens.encode(ex.input_ids), tokens.encode(ex.labels)
    assert mapped_ids.shape == ex.input_ids.shape
    for row, mapped in zip(ex.labels, mapped_labels, strict=True):
        for label, m in zip(row, mapped, strict=True):
            assert m == (IGNORE if label == IGNORE else ids[label])
    back = tokens.decode(mapped_labels)
    assert np.array_equal(back[ex.labels != IGNORE], ex.labels[ex.labels != IGNORE])
    # An id that carries no task token reads back as -1, which no label equals.
    stray = next(i for i in range(len(tokenizer)) if i not in set(ids))
    assert tokens.decode(np.asarray([stray, -5, 10**6])).tolist() == [-1, -1, -1]
    # The training arrays are written in those ids, the same rows.
    arrays = cell_arrays(cell, 0, 8, tokens=tokens)
    plain = cell_arrays(cell, 0, 8)
    assert np.array_equal(arrays.train_labels, tokens.encode(plain.train_labels))


def test_a_tokenizer_with_too_few_single_tokens_is_one_line(checkpoint):
    cell = parse("copy", "UF_L3_V9")
    with pytest.raises(ValueError, match=r"copy/UF_L3_V9 needs 9 symbols") as e:
        TokenMap.build(cell, train_tokenizer(), size=8, name="its tokenizer")
    assert len(str(e.value).splitlines()) == 1


def test_test_lengths_are_the_studys_split_for_any_family():
    assert LengthRange("L+1..2L").lengths(parse("copy", "UF_L100_V300")) == tuple(range(101, 201))
    assert LengthRange("101..200").lengths(parse("lorem", "copy_L100")) == tuple(range(101, 201))
    assert LengthRange("2L").lengths(parse("retrieval", "UR_L5")) == (10,)
    for bad, why in [("L..2L", "must lie in 6..15"), ("3L+1", "must lie in"),
                     ("1..2..3", "expected FROM..TO"), ("L*2", "expected FROM..TO")]:
        with pytest.raises(ValueError, match=why) as e:
            LengthRange(bad).lengths(parse("retrieval", "UR_L5"))
        assert len(str(e.value).splitlines()) == 1


def test_the_finetune_preset_is_the_studys(tmp_path):
    from hf_induction.commands.nstar import build_parser, campaign_from_args

    parser = build_parser()
    args = parser.parse_args(["--dataset", "copy", "--config", "UF_L3_V9", "--model", "gpt2",
                              "--preset", "finetune", "--out", str(tmp_path)])
    campaign = campaign_from_args(args, parser)
    train, _ = campaign.settings_for("gpt2")
    assert (train.lrs, train.batch_size, train.weight_decay, train.warmup, train.lr_schedule,
            train.max_grad_norm, train.position_offsets) == (
        (1e-5,), 64, 0.01, 0.15, "linear", 1.0, True)
    # Each flag overrides the preset's, "off" included.
    args = parser.parse_args(["--dataset", "copy", "--config", "UF_L3_V9", "--model", "gpt2",
                              "--preset", "finetune", "--out", str(tmp_path),
                              "--max-grad-norm", "off", "--position-offsets", "off",
                              "--warmup", "0"])
    train, _ = campaign_from_args(args, parser).settings_for("gpt2")
    assert (train.max_grad_norm, train.position_offsets, train.warmup) == (None, False, 0.0)


# Both runs of a folder share its protocol: one search probe at 16 rows, 20 steps.
TUNE = ["--dataset", "copy", "--config", "UF_L3_V9", "--preset", "finetune", "--lrs", "1e-3",
        "--seeds", "1", "--max-steps", "20", "--eval-every", "10", "--batch-size", "16",
        "--n-start", "16", "--max-search-steps", "1", "--lengthgen", "16", "--no-progress"]


def test_a_pretrained_model_is_fine_tuned_through_the_search_and_scored_past_its_lengths(
        checkpoint, tmp_path):
    out = tmp_path / "finetuned"
    spec = f"pretrained:{checkpoint.folder}"
    proc = run_cli([*TUNE, "--model", spec, "--test-lengths", "L+1..2L", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    folder = ResultsFolder(out)
    (search,) = folder.read(NstarRow)
    assert search.model == spec
    (row,) = folder.read(LengthGenRow)
    assert row.model == spec and row.n == 16
    table = row.table()
    assert set(table) == {"validation", "test"} and table["test"]["lengths"] == "4..6"
    assert 0.0 <= table["test"]["token_accuracy"] <= 1.0
    # The row's key holds the lengths: the same check at the cell's own splits is another row.
    proc = run_cli([*TUNE, "--model", spec, "--no-search", "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    rows = {r.key: r.table() for r in folder.read(LengthGenRow)}
    assert len(rows) == 2 and row.key in rows
    (own,) = [t for k, t in rows.items() if k != row.key]
    assert set(own) == {"validation", "test", "test_long"} and own["test"]["lengths"] == "4..6"


def test_a_cell_the_tokenizer_cannot_carry_is_refused_before_training(checkpoint, tmp_path):
    # 400 ids, of which far fewer than 600 encode back as one token each.
    proc = run_cli(["--dataset", "copy", "--config", "UF_L200_V600", "--model",
                    f"pretrained:{checkpoint.folder}", "--preset", "finetune", "--no-progress",
                    "--out", str(tmp_path / "x")])
    assert proc.returncode == 2
    (line,) = [s for s in proc.stderr.splitlines() if s.strip()][-1:]
    assert "needs 600 symbols" in line and "single tokens" in line


def test_settings_keep_the_plain_protocol_for_existing_folders():
    # Plain Adam at 0-based positions is recorded as before: an old folder's hash holds.
    from hf_induction.runner.run import train_protocol
    from hf_induction.settings import ALWAYS, TRAINING
    from hf_induction.training import TrainSettings

    plain = TrainSettings(max_steps=10)
    later = {s.name for s in TRAINING if s.plain is not ALWAYS}
    assert later >= {"weight_decay", "warmup", "lr_schedule", "max_grad_norm",
                     "position_offsets"}
    assert not later & set(train_protocol(plain))
    tuned = train_protocol(dataclasses.replace(plain, weight_decay=0.01, warmup=0.15))
    assert tuned["weight_decay"] == 0.01 and tuned["warmup"] == 0.15
