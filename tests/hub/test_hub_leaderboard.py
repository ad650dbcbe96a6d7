"""The leaderboard from a local results folder and from a Hub dataset: markdown and PNG figures."""

import sys
from pathlib import Path

import pytest
from _hub_clients import run_client
from _results_fixture import NSTARS, L, nstar_row, write_results

from hf_induction.hub import leaderboard_entries, write_leaderboard
from hf_induction.results import ResultsFolder
from hf_induction.results.rows import KappaRow

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _kappa_lines(markdown: str) -> list[str]:
    section = markdown.split("## κ per model × format × dataset")[1].split("##")[0]
    return [line for line in section.splitlines() if line.startswith("| ")][1:]


def test_entries_are_sorted_with_sums():
    # no files needed: rows straight from the fixture writer's folder
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        entries = leaderboard_entries(write_results(Path(tmp)).read(KappaRow))
    keys = [(e.dataset, e.format, e.model, e.kappa, e.nstar_joint, e.nstar_sum) for e in entries]
    assert keys == [
        ("modadd", "acot", "lstm", 4.0, 60, 240),
        ("modadd", "acot", "gpt2", 0.5, 600, 300),
        ("modadd", "cot", "lstm", 2.0, 45, 90),
        ("modadd", "cot", "gpt2", None, 150, None),  # undefined κ sorts last
        ("permutation", "acot", "dense_ssm", 4.0, 112, 448),
    ]
    assert entries[0].group == "Z_5" and entries[-1].group == "S_5" and entries[0].max_len == 4
    # The class of each group's word problem, what the Space's "Word problem" filter reads.
    assert [e.word_problem for e in entries] == ["TC0"] * 4 + ["NC1-complete"]


def test_leaderboard_files_from_a_local_folder(tmp_path):
    write_results(tmp_path / "results")
    written = write_leaderboard(tmp_path / "results", tmp_path / "out",
                                cache_dir=str(tmp_path / "cache"))
    names = sorted(p.name for p in written)
    assert names == ["kappa_modadd_Z_5.png", "kappa_permutation_S_5.png", "leaderboard.md",
                     "nstar_vs_length_modadd_Z_5.png", "nstar_vs_length_permutation_S_5.png"]
    for path in written:
        if path.suffix == ".png":
            assert path.read_bytes()[:8] == PNG and path.stat().st_size > 5000
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert _kappa_lines(md) == [
        "| modadd | Z_5 | acot | 4 | lstm | 4 | [2.05, 7.74] | none | 60 | (30, 60] | 240 | TC0 "
        "| disjoint |",
        "| modadd | Z_5 | acot | 4 | gpt2 | 0.5 | [0.255, 0.997] | none | 600 | (300, 600] | 300 "
        "| TC0 | disjoint |",
        "| modadd | Z_5 | cot | 4 | lstm | 2 | [1.07, 3.91] | none | 45 | (22, 45] | 90 | TC0 "
        "| disjoint |",
        "| modadd | Z_5 | cot | 4 | gpt2 | ≥ 0.687 (lower bound) | [0.687, ∞] | n=3 | 150 "
        "| (75, 150] | — | TC0 | disjoint |",
        "| permutation | S_5 | acot | 4 | dense_ssm | 4 | [2.03, 7.86] | none | 112 "
        "| (56, 112] | 448 | NC1-complete | disjoint |",
    ]
    # A search that never probed says so, in the words the command line prints.
    assert ("| modadd | cot_L3 | gpt2 | not probed | (0, ∞) | 1,000,000 | probe limit reached "
            "| disjoint |" in md)
    assert "![kappa_modadd_Z_5](kappa_modadd_Z_5.png)" in md
    # an empty results folder (its protocol recorded, no search yet) gives an empty
    # leaderboard, not an error
    ResultsFolder(tmp_path / "empty").check_protocol({"train": {"max_steps": 10}})
    written = write_leaderboard(tmp_path / "empty", tmp_path / "out2",
                                cache_dir=str(tmp_path / "cache"))
    assert [p.name for p in written] == ["leaderboard.md"]
    assert "(no κ rows)" in written[0].read_text()


def test_one_board_over_two_folders_names_each_rows_source(tmp_path, capsys):
    from hf_induction.commands.leaderboard import main

    first, second = write_results(tmp_path / "first").path, write_results(tmp_path / "second").path
    # The second folder holds one search more than the first.
    ResultsFolder(second).append(nstar_row("modadd", "acot_L9", "lstm", 7))
    assert main([str(second), str(first), "--out", str(tmp_path / "out")]) == 0
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert f"Results: `{second}`, `{first}`" in md
    single = ("| modadd | Z_5 | acot | 4 | lstm | 4 | [2.05, 7.74] | none | 60 | (30, 60] | 240 "
              "| TC0 | disjoint |")
    kappa = _kappa_lines(md)
    # Every κ of both folders, ties in the order the folders were given.
    assert len(kappa) == 2 * len(NSTARS)
    assert kappa[:2] == [f"{single} {second} |", f"{single} {first} |"]
    nstar = [line for line in md.split("## N* per search")[1].split("##")[0].splitlines()
             if line.startswith("| modadd") or line.startswith("| permutation")]
    searches = len(NSTARS) * L  # N*_n for n = 2..L and N*_joint, per κ
    assert len(nstar) == 2 * searches + 1
    assert [line for line in nstar if "acot_L9" in line] == [
        f"| modadd | acot_L9 | lstm | 7 | (3, 7] | 1,000,000 | bracket closed | disjoint "
        f"| {second} |"]
    # The figures are over both folders' entries: the same tasks, so the same files.
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == [
        "kappa_modadd_Z_5.png", "kappa_permutation_S_5.png", "nstar_vs_length_modadd_Z_5.png",
        "nstar_vs_length_permutation_S_5.png"]
    assert capsys.readouterr().out.splitlines()[0] == str(tmp_path / "out" / "leaderboard.md")
    # One source alone: no column naming it.
    write_leaderboard(first, tmp_path / "one")
    assert _kappa_lines((tmp_path / "one" / "leaderboard.md").read_text())[0] == single


def test_each_row_names_the_validation_rule_of_its_folder(tmp_path):
    """A κ or N* of one validation rule is no measure of the other's: each row of both
    tables names the rule its folder's protocol records (off the default, disjoint)."""
    from hf_induction.hub.leaderboard import BOARD_TABLES, SourceResults

    disjoint = write_results(tmp_path / "disjoint").path
    within = write_results(tmp_path / "within", validation="in-distribution").path
    results = [SourceResults.load(within), SourceResults.load(disjoint)]
    for table in BOARD_TABLES[:2]:
        names, lines = table.merged(results)
        assert names[-2:] == ("validation", "results")
        rules = {(line["results"], line["validation"]) for line in lines}
        assert rules == {(str(within), "in-distribution"), (str(disjoint), "disjoint")}
        # The Space's tab shows the same column, which its filter reads.
        names, lines = table.space(results)
        assert [line["validation"] for line in lines] == [
            line["validation"] for line in table.merged(results)[1]]


def reach_row(model, factor, final, scored=True):
    from hf_induction.results import ReachRow

    return ReachRow(key=f"reach-{model}-{factor}", dataset="modadd", config="acot_L4",
                    model=model, model_config_hash="h", n=512, lr=0.01, seed=10, steps=100,
                    val_loss=1e-5, length=4 * factor, factor=factor,
                    rows=500 if scored else 0, scored=scored, chance=0.2,
                    state_accuracy=None, final_state_accuracy=None,
                    normalised_state_accuracy=final if scored else None,
                    normalised_final_state_accuracy=final if scored else None,
                    protocol_hash="p", finished_at="")


def test_the_reach_table_says_how_far_each_check_carries_and_draws_it(tmp_path):
    folder = write_results(tmp_path / "results")
    for factor, lstm, gpt2 in ((2, 1.0, 0.95), (4, 1.0, 0.5), (10, 0.97, None),
                               (100, 0.91, None), (1000, 0.4, None)):
        folder.append(reach_row("lstm", factor, lstm))
        folder.append(reach_row("gpt2", factor, gpt2, scored=gpt2 is not None))
    written = write_leaderboard(tmp_path / "results", tmp_path / "out")
    assert "reach_modadd_Z_5.png" in [p.name for p in written]
    png = tmp_path / "out" / "reach_modadd_Z_5.png"
    assert png.read_bytes()[:8] == PNG and png.stat().st_size > 5000
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    section = md.split("## How far it carries")[1].split("##")[0]
    lines = [line for line in section.splitlines() if line.startswith("| modadd")]
    assert lines == [
        "| modadd | acot_L4 | gpt2 | 512 | 0.950 | 0.500 | beyond | beyond | beyond | 8 (2L) |",
        "| modadd | acot_L4 | lstm | 512 | 1.000 | 1.000 | 0.970 | 0.910 | 0.400 "
        "| 400 (100L) |"]


def test_the_board_ranks_out_of_distribution_checks_within_each_cell(tmp_path):
    from hf_induction.results import OodRow

    folder = write_results(tmp_path / "results")

    def ood(config, model, final, key=None):
        # Chance at |G| = 5 is 1/5: normalised = (accuracy - 1/5) / (4/5), computed here.
        return OodRow(key=key or f"ood-{config}-{model}", dataset="modadd", config=config,
                      model=model, model_config_hash="h", n=64, lr=1e-3, seed=10, steps=100,
                      val_loss=None, test_length=10, state_accuracy=0.9,
                      final_state_accuracy=final, normalised_state_accuracy=0.875,
                      normalised_final_state_accuracy=(final - 0.2) / 0.8, protocol_hash="p0",
                      finished_at="t")

    for row in (ood("acot_L5", "gpt2", 0.2), ood("acot_L5", "lstm", 1.0),
                ood("acot_L5", "mamba", 0.6), ood("cot_L5", "gpt2", 0.4),
                # a rerun of a check: the last row of its key is the one shown
                ood("acot_L5", "mamba", 0.28, key="ood-acot_L5-mamba")):
        folder.append(row)
    written = write_leaderboard(folder.path, tmp_path / "out")
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    lines = [line for line in md.split("## Out of distribution")[1].split("##")[0].splitlines()
             if line.startswith("| modadd")]
    assert lines == [
        "| modadd | acot_L5 | lstm | 64 | 10 | 1.000 | 0.875 |",
        "| modadd | acot_L5 | mamba | 64 | 10 | 0.100 | 0.875 |",
        "| modadd | acot_L5 | gpt2 | 64 | 10 | 0.000 | 0.875 |",
        "| modadd | cot_L5 | gpt2 | 64 | 10 | 0.250 | 0.875 |",
    ]
    figure = tmp_path / "out" / "ood_final_state.png"
    assert figure in written and figure.read_bytes()[:8] == PNG
    assert "![ood_final_state](ood_final_state.png)" in md
    # A folder without out-of-distribution checks has neither the table nor the figure.
    write_leaderboard(write_results(tmp_path / "plain").path, tmp_path / "plain_out")
    assert "## Out of distribution" not in (tmp_path / "plain_out" / "leaderboard.md").read_text()
    assert not (tmp_path / "plain_out" / "ood_final_state.png").exists()


def test_chance_levels_are_what_uniform_guessing_scores():
    import numpy as np

    from hf_induction.tasks import generate, parse
    from hf_induction.tasks.chance import chance_level, split_sizes

    rng = np.random.default_rng(0)
    for dataset, config, split in [("modadd", "acot_L3", "test"),
                                   ("permutation", "outcome_L3_S3", "test"),
                                   ("retrieval", "NRLast_L5_V4", "test_long"),
                                   ("copy", "NF_L4_uniform_V4", "validation"),
                                   ("copy", "UB_L2_V6", "test")]:
        cell = parse(dataset, config)
        ex = generate(cell, split, None, seed=0)
        lengths, counts = np.unique(ex.lengths, return_counts=True)
        assert split_sizes(cell, split) == dict(zip(lengths, counts, strict=True))
        # Guessing: every output a uniform symbol of the alphabet; the mean over many guesses,
        # within 4 standard errors (an exact match's chance weighs each length by its count:
        # unweighted, the copy cells' would lie 7 standard errors off).
        guesses = [cell.metrics(rng.integers(0, cell.alphabet_size, ex.labels.shape), ex.labels)
                   for _ in range(200)]
        for metric in guesses[0]:
            scores = np.array([g[metric] for g in guesses])
            chance = chance_level(cell, metric, split_sizes(cell, split))
            error = scores.std() / np.sqrt(len(scores))
            assert abs(scores.mean() - chance) <= 4 * error, (config, metric, scores.mean(), chance)


def test_the_length_generalisation_table_shows_the_run_and_chance():
    import json

    from hf_induction.results import LengthGenRow
    from hf_induction.results.render import LENGTHGEN_TABLE_COLUMNS, lengthgen_table_lines

    scores = {"validation": {"lengths": "2..4", "accuracy": 0.9},
              "test": {"lengths": "5..8", "accuracy": 0.5}}
    row = LengthGenRow(key="k", dataset="retrieval", config="UR_L4_uniform_V4", model="lstm",
                       model_config_hash="h", n=1500, lr=3e-3, seed=20, steps=100,
                       val_loss=0.0123, results=json.dumps(scores), protocol_hash="p",
                       finished_at="2026-01-01T00:00:00+00:00")
    (line,) = lengthgen_table_lines([row])
    assert tuple(line) == LENGTHGEN_TABLE_COLUMNS.names
    assert line == {
        "dataset": "retrieval", "config": "UR_L4_uniform_V4", "model": "lstm", "C-RASP[pos]": "yes",
        "N": "1,500", "lr": "0.003", "seed": "20", "val loss": "0.0123",
        "validation": "2..4: accuracy 0.900 (chance 0.25)",
        "test": "5..8: accuracy 0.500 (chance 0.25)", "test_long": ""}


@pytest.mark.slow
def test_leaderboard_script_reads_a_hub_dataset(hub_server, tmp_path):
    write_results(tmp_path / "results")
    run_client(hub_server, f"""
from hf_induction.hub import push_results
push_results({str(tmp_path / "results")!r}, "org/results", create=True)
""")
    # A Hub dataset and a local folder in one board.
    proc = hub_server.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"), "org/results",
                           str(tmp_path / "results"), "--out", str(tmp_path / "out")], timeout=180)
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert f"Results: `org/results`, `{tmp_path / 'results'}`" in md
    single = ("| modadd | Z_5 | acot | 4 | lstm | 4 | [2.05, 7.74] | none | 60 | (30, 60] | 240 "
              "| TC0 | disjoint |")
    assert len(_kappa_lines(md)) == 10 and _kappa_lines(md)[:2] == [
        f"{single} [org/results](https://huggingface.co/datasets/org/results) |",
        f"{single} {tmp_path / 'results'} |"]
    assert len(list((tmp_path / "out").glob("*.png"))) == 4
    missing = hub_server.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"),
                              str(tmp_path / "results"), "org/absent", "--out",
                              str(tmp_path / "out3")], timeout=180)
    assert missing.returncode == 1
    assert missing.stderr.strip().splitlines() == [
        "hf-induction leaderboard: error: cannot read the Hub dataset org/absent: no such "
        "dataset repo (or the token cannot see it)"]


def test_no_hub_module_imports_one_that_imports_it_back():
    import ast

    hub = ROOT / "hf_induction" / "hub"
    imports = {}
    for path in hub.glob("*.py"):
        # Every import, lazy ones inside functions too: a circle is a circle either way.
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module} if node.module else {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "hf_induction.hub."):
                found.add(node.module.split(".")[2])
        imports[path.stem] = found - {"__init__"}

    def reaches(start, seen=()):
        return {m for n in imports.get(start, ()) if n not in seen
                for m in {n} | reaches(n, (*seen, n))}

    assert imports["leaderboard"] >= {"entries", "plots"} and "entries" in imports["plots"]
    assert [m for m in imports if m in reaches(m)] == []
