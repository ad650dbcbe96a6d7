import math

import pytest
import torch

from hf_induction.training import (
    causal_lm_loss,
    causal_lm_loss_per_run,
    causal_lm_loss_sum,
    causal_lm_loss_sum_per_run,
)


def brute_force(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """Mean of -log softmax(logits[b, j])[labels[b, j + 1]] over supervised (b, j + 1)."""
    terms = []
    for b in range(labels.shape[0]):
        for j in range(labels.shape[1] - 1):
            target = int(labels[b, j + 1])
            if target == -100:
                continue
            row = logits[b, j].tolist()
            log_norm = math.log(sum(math.exp(v) for v in row))
            terms.append(log_norm - row[target])
    return sum(terms) / len(terms)


def random_case(seed: int, batch: int = 3, length: int = 5, vocab: int = 4):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(batch, length, vocab, generator=g, dtype=torch.float64)
    labels = torch.randint(0, vocab, (batch, length), generator=g)
    labels[torch.rand(batch, length, generator=g) < 0.4] = -100
    labels[:, 1] = 1
    return logits, labels


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed{s}")
def test_causal_lm_loss_is_the_shifted_per_token_mean(seed):
    logits, labels = random_case(seed)
    assert causal_lm_loss(logits, labels).item() == pytest.approx(brute_force(logits, labels))


@pytest.mark.parametrize("seed", range(3), ids=lambda s: f"seed{s}")
def test_it_is_the_loss_transformers_computes(seed):
    from transformers.loss.loss_utils import ForCausalLMLoss

    logits, labels = random_case(seed, vocab=7)
    expected = ForCausalLMLoss(logits, labels, vocab_size=7)
    torch.testing.assert_close(causal_lm_loss(logits, labels), expected.to(torch.float64))


def test_output_j_is_scored_against_label_j_plus_one():
    logits = torch.full((1, 2, 3), -30.0, dtype=torch.float64)
    logits[0, 0, 2] = 30.0
    labels = torch.tensor([[-100, 2]])
    assert causal_lm_loss(logits, labels).item() < 1e-20
    # Logits of the inputs but the last give the same loss: the last output predicts nothing.
    assert causal_lm_loss(logits[:, :1], labels).item() < 1e-20
    # The label at position 0 is never scored, and an unshifted reading would be wrong.
    assert causal_lm_loss(logits, torch.tensor([[0, 2]])).item() < 1e-20
    assert causal_lm_loss(logits, torch.tensor([[-100, 0]])).item() > 50


def test_sum_and_count_make_the_mean():
    logits, labels = random_case(7)
    total, count = causal_lm_loss_sum(logits, labels)
    assert count == int((labels[:, 1:] != -100).sum())
    assert (total / count).item() == pytest.approx(causal_lm_loss(logits, labels).item())


def test_per_run_losses_equal_separate_losses():
    cases = [random_case(seed) for seed in range(3)]
    logits = torch.stack([c[0] for c in cases])
    labels = torch.stack([c[1] for c in cases])
    per_run = causal_lm_loss_per_run(logits, labels)
    expected = torch.stack([causal_lm_loss(lg, lb) for lg, lb in cases])
    torch.testing.assert_close(per_run, expected)


def test_per_run_sums_broadcast_shared_labels():
    logits = torch.stack([random_case(seed)[0] for seed in range(3)])
    labels = random_case(0)[1]
    sums, counts = causal_lm_loss_sum_per_run(logits, labels)
    for r in range(3):
        total, count = causal_lm_loss_sum(logits[r], labels)
        assert counts[r] == count
        torch.testing.assert_close(sums[r], total)


def test_token_losses_match_torch_cross_entropy_and_are_zero_where_unsupervised():
    from hf_induction.training.loss import token_losses

    logits, labels = random_case(7, batch=4, length=6, vocab=9)
    targets = labels[:, 1:]
    expected = torch.nn.functional.cross_entropy(
        logits[:, :-1].reshape(-1, 9), targets.reshape(-1), ignore_index=-100, reduction="none"
    ).view(4, 5)
    got = token_losses(logits, labels)
    torch.testing.assert_close(got, expected)
    assert (got[targets == -100] == 0).all() and (got[targets != -100] > 0).all()


def test_half_precision_logits_are_scored_in_float32():
    logits, labels = random_case(3)
    loss = causal_lm_loss(logits.to(torch.bfloat16), labels)
    assert loss.dtype == torch.float32
    assert loss.item() == pytest.approx(brute_force(logits.to(torch.bfloat16).double(), labels))
