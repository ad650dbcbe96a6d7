import math

import pytest
import torch

from hf_induction.training import (
    aligned_loss,
    aligned_loss_per_run,
    aligned_loss_sum,
    aligned_loss_sum_per_run,
)


def brute_force(logits: torch.Tensor, labels: torch.Tensor) -> float:
    """Mean of -log softmax(logits[b, i])[labels[b, i]] over supervised (b, i)."""
    terms = []
    for b in range(labels.shape[0]):
        for i in range(labels.shape[1]):
            target = int(labels[b, i])
            if target == -100:
                continue
            row = logits[b, i].tolist()
            log_norm = math.log(sum(math.exp(v) for v in row))
            terms.append(log_norm - row[target])
    return sum(terms) / len(terms)


def random_case(seed: int, batch: int = 3, length: int = 5, vocab: int = 4):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(batch, length, vocab, generator=g, dtype=torch.float64)
    labels = torch.randint(0, vocab, (batch, length), generator=g)
    labels[torch.rand(batch, length, generator=g) < 0.4] = -100
    labels[:, 0] = 1
    return logits, labels


@pytest.mark.parametrize("seed", range(4), ids=lambda s: f"seed{s}")
def test_aligned_loss_is_the_unshifted_per_position_mean(seed):
    logits, labels = random_case(seed)
    assert aligned_loss(logits, labels).item() == pytest.approx(brute_force(logits, labels))


def test_position_i_is_scored_against_label_i():
    logits = torch.full((1, 2, 3), -30.0, dtype=torch.float64)
    logits[0, 0, 2] = logits[0, 1, 0] = 30.0
    labels = torch.tensor([[2, 0]])
    assert aligned_loss(logits, labels).item() < 1e-20
    assert aligned_loss(logits, labels.roll(1, dims=1)).item() > 50


def test_sum_and_count_make_the_mean():
    logits, labels = random_case(7)
    total, count = aligned_loss_sum(logits, labels)
    assert count == int((labels != -100).sum())
    assert (total / count).item() == pytest.approx(aligned_loss(logits, labels).item())


def test_per_run_losses_equal_separate_losses():
    cases = [random_case(seed) for seed in range(3)]
    logits = torch.stack([c[0] for c in cases])
    labels = torch.stack([c[1] for c in cases])
    per_run = aligned_loss_per_run(logits, labels)
    expected = torch.stack([aligned_loss(lg, lb) for lg, lb in cases])
    torch.testing.assert_close(per_run, expected)


def test_per_run_sums_broadcast_shared_labels():
    logits = torch.stack([random_case(seed)[0] for seed in range(3)])
    labels = random_case(0)[1]
    sums, counts = aligned_loss_sum_per_run(logits, labels)
    for r in range(3):
        total, count = aligned_loss_sum(logits[r], labels)
        assert counts[r] == count
        torch.testing.assert_close(sums[r], total)


def test_token_losses_match_torch_cross_entropy_and_are_zero_where_unsupervised():
    from hf_induction.training.loss import token_losses

    logits, labels = random_case(7, batch=4, length=6, vocab=9)
    expected = torch.nn.functional.cross_entropy(
        logits.reshape(-1, 9), labels.reshape(-1), ignore_index=-100, reduction="none"
    ).view(4, 6)
    got = token_losses(logits, labels)
    torch.testing.assert_close(got, expected)
    assert (got[labels == -100] == 0).all() and (got[labels != -100] > 0).all()
