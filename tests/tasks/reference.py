"""Brute-force recomputation of labels, written independently of the generator."""

import itertools

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
    bos, sep, eos = order, order + 1, order + 2
    n = len(elements)
    if fmt == "acot":
        return [bos, *elements], [IGNORE, *states]
    if fmt == "outcome":
        return [bos, *elements, sep], [IGNORE] * (n + 1) + [states[-1]]
    if fmt == "cot":
        return [bos, *elements, sep, *states], [IGNORE] * (n + 1) + [*states, eos]
    raise AssertionError(fmt)
