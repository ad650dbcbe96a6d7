"""The tests mirror the package: each folder of tests is named for the room it tests, the slow
files that xdist starts first are files that exist, and the `slow` marker is registered."""

from pathlib import Path

from tests.conftest import SLOW_FILES

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "hf_induction"
# Folders that test the product as a whole or hold the tests' own tools, not one room.
NOT_A_ROOM = {"package", "docs", "hub_standin"}


def test_every_folder_of_tests_is_named_for_a_room_of_the_package():
    folders = {p.parent.name for p in (ROOT / "tests").glob("*/test_*.py")}
    rooms = {p.name for p in PACKAGE.iterdir() if p.is_dir()}
    rooms |= {p.stem for p in PACKAGE.glob("*.py")}
    assert sorted(folders - NOT_A_ROOM - rooms) == []


def test_the_slow_files_run_first_are_files_that_exist():
    assert [f for f in SLOW_FILES if not (ROOT / f).is_file()] == []


def test_the_slow_marker_is_registered(pytestconfig):
    assert any(line.startswith("slow:") for line in pytestconfig.getini("markers"))
