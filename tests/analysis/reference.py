"""Slow, obviously-correct references: head scores by loops over the model's own attention
weights, and GPT-2's forward written out with the cut and the swapped edges done by hand."""

from __future__ import annotations

import numpy as np
import torch

IGNORE = -100


def positions_by_hand(ids: list[int], labels: list[int]) -> list[tuple[int, int]]:
    """(t, s) of one row: t's next token supervised, its token seen exactly once before, at
    s, with s >= 1 and s + 1 < t."""
    out = []
    for t in range(len(ids) - 1):
        if labels[t + 1] == IGNORE:
            continue
        earlier = [j for j in range(t) if ids[j] == ids[t]]
        if len(earlier) == 1 and earlier[0] >= 1 and earlier[0] + 1 < t:
            out.append((t, earlier[0]))
    return out


def head_scores_by_hand(model, prompts_list) -> dict[str, np.ndarray]:
    """Mean attention t -> s+1, s-1, t-1, s over every scored position, one loop step each,
    from eager ``output_attentions`` (positions found by `positions_by_hand`)."""
    before, training = model.config._attn_implementation, model.training
    model.eval()
    model.set_attn_implementation("eager")
    sums, count = None, 0
    try:
        for prompts in prompts_list:
            with torch.no_grad():
                attentions = model(input_ids=prompts.input_ids, output_attentions=True,
                                   use_cache=False).attentions
            L, H = len(attentions), attentions[0].shape[1]
            if sums is None:
                sums = {k: np.zeros((L, H)) for k in ("induction", "anti_induction",
                                                      "previous_token", "duplicate_token")}
            for row in range(len(prompts)):
                ids, labels = prompts.input_ids[row].tolist(), prompts.labels[row].tolist()
                for t, s in positions_by_hand(ids, labels):
                    count += 1
                    for layer in range(L):
                        for head in range(H):
                            a = attentions[layer][row, head, t]
                            sums["induction"][layer, head] += float(a[s + 1])
                            sums["anti_induction"][layer, head] += float(a[s - 1])
                            sums["previous_token"][layer, head] += float(a[t - 1])
                            sums["duplicate_token"][layer, head] += float(a[s])
    finally:
        model.set_attn_implementation(before)
        model.train(training)
    return {k: v / count for k, v in sums.items()} | {"n_positions": count}


def gpt2_by_hand(model, ids: torch.Tensor, cut: bool = False, swap=None):
    """``GPT2LMHeadModel``'s forward spelled out, one (row, head, query) at a time.

    ``cut``: no query attends the position before it. ``swap``: ``(layer, head, kind, edges,
    kept)`` with edges {(row, t): j} and kept the (keys, values) ``[B, H, T, d]`` per layer of
    a cut run: on those edges of that head the logit uses kept's key at j (kind induction) or
    the output adds a_(t,j) (kept value - value) at j (kind anti_induction).

    Returns (logits [B, T, V], [(keys, values)] per layer).
    """
    tr, cfg = model.transformer, model.config
    assert cfg.scale_attn_weights and not cfg.scale_attn_by_inverse_layer_idx
    B, T = ids.shape
    H, d = cfg.n_head, cfg.n_embd // cfg.n_head
    x = tr.wte(ids) + tr.wpe(torch.arange(T))
    kept_here = []
    for layer, block in enumerate(tr.h):
        q, k, v = block.attn.c_attn(block.ln_1(x)).split(cfg.n_embd, dim=2)
        q, k, v = (z.view(B, T, H, d).transpose(1, 2) for z in (q, k, v))  # [B, H, T, d]
        kept_here.append((k, v))
        out = torch.zeros(B, H, T, d)
        for b in range(B):
            for h in range(H):
                edit = swap is not None and swap[0] == layer and swap[1] == h
                for t in range(T):
                    sources = [j for j in range(t + 1) if not (cut and j == t - 1)]
                    j_edit = swap[3].get((b, t)) if edit else None
                    logits = []
                    for j in sources:
                        key = k[b, h, j]
                        if j == j_edit and swap[2] == "induction":
                            key = swap[4][layer][0][b, h, j]
                        logits.append(torch.dot(q[b, h, t], key) / d ** 0.5)
                    a = torch.softmax(torch.stack(logits), dim=0)
                    for weight, j in zip(a, sources, strict=True):
                        out[b, h, t] += weight * v[b, h, j]
                        if j == j_edit and swap[2] == "anti_induction":
                            out[b, h, t] += weight * (swap[4][layer][1][b, h, j] - v[b, h, j])
        x = x + block.attn.c_proj(out.transpose(1, 2).reshape(B, T, cfg.n_embd))
        x = x + block.mlp(block.ln_2(x))
    return model.lm_head(tr.ln_f(x)), kept_here
