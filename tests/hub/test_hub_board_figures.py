"""The board's figures drawn from the rows of their tabs, row for row, over several sources:
two folders that hold the same model on one task draw two bars and two legend lines, each
named with its source, and a κ the tab shows is a bar of that height. What the Space says of
its sources, and the folders of configs beside the results, which `space` skips."""

from pathlib import Path

import pytest

from hf_induction.hub import plots
from hf_induction.hub.leaderboard import (
    BOARD_TABLES,
    SourceResults,
    board_figures,
    series_names,
    tab_rows,
)

ROOT = Path(__file__).resolve().parents[2]
# Two published folders with one model on the same tasks: A_4 has a row in each, and A_4xZ_5
# a κ of 3.21 in one and none in the other, whose first row drew no bar.
SOURCES = ["results/groups", "results/groups_15k"]


@pytest.fixture(scope="module")
def results():
    return [SourceResults.load(str(ROOT / s)) for s in SOURCES]


@pytest.fixture
def drawn(monkeypatch):
    """Each figure as it is saved: its bars (label, heights) and each panel's legend lines."""
    figures = {}
    save = plots._save

    def keep(fig, path):
        figures[Path(path).name] = (
            [(c.get_label(), [p.get_height() for p in c.patches])
             for ax in fig.axes for c in ax.containers],
            [ax.get_legend_handles_labels()[1] for ax in fig.axes])
        return save(fig, path)

    monkeypatch.setattr(plots, "_save", keep)
    return figures


def expected_bars(rows, names, group):
    """The κ figure of ``group`` as its tab's rows give it: a bar per row with a κ, or with a
    lower bound above 0 (hatched, "(lower bound)")."""
    bars = []
    for s, name in zip(rows, names, strict=True):
        if s.row.group == group and s.row.kappa is not None:
            bars.append((name, [s.row.kappa]))
        elif s.row.group == group and s.row.kappa_low:
            bars.append((f"{name} (lower bound)", [s.row.kappa_low]))
    return sorted(bars)


def test_every_kappa_figure_is_its_tabs_rows(results, drawn, tmp_path):
    board_figures(results, tmp_path)
    rows = tab_rows("kappa", results)
    _, lines = BOARD_TABLES[0].space(results)
    assert len(rows) == len(lines)  # the tab shows these rows, one line each
    names = series_names(rows)
    for group in sorted({s.row.group for s in rows}):
        dataset = next(s.row.dataset for s in rows if s.row.group == group)
        bars, _ = drawn[f"kappa_{dataset}_{group}.png"]
        assert sorted(bars) == expected_bars(rows, names, group), group
    bars, _ = drawn["kappa_group_A_4xZ_5.png"]
    assert bars == [(f"dense_ssm ({ROOT / 'results' / 'groups_15k'})",
                     [pytest.approx(3.2134, abs=1e-4)])]
    assert len(drawn["kappa_group_A_4.png"][0]) == 2


def test_no_legend_names_a_series_twice(results, drawn, tmp_path):
    board_figures(results, tmp_path)
    for name, (_, legends) in drawn.items():
        for labels in legends:
            assert len(labels) == len(set(labels)), (name, labels)
    # Two folders' dense_ssm on A_4: "dense_ssm" twice in one colour, now each its own.
    _, legends = drawn["nstar_vs_length_group_A_4.png"]
    assert sorted(label for label in legends[0]
                  if label.startswith("dense_ssm") and ":" not in label) == [
        f"dense_ssm ({ROOT / 'results' / name})" for name in ("groups", "groups_15k")]


def test_series_are_named_with_their_source_only_where_two_sources_share_a_model(results):
    rows = tab_rows("kappa", results)
    for s, name in zip(rows, series_names(rows), strict=True):
        others = {o.source.source for o in rows if (o.row.dataset, o.row.group, o.row.model)
                  == (s.row.dataset, s.row.group, s.row.model)}
        assert name == (f"{s.row.model} ({s.source.source})" if len(others) > 1
                        else s.row.model)


def test_the_ood_figure_draws_a_bar_per_row_of_its_tab(tmp_path, drawn):
    # One folder twice under two names: every check in both, as the tab shows them.
    import shutil

    for name in ("a", "b"):
        shutil.copytree(ROOT / "results" / "groups", tmp_path / name,
                        ignore=shutil.ignore_patterns(".locks", "claims"))
    results = [SourceResults.load(str(tmp_path / n)) for n in ("a", "b")]
    board_figures(results, tmp_path / "figures")
    bars, _ = drawn["ood_final_state.png"]
    assert sum(len(heights) for _, heights in bars) == len(tab_rows("ood", results)) > 0


def configs_beside(tmp_path) -> Path:
    """A folder of model configs, as results/expressible/ holds beside the results."""
    folder = tmp_path / "configs" / "gpt2-4x64"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}\n")
    return folder.parent


def test_a_folder_of_configs_among_results_is_skipped_with_a_line(tmp_path, monkeypatch):
    # `hf-induction space results/*` refused everything for results/expressible/.
    from _results_fixture import write_results

    from tests.runner.helpers import run_command

    monkeypatch.chdir(tmp_path)
    write_results(tmp_path / "mine")
    configs_beside(tmp_path)
    done = run_command(["leaderboard", "mine", "configs", "--out", "board"])
    assert done.returncode == 0, done.stderr
    assert done.stderr == ("hf-induction leaderboard: skipping configs: not a results folder "
                           "(it holds no protocol.json)\n")
    alone = run_command(["leaderboard", "configs", "--out", "board2"])
    assert alone.returncode == 2 and "configs is not a results folder" in alone.stderr


@pytest.mark.slow
def test_the_about_tab_names_folders_as_given_and_commands_a_wheel_has(tmp_path, monkeypatch):
    # It listed absolute paths, and told a wheel's user to run scripts/nstar.py and push.py.
    import os
    import subprocess
    import sys

    from _results_fixture import write_results

    from tests.runner.helpers import run_command

    pytest.importorskip("gradio")
    monkeypatch.chdir(tmp_path)
    write_results(tmp_path / "mine")
    configs_beside(tmp_path)
    done = run_command(["space", "mine", "configs", "--out", "space"])
    assert done.returncode == 0, done.stderr
    assert "skipping configs: not a results folder" in done.stderr
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "MPLCONFIGDIR": str(tmp_path / "mpl"),
           "HF_HOME": str(tmp_path / "hf")}
    about = subprocess.run([sys.executable, "-c", "import app; print(app.ABOUT)"],
                           cwd=tmp_path / "space", env=env, capture_output=True, text=True,
                           timeout=300)
    assert about.returncode == 0, about.stderr
    assert "Results shown here: results/mine." in about.stdout
    assert str(tmp_path) not in about.stdout and "scripts/" not in about.stdout
    assert "`hf-induction nstar … --kappa --out results/mine`" in about.stdout
    assert "`hf-induction push results/mine ORG/REPO`" in about.stdout
