"""Head scores: equal to loops over the model's own attention weights, on planted heads and on
the package's attention models; a recurrent model is refused in one line."""

import numpy as np
import pytest
import torch

from hf_induction.analysis import SCORES, head_scores, prompts_from_cell, repeated_random_prompts
from hf_induction.models.build import build_model
from hf_induction.tasks import parse
from tests.analysis import planted
from tests.analysis.reference import head_scores_by_hand


def check_against_hand(model, prompts_list, **kwargs):
    scores = head_scores(model, prompts_list, **kwargs)
    by_hand = head_scores_by_hand(model, prompts_list)
    assert scores["n_positions"] == by_hand["n_positions"] > 0
    for name in SCORES:
        assert scores[name].shape == by_hand[name].shape
        np.testing.assert_allclose(scores[name], by_hand[name], atol=1e-6)
        assert (scores[name] >= 0).all() and (scores[name] <= 1 + 1e-6).all()
    return scores


def test_planted_induction_and_previous_token_heads():
    model = planted.induction_model()
    uf = prompts_from_cell(parse("copy", "UF_L4_V12"), 32, seed=0)
    repeated = [repeated_random_prompts(planted.SYMBOLS, 6, 32, seed=0, bos_id=planted.BOS)]
    for prompts in (uf, repeated):
        scores = check_against_hand(model, prompts)
        assert scores["induction"][1, 0] > 0.9
        assert scores["previous_token"][0, 0] > 0.9
        assert scores["induction"][0, 0] < 0.1 and scores["previous_token"][1, 0] < 0.1


def test_planted_duplicate_and_anti_induction_heads():
    model = planted.anti_induction_model(4)
    ub = prompts_from_cell(parse("copy", "UB_L4_V12"), 32, seed=0)
    scores = check_against_hand(model, ub, batch_size=5)
    assert scores["duplicate_token"][1, 0] > 0.9  # the head the study patches for anti
    assert scores["anti_induction"][1, 1] > 0.9  # attends s - 1 by absolute position
    assert scores["previous_token"][0, 0] > 0.9
    assert scores["anti_induction"][1, 0] < 0.1 and scores["duplicate_token"][1, 1] < 0.1


@pytest.mark.parametrize("name", ["gpt2", "rope", "gpt2_offset"])
def test_package_attention_models(name):
    torch.manual_seed(0)
    cell = parse("retrieval", "UR_L6_uniform")
    model = build_model(name, cell.vocab, preset="tiny")
    model.train()  # gpt2_offset draws random offsets in training forwards: scored at 0
    before = model.config._attn_implementation
    prompts = prompts_from_cell(cell, 24, seed=1)
    scores = check_against_hand(model, prompts, batch_size=7)
    assert all(scores[k].shape == (2, 4) for k in SCORES)
    assert model.training and model.config._attn_implementation == before


def test_a_model_without_attention_is_refused():
    cell = parse("copy", "UF_L4_V12")
    model = build_model("lstm", cell.vocab, preset="tiny")
    with pytest.raises(ValueError, match="returns no attention weights"):
        head_scores(model, prompts_from_cell(cell, 4, seed=0))


def test_prompts_without_positions_are_refused():
    prompts = prompts_from_cell(parse("retrieval", "NRLast_L4"), 4, seed=0)
    assert sum(p.n_positions for p in prompts) == 0
    with pytest.raises(ValueError, match="no scored position"):
        head_scores(planted.induction_model(), prompts)
