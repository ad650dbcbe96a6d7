"""MkDocs hook: the home page is the README, and links to the repository's own files work.

The pages are read on GitHub as well as on the site, so they link a results folder or a sweep
file by its relative path (``../results/cpu``), and the README's links start at the
repository root (``docs/search.md``). On the site such links would point nowhere. This hook
includes a file named on a line ``--8<-- "FILE"`` (path from the repository root), resolves
every relative link from the file its text was written in, keeps the links that land in
``docs/`` (as links between pages), and turns the others into links to the repository
(``repo_url``) or, without one, into the path they name. A link to a path that does not exist
is a warning, which fails ``mkdocs build --strict`` as a broken link between pages does.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INCLUDE = re.compile(r'^--8<-- "([^"]+)"$', re.MULTILINE)
# [text](target) and ![alt](target); a target with a scheme, an anchor alone or an absolute
# path is left as it is.
LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#|/)")

log = logging.getLogger("mkdocs.hooks.links")


def _relink(text: str, base: Path, page_dir: Path, docs: Path, repo_url: str | None,
            where: str) -> str:
    """``text`` with each relative link resolved from ``base`` and rewritten for a page in
    ``page_dir``."""
    def replace(match: re.Match) -> str:
        bang, label, target = match.groups()
        if EXTERNAL.match(target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = (base / path).resolve()
        if not resolved.exists():
            log.warning("%s: the link %r names %s, which does not exist", where, target,
                        resolved)
            return match.group(0)
        anchor = f"#{anchor}" if anchor else ""
        if resolved.is_relative_to(docs):
            relative = posixpath.relpath(resolved.as_posix(), page_dir.as_posix())
            return f"{bang}[{label}]({relative}{anchor})"
        in_repo = resolved.relative_to(ROOT).as_posix()
        if repo_url:
            return f"{bang}[{label}]({repo_url.rstrip('/')}/tree/main/{in_repo}{anchor})"
        return label if in_repo.rstrip("/") in label else f"{label} (`{in_repo}`)"

    return LINK.sub(replace, text)


def on_page_markdown(markdown: str, page, config, files) -> str:
    docs = Path(config["docs_dir"]).resolve()
    page_dir = (docs / page.file.src_uri).parent
    repo_url = config.get("repo_url")
    pieces = INCLUDE.split(markdown)
    # split() alternates: page text, an included file's name, page text, ...
    out = []
    for k, piece in enumerate(pieces):
        if k % 2:
            included = ROOT / piece
            out.append(_relink(included.read_text(encoding="utf-8"), included.parent, page_dir,
                               docs, repo_url, piece))
        else:
            out.append(_relink(piece, page_dir, page_dir, docs, repo_url, page.file.src_uri))
    return "".join(out)
