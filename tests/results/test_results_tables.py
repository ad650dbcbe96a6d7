"""nstar and kappa rows: built from searches, found for resume, loaded by `load_dataset`."""

import datasets
import pytest

from hf_induction.results import (
    KAPPA_COLUMNS,
    NSTAR_COLUMNS,
    KappaRow,
    NstarRow,
    ResultsFolder,
    nstar_lines,
    nstar_text,
    run_key,
    write_table,
)
from hf_induction.search import ProbeOutcome, SearchSettings, refined_search

SETTINGS = SearchSettings(mode="refined", n_max=4096)


def _nstar_row(config, threshold, pool=1000):
    def probe(n):
        ok = n >= threshold
        return ProbeOutcome(n=n, success=ok, best_val_loss=1e-5 if ok else float("inf"),
                            steps=50, runs=({"lr": 1e-3, "seed": 10, "success": ok},),
                            wall_s=0.5)

    result = refined_search(probe, pool, SETTINGS)
    return NstarRow.from_search(
        result, SETTINGS, key=run_key(kind="search", config=config), dataset="modadd",
        config=config, model="lstm", model_config_hash="abc", epsilon=1e-4,
        protocol_hash="p0", git_commit="deadbeef", hardware="cpu",
    )


def test_nstar_row_from_a_search(tmp_path):
    row = _nstar_row("acot_L5", 40)
    assert row.largest_failing < 40 <= row.n_star and row.search_end == "bracket closed"
    assert row.wall_s == 0.5 * row.num_probes and row.search_mode == "refined"
    assert row.probe_outcomes()[0].n == 16
    folder = ResultsFolder(tmp_path)
    folder.append(row)
    # A rerun finds the finished search and skips it.
    assert ResultsFolder(tmp_path).find(NstarRow, row.key) == row
    assert ResultsFolder(tmp_path).find(NstarRow, "missing") is None
    assert folder.read(NstarRow) == [row]


def test_kappa_row(tmp_path):
    by_length = {n: _nstar_row(f"acot_L{n}", 10 * n) for n in (2, 3)}
    joint = _nstar_row("acot_L3_uniform", 40)
    row = KappaRow.build(key="k", by_length=by_length, joint=joint)
    assert row.lengths == (2, 3)
    assert row.kappa == pytest.approx(sum(r.n_star for r in by_length.values()) / joint.n_star)
    assert row.kappa_low <= 50 / 40 <= row.kappa_high
    unlearnable = {2: by_length[2], 3: _nstar_row("acot_L3", 10**6)}
    open_row = KappaRow.build(key="k2", by_length=unlearnable, joint=joint)
    assert open_row.kappa is None and open_row.kappa_high is None
    assert open_row.nstar_by_length == (by_length[2].n_star, None)
    folder = ResultsFolder(tmp_path)
    folder.append(row)
    folder.append(open_row)
    assert ResultsFolder(tmp_path).read(KappaRow) == [row, open_row]
    assert folder.find(KappaRow, "k2") == open_row


def test_load_dataset_reads_every_config(tmp_path):
    r0, r1 = ResultsFolder(tmp_path, rank=0), ResultsFolder(tmp_path, rank=1)
    # Rank 0's only row has nulls where rank 1's has ints: the card's types keep one schema.
    unlearnable = _nstar_row("acot_L3", 10**6)
    learnable = _nstar_row("acot_L2", 20)
    r0.append(unlearnable)
    r1.append(learnable)
    r0.append(KappaRow.build(key="k", by_length={2: learnable, 3: unlearnable},
                                   joint=learnable))
    r1.append(KappaRow.build(key="k1", by_length={2: learnable}, joint=learnable))
    r0.append_run("run0", {"n": 16, "success": False, "best_val_loss": 0.5})
    cache = str(tmp_path / "cache")

    nstar = datasets.load_dataset(str(tmp_path), "nstar", split="train", cache_dir=cache)
    assert nstar.num_rows == 2
    assert nstar.features["n_star"] == datasets.Value("int64")
    assert sorted(nstar["n_star"], key=lambda v: v or 0) == [None, learnable.n_star]
    kappa = datasets.load_dataset(str(tmp_path), "kappa", split="train", cache_dir=cache)
    assert kappa.num_rows == 2
    assert {r["key"]: r["kappa"] for r in kappa} == {"k": None, "k1": 1.0}
    assert datasets.Features({"x": kappa.features["nstar_by_length"]}) == datasets.Features(
        {"x": datasets.List(datasets.Value("int64"))}
    )
    journal = datasets.load_dataset(str(tmp_path), "journal", split="train", cache_dir=cache)
    assert journal[0]["key"] == "run0"
    assert not [p for p in tmp_path.rglob("*.tmp")]


def test_write_table_renders_markdown():
    rows = [_nstar_row("acot_L2", 20), _nstar_row("acot_L3", 10**6)]
    text = write_table(nstar_lines(rows), NSTAR_COLUMNS)
    lines = text.splitlines()
    assert len(lines) == 4 and lines[0].startswith("| dataset")
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]
    found, missing = (dict(zip(NSTAR_COLUMNS, c, strict=True)) for c in cells)
    # N* of a threshold-20 oracle is 20, inside the search's last bracket; one that never
    # succeeds failed at the whole pool of 1,000.
    assert found["N*"] == "20" and found["N* lies in"].endswith(", 20]")
    assert missing["N*"] == "> 1,000 (whole pool)" and missing["N* lies in"] == "(1,000, ∞)"
    assert lines[1].startswith("|---------|") and lines[1].endswith(":|")
    assert len({len(line) for line in lines}) == 1
    kappa = KappaRow.build(key="k", by_length={2: rows[0]}, joint=rows[0])
    assert "1" in write_table([kappa], KAPPA_COLUMNS)
    assert write_table([]) == ""
    assert write_table([], ["n_star"]).splitlines() == ["| n_star |", "|--------|"]


@pytest.mark.parametrize("n_star, failing, pool, cap, text", [
    (20, 18, 1000, 1000, "20"),
    (None, 65, 65, 65, "> 65 (whole pool)"),
    (None, 100, 1000, 100, "> 100 (largest size allowed)"),
    (None, 50, 1000, 100, "> 50 (search stopped)"),
    (None, None, 1000, 100, "not probed"),
])
def test_nstar_text_says_what_a_search_without_nstar_knows(n_star, failing, pool, cap, text):
    assert nstar_text(n_star, failing, float(pool), cap) == text


def test_load_dataset_reads_a_pool_beyond_int64(tmp_path):
    # S5 at length 10 (uniform over 2..10) has about 6.2e20 words, past int64's 9.2e18.
    folder = tmp_path / "big_pool"
    pool = sum(120**n for n in range(2, 11))
    ResultsFolder(folder).append(_nstar_row("acot_L10_uniform", 40, pool=pool))
    nstar = datasets.load_dataset(str(folder), "nstar", split="train",
                                  cache_dir=str(tmp_path / "cache"))
    assert nstar.features["pool_size"] == datasets.Value("float64")
    assert nstar[0]["pool_size"] == pytest.approx(float(pool))
    assert ResultsFolder(folder).read(NstarRow)[0].pool_size == pool  # exact in the JSON


def test_kappa_is_never_blank_and_names_its_bounds():
    from hf_induction.results import kappa_bounds_text, kappa_text, missing_nstar

    assert kappa_text(1.6333, 1.2, 2.5) == "1.63"
    assert kappa_text(None, 9.65, None) == "≥ 9.65 (lower bound)"
    assert kappa_text(None, 0.317, 0.37) == "between 0.317 and 0.37 (bounds)"
    assert kappa_text(None, 0.0, 3.0) == "≤ 3 (upper bound)"
    assert kappa_text(None, 0.0, None) == "unbounded (no N* found)"
    assert kappa_text(None, 1262.4, None) == "≥ 1,262 (lower bound)"
    assert kappa_bounds_text(0.317, None) == "[0.317, ∞]"
    assert missing_nstar([2, 3, 4], [None, 5, 7], None) == "n=2, joint"
    assert missing_nstar([2, 3], [4, 5], 3) == "none"
    assert missing_nstar([2, 3], [None, None], None) == "all"


def test_the_leaderboard_ranks_an_undefined_kappa_by_its_bound():
    from hf_induction.hub.entries import Entry, sort_key

    def entry(model, kappa, low, high):
        return Entry(dataset="modadd", group="Z_5", format="acot", max_len=4, model=model,
                     config="acot_L4_uniform", kappa=kappa, kappa_low=low, kappa_high=high,
                     nstar_joint=None, nstar_sum=None, lengths=(2, 3, 4),
                     nstar_by_length=(None, 1, 1))

    ranked = sorted([entry("a", 4.0, 3.0, 5.0), entry("b", None, 9.0, None),
                     entry("c", None, 0.0, None), entry("d", None, 0.5, 0.7)], key=sort_key)
    assert [e.model for e in ranked] == ["b", "a", "d", "c"]


def test_every_number_is_spelled_one_way():
    import math

    from hf_induction.results.render import MISSING, cell, number

    # Whole with separators from 1,000 on, float or int; below, three significant digits.
    assert number(1262.4) == number(1262) == number(1262.0) == "1,262"
    assert number(999.7) == "1,000"  # rounded up to 1,000: spelled as 1,000 is, not 1e+03
    assert (number(0.31749), number(9.654), number(5.0), number(1e-5)) == (
        "0.317", "9.65", "5", "1e-05")
    assert number(float(2**70)) == f"{2**70:,}"  # a pool beyond int64, exact
    assert number(None) == number(math.nan) == number(math.inf) == MISSING
    # The command line's cells: four significant digits, None and lists in the same words.
    assert (cell(0.98765), cell(12345.6), cell(None), cell([1500, None])) == (
        "0.9877", "12,346", MISSING, f"1,500 {MISSING}")
