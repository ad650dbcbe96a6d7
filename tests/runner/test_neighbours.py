"""Where a search starts: each relation of `neighbour_hint`, in its order, on rows whose
configs are parsed as the folder's are."""

import pytest

from hf_induction.results import NstarRow
from hf_induction.runner.neighbours import Hint, neighbour_hint
from hf_induction.tasks import parse


def row(config, n_star, model="lstm", dataset="modadd", failing=None):
    return NstarRow(
        key=f"{dataset}-{config}-{model}", dataset=dataset, config=config, model=model,
        model_config_hash="h", search_mode="refined", pool_size=10**6, n_cap=10**5,
        n_star=n_star, largest_failing=failing if n_star is None else (failing or n_star - 1),
        search_end="bracket closed", num_probes=5, total_steps=1, probes="[]",
        search_settings="{}", epsilon=1e-4, protocol_hash="p", package_version="0",
        git_commit="", hardware="", wall_s=1.0, finished_at="")


def hint(config, rows, model="lstm", dataset="modadd"):
    return neighbour_hint(parse(dataset, config), model, rows)


def test_no_finished_neighbour_no_hint():
    assert hint("acot_L5", []) is None
    # A row of another dataset, and a search that ran no probe, are no neighbours.
    assert hint("acot_L5", [row("acot_L4_S3", 50, dataset="permutation"),
                            row("acot_L4", None, failing=None)]) is None


def test_the_nearest_shorter_length_of_the_same_model_comes_first():
    rows = [row("acot_L2", 10), row("acot_L4", 300), row("acot_L5", 999, model="gpt2"),
            row("acot_L6", 5)]
    assert hint("acot_L5", rows) == Hint(300, "N* = 300 of lstm on acot_L4")
    # For the joint cell, the fixed cell at L itself is the nearest.
    assert hint("acot_L5_uniform", [*rows, row("acot_L5", 400)]).n == 400


def test_then_the_next_smaller_m_then_the_other_models_on_the_cell():
    rows = [row("acot_L5_m3", 30), row("acot_L5_m4", 40), row("acot_L5_m7", 70)]
    assert hint("acot_L5_m5", rows).n == 40
    others = [row("acot_L5", 100, "gpt2"), row("acot_L5", 200, "dense_ssm"),
              row("acot_L5", 900, "mamba")]
    found = hint("acot_L5", others)
    assert found.n == 200 and found.why.startswith("the median of 3")
    # A model that learnt at no size counts as the largest in the median.
    assert hint("acot_L5", [*others[:2], row("acot_L5", None, "mamba", failing=10**5)]).n == 200


def test_then_a_longer_length_then_another_group_nearest_in_order():
    assert hint("acot_L3", [row("acot_L5", 500), row("acot_L4", 400)]).n == 400
    rows = [row(c, n, dataset="group") for c, n in (
        ("acot_L3_A5", 3_000), ("acot_L3_D6", 120), ("acot_L4_D6", 99))]
    # acot_L4_D6 is another length and another group: no relation. D6 (order 12) is nearer
    # A4's order 12 than A5's 60.
    assert hint("acot_L3_A4", rows, dataset="group").n == 120


def test_a_neighbour_whose_largest_size_failed_sends_the_search_to_its_cap():
    found = hint("acot_L5", [row("acot_L4", None, failing=2_500)])
    assert found.n is None and "largest size failed" in found.why
    assert found.size(7_000) == 7_000 and Hint(300, "").size(7_000) == 300


@pytest.mark.parametrize("config", ["acot_L5", "acot_L5_uniform"])
def test_an_unparsable_config_is_skipped(config):
    assert hint(config, [row("acot_L99x", 10)]) is None
