"""The site reads as pages a reader finishes: each in the navigation, none over 30 KB, and
every page the doc tests read commands from is one of them."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.docs.test_doc_commands import PAGES

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MAX_PAGE_BYTES = 30 * 1024
# `hf-induction report` and `hf-induction leaderboard` write these pages from a results
# folder's rows: their length follows the folder, and a hand edit would be overwritten.
GENERATED = "results/"


def _site_pages() -> set[str]:
    return {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}


def _nav_pages(entries) -> list[str]:
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _nav() -> list[str]:
    loader = type("Loader", (yaml.SafeLoader,), {})
    # mkdocs.yml names a Python function (the heading anchors' slugify); its name is enough.
    loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=loader)
    return _nav_pages(config["nav"])


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    nav = _nav()
    assert len(nav) == len(set(nav)), "a page is in mkdocs.yml's nav twice"
    missing, stale = _site_pages() - set(nav), set(nav) - _site_pages()
    assert not missing, f"pages not in mkdocs.yml's nav: {sorted(missing)}; add each one"
    assert not stale, f"nav entries with no page under docs/: {sorted(stale)}"


def test_no_written_page_is_over_30_kb():
    over = {page: (DOCS / page).stat().st_size for page in _site_pages()
            if not page.startswith(GENERATED)
            and (DOCS / page).stat().st_size > MAX_PAGE_BYTES}
    assert not over, (f"pages over {MAX_PAGE_BYTES} bytes: {over}; split each into pages of "
                      f"one study or one subject")


def test_the_doc_tests_read_every_page():
    read = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert "README.md" in read
    assert {f"docs/{page}" for page in _site_pages()} <= read
