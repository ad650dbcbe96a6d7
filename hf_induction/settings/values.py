"""The value types of the settings: each reads one value as written on a command line (or in a
recipe) and refuses, in one line naming the value and the bound, what cannot be held.

They are argparse types (they raise `argparse.ArgumentTypeError`), and torch-free."""

from __future__ import annotations

import argparse
import math
import os
import uuid
from pathlib import Path

from ..errors import first_line
from ..tasks.limits import MAX_INT64, MAX_ROWS, ROWS_WHY

INT64 = "the results tables hold int64"
# A flag's way of saying "none" where a preset sets a value (--max-grad-norm off).
OFF = "off"


def ascii_only(text: str) -> str:
    """``text`` if it is ASCII, else ValueError: int() and float() read a full-width or
    Arabic-Indic digit as its ASCII one, and a number or name must be spelled as recorded."""
    text = str(text)
    if not text.isascii():
        raise ValueError(f"{text!r} is not ASCII")
    return text


def ascii_word(text: str) -> str:
    """An argparse type: ``text``, refused in one line if it is not ASCII (`ascii_only`)."""
    try:
        return ascii_only(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{e}; write it in ASCII") from None


def int_in(low: int, high: int, why: str):
    """An argparse type: an integer in low..high. The error names the value and the bound, and,
    above ``high``, ``why`` (what the bound follows from)."""
    def check(text: str) -> int:
        try:
            value = int(ascii_only(text))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected an integer in {low}..{high}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        if value > high:
            raise argparse.ArgumentTypeError(f"{value} exceeds {high} ({why})")
        return value

    check.__name__ = f"integer in {low}..{high}"
    return check


def ints_in(low: int, high: int, why: str):
    """An argparse type: comma-separated integers, each in low..high (as `int_in`)."""
    one = int_in(low, high, why)

    def check(text: str) -> tuple[int, ...]:
        return tuple(one(x.strip()) for x in text.split(","))

    check.__name__ = f"comma-separated integers in {low}..{high}"
    return check


def distinct(parse):
    """An argparse type: ``parse``'s comma-separated values, refused if one comes twice (each
    value of a grid is one run; a repeat is a typing slip, not a second run)."""
    def check(text: str) -> tuple:
        values = parse(text)
        twice = list(dict.fromkeys(v for v in values if values.count(v) > 1))
        if twice:
            raise argparse.ArgumentTypeError(
                f"{text!r} gives {', '.join(f'{v:g}' for v in twice)} more than once")
        return values

    check.__name__ = parse.__name__
    return check


nonnegative_int = int_in(0, MAX_INT64, INT64)
# A size asked of a split (rows to train on, a batch): 0 is no size.
rows = int_in(1, MAX_ROWS, f"a split holds at most this many rows: {ROWS_WHY}")


def _finite_number(text: str, zero_allowed: bool) -> float:
    bound = ">= 0" if zero_allowed else "> 0"
    try:
        value = float(ascii_only(text))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number {bound}, got {text!r}") from None
    if not (math.isfinite(value) and (value >= 0 if zero_allowed else value > 0)):
        raise argparse.ArgumentTypeError(f"expected a finite number {bound}, got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    return _finite_number(text, zero_allowed=True)


def positive_finite(text: str) -> float:
    return _finite_number(text, zero_allowed=False)


def positive_floats(text: str) -> tuple[float, ...]:
    """Comma-separated finite numbers > 0 (1e-3,1e-4)."""
    try:
        return tuple(positive_finite(x) for x in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated finite numbers > 0 such as 1e-3,1e-4, got {text!r}"
        ) from None


def switch(text: str) -> bool:
    """on/off (true/false, as a recipe's YAML booleans arrive)."""
    value = str(text).strip().lower()
    if value in ("on", "true", "yes", "1"):
        return True
    if value in ("off", "false", "no", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected on or off, got {text!r}")


def fraction(text: str) -> float:
    """A fraction of the steps, in [0, 1)."""
    value = nonnegative_float(text)
    if value >= 1:
        raise argparse.ArgumentTypeError(
            f"expected a fraction of the steps in [0, 1), got {text!r}")
    return value


def positive_or_off(text: str) -> float | str:
    """A finite number > 0, or `OFF` (also spelled none)."""
    return OFF if str(text).strip().lower() in (OFF, "none") else positive_finite(text)


def output_folder(text: str) -> Path:
    """A folder to write into, checked by really writing: the missing folders are made, a probe
    file is written and removed, and the folders this check made are removed again, so that a
    folder that cannot be created or written is one line before anything is computed (a
    permission bit says nothing of /proc or a read-only mount), and a later usage error leaves
    nothing behind."""
    if not str(text).strip():
        # Path("") is the current folder: a results folder written where the command was run.
        raise argparse.ArgumentTypeError("expected a folder, got an empty name")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a file, not a folder")
    # Two processes of one launch check the same new folder at once: one may remove a folder
    # the other has just written its probe into. A probe that finds its folder gone retries.
    for _ in range(3):
        try:
            _write_probe(path)
            return path
        except FileNotFoundError as e:
            error: OSError = e
        except OSError as e:
            error = e
            break
    where = f" ({error.filename})" if error.filename and error.filename != str(path) else ""
    raise argparse.ArgumentTypeError(
        f"{path}: cannot write there ({error.strerror or first_line(error)}{where})")


def _write_probe(path: Path) -> None:
    """Create ``path`` (and its missing parents), write and remove a probe file in it, and
    remove the folders made here; OSError if any step fails."""
    missing = []
    folder = path
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    made = []
    try:
        for folder in reversed(missing):
            folder.mkdir(exist_ok=True)
            made.append(folder)
        probe = path / f".write-probe-{os.getpid()}-{uuid.uuid4().hex}"
        probe.write_bytes(b"")
        probe.unlink()
    finally:
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                # Another process has written into it since: it is theirs now.
                pass


def repo_id(text: str) -> str:
    """A Hub repo id as `huggingface_hub` validates it (ORG/NAME)."""
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(text)
    except HFValidationError as e:
        first = str(e).strip().splitlines()[0]
        raise argparse.ArgumentTypeError(f"{text!r} is not a Hub repo id: {first}") from None
    if "/" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not a Hub repo id: expected ORG/NAME")
    return text
