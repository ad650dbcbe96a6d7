"""N* against |G| for the group family: groups that share an order stand side by side, each
named, not joined by one line through one x."""

import sys
from pathlib import Path

from hf_induction.commands import report
from hf_induction.results import ResultsFolder

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hub"))
from _results_fixture import nstar_row  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def _folder(path, cells):
    folder = ResultsFolder(path)
    folder.check_protocol({"train": {"max_steps": 10}, "search": {"mode": "refined"}})
    for dataset, config, n_star in cells:
        folder.append(nstar_row(dataset, config, "lstm", n_star))
    return folder


def test_groups_of_one_order_are_drawn_by_group(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr("hf_induction.hub.plots.plot_nstar_by_group",
                        lambda series, path, title: drawn.append(("by group", series)) or path)
    monkeypatch.setattr("hf_induction.hub.plots.plot_nstar_vs_group",
                        lambda series, path, title: drawn.append(("by size", series)) or path)
    folder = _folder(tmp_path / "g", [("group", "acot_L5_Z12", 400), ("group", "acot_L5_A4", 300),
                                      ("group", "acot_L5_A5", None)])
    report.group_figures(folder, tmp_path)
    [(kind, series)] = drawn
    assert kind == "by group"
    # (label, |G|, solvable, N*, largest failing), by size then name.
    assert series["lstm"] == [("A_4", 12, True, 300, 150), ("Z_12", 12, True, 400, 200),
                              ("A_5", 60, False, None, None)]
    drawn.clear()
    report.group_figures(_folder(tmp_path / "m", [("modadd", "acot_L5_m2", 5),
                                                  ("modadd", "acot_L5", 40)]), tmp_path)
    assert drawn == [("by size", {"lstm": [(2, 5, 2), (5, 40, 20)]})]


def test_the_figure_is_written(tmp_path):
    from hf_induction.hub.plots import plot_nstar_by_group

    series = {"lstm": [("Z_12", 12, True, 400, 360), ("A_5", 60, False, None, 900)],
              "dense_ssm": [("Z_12", 12, True, 50, 40), ("A_5", 60, False, 70, 60)]}
    path = plot_nstar_by_group(series, tmp_path / "f.png", "t")
    assert path.read_bytes()[:8] == PNG and path.stat().st_size > 5000
