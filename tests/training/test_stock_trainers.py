"""The rows train exactly the task under the ecosystem's own loops, with no override: a stock
`transformers.Trainer` (its default causal-LM loss, a stock collator) and TRL's `SFTTrainer`.

These are the checks a new user runs first: build a cell, hand it to the Trainer, and read the
state accuracy of the validation set (our metrics plug in as ``compute_metrics``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
import torch
from transformers import TrainerCallback

from hf_induction.data import to_dataset
from hf_induction.metrics import exact_match, state_tracking_metrics
from hf_induction.models import build_model
from hf_induction.tasks import WordProblemCell, generate, prompt_length, vocab_of
from hf_induction.tasks.tokenizer import build_tokenizer

# End to end: trains to full accuracy under the Trainer and TRL.
pytestmark = pytest.mark.slow

EVAL_STEPS = 100


def rows(cfg: WordProblemCell, split: str):
    return to_dataset(generate(cfg, split, None, seed=0)).select_columns(["input_ids", "labels"])


def stock_gpt2(cfg: WordProblemCell):
    from transformers import GPT2Config, GPT2LMHeadModel

    vocab = vocab_of(cfg)
    return GPT2LMHeadModel(GPT2Config(
        vocab_size=vocab.size, n_positions=32, n_embd=64, n_layer=2, n_head=4,
        bos_token_id=vocab.bos, eos_token_id=vocab.eos, pad_token_id=vocab.pad,
        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))


class StopAtCriterion(TrainerCallback):
    """Ends training at the first evaluation whose metrics meet ``criterion``.

    A learning test asserts that the criterion is reached within a cap, not an exact score
    after a fixed step count: another CPU's rounding moves the step at which a run gets there
    (1,500 steps left one validation state in 500 wrong on one machine, none on another).
    """

    def __init__(self, criterion: Callable[[dict[str, float]], bool]) -> None:
        self.criterion = criterion
        self.reached_at: int | None = None
        self.last: dict[str, float] = {}

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        self.last = dict(metrics or {}, step=state.global_step)
        if self.reached_at is None and self.criterion(self.last):
            self.reached_at = state.global_step
            control.should_training_stop = True


def every_state_right(metrics: dict[str, float]) -> bool:
    # 125 validation words the model never saw: every state right, not memorised rows.
    return metrics["eval_state_accuracy"] == 1.0 and metrics["eval_final_state_accuracy"] == 1.0


def stock_trainer(model, cfg: WordProblemCell, cap: int, lr: float, tmp_path,
                  criterion: Callable[[dict[str, float]], bool] = every_state_right):
    """`transformers.Trainer` as its documentation writes it: no loss override, a stock
    collator that pads labels with -100, and our metrics as ``compute_metrics``; it evaluates
    every `EVAL_STEPS` and stops at the first evaluation that meets ``criterion``, or at
    ``cap`` steps."""
    from transformers import DataCollatorForSeq2Seq, Trainer, TrainingArguments

    args = TrainingArguments(
        output_dir=str(tmp_path), max_steps=cap, per_device_train_batch_size=64,
        learning_rate=lr, lr_scheduler_type="constant", eval_strategy="steps",
        eval_steps=EVAL_STEPS, save_strategy="no", report_to=[], use_cpu=True,
        disable_tqdm=True, seed=0, logging_steps=cap)
    return Trainer(
        model=model, args=args, train_dataset=rows(cfg, "train"),
        eval_dataset=rows(cfg, "validation"),
        data_collator=DataCollatorForSeq2Seq(build_tokenizer(cfg), padding=True),
        compute_metrics=lambda p: {
            **state_tracking_metrics(p.predictions, p.label_ids, cfg.group.order),
            "exact_match": exact_match(p.predictions, p.label_ids)},
        preprocess_logits_for_metrics=lambda logits, labels: logits.argmax(-1),
        callbacks=[StopAtCriterion(criterion)])


def train_to_criterion(trainer) -> StopAtCriterion:
    """Trains until the criterion or the cap; fails, with the last evaluation, at the cap."""
    trainer.train()
    stop = next(c for c in trainer.callback_handler.callbacks if isinstance(c, StopAtCriterion))
    assert stop.reached_at is not None, f"criterion not reached in {trainer.args.max_steps} " \
        f"steps; last evaluation: {stop.last}"
    return stop


# A run stops at the criterion, so a cap costs nothing where the method works. GPT-2 got there
# at 900 steps on one machine and had not at 1,500 on another: twice that is its cap.
@pytest.mark.parametrize("model_name,cap", [("stock_gpt2", 3000), ("dense_ssm", 1000)])
def test_stock_trainer_learns_acot_to_full_validation_accuracy(model_name, cap, tmp_path):
    cfg = WordProblemCell.parse("modadd", "acot_L4")
    torch.manual_seed(0)
    model = (stock_gpt2(cfg) if model_name == "stock_gpt2"
             else build_model(model_name, vocab_of(cfg).size, "tiny"))
    train_to_criterion(stock_trainer(model, cfg, cap, 3e-3, tmp_path))


def test_stock_trainer_learns_cot_and_generate_answers_the_states(tmp_path):
    cfg = WordProblemCell.parse("modadd", "cot_L3")
    torch.manual_seed(0)
    model = stock_gpt2(cfg)
    # Every label right under teacher forcing, EOS included: then greedy generation is right
    # too (each step predicts from a right prefix), which is what the rest checks.
    train_to_criterion(stock_trainer(model, cfg, 1500, 3e-3, tmp_path,
                                     criterion=lambda m: m["eval_exact_match"] == 1.0))
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
    cfg = WordProblemCell.parse("modadd", "acot_L4")
    torch.manual_seed(0)
    model = build_model(model_name, vocab_of(cfg).size, "tiny")
    chance = math.log(cfg.group.order)
    # Aligned labels left the LSTM at ln 5 under SFTTrainer: the shift reached the wrong
    # target. A quarter of chance took 100 (Dense-SSM) and 250 (LSTM) steps; 1,000 is the cap.
    args = trl.SFTConfig(
        output_dir=str(tmp_path), max_steps=1000, per_device_train_batch_size=64,
        learning_rate=3e-3, lr_scheduler_type="constant", logging_steps=50, save_strategy="no",
        report_to=[], use_cpu=True, disable_tqdm=True, eval_strategy="steps",
        eval_steps=EVAL_STEPS // 2)
    trainer = trl.SFTTrainer(model=model, args=args, train_dataset=rows(cfg, "train"),
                             eval_dataset=rows(cfg, "validation"),
                             processing_class=build_tokenizer(cfg),
                             callbacks=[StopAtCriterion(lambda m: m["eval_loss"] < chance / 4)])
    train_to_criterion(trainer)
