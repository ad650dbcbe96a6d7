"""The rows train exactly the task under the ecosystem's own loops, with no override: a stock
`transformers.Trainer` (its default causal-LM loss, a stock collator) and TRL's `SFTTrainer`.

These are the checks a new user runs first: build a cell, hand it to the Trainer, and read the
state accuracy of the validation set (our metrics plug in as ``compute_metrics``).
"""

from __future__ import annotations

import math

import pytest
import torch

from hf_induction.data import to_dataset
from hf_induction.metrics import state_tracking_metrics
from hf_induction.models import build_model
from hf_induction.tasks import TaskConfig, generate, prompt_length, vocab_of
from hf_induction.tasks.tokenizer import build_tokenizer


def rows(cfg: TaskConfig, split: str):
    return to_dataset(generate(cfg, split, None, seed=0)).select_columns(["input_ids", "labels"])


def stock_gpt2(cfg: TaskConfig):
    from transformers import GPT2Config, GPT2LMHeadModel

    vocab = vocab_of(cfg)
    return GPT2LMHeadModel(GPT2Config(
        vocab_size=vocab.size, n_positions=32, n_embd=64, n_layer=2, n_head=4,
        bos_token_id=vocab.bos, eos_token_id=vocab.eos, pad_token_id=vocab.pad,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))


def stock_trainer(model, cfg: TaskConfig, steps: int, lr: float, tmp_path):
    """`transformers.Trainer` as its documentation writes it: no loss override, a stock
    collator that pads labels with -100, and our metrics as ``compute_metrics``."""
    from transformers import DataCollatorForSeq2Seq, Trainer, TrainingArguments

    args = TrainingArguments(
        output_dir=str(tmp_path), max_steps=steps, per_device_train_batch_size=64,
        learning_rate=lr, lr_scheduler_type="constant", eval_strategy="no", save_strategy="no",
        report_to=[], use_cpu=True, disable_tqdm=True, seed=0, logging_steps=steps)
    return Trainer(
        model=model, args=args, train_dataset=rows(cfg, "train"),
        eval_dataset=rows(cfg, "validation"),
        data_collator=DataCollatorForSeq2Seq(build_tokenizer(cfg), padding=True),
        compute_metrics=lambda p: state_tracking_metrics(p.predictions, p.label_ids,
                                                         cfg.group.order),
        preprocess_logits_for_metrics=lambda logits, labels: logits.argmax(-1))


@pytest.mark.parametrize("model_name,steps", [("stock_gpt2", 1500), ("dense_ssm", 1000)])
def test_stock_trainer_learns_acot_to_full_validation_accuracy(model_name, steps, tmp_path):
    cfg = TaskConfig.parse("modadd", "acot_L4")
    torch.manual_seed(0)
    model = (stock_gpt2(cfg) if model_name == "stock_gpt2"
             else build_model(model_name, vocab_of(cfg).size, "tiny"))
    trainer = stock_trainer(model, cfg, steps, 3e-3, tmp_path)
    trainer.train()
    metrics = trainer.evaluate()
    # 125 validation words the model never saw: every state right, not memorised rows.
    assert metrics["eval_state_accuracy"] == 1.0, metrics
    assert metrics["eval_final_state_accuracy"] == 1.0, metrics


def test_stock_trainer_learns_cot_and_generate_answers_the_states(tmp_path):
    cfg = TaskConfig.parse("modadd", "cot_L3")
    torch.manual_seed(0)
    model = stock_gpt2(cfg)
    stock_trainer(model, cfg, 500, 3e-3, tmp_path).train()
    val = generate(cfg, "validation", None, seed=0)
    prompt = torch.from_numpy(val.input_ids[:, : prompt_length("cot", cfg.max_len)])
    vocab = vocab_of(cfg)
    model.eval()
    out = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                         max_new_tokens=cfg.max_len + 1, do_sample=False,
                         pad_token_id=vocab.pad, eos_token_id=vocab.eos)
    answer = out[:, prompt.shape[1]:].numpy()
    # s_1..s_n, then EOS: the chain of thought, every state, recomputed by brute force.
    sums = val.elements.astype(int).cumsum(axis=1) % cfg.group.order
    assert (answer[:, : cfg.max_len] == sums).all()
    assert (answer[:, cfg.max_len] == vocab.eos).all()


@pytest.mark.parametrize("model_name", ["lstm", "dense_ssm"])
def test_trl_sft_trainer_trains_the_recurrent_models(model_name, tmp_path):
    trl = pytest.importorskip("trl")
    cfg = TaskConfig.parse("modadd", "acot_L4")
    torch.manual_seed(0)
    model = build_model(model_name, vocab_of(cfg).size, "tiny")
    args = trl.SFTConfig(
        output_dir=str(tmp_path), max_steps=300, per_device_train_batch_size=64,
        learning_rate=3e-3, lr_scheduler_type="constant", logging_steps=50, save_strategy="no",
        report_to=[], use_cpu=True, disable_tqdm=True, eval_strategy="no")
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=rows(cfg, "train"),
                             eval_dataset=rows(cfg, "validation"),
                             processing_class=build_tokenizer(cfg))
    trainer.train()
    chance = math.log(cfg.group.order)
    # Aligned labels left the LSTM at ln 5 under SFTTrainer: the shift reached the wrong target.
    assert trainer.evaluate()["eval_loss"] < chance / 4
