"""What the trainer, the search and the ecosystem's loops (transformers.Trainer, TRL, PEFT)
ask of a model, as one check a researcher can run on a model of their own: `check_model`.

Every registered model passes it (tests/models/test_ecosystem_contract.py), so a model that
passes trains through ``hf-induction nstar`` as ours do. The checks, each on a few rows laid
out as the tasks lay theirs out (BOS, prompt, SEP, supervised answer, EOS, right padding):

- output shape: the logits are [batch, length, vocab_size], one score per token of the
  config's vocabulary at every position;
- labels loss: ``model(input_ids, labels=labels).loss`` is the trainer's loss
  (`causal_lm_loss`) on the batch as the trainer cuts it (`trimmed`);
- output embeddings: ``get_output_embeddings()`` is the head that makes the logits, and
  ``set_output_embeddings`` replaces it;
- autocast: forward and backward under bfloat16 and float16 autocast give a finite float32
  loss near the float32 one, and finite gradients;
- gradient checkpointing: the same gradients with it on (not applicable where the model
  does not declare it);
- generation: greedy ``generate`` is a full forward pass per token, argmax;
- stacked grid: a hand-batched ``stacked_forward`` gives each run's logits and gradients;
  without one, whether the grid stacks under ``torch.func.vmap`` or trains run by run is
  reported, and neither is a failure.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch.func import stack_module_state

from hf_induction.training.grid import has_stacked_forward, vmap_unsupported_reason
from hf_induction.training.loss import causal_lm_loss
from hf_induction.training.steps import seeded_model, trimmed
from hf_induction.training.tensors import IGNORE_INDEX, supervised_lengths

# The rows' vocabulary, in the tasks' layout: elements 0..4, then BOS, SEP, EOS, PAD.
ELEMENTS = 5
BOS, SEP, EOS, PAD = range(ELEMENTS, ELEMENTS + 4)
VOCAB_SIZE = ELEMENTS + 4
SPECIAL_TOKENS = {"bos_token_id": BOS, "eos_token_id": EOS, "pad_token_id": PAD}


class NotApplicable(Exception):
    """Raised by a check that does not apply to the model (saying why)."""


@dataclass(frozen=True)
class Check:
    """One check's verdict: ``passed`` is None where it does not apply to the model."""

    name: str
    passed: bool | None
    detail: str = ""

    def __str__(self) -> str:
        verdict = {True: "ok", False: "FAILED", None: "not applicable"}[self.passed]
        return f"{self.name}: {verdict}" + (f" ({self.detail})" if self.detail else "")


@dataclass(frozen=True)
class ContractReport:
    """`check_model`'s answer: every check, in order."""

    model: str
    checks: tuple[Check, ...]

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.passed is False)

    @property
    def ok(self) -> bool:
        return not self.failed

    def __str__(self) -> str:
        return "\n".join([f"model {self.model}:", *(f"  {c}" for c in self.checks)])

    def raise_if_failed(self) -> None:
        """AssertionError listing each failed check, one line each."""
        if not self.ok:
            raise AssertionError(str(self))


def _rows(length: int = 14, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Six rows ``[6, length]``: BOS, a prompt, SEP, an answer, EOS, PAD; even rows
    supervise every answer token (as cot), odd rows only the last one and EOS (as outcome).
    The longest row ends before ``length``, so the trainer's cut shortens the batch."""
    g = torch.Generator().manual_seed(seed)
    input_ids = torch.full((6, length), PAD)
    labels = torch.full((6, length), IGNORE_INDEX)
    for r in range(6):
        prompt, answer = 2 + r % 3, 1 + r // 2 + r % 2
        tokens = torch.randint(0, ELEMENTS, (prompt + answer,), generator=g).tolist()
        row = [BOS, *tokens[:prompt], SEP, *tokens[prompt:], EOS]
        input_ids[r, :len(row)] = torch.tensor(row)
        first = len(row) - (answer + 1 if r % 2 == 0 else 2)
        labels[r, first:len(row)] = input_ids[r, first:len(row)]
    return input_ids, labels


def _saying(what: str) -> Callable[[str], str]:
    """An ``assert_close`` message: what differs, then its own account (how much, where)."""
    return lambda account: f"{what}: {account}"


def _output_shape(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    model = factory().eval()
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    expected = [*ids.shape, model.config.vocab_size]
    assert list(logits.shape) == expected, (
        f"the logits are {list(logits.shape)}, not [batch, length, vocab_size] = {expected}")
    return ""


def _labels_loss(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    model = factory().double().eval()
    with torch.no_grad():
        theirs = model(input_ids=ids, labels=labels).loss
        cut_ids, cut = trimmed(ids, labels, int(supervised_lengths(labels).max()))
        ours = causal_lm_loss(model(input_ids=cut_ids).logits, cut)
    # transformers scores float32 logits; ours keeps float64.
    torch.testing.assert_close(theirs.double(), ours.double(), rtol=1e-6, atol=0,
                               msg=_saying("the model's labels loss is not the trainer's"))
    return ""


def _output_embeddings(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    model = factory().eval()
    head = model.get_output_embeddings()
    vocab = model.config.vocab_size
    assert isinstance(head, torch.nn.Linear) and head.out_features == vocab, (
        f"get_output_embeddings() is {type(head).__name__}, not a Linear to {vocab} logits")
    with torch.no_grad():
        hidden = model.base_model(input_ids=ids).last_hidden_state
        torch.testing.assert_close(
            head(hidden), model(input_ids=ids).logits,
            msg=_saying("the head of the last hidden state is not the logits"))
    new = torch.nn.Linear(head.in_features, vocab, bias=head.bias is not None)
    model.set_output_embeddings(new)
    assert model.get_output_embeddings() is new, "set_output_embeddings did not replace the head"
    return ""


def _autocast(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    for dtype in (torch.bfloat16, torch.float16):
        model = factory().eval()
        with torch.no_grad():
            reference = model(input_ids=ids, labels=labels).loss
        with torch.autocast("cpu", dtype=dtype):
            loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        assert torch.isfinite(loss) and loss.dtype == torch.float32, (
            f"under {dtype} autocast the loss is {loss.item()} in {loss.dtype}, not a finite "
            "float32")
        assert all(p.grad is not None and torch.isfinite(p.grad).all()
                   for p in model.parameters() if p.requires_grad), (
            f"under {dtype} autocast a gradient is missing or not finite")
        # Half precision changes the read-out's rounding, not what the model computes.
        assert abs(loss.item() - reference.item()) <= 0.05 * abs(reference.item()), (
            f"under {dtype} autocast the loss is {loss.item():.4g}, not near "
            f"{reference.item():.4g}")
    return ""


def _gradients(model, ids: torch.Tensor, labels: torch.Tensor) -> dict[str, torch.Tensor]:
    model.zero_grad(set_to_none=True)
    # The same global RNG state for every forward (a model may draw, as the offset GPT-2
    # draws its positions).
    torch.manual_seed(1)
    model(input_ids=ids, labels=labels).loss.backward()
    return {k: p.grad.clone() for k, p in model.named_parameters() if p.grad is not None}


def _gradient_checkpointing(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    model = factory().double().train()
    if not getattr(model, "supports_gradient_checkpointing", False):
        raise NotApplicable("the model does not declare supports_gradient_checkpointing")
    # Dropout off: the recompute would redraw its masks otherwise.
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    plain = _gradients(model, ids, labels)
    model.activation_checkpointing_enable()
    checkpointed = _gradients(model, ids, labels)
    assert checkpointed.keys() == plain.keys(), "checkpointing changes which parameters get grads"
    for name, grad in plain.items():
        torch.testing.assert_close(checkpointed[name], grad,
                                   msg=_saying(f"{name}'s gradient differs"))
    return ""


def _stepwise_greedy(model, prompt: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    """Greedy decoding by a full forward pass per token, padding after EOS as generate()."""
    ids, finished = prompt, torch.zeros(prompt.shape[0], dtype=torch.bool)
    eos, pad = model.config.eos_token_id, model.config.pad_token_id
    with torch.no_grad():
        for _ in range(max_new_tokens):
            token = model(input_ids=ids).logits[:, -1].argmax(-1)
            if eos is not None:
                token = torch.where(finished, torch.full_like(token, pad), token)
                finished |= token == eos
            ids = torch.cat([ids, token[:, None]], dim=1)
            if finished.all():
                break
    return ids


def _generation(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str:
    model = factory().eval()
    prompt = ids[:3, :5]
    with torch.no_grad():
        generated = model.generate(prompt, max_new_tokens=6, do_sample=False,
                                   attention_mask=torch.ones_like(prompt))
    torch.testing.assert_close(
        generated, _stepwise_greedy(model, prompt, 6), rtol=0, atol=0,
        msg=_saying("greedy generate() is not a forward pass per token, argmax"))
    return ""


def _stacked_grid(factory: Callable, ids: torch.Tensor, labels: torch.Tensor) -> str | None:
    models = [factory(seed).double().eval() for seed in (0, 1)]
    if not has_stacked_forward(models[0]):
        reason = vmap_unsupported_reason(models[0], ids[:2])
        return ("trains stacked under torch.func.vmap" if reason is None
                else f"trains run by run: {reason}")
    params, _ = stack_module_state(models)
    stacked_ids = torch.stack([ids, ids.flip(0)])  # [R, B, T]
    stacked = models[0].stacked_forward(params, stacked_ids)  # [R, B, T, V]
    stacked.sum().backward()
    for r, model in enumerate(models):
        logits = model(input_ids=stacked_ids[r]).logits
        torch.testing.assert_close(stacked[r], logits,
                                   msg=_saying(f"stacked_forward's run {r} logits"))
        logits.sum().backward()
        for name, param in model.named_parameters():
            torch.testing.assert_close(params[name].grad[r], param.grad,
                                       msg=_saying(f"stacked_forward's run {r} gradient of {name}"))
    return "stacked_forward matches each run"


CHECKS: dict[str, Callable] = {
    "output shape": _output_shape,
    "labels loss": _labels_loss,
    "output embeddings": _output_embeddings,
    "autocast": _autocast,
    "gradient checkpointing": _gradient_checkpointing,
    "generation": _generation,
    "stacked grid": _stacked_grid,
}


# The part of the contract a campaign runs before it trains an outside model: one forward and
# one loss on six rows, well under a second, where the whole check trains and generates.
BEFORE_TRAINING = ("output shape", "labels loss")
# How a reader runs the whole check on a model name.
FULL_CHECK = ("python -c \"from hf_induction.training.contract import check_model; "
              "print(check_model({name!r}))\"")


def _first_lines(error: BaseException, lines: int = 3) -> str:
    text = "; ".join(line.strip() for line in str(error).strip().splitlines()[:lines] if line)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _factory(model, preset: str):
    """(name, fresh-model factory) of a model name (any form ``--model`` takes), a spec or a
    source, looked up once and built as a campaign builds it, at the rows' vocabulary and all
    three special tokens (so no default of a base config needs clearing)."""
    from hf_induction.models.build import model_factory, resolve_model
    from hf_induction.models.registry import source_of

    source = source_of(model)
    resolved = resolve_model(source, _RowsVocab(), preset)
    # A fresh config per model: a check may change the one its model holds.
    return source.name, _as_trained(
        lambda: model_factory(source, copy.deepcopy(resolved.config))())


def _as_trained(fresh: Callable) -> Callable:
    """A factory of models as the trainer makes them (`seeded_model`: seeded, its padding
    check off), on the CPU."""
    return lambda seed=0: seeded_model(fresh, seed, torch.device("cpu"))


class _RowsVocab:
    """The rows' vocabulary as `build_config` reads a task's: its size and special tokens."""

    size = VOCAB_SIZE

    def special_token_ids(self) -> dict[str, int]:
        return dict(SPECIAL_TOKENS)


def check_model(model, preset: str = "tiny",
                checks: tuple[str, ...] | None = None) -> ContractReport:
    """Run every check of the contract on a model, built fresh for each at ``preset``.

    Args:
        model: a `ModelSpec`, or any name ``--model`` takes (ours, an installed package's,
            ``path/to/file.py:NAME``, ``module:NAME``, ``hf:...``).
        preset: the model preset to build it at ("tiny" runs in seconds on a CPU).
        checks: the names of the checks to run (`CHECKS`' order kept); None runs them all
            (`BEFORE_TRAINING` is what a campaign runs before it trains an outside model).

    Returns:
        A `ContractReport`; ``report.ok``, ``report.failed``, ``print(report)``, or
        ``report.raise_if_failed()``. A model that cannot be built raises (ValueError naming
        why), as ``--model`` would.
    """
    unknown = sorted(set(checks or ()) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown check(s) {unknown}; the checks: {list(CHECKS)}")
    name, factory = _factory(model, preset)
    ids, labels = _rows()
    verdicts = []
    for check_name, check in CHECKS.items():
        if checks is not None and check_name not in checks:
            continue
        try:
            passed, detail = True, check(factory, ids, labels)
        except NotApplicable as e:
            passed, detail = None, str(e)
        except Exception as e:  # a failed check is reported, and the others still run
            passed, detail = False, _first_lines(e)
        verdicts.append(Check(check_name, passed, detail))
    return ContractReport(name, tuple(verdicts))
