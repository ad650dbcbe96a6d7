"""Every declared table appends, finds and reads its rows through one generic implementation."""

import dataclasses
import typing

import pytest

from hf_induction.results import TABLES, ResultsFolder, Row, read_rows
from hf_induction.results.card import TABLES as CARD_TABLES

_VALUES = {str: "x", int: 3, float: 0.5, bool: True}


def _value(tp):
    if typing.get_origin(tp) in (typing.Union, __import__("types").UnionType):
        (tp,) = [a for a in typing.get_args(tp) if a is not type(None)]
    if typing.get_origin(tp) is tuple:
        return (_value(typing.get_args(tp)[0]),)
    return _VALUES[tp]


def a_row(row_class, key):
    hints = typing.get_type_hints(row_class)
    return row_class(**{f.name: key if f.name == "key" else _value(hints[f.name])
                        for f in dataclasses.fields(row_class) if f.init and not f.kw_only})


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_a_row_goes_to_its_own_table_and_comes_back_equal(tmp_path, table):
    folder = ResultsFolder(tmp_path / "r")
    first, second = a_row(table.row, "k1"), a_row(table.row, "k2")
    folder.append(first)
    folder.append(second)
    assert folder.find(table.row, "k2") == second and folder.find(table.row, "k9") is None
    assert folder.read(table.row) == [first, second]
    # In its own table's folder, and no other.
    assert [t.name for t in folder.tables if t.has_rows()] == [table.name]
    assert table.row.from_dict(first.to_dict()) == first
    # As `load_dataset` reads it, through the card's declared columns: the same rows.
    assert read_rows(folder.path, table.row) == [first, second]


def test_the_card_declares_every_table_in_the_declared_order():
    assert list(CARD_TABLES) == [t.name for t in TABLES]
    assert {t.row for t in TABLES} == set(CARD_TABLES.values())


def test_a_row_of_no_table_is_refused_in_one_line(tmp_path):
    @dataclasses.dataclass(frozen=True)
    class Stray(Row):
        key: str

    folder = ResultsFolder(tmp_path / "r")
    with pytest.raises(ValueError, match=r"^Stray is not the row of a results table \(the rows: "
                                         r"NstarRow, KappaRow, "):
        folder.append(Stray("k"))


def test_a_table_is_reached_by_its_row_class_or_its_name_and_nothing_else(tmp_path):
    folder = ResultsFolder(tmp_path / "r")
    heads = next(t.row for t in TABLES if t.name == "heads")
    row = a_row(heads, "h")
    folder.append(row)
    assert folder.find(heads, "h") == row and folder.read(heads) == [row]
    assert folder.table(heads) is folder.table("heads") and folder.table(heads).has_rows()
    # No attribute per table: a table is named where it is read.
    assert not any(hasattr(folder, t.name) for t in TABLES)
    with pytest.raises(ValueError, match="no table 'head'; the tables: nstar, kappa") as e:
        folder.table("head")
    assert len(str(e.value).splitlines()) == 1
