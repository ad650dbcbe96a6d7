"""Every displayed table is a list of columns, and a fact has one name and one spelling in all
of them: the command line's, the report's, the leaderboard's and the Space's."""

from collections import defaultdict

from hf_induction.display import report
from hf_induction.hub import leaderboard
from hf_induction.results import NstarRow, render
from hf_induction.results.render import NSTAR_COLUMNS, Columns, nstar_lines, write_table

# Spellings a fact had before it had one name; none may come back.
RETIRED = {"bracket", "search_mode", "task", "κ range", "wall s", "joint cell", "kappa",
           "kappa_bounds", "missing_nstar", "nstar_joint", "nstar_by_length",
           "N*_joint bracket", "n", "test_length"}


def displayed_tables() -> dict[str, Columns]:
    tables = {f"{module.__name__}.{name}": value
              for module in (render, report, leaderboard)
              for name, value in vars(module).items() if isinstance(value, Columns)}
    tables.update({f"board:{t.key}": t.columns for t in leaderboard.BOARD_TABLES})
    return tables


def test_every_display_names_a_fact_once_and_spells_it_one_way():
    tables = displayed_tables()
    assert len(tables) >= 12, sorted(tables)
    spellings = defaultdict(set)
    for columns in tables.values():
        assert len(set(columns)) == len(columns), columns.names
        for column in columns.columns:
            spellings[column.name].add((column.format, column.right))
    assert not RETIRED & set(spellings), sorted(RETIRED & set(spellings))
    assert {name: s for name, s in spellings.items() if len(s) > 1} == {}


def test_the_board_and_the_command_line_show_an_nstar_row_alike():
    row = NstarRow(key="k", dataset="modadd", config="acot_L3_m2", model="lstm",
                   model_config_hash="h", search_mode="refined", pool_size=10.0, n_cap=10,
                   n_star=None, largest_failing=10, search_end="largest size failed",
                   num_probes=2, total_steps=1500, probes="[]", search_settings="{}",
                   epsilon=1e-4, protocol_hash="p", package_version="0", git_commit="",
                   hardware="", wall_s=12.5, finished_at="")
    (line,) = nstar_lines([row])
    board = leaderboard.BOARD_TABLES[1]
    assert board.key == "nstar"
    _, (shown,) = board.merged([leaderboard.SourceResults("s", [], [row], [])])
    assert {name: line[name] for name in shown if name in line} == {
        name: shown[name] for name in shown if name in line}
    assert shown["N*"] == "> 10 (whole pool)" and shown["N* lies in"] == "(10, ∞)"
    # The terminal right-aligns the numbers its columns declare as such.
    text = write_table([row], NSTAR_COLUMNS)
    header, rule, body = text.splitlines()
    assert body.endswith("|      2 |            1,500 |    12.5 |"), body
    assert rule.endswith(":|")
