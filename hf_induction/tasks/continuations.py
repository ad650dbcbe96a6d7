"""Which tokens of a text have one continuation in it, and where a copy of the text goes wrong.

The second study's natural scenario (arXiv 2505.21785) copies a paragraph and splits the copy's
errors by the token before them: one that has exactly one continuation in the text (every
occurrence is followed by the same token: *unambiguous*) or several (*ambiguous*). A head that
matches the previous token alone (an induction head) finds the right continuation only after an
unambiguous token, so the NF copying task predicts the errors after the ambiguous ones.

Position i of a text x_1..x_n is the output that writes x_i. Position 1 follows no token of the
text (`FIRST`); position i >= 2 follows x_{i-1}, whose continuations are
{x_{j+1} : x_j = x_{i-1}, j < n}: one makes it `UNAMBIGUOUS`, two or more `AMBIGUOUS`.

Two ways to count errors, one per way the copy is made:
  - teacher-forced (`teacher_forced_errors`): every output is read from the right prefix, so
    each wrong output is one error at its own position;
  - generated (`copy_errors`): the output is aligned to the text (a minimum edit-distance
    alignment), and each maximal run of edits (substitutions, tokens left out, tokens put in) is
    one error, counted at the position where the run starts: a slip that sends the copy to
    another occurrence of the token is one error, however long the detour. A run that starts
    after the last token (the copy goes on) is counted apart (`end`).
Both coincide on isolated substitutions. The rates divide each class's errors by its positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

FIRST, UNAMBIGUOUS, AMBIGUOUS = 0, 1, 2


def previous_continuations(text: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """``[B, N]``: at position i of each row's text (valid up to ``lengths``), how many distinct
    tokens follow x_{i-1} in that text; 0 at the first position and past the end."""
    text = np.asarray(text, dtype=np.int64)
    B, N = text.shape
    out = np.zeros((B, N), dtype=np.int64)
    if N < 2:
        return out
    A = int(text.max(initial=0)) + 1
    prev = np.arange(B)[:, None] * A + text[:, :-1]  # [B, N-1]: (row, x_{i-1})
    pair = np.arange(1, N)[None, :] < np.asarray(lengths)[:, None]  # [B, N-1]
    # The distinct (row, token, next token) pairs, then how many each (row, token) has.
    heads, counts = np.unique(np.unique(prev[pair] * A + text[:, 1:][pair]) // A,
                              return_counts=True)
    out[:, 1:][pair] = counts[np.searchsorted(heads, prev[pair])]
    return out


def position_classes(text: Sequence[int]) -> list[int]:
    """The class of each position of one text: `FIRST`, then `UNAMBIGUOUS` or `AMBIGUOUS`."""
    counts = previous_continuations(np.asarray([list(text)]), np.asarray([len(text)]))[0]
    return [FIRST if i == 0 else UNAMBIGUOUS if c == 1 else AMBIGUOUS
            for i, c in enumerate(counts.tolist())]


@dataclass(frozen=True)
class CopyErrors:
    """Errors of copies, by the class of the position each one starts at, and the positions of
    each class that the texts hold (what each class's errors are a share of)."""

    unambiguous_errors: int = 0
    ambiguous_errors: int = 0
    first_errors: int = 0
    end_errors: int = 0
    unambiguous_positions: int = 0
    ambiguous_positions: int = 0

    def __add__(self, other: CopyErrors) -> CopyErrors:
        return CopyErrors(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))

    def rates(self) -> dict[str, float]:
        """Errors per position of each class, and the ambiguous errors' share of the errors
        after a token of the text (NaN where a class has no positions or there is no error)."""
        split = self.unambiguous_errors + self.ambiguous_errors
        return {
            "unambiguous_error_rate": _ratio(self.unambiguous_errors, self.unambiguous_positions),
            "ambiguous_error_rate": _ratio(self.ambiguous_errors, self.ambiguous_positions),
            "ambiguous_error_share": _ratio(self.ambiguous_errors, split),
        }


def _ratio(a: int, b: int) -> float:
    return a / b if b else float("nan")


def _positions(classes: np.ndarray) -> dict[str, int]:
    return {"unambiguous_positions": int((classes == UNAMBIGUOUS).sum()),
            "ambiguous_positions": int((classes == AMBIGUOUS).sum())}


def _classes(counts: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Classes from `previous_continuations` counts; -1 past the end."""
    classes = np.where(counts == 1, UNAMBIGUOUS, AMBIGUOUS)
    classes[:, :1] = FIRST
    return np.where(valid, classes, -1)


def teacher_forced_errors(outputs: np.ndarray, text: np.ndarray,
                          lengths: np.ndarray) -> CopyErrors:
    """Errors of outputs read from the right prefix: ``outputs[b, i]`` is the output that should
    write ``text[b, i]`` (both ``[B, N]``, valid up to ``lengths``); each wrong one is an error
    at its own position."""
    text, lengths = np.asarray(text), np.asarray(lengths)
    valid = np.arange(text.shape[1])[None, :] < lengths[:, None]
    classes = _classes(previous_continuations(text, lengths), valid)
    wrong = valid & (np.asarray(outputs) != text)
    return CopyErrors(
        unambiguous_errors=int((wrong & (classes == UNAMBIGUOUS)).sum()),
        ambiguous_errors=int((wrong & (classes == AMBIGUOUS)).sum()),
        first_errors=int((wrong & (classes == FIRST)).sum()), **_positions(classes))


MATCH, SUBSTITUTE, DELETE, INSERT = "match", "substitute", "delete", "insert"


def align(gold: Sequence[int], output: Sequence[int]) -> list[tuple[str, int | None, int | None]]:
    """A minimum edit-distance alignment of ``output`` to ``gold``: ``(operation, gold index,
    output index)`` in order, with `DELETE` a gold token the output leaves out and `INSERT` an
    output token the gold lacks (index None on the side that has no token). Unit costs; where
    several alignments are minimal, the one found from the end taking a match or substitution
    first, then a deletion, then an insertion."""
    g, o = np.asarray(gold, dtype=np.int64), np.asarray(output, dtype=np.int64)
    n, m = len(g), len(o)
    steps = np.arange(m + 1)
    D = np.empty((n + 1, m + 1), dtype=np.int64)  # D[i, j]: gold[:i] against output[:j]
    D[0] = steps
    for i in range(1, n + 1):
        best = np.empty(m + 1, dtype=np.int64)
        best[0] = i
        best[1:] = np.minimum(D[i - 1, :-1] + (o != g[i - 1]), D[i - 1, 1:] + 1)
        # An insertion moves along the row: D[i, j] = min over k <= j of best[k] + (j - k).
        D[i] = np.minimum.accumulate(best - steps) + steps
    ops = []
    i, j = n, m
    while i or j:
        if i and j and D[i, j] == D[i - 1, j - 1] + (g[i - 1] != o[j - 1]):
            ops.append((MATCH if g[i - 1] == o[j - 1] else SUBSTITUTE, i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and D[i, j] == D[i - 1, j] + 1:
            ops.append((DELETE, i - 1, None))
            i -= 1
        else:
            ops.append((INSERT, None, j - 1))
            j -= 1
    return ops[::-1]


def copy_errors(gold: Sequence[int], output: Sequence[int]) -> CopyErrors:
    """The errors of a generated copy ``output`` of ``gold`` (module docstring): each maximal
    run of edits of `align` is one error, of the class of the gold position it starts at."""
    classes = np.asarray(position_classes(gold), dtype=np.int64)
    counts = dict.fromkeys(("unambiguous_errors", "ambiguous_errors", "first_errors",
                            "end_errors"), 0)
    consumed, in_run = 0, False
    for op, gi, _ in align(gold, output):
        if op == MATCH:
            in_run = False
        elif not in_run:
            in_run = True
            if consumed == len(classes):
                counts["end_errors"] += 1
            else:
                name = {FIRST: "first", UNAMBIGUOUS: "unambiguous",
                        AMBIGUOUS: "ambiguous"}[int(classes[consumed])]
                counts[f"{name}_errors"] += 1
        consumed += gi is not None
    return CopyErrors(**counts, **_positions(classes))
