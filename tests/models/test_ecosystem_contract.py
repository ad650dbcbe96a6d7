"""What the ecosystem's loops (transformers.Trainer, TRL, PEFT) ask of every model: the output
embeddings, autocast, gradient checkpointing, and the causal-LM loss on our rows."""

import pytest
import torch
from torch.func import stack_module_state

from hf_induction.models import MODEL_NAMES, build_model
from hf_induction.tasks import TaskConfig, generate
from hf_induction.training import causal_lm_loss
from hf_induction.training.steps import trimmed
from hf_induction.training.tensors import supervised_lengths

VOCAB = 9
RECURRENT = ["dense_ssm", "lstm"]


def model_of(name, dtype=torch.float32, seed=0):
    torch.manual_seed(seed)
    return build_model(name, vocab_size=VOCAB, preset="tiny").to(dtype)


def rows(fmt="acot", size=6):
    ex = generate(TaskConfig("modadd", fmt, 4, "uniform"), "train", size, seed=0)
    return torch.from_numpy(ex.input_ids), torch.from_numpy(ex.labels)


# transformers' xLSTMForCausalLM soft-caps the head's output (logits = 30 tanh(head(h) / 30),
# `output_logit_soft_cap`, a float its config will not let be None).
SOFT_CAPPED = ("xLSTMForCausalLM returns output_logit_soft_cap * tanh(lm_head(h) / cap), "
               "not lm_head(h)")


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=SOFT_CAPPED))
    if name == "xlstm" else name for name in MODEL_NAMES])
def test_output_embeddings_are_the_head(name):
    model = model_of(name).eval()
    head = model.get_output_embeddings()
    assert isinstance(head, torch.nn.Linear) and head.out_features == VOCAB
    hidden = model.base_model(input_ids=rows()[0]).last_hidden_state
    torch.testing.assert_close(head(hidden), model(input_ids=rows()[0]).logits)
    new = torch.nn.Linear(head.in_features, VOCAB, bias=head.bias is not None)
    model.set_output_embeddings(new)
    assert model.get_output_embeddings() is new


@pytest.mark.parametrize("fmt", ["acot", "outcome", "cot"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_the_models_own_loss_is_our_trainers_loss_on_our_rows(name, fmt):
    model = model_of(name, torch.float64).eval()
    input_ids, labels = rows(fmt)
    with torch.no_grad():
        theirs = model(input_ids=input_ids, labels=labels).loss
        # The batch as our trainer cuts it: every input but the last, whose output predicts
        # nothing, up to the last supervised label.
        ids, cut = trimmed(input_ids, labels, int(supervised_lengths(labels).max()))
        assert ids.shape[1] == cut.shape[1] - 1 <= input_ids.shape[1] - 1
        ours = causal_lm_loss(model(input_ids=ids).logits, cut)
    # transformers scores float32 logits; ours keeps float64.
    torch.testing.assert_close(theirs.double(), ours.double(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("name", MODEL_NAMES)
def test_forward_and_backward_under_autocast(name, dtype):
    model = model_of(name).eval()
    input_ids, labels = rows()
    with torch.no_grad():
        reference = model(input_ids=input_ids, labels=labels).loss
    with torch.autocast("cpu", dtype=dtype):
        loss = model(input_ids=input_ids, labels=labels).loss
    loss.backward()
    assert torch.isfinite(loss) and loss.dtype == torch.float32
    assert all(p.grad is not None and torch.isfinite(p.grad).all()
               for p in model.parameters() if p.requires_grad)
    # Half precision changes the read-out's rounding, not what the model computes.
    assert loss.item() == pytest.approx(reference.item(), rel=0.05)


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


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_gradient_checkpointing_gives_the_same_gradients(name):
    # Dropout off: the recompute would redraw GPT-2's masks otherwise.
    model = model_of(name, torch.float64).train()
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    if not model.supports_gradient_checkpointing:
        pytest.skip(f"{name} does not declare gradient checkpointing")
    input_ids, labels = rows()
    # The same global RNG state for both forwards (the offset GPT-2 draws its positions).
    torch.manual_seed(1)
    model(input_ids=input_ids, labels=labels).loss.backward()
    plain = {k: p.grad.clone() for k, p in model.named_parameters()}
    model.zero_grad()
    model.activation_checkpointing_enable()
    torch.manual_seed(1)
    model(input_ids=input_ids, labels=labels).loss.backward()
    for k, p in model.named_parameters():
        torch.testing.assert_close(p.grad, plain[k], msg=k)


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
