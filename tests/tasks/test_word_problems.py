import pytest
from hypothesis import given
from hypothesis import strategies as st

from hf_induction.tasks import DISTS, FORMATS, WordProblemCell


@pytest.mark.parametrize("dataset,name,expected", [
    ("modadd", "acot_L20", ("acot", 20, "fixed", 5)),
    ("modadd", "cot_L10_uniform", ("cot", 10, "uniform", 5)),
    ("modadd", "outcome_L20_m10", ("outcome", 20, "fixed", 10)),
    ("permutation", "acot_L30_s2l_S4", ("acot", 30, "s2l", 4)),
    ("permutation", "cot_L5", ("cot", 5, "fixed", 5)),
])
def test_parse_examples(dataset, name, expected):
    c = WordProblemCell.parse(dataset, name)
    assert (c.format, c.max_len, c.dist, c.family_param) == expected
    assert str(c) == name


def test_defaults_are_left_out_of_the_canonical_name():
    assert str(WordProblemCell.parse("modadd", "acot_L20_fixed_m5")) == "acot_L20"


@pytest.mark.parametrize("dataset,name,part", [
    ("modadd", "acot_L0", "L=0"),
    ("modadd", "cot_L10_m1", "m=1"),
    ("modadd", "foo_L5", "'foo'"),
    ("modadd", "acot_L1_uniform", "L=1"),
    ("permutation", "acot_L20_S9", "k=9"),
    ("modadd", "acot_L20_S4", "'S4'"),
    ("permutation", "acot_L20_m4", "'m4'"),
    ("modadd", "acot_L5_gauss", "'gauss'"),
    ("modadd", "acotL5", "cannot parse"),
    ("tiles", "acot_L5", "unknown dataset"),
])
def test_bad_names_name_the_bad_part_and_show_the_grammar(dataset, name, part):
    with pytest.raises(ValueError) as e:
        WordProblemCell.parse(dataset, name)
    assert part in str(e.value)
    if dataset != "tiles":
        assert "{format}_L{L}" in str(e.value)


cells = st.one_of(
    st.builds(WordProblemCell, st.just("modadd"), st.sampled_from(FORMATS), st.integers(2, 99),
              st.sampled_from(DISTS), st.integers(2, 500)),
    st.builds(WordProblemCell, st.just("permutation"), st.sampled_from(FORMATS), st.integers(2, 99),
              st.sampled_from(DISTS), st.integers(2, 6)),
)


@given(cells)
def test_round_trip(cfg):
    assert WordProblemCell.parse(cfg.dataset, str(cfg)) == cfg


@given(st.text(max_size=20))
def test_garbage_is_a_value_error_never_a_crash(text):
    for ds in ("modadd", "permutation"):
        try:
            cfg = WordProblemCell.parse(ds, text)
        except ValueError:
            continue
        assert WordProblemCell.parse(ds, str(cfg)) == cfg


def test_kappa_cells():
    c = WordProblemCell.parse("modadd", "acot_L10")
    assert str(c.with_length(3)) == "acot_L3"
    assert str(c.joint()) == "acot_L10_uniform"
    assert c.joint().lengths == tuple(range(2, 11))
