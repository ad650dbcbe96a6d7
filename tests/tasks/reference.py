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
