"""Config names are ASCII in every family's grammar: a full-width or Arabic-Indic digit, which
Python's int() and \\d read as a digit, or a non-ASCII letter is refused in one line, never
recorded under the ASCII spelling."""

import pytest

from hf_induction.tasks import parse

# One valid name per family, with the digit and the letter the test swaps out.
NAMES = {
    "modadd": "acot_L5_m3",
    "permutation": "acot_L5_S3",
    "retrieval": "UR_L6",
    "copy": "UF_L5",
    "lorem": "copy_L5",
    "git": "revert_L4",
}
FULL_WIDTH_FIVE, ARABIC_INDIC_FIVE = "\uff15", "\u0665"


def swapped(name: str, old: str, new: str) -> str:
    assert old in name
    return name.replace(old, new, 1)


@pytest.mark.parametrize("dataset", sorted(NAMES))
def test_each_example_name_parses(dataset):
    assert str(parse(dataset, NAMES[dataset])) == NAMES[dataset]


@pytest.mark.parametrize("bad", [FULL_WIDTH_FIVE, ARABIC_INDIC_FIVE], ids=["fullwidth", "arabic"])
@pytest.mark.parametrize("dataset", sorted(NAMES))
def test_a_non_ascii_digit_is_refused(dataset, bad):
    name = NAMES[dataset]
    digit = next(c for c in name if c.isdigit())
    with pytest.raises(ValueError, match="non-ASCII character") as e:
        parse(dataset, swapped(name, digit, bad))
    assert len(str(e.value).splitlines()) == 1


@pytest.mark.parametrize("dataset", sorted(NAMES))
def test_a_non_ascii_letter_is_refused(dataset):
    name = NAMES[dataset]
    with pytest.raises(ValueError, match=r"non-ASCII character 'é' \(U\+00E9\)"):
        parse(dataset, "é" + name[1:])


@pytest.mark.parametrize("dataset", sorted(NAMES))
def test_a_trailing_newline_is_not_part_of_a_name(dataset):
    # `$` matches before a final newline; the whole name must match.
    with pytest.raises(ValueError, match="cannot parse config name"):
        parse(dataset, NAMES[dataset] + "\n")
