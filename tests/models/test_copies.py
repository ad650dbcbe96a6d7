"""Code marked ``# Copied from MODULE.OBJECT[ with A->B]`` stays equal to its source, as
transformers checks its copies; a method marked with a class is a copy of that class's method
of the same name (a mark too long for a line may end in ``# noqa: E501``). A checkpoint's
remote code must be self-contained (each model folder is saved with its code), so the
recurrent models' causal-LM heads are copies, not a shared module."""

import importlib
import inspect
import re
import textwrap
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "hf_induction" / "models"
MARK = re.compile(
    r"^(?P<indent>\s*)# Copied from (?P<target>[\w.]+)(?: with (?P<a>\w+)->(?P<b>\w+))?"
    r"(?:  # noqa: E501)?$")


def resolve(dotted: str):
    """The object a dotted path names: the longest importable module, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def marked_copies() -> list[tuple[str, int, str, str]]:
    """(file, line, the copy's text, the source's text with the replacement made) for each mark."""
    copies = []
    for path in sorted(MODELS.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if not (mark := MARK.match(line)):
                continue
            indent = len(mark["indent"])
            # The copy: the decorators and definition below the mark, to the next line as
            # little indented that is not a continuation of it.
            end = i + 1
            while lines[end].lstrip().startswith("@"):
                end += 1
            end += 1
            while end < len(lines) and (not lines[end].strip() or
                                        len(lines[end]) - len(lines[end].lstrip()) > indent
                                        or lines[end].lstrip().startswith(")")):
                end += 1
            copy = textwrap.dedent("\n".join(lines[i + 1:end])).rstrip()
            target = resolve(mark["target"])
            if inspect.isclass(target) and (method := re.search(r"def (\w+)", copy)):
                target = inspect.getattr_static(target, method[1])
                target = getattr(target, "__func__", target)
            source = textwrap.dedent(inspect.getsource(target)).rstrip()
            if mark["a"]:
                source = source.replace(mark["a"], mark["b"])
            copies.append((path.relative_to(MODELS).as_posix(), i + 1, copy, source))
    return copies


COPIES = marked_copies()


def test_the_recurrent_heads_are_marked_copies():
    marked = {(path, re.search(r"def (\w+)", copy)[1]) for path, _, copy, _ in COPIES}
    assert {("dense_ssm/modeling_dense_ssm.py", name) for name in (
        "forward", "prepare_inputs_for_generation", "_supports_default_dynamic_cache",
        "get_output_embeddings", "set_output_embeddings")} <= marked


@pytest.mark.parametrize("path, line, copy, source", COPIES,
                         ids=[f"{path}:{line}" for path, line, _, _ in COPIES])
def test_a_copy_equals_its_source(path, line, copy, source):
    assert copy == source, f"{path}:{line} has drifted from its source"
