"""The Space shows what the board shows: built on the published folders (results/*) as it is
deployed, each table of ``leaderboard.md`` (κ, N*, out of distribution, length
generalisation, attention heads) is a tab in headless Chromium, holding as many rows as the
board's section, the first of them cell for cell, with the board's spelling of every number.

Needs gradio, playwright (the Python package; no `playwright install`) and Debian's chromium.
"""

from pathlib import Path

import pytest
from _space_app import CHROMIUM, CHROMIUM_ARGS, running_app, screenshot

from hf_induction.hub.leaderboard import BOARD_TABLES, write_leaderboard
from hf_induction.results.protocol import is_results_folder

pytest.importorskip("gradio")
sync_api = pytest.importorskip("playwright.sync_api")
# End to end: the Space in a browser (Chromium).
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH")]

ROOT = Path(__file__).resolve().parents[2]
# As one names them from the checkout: the board's and the Space's source column both say so.
FOLDERS = sorted(f"results/{p.name}" for p in (ROOT / "results").iterdir()
                 if is_results_folder(p))
# The rows a grid renders at first (it draws more as one scrolls): those compared cell by cell.
FIRST_ROWS = 5


def board_sections(md: str) -> dict[str, tuple[list[str], list[list[str]]]]:
    """heading -> (columns, rows) of each table of ``leaderboard.md``."""
    sections, heading = {}, None
    for line in md.splitlines():
        if line.startswith("## "):
            heading = line[3:]
        elif line.startswith("| ") and heading is not None:
            cells = [c.strip() for c in line.strip()[2:-2].split(" | ")]
            columns, rows = sections.setdefault(heading, ([], []))
            (rows if columns else columns).extend([cells] if columns else cells)
    return sections


def shown_table(page, key: str) -> tuple[int, list[str], list[list[str]]]:
    """(rows in all, column headers, the rows rendered) of the Space's table ``key``."""
    grid = f"#{key}-table [role=grid]"
    count = int(page.get_attribute(grid, "aria-rowcount")) - 1  # less the header
    headers = page.eval_on_selector_all(f"#{key}-table [role=columnheader]",
                                        "hs => hs.map(h => h.innerText.trim())")
    rows = page.eval_on_selector_all(
        f"#{key}-table [role=row]",
        "rows => rows.slice(1).map(r => [...r.querySelectorAll('[role=gridcell]')]"
        ".map(c => c.innerText.trim()))")
    return count, headers, [r for r in rows if r]


def test_each_board_table_is_a_tab_with_the_boards_rows(tmp_path, monkeypatch):
    from hf_induction.hub.space import write_space

    assert len(FOLDERS) > 10, FOLDERS
    monkeypatch.chdir(ROOT)
    md = write_leaderboard(FOLDERS, tmp_path / "board")[0].read_text(encoding="utf-8")
    sections = board_sections(md)
    # The published folders have rows in every table: each tab below is compared to rows.
    assert all(t.heading in sections for t in BOARD_TABLES), sorted(sections)
    space = write_space(FOLDERS, tmp_path / "space")
    with (running_app(space, tmp_path, start_s=180) as url, sync_api.sync_playwright() as p):
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.goto(url, wait_until="domcontentloaded")
            for table in BOARD_TABLES:
                page.get_by_role("tab", name=table.title, exact=True).click()
                page.wait_for_selector(f"#{table.key}-table [role=grid]", timeout=30_000)
                page.wait_for_function(
                    f"document.querySelectorAll('#{table.key}-table [role=row]').length > 1",
                    timeout=30_000)
                columns, rows = sections[table.heading]
                count, headers, shown = shown_table(page, table.key)
                assert count == len(rows), (table.key, count, len(rows))
                # The board's columns, in its order, each cell as the board spells it.
                assert [h for h in headers if h in columns] == columns, (table.key, headers)
                assert len(shown) >= min(FIRST_ROWS, len(rows)), (table.key, shown)
                for board_row, shown_row in zip(rows[:FIRST_ROWS], shown, strict=False):
                    cells = dict(zip(headers, shown_row, strict=True))
                    assert [cells[c] for c in columns] == board_row, (table.key, cells)
                screenshot(page, tmp_path, f"space_published_{table.key}.png")
        finally:
            browser.close()
