"""Reading a YAML file a researcher wrote (a sweep, a recipe, a groups file), with errors in
one line that say where."""

from __future__ import annotations

from pathlib import Path

import yaml


def read_yaml(path: str | Path, expected: str, max_bytes: tuple[int, str] | None = None):
    """The YAML document in ``path``, or ValueError in one line naming the file and, for bad
    YAML, the line and column (from 1) where the parser stopped, what it found there, and
    ``expected``: what the file should hold. The sweep file and the recipe (``--config-file``)
    are both read here. ``max_bytes`` (bound, why) refuses a larger file before it is parsed:
    the reader takes about a minute for 8 MB of numbers."""
    try:
        if max_bytes is not None and (size := Path(path).stat().st_size) > max_bytes[0]:
            raise ValueError(f"{path}: {size} bytes, more than {max_bytes[0]} ({max_bytes[1]})")
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else str(e).splitlines()[0]
        raise ValueError(f"cannot read {path}: {why}") from None
    try:
        return yaml.safe_load(text)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"{path}, line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        what = e.problem or "not YAML"
        if e.context and e.context_mark is not None:
            what += f" ({e.context} from line {e.context_mark.line + 1})"
        raise ValueError(f"{where}: {what}; expected {expected}") from None
    except yaml.YAMLError as e:
        raise ValueError(f"{path}: {str(e).splitlines()[0]}; expected {expected}") from None
