"""Edge patching: the attention function against transformers' own, one patched run against
GPT-2's forward done by hand, and planted heads found (and only they) by the ranking."""

import pytest
import torch

from hf_induction.analysis import (
    EdgePlan,
    edge_patching,
    patched_logits,
    prompts_from_cell,
    repeated_random_prompts,
)
from hf_induction.analysis.edges import edge_run, planned
from hf_induction.models.build import build_model
from hf_induction.tasks import parse
from tests.analysis import planted
from tests.analysis.reference import gpt2_by_hand


@pytest.mark.parametrize("name", ["gpt2", "rope", "gpt2_offset"])
def test_the_attention_function_is_the_models_own(name):
    torch.manual_seed(0)
    cell = parse("copy", "UB_L4_V12")
    model = build_model(name, cell.vocab, preset="tiny").eval()
    ids = prompts_from_cell(cell, 6, seed=0)[0].input_ids
    with torch.no_grad():
        own = model(input_ids=ids).logits
    with edge_run(model):
        with planned(EdgePlan(record=True)) as plan:
            edged = model(input_ids=ids, use_cache=False).logits
        with planned(EdgePlan(cut_previous=True)):
            cut = model(input_ids=ids, use_cache=False).logits
    torch.testing.assert_close(edged, own, atol=1e-5, rtol=1e-5)
    assert (cut - own).abs().max() > 1e-3
    assert sorted(plan.recorded) == [0, 1]
    assert plan.recorded[0][0].shape == (6, 4, ids.shape[1], 8)
    assert model.config._attn_implementation == "sdpa"


@pytest.mark.parametrize("layer,head,kind", [(1, 2, "induction"), (1, 1, "anti_induction"),
                                             (1, 0, "induction")])
def test_one_patched_run_by_hand(layer, head, kind):
    torch.manual_seed(1)
    cell = parse("copy", "UF_L3")
    # Weights far from GPT-2's 0.02 init: a layer-1 key or value the cut changed by 1e-4
    # would leave the logits within the test's tolerance.
    model = build_model("gpt2", cell.vocab, preset="tiny", initializer_range=0.5).eval()
    prompts = prompts_from_cell(cell, 3, seed=0)[0]
    ids = prompts.input_ids
    edges = {(r, t): s + 1 if kind == "induction" else s
             for r, t, s in zip(prompts.rows.tolist(), prompts.t.tolist(), prompts.s.tolist(),
                                strict=True)}
    with torch.no_grad():
        clean, _ = gpt2_by_hand(model, ids)
        torch.testing.assert_close(clean, model(input_ids=ids).logits, atol=1e-5, rtol=1e-5)
        _, kept = gpt2_by_hand(model, ids, cut=True)
        by_hand, _ = gpt2_by_hand(model, ids, swap=(layer, head, kind, edges, kept))
    patched = patched_logits(model, prompts, layer, head, kind)
    torch.testing.assert_close(patched, by_hand, atol=1e-5, rtol=1e-5)
    assert (patched - clean).abs().max() > 1e-4  # the swap did something


def check_planted(rows, planted_head, n_heads):
    assert len(rows) == 2 * 2 * n_heads
    assert [r["delta_ce"] for r in rows] == sorted((r["delta_ce"] for r in rows), reverse=True)
    top = rows[0]
    assert (top["layer"], top["head"], top["kind"]) == planted_head
    assert top["base_exact_match"] > 0.99 and top["base_ce"] < 0.01
    assert top["exact_match"] < 0.05 and top["delta_ce"] > 1.0
    assert all(abs(r["delta_exact_match"]) < 0.05 for r in rows[1:])


def test_patching_finds_the_planted_induction_head():
    model = planted.induction_model()
    uf = prompts_from_cell(parse("copy", "UF_L4_V12"), 32, seed=0)
    repeated = repeated_random_prompts(planted.SYMBOLS, 6, 32, seed=0, bos_id=planted.BOS)
    for prompts in (uf, repeated):
        check_planted(edge_patching(model, prompts, batch_size=16), (1, 0, "induction"),
                      planted.N_HEAD)


def test_patching_finds_the_planted_anti_induction_head():
    model = planted.anti_induction_model(4)
    ub = prompts_from_cell(parse("copy", "UB_L4_V12"), 32, seed=0)
    check_planted(edge_patching(model, ub), (1, 0, "anti_induction"), planted.N_HEAD)


def test_batches_and_a_chosen_head():
    model = planted.induction_model()
    uf = prompts_from_cell(parse("copy", "UF_L4_V12"), 20, seed=0)
    whole = {(r["layer"], r["head"], r["kind"]): r for r in edge_patching(model, uf)}
    [one] = edge_patching(model, uf, kinds=["induction"], heads=[(1, 0)], batch_size=3)
    for key in ("ce", "exact_match", "base_ce", "base_exact_match", "n_edges"):
        assert one[key] == pytest.approx(whole[(1, 0, "induction")][key], abs=1e-6)


def test_refusals():
    cell = parse("copy", "UF_L4_V12")
    prompts = prompts_from_cell(cell, 4, seed=0)
    with pytest.raises(ValueError, match="edge patching needs an attention model"):
        edge_patching(build_model("lstm", cell.vocab, preset="tiny"), prompts)
    with pytest.raises(ValueError, match="unknown kind"):
        edge_patching(planted.induction_model(), prompts, kinds=["previous_token"])
