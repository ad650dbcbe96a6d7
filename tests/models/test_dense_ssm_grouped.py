"""The grouped Dense-SSM kernel: its block plan, checked by brute force, and its hand-written
backward, checked by finite differences."""

import pytest
import torch

from hf_induction.models.dense_ssm.grouped_kernel import (
    GroupedRecurrence,
    group_plan,
    grouped_dense_ssm_states,
)


def ids_with_skew(batch_size: int, seq_len: int, num_tokens: int, seed: int = 0):
    """Random ids, with one step where every example reads the same token and one where only
    two tokens occur, so that blocks of every shape appear."""
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, num_tokens, (batch_size, seq_len), generator=g)
    ids[:, 0] = num_tokens - 1
    if seq_len > 1:
        ids[:, 1] = torch.arange(batch_size) % 2
    return ids


@pytest.mark.parametrize("batch_size, seq_len, num_tokens", [(7, 5, 4), (1, 1, 3), (30, 6, 9)])
def test_plan_puts_each_example_in_its_tokens_block_without_collisions(
    batch_size, seq_len, num_tokens
):
    ids = ids_with_skew(batch_size, seq_len, num_tokens)
    rows, steps = group_plan(ids, num_tokens)
    assert rows.shape == (seq_len, batch_size)
    for t, step in enumerate(steps):
        present = sorted(set(ids[:, t].tolist()))
        tokens = list(range(num_tokens)) if step.tokens is None else step.tokens.tolist()
        assert tokens == present and step.groups == len(present)
        assert step.slots == max(ids[:, t].tolist().count(k) for k in present)
        row = rows[t].tolist()
        assert len(set(row)) == batch_size  # no two examples share a row
        for b in range(batch_size):
            block, slot = divmod(row[b], step.slots)
            assert tokens[block] == ids[b, t].item()
            assert 0 <= slot < step.slots


def test_plan_rejects_token_ids_outside_the_table():
    with pytest.raises(ValueError, match=r"token ids must lie in \[0, 4\), got the range \[0, 4\]"):
        group_plan(torch.tensor([[0, 4]]), 4)


def brute_force_states(ids, initial, transition, normalise, eps):
    states = []
    for b in range(ids.shape[0]):
        h, row = initial[b], []
        for t in range(ids.shape[1]):
            h = transition[ids[b, t]] @ h
            if normalise:
                h = h / torch.sqrt(h.pow(2).mean() + eps)
            row.append(h)
        states.append(torch.stack(row))
    return torch.stack(states)


@pytest.mark.parametrize("normalise", [True, False], ids=["step-norm", "no-norm"])
def test_grouped_states_match_brute_force_and_pass_gradcheck(normalise):
    g = torch.Generator().manual_seed(1)
    ids = ids_with_skew(6, 5, 4)
    initial = torch.randn(6, 3, generator=g, dtype=torch.float64, requires_grad=True)
    transition = torch.randn(4, 3, 3, generator=g, dtype=torch.float64, requires_grad=True)
    states = grouped_dense_ssm_states(ids, initial, transition, normalise, 1e-8)
    torch.testing.assert_close(
        states, brute_force_states(ids, initial, transition, normalise, 1e-8)
    )
    rows, steps = group_plan(ids, 4)
    assert torch.autograd.gradcheck(
        lambda h, a: GroupedRecurrence.apply(h, a, rows, steps, normalise, 1e-8),
        (initial, transition),
    )
