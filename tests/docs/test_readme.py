"""The README is a front door of one page, and every page of the site is in its navigation."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GLOSSARY = ("cell", "family", "config", "probe", "search", "campaign", "κ")
MAX_BYTES = 8 * 1024


def test_the_readme_is_one_page():
    assert len(README.read_bytes()) <= MAX_BYTES, "README.md over 8 KB: move the detail to docs/"


def test_the_readme_defines_each_word_of_the_glossary():
    text = README.read_text(encoding="utf-8")
    glossary = text.split("## Glossary", 1)[1].split("\n## ", 1)[0]
    defined = set(re.findall(r"^\| ([^|]+?) \|", glossary, re.MULTILINE)) - {"word"}
    assert defined == set(GLOSSARY)


def _nav_pages(entries) -> list[str]:
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_navigation_and_every_entry_is_a_page():
    loader = type("Loader", (yaml.SafeLoader,), {})
    # mkdocs.yml names a Python function (the heading anchors' slugify); its name is enough.
    loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda *_: None)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=loader)
    nav = _nav_pages(config["nav"])
    docs = ROOT / "docs"
    pages = {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
             if not p.relative_to(docs).as_posix().startswith("results/")}
    assert sorted(nav) == sorted(pages)
