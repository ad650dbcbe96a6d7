"""Every ```python block in the README and the documentation pages compiles, and runs as a
reader would run it (a fresh interpreter, the page's own working folder, the Hub offline),
unless its first line is a marker that says why not, in the shell blocks' convention
(`test_doc_commands`: ``# long: why``, ``# needs: what``).
A block whose lines end in a comment that spells a value (``expr   # 20``, ``# 'NC1-complete':
why``) is held to it: the comment is the page's promise of what the line gives."""

from __future__ import annotations

import ast
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.docs.test_doc_commands import PAGES, ROOT, SMALL, _marker
from tests.runner.helpers import env

# End to end: fresh interpreters that build models and datasets.
pytestmark = pytest.mark.slow

BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.MULTILINE | re.DOTALL)
# A line "expression   # value" or "# value: why": the value is a Python literal.
PROMISE = re.compile(r"^(?P<expr>[^#=]+?)\s{2,}#\s*(?P<value>[^:]+?)(:.*)?$")


def blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((page.relative_to(ROOT).as_posix(), line,
                          textwrap.dedent(match.group(2))))
    return found


BLOCKS = blocks()


def checked(source: str) -> str:
    """``source`` with every promised value asserted after its line."""
    lines = []
    for line in source.splitlines():
        lines.append(line)
        promise = PROMISE.match(line)
        if promise is None or line.startswith((" ", "\t")):
            continue
        try:
            value = ast.literal_eval(promise["value"].strip())
        except (ValueError, SyntaxError):
            continue  # a comment in words, not a value
        lines.append(f"assert ({promise['expr'].strip()}) == {value!r}, "
                     f"({promise['expr'].strip()!r}, {promise['expr'].strip()})")
    return "\n".join(lines) + "\n"


def reader_env(folder: Path) -> dict:
    # A datasets cache of its own: offline, a folder's cache can answer for another folder of
    # the same basename.
    return {**env(), "HF_DATASETS_CACHE": str(folder / "cache")}


def prepare(page: str, folder: Path) -> None:
    """What the page's shell commands before its blocks leave in the reader's folder: the
    tasks page's `build-datasets` folder, at a small size."""
    if page != "docs/tasks.md":
        return
    text = (ROOT / page).read_text()
    command = re.search(r"^hf-induction build-datasets .*?(?<!\\)\n", text,
                        re.MULTILINE | re.DOTALL).group(0)
    words = shlex.split(command.replace("\\\n", " "), comments=True)
    subprocess.run([sys.executable, "-m", "hf_induction", *words[1:],
                    *SMALL["build-datasets"]],
                   cwd=folder, env=reader_env(folder), check=True, capture_output=True,
                   timeout=300)


def test_every_block_was_found():
    assert len(BLOCKS) >= 5 and {page for page, _, _ in BLOCKS} >= {"docs/tasks.md",
                                                                     "docs/models.md"}


@pytest.mark.parametrize("page, line, source", BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_block_compiles_and_runs(page, line, source, tmp_path):
    compile(source, f"{page}:{line}", "exec")
    if _marker(source.splitlines()[0]) is not None:
        return
    prepare(page, tmp_path)
    script = tmp_path / "block.py"
    script.write_text(checked(source))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=reader_env(tmp_path),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{page}:{line}\n{done.stdout}\n{done.stderr[-3000:]}"
