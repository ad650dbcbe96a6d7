"""The README is a front door of one page (the site's pages: test_site)."""

from __future__ import annotations

import re
from pathlib import Path

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

