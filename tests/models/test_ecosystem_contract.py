"""What the ecosystem's loops (transformers.Trainer, TRL, PEFT) and our trainer ask of every
model: the contract (`hf_induction.training.contract.check_model`) run on each registered
model, and what the recurrent models add (a full-precision recurrence, its recompute)."""

import pytest
import torch
from torch.func import stack_module_state

from hf_induction.models import MODEL_NAMES, build_model
from hf_induction.tasks import WordProblemCell, generate
from hf_induction.training import causal_lm_loss
from hf_induction.training.contract import check_model
from hf_induction.training.steps import trimmed
from hf_induction.training.tensors import supervised_lengths

VOCAB = 9
RECURRENT = ["dense_ssm", "lstm"]


def model_of(name, dtype=torch.float32, seed=0):
    torch.manual_seed(seed)
    return build_model(name, vocab_size=VOCAB, preset="tiny").to(dtype)


def rows(fmt="acot", size=6):
    ex = generate(WordProblemCell("modadd", fmt, 4, "uniform"), "train", size, seed=0)
    return torch.from_numpy(ex.input_ids), torch.from_numpy(ex.labels)


# transformers' xLSTMForCausalLM soft-caps the head's output (logits = 30 tanh(head(h) / 30),
# `output_logit_soft_cap`, a float its config will not let be None).
EXPECTED_FAILURES = {"xlstm": ("output embeddings",)}


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_every_registered_model_keeps_the_contract(name):
    report = check_model(name)
    assert report.failed == EXPECTED_FAILURES.get(name, ()), str(report)
    # What the package's own models declare: every check applies to them.
    assert all(check.passed is not None for check in report.checks), str(report)


def test_the_contracts_loss_check_is_the_trainers_loss_on_task_rows():
    # The contract's rows are its own; the trainer's loss on a task's rows (three formats) is
    # held to the model's here, once, so the contract's check stands for the real rows.
    model = model_of("gpt2", torch.float64).eval()
    for fmt in ("acot", "outcome", "cot"):
        input_ids, labels = rows(fmt)
        with torch.no_grad():
            theirs = model(input_ids=input_ids, labels=labels).loss
            ids, cut = trimmed(input_ids, labels, int(supervised_lengths(labels).max()))
            ours = causal_lm_loss(model(input_ids=ids).logits, cut)
        torch.testing.assert_close(theirs.double(), ours.double(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("name", RECURRENT)
def test_the_recurrence_stays_in_full_precision_under_autocast(name):
    model = model_of(name)
    input_ids = rows()[0]
    with torch.no_grad():
        exact = model.base_model(input_ids=input_ids).last_hidden_state
        with torch.autocast("cpu", dtype=torch.bfloat16):
            mixed = model.base_model(input_ids=input_ids).last_hidden_state
    assert mixed.dtype == torch.float32
    torch.testing.assert_close(mixed, exact)


@pytest.mark.parametrize("name", RECURRENT)
def test_stacked_forward_under_autocast(name):
    models = [model_of(name, seed=s).eval() for s in (0, 1)]
    params, _ = stack_module_state(models)
    input_ids = rows()[0].expand(2, -1, -1)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = models[0].stacked_forward(params, input_ids)
    logits.float().sum().backward()
    with torch.no_grad():
        for r, model in enumerate(models):
            torch.testing.assert_close(logits[r].float(), model(input_ids=input_ids[r]).logits,
                                       rtol=0.05, atol=0.05)


@pytest.mark.parametrize("name", RECURRENT)
def test_gradient_checkpointing_recomputes_the_recurrence(name):
    model = model_of(name).train()
    assert model.supports_gradient_checkpointing
    base = model.base_model
    target = base.layer if name == "dense_ssm" else base
    calls = []
    original = target._recurrence
    target._recurrence = lambda *a: calls.append(1) or original(*a)
    input_ids, labels = rows()
    model(input_ids=input_ids, labels=labels).loss.backward()
    assert len(calls) == 1
    model.activation_checkpointing_enable()
    calls.clear()
    model(input_ids=input_ids, labels=labels).loss.backward()
    assert len(calls) == 2  # once forward, once again in the backward
