"""One config-name grammar for every family (`cell.NameGrammar`): each dataset's names are read
and written by it, its errors show that dataset's grammar, and the family parameter has one
name, ``family_param``, in every cell."""

from dataclasses import replace

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from hf_induction.tasks import DATASETS, family, grammar, parse


@pytest.mark.parametrize("dataset", DATASETS)
def test_each_example_of_the_grammar_is_read_and_written_by_it(dataset):
    g = family(dataset).grammar_of(dataset)
    assert g.examples and grammar(dataset) == g.text
    for name in g.examples:
        cell = parse(dataset, name)
        assert str(cell) == name
        assert g.write(cell.kind, cell.max_len, cell.dist, cell.family_param) == name


@st.composite
def names(draw):
    dataset = draw(st.sampled_from(DATASETS))
    g = family(dataset).grammar_of(dataset)
    param = draw(st.integers(1, 70)) if g.letter else None
    return dataset, g.write(draw(st.sampled_from(g.kinds)), draw(st.integers(1, 40)),
                            draw(st.sampled_from(g.dists)), param), param


@given(names())
def test_a_name_the_grammar_writes_reads_back_to_itself(case):
    dataset, name, param = case
    try:
        cell = parse(dataset, name)
    except ValueError:
        assume(False)
    assert str(cell) == name
    if param is not None:
        assert cell.family_param == param


@pytest.mark.parametrize("dataset,name,shown,not_shown", [
    ("modadd", "acot_L0", "_m{m}]", "_S{k}"),
    ("permutation", "acot_L0", "_S{k}]", "_m{m}"),
])
def test_a_word_problem_error_shows_its_own_dataset_grammar(dataset, name, shown, not_shown):
    message = str(pytest.raises(ValueError, parse, dataset, name).value)
    assert shown in message and not_shown not in message


@pytest.mark.parametrize("dataset,name,part", [
    ("modadd", "acot_L20_S4", "'S4' is neither a dist in {fixed, uniform, s2l} nor modadd's "
                              "parameter _m{m}"),
    ("retrieval", "UR_L6_m3", "'m3' is neither a dist in {fixed, uniform, s2l} nor "
                              "retrieval's parameter _V{V}"),
    ("lorem", "copy_L12_m3", "nor lorem's parameter _V{V}"),
    ("git", "revert_L4_V8", "'V8' is not a dist in {fixed, uniform}, and git names take no "
                            "parameter part"),
    ("copy", "UF_L5_gauss", "unknown length distribution 'gauss'"),
    ("modadd", "foo_L5", "unknown modadd format 'foo'"),
    ("git", "rebase_L4", "unknown git task 'rebase'"),
])
def test_a_part_the_dataset_does_not_take_is_named_in_one_line(dataset, name, part):
    message = str(pytest.raises(ValueError, parse, dataset, name).value)
    assert part in message and len(message.splitlines()) == 1
    assert family(dataset).grammar_of(dataset).text in message


@pytest.mark.parametrize("dataset,name,param,renamed", [
    ("modadd", "acot_L5", 7, "acot_L5_m7"),
    ("permutation", "acot_L5", 4, "acot_L5_S4"),
    ("retrieval", "UR_L6", 8, "UR_L6_V8"),
    ("copy", "NF_L4", 12, "NF_L4_V12"),
    ("lorem", "copy_L12", 8, "copy_L12_V8"),
])
def test_the_family_parameter_is_one_field_of_every_cell(dataset, name, param, renamed):
    cell = replace(parse(dataset, name), family_param=param)
    assert str(cell) == renamed and parse(dataset, renamed) == cell


def test_a_cell_of_another_dataset_is_refused_with_the_datasets_it_serves():
    with pytest.raises(ValueError, match="unknown dataset 'copy' for a RetrievalCell; "
                                         "allowed: retrieval"):
        family("retrieval").parse("copy", "UR_L6")


def test_the_old_word_problem_name_is_gone():
    import hf_induction.tasks as tasks

    assert not hasattr(tasks, "TaskConfig") and "TaskConfig" not in tasks.__all__
