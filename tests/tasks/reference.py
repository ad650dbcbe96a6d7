"""Brute-force recomputation of labels, written independently of the generator."""

import functools
import itertools
import math

IGNORE = -100


def permutation_list(k):
    return list(itertools.permutations(range(k)))


def compose_perm(s, t):
    """(s o t)[i] = s[t[i]]: apply t first."""
    return tuple(s[t[i]] for i in range(len(t)))


def states_by_hand(dataset, param, elements):
    """s_1 = g_1, s_i = g_i o s_{i-1}, on Python ints/tuples."""
    if dataset == "modadd":
        out, acc = [], 0
        for g in elements:
            acc = (acc + g) % param
            out.append(acc)
        return out
    perms = permutation_list(param)
    out, acc = [], None
    for g in elements:
        acc = perms[g] if acc is None else compose_perm(perms[g], acc)
        out.append(perms.index(acc))
    return out


def example_by_hand(fmt, order, elements, states):
    """input_ids and causal-LM labels: labels[j] is the target after reading input_ids[:j]."""
    bos, sep, eos = order, order + 1, order + 2
    n = len(elements)
    if fmt == "acot":
        ids = [bos, *elements, eos]
        # After reading BOS, g_1..g_i (i + 1 tokens), the target is s_i.
        labels = [IGNORE] * len(ids)
        for i in range(1, n + 1):
            labels[i + 1] = states[i - 1]
        return ids, labels
    if fmt == "outcome":
        return [bos, *elements, sep, states[-1]], [IGNORE] * (n + 2) + [states[-1]]
    if fmt == "cot":
        ids = [bos, *elements, sep, *states, eos]
        # Every token after SEP is its own target: labels are input_ids with the prompt masked.
        prompt = n + 2
        return ids, [IGNORE] * prompt + ids[prompt:]
    raise AssertionError(fmt)


def retrieval_by_hand(task, context, query):
    """The answer of a retrieval item, or None if (context, query) is not an item of ``task``.

    Pure Python, from the definitions: positions of the query, never adjacent; t = 1 for U*,
    t >= 2 for N*; the answer is the right/left neighbour of the first/last occurrence; in an
    N* item the first and last occurrences' neighbours (on the answer's side) both exist and
    differ.
    """
    n = len(context)
    at = [i for i, c in enumerate(context) if c == query]
    if any(b - a == 1 for a, b in zip(at, at[1:], strict=False)):
        return None
    unique = task.startswith("U")
    if (unique and len(at) != 1) or (not unique and len(at) < 2):
        return None
    step = 1 if task[1] == "R" else -1
    neighbours = [i + step for i in at]
    if any(not 0 <= j < n for j in neighbours):
        return None
    first, last = context[neighbours[0]], context[neighbours[-1]]
    if not unique and first == last:
        return None
    return last if task.endswith("Last") else first


def retrieval_pool_by_hand(task, n, symbols):
    return sum(retrieval_by_hand(task, list(c), q) is not None
               for c in itertools.product(range(symbols), repeat=n) for q in range(symbols))


def copy_source_ok(task, source):
    """Whether ``source`` is a source of the copy task: distinct symbols (U*), or exactly
    min(n // 2, max(2, n // 3)) distinct symbols, each used at least twice (N*)."""
    n = len(source)
    counts = {s: source.count(s) for s in set(source)}
    if task.startswith("U"):
        return all(c == 1 for c in counts.values())
    return len(counts) == min(n // 2, max(2, n // 3)) and all(c >= 2 for c in counts.values())


def copy_pool_by_hand(task, n, symbols):
    return sum(copy_source_ok(task, list(s)) for s in itertools.product(range(symbols), repeat=n))


@functools.cache
def arrangements_by_sum(p, n):
    """Strings of length n over p symbols, each used at least twice, by the sum over how many
    places the last symbol takes: a(p, n) = sum over j >= 2 of C(n, j) a(p - 1, n - j)."""
    if p == 0:
        return int(n == 0)
    return sum(math.comb(n, j) * arrangements_by_sum(p - 1, n - j)
               for j in range(2, n - 2 * (p - 1) + 1))
