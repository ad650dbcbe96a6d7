"""The leaderboard from a local results folder and from a Hub dataset: markdown and PNG figures."""

import sys
from pathlib import Path

from _hub_clients import run_client
from _results_fixture import write_results

from hf_induction.hub import leaderboard_entries, write_leaderboard
from hf_induction.results import ResultsFolder

ROOT = Path(__file__).resolve().parents[2]
PNG = b"\x89PNG\r\n\x1a\n"


def _kappa_lines(markdown: str) -> list[str]:
    section = markdown.split("## κ per model × format × task")[1].split("##")[0]
    return [line for line in section.splitlines() if line.startswith("| ")][1:]


def test_entries_are_sorted_with_sums():
    # no files needed: rows straight from the fixture writer's folder
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        entries = leaderboard_entries(write_results(Path(tmp)).read_kappa())
    keys = [(e.task, e.format, e.model, e.kappa, e.nstar_joint, e.nstar_sum) for e in entries]
    assert keys == [
        ("modadd", "acot", "lstm", 4.0, 60, 240),
        ("modadd", "acot", "gpt2", 0.5, 600, 300),
        ("modadd", "cot", "lstm", 2.0, 45, 90),
        ("modadd", "cot", "gpt2", None, 150, None),  # undefined κ sorts last
        ("permutation", "acot", "dense_ssm", 4.0, 112, 448),
    ]
    assert entries[0].group == "Z_5" and entries[-1].group == "S_5" and entries[0].max_len == 4


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
        "| modadd | Z_5 | acot | 4 | lstm | 4 | [2.05, 7.74] | none | 60 | (30, 60] | 240 |",
        "| modadd | Z_5 | acot | 4 | gpt2 | 0.5 | [0.255, 0.997] | none | 600 | (300, 600] | 300 |",
        "| modadd | Z_5 | cot | 4 | lstm | 2 | [1.07, 3.91] | none | 45 | (22, 45] | 90 |",
        "| modadd | Z_5 | cot | 4 | gpt2 | ≥ 0.687 (lower bound) | [0.687, ∞] | n=3 | 150 "
        "| (75, 150] | — |",
        "| permutation | S_5 | acot | 4 | dense_ssm | 4 | [2.03, 7.86] | none | 112 "
        "| (56, 112] | 448 |",
    ]
    assert "| modadd | cot_L3 | gpt2 | — | — | 1,000,000 | no |" in md
    assert "![kappa_modadd_Z_5](kappa_modadd_Z_5.png)" in md
    # an empty results folder gives an empty leaderboard, not an error
    ResultsFolder(tmp_path / "empty")
    written = write_leaderboard(tmp_path / "empty", tmp_path / "out2",
                                cache_dir=str(tmp_path / "cache"))
    assert [p.name for p in written] == ["leaderboard.md"]
    assert "(no κ rows)" in written[0].read_text()


def test_leaderboard_script_reads_a_hub_dataset(hub_server, tmp_path):
    write_results(tmp_path / "results")
    run_client(hub_server, f"""
from hf_induction.hub import push_results
push_results({str(tmp_path / "results")!r}, "org/results", create=True)
""")
    proc = hub_server.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"), "org/results",
                           "--out", str(tmp_path / "out")], timeout=180)
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "out" / "leaderboard.md").read_text()
    assert "Results: `org/results`" in md and len(_kappa_lines(md)) == 5
    assert _kappa_lines(md)[0] == (
        "| modadd | Z_5 | acot | 4 | lstm | 4 | [2.05, 7.74] | none | 60 | (30, 60] | 240 |")
    assert len(list((tmp_path / "out").glob("*.png"))) == 4
    missing = hub_server.run([sys.executable, str(ROOT / "scripts" / "leaderboard.py"),
                              "org/absent", "--out", str(tmp_path / "out3")], timeout=180)
    assert missing.returncode == 1
    last = missing.stderr.strip().splitlines()[-1]
    assert last.startswith("leaderboard.py: error: cannot read results org/absent")
