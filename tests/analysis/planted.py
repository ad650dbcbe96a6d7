"""Two-layer GPT-2s whose heads are set by hand, not trained: known mechanisms to read back.

The residual stream is a sum of one-hot subspaces (``layout``): the token (TOK), its
position (POS), the token before it (PREV, written by a previous-token head) and the token to
predict (OUT, read by the unembedding). Every position holds exactly one 1 in each subspace
filled so far, so every position has the same mean and spread, and each LayerNorm is set to
undo its own normalisation (weight = that spread, bias = that mean): the one-hot geometry
passes through unchanged. MLPs are zero, and so are the heads not named.

Attention logits are G = `GAIN` on a match and 0 elsewhere (G - 2G on a suppressed one), so
each planted head puts all but ~T e^-G of its weight where it should.

Vocabulary: a copy cell's 12 symbols (ids 0..11), then BOS 12, SEP 13, EOS 14, PAD 15.
"""

from __future__ import annotations

import math

import torch
from transformers import GPT2Config, GPT2LMHeadModel

VOCAB, POSITIONS, D_MODEL, N_HEAD = 16, 16, 128, 4
HEAD_DIM = D_MODEL // N_HEAD
BOS, SEP, EOS = 12, 13, 14
SYMBOLS = tuple(range(12))
TOK, POS, PREV, OUT = 0, VOCAB, VOCAB + POSITIONS, 2 * VOCAB + POSITIONS
GAIN = 30.0  # attention logit of a match
UNEMBED = 20.0  # logit of the token OUT holds
# A query and key weight g with g * g / sqrt(head_dim) = GAIN: a match scores GAIN.
G = math.sqrt(GAIN * math.sqrt(HEAD_DIM))


def _blank() -> GPT2LMHeadModel:
    config = GPT2Config(vocab_size=VOCAB, n_positions=POSITIONS, n_embd=D_MODEL, n_layer=2,
                        n_head=N_HEAD, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                        tie_word_embeddings=False, bos_token_id=BOS, eos_token_id=EOS,
                        pad_token_id=15)
    model = GPT2LMHeadModel(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.zero_()
        tr = model.transformer
        tr.wte.weight[:, TOK:TOK + VOCAB] = torch.eye(VOCAB)
        tr.wpe.weight[:, POS:POS + POSITIONS] = torch.eye(POSITIONS)
        # Layer 0 reads TOK + POS (two ones), layer 1 also PREV (three), ln_f also OUT (four).
        for ln, ones in [(tr.h[0].ln_1, 2), (tr.h[0].ln_2, 3), (tr.h[1].ln_1, 3),
                         (tr.h[1].ln_2, 4), (tr.ln_f, 4)]:
            _identity_layer_norm(ln, ones)
        model.lm_head.weight[:, OUT:OUT + VOCAB] = UNEMBED * torch.eye(VOCAB)
    return model


def _identity_layer_norm(ln: torch.nn.LayerNorm, ones: int) -> None:
    """A LayerNorm that returns a vector of ``ones`` ones (and zeros) unchanged."""
    mean = ones / D_MODEL
    ln.weight.fill_(math.sqrt(mean - mean * mean + ln.eps))
    ln.bias.fill_(mean)


def _set_head(model: GPT2LMHeadModel, layer: int, head: int, q: torch.Tensor, k: torch.Tensor,
              v: torch.Tensor, o: torch.Tensor) -> None:
    """Write one head: q, k, v ``[d_model, head_dim]`` (residual -> head) and o
    ``[head_dim, d_model]`` (head -> residual), into GPT-2's fused Conv1D weights."""
    attn = model.transformer.h[layer].attn
    cols = slice(head * HEAD_DIM, (head + 1) * HEAD_DIM)
    with torch.no_grad():
        for i, w in enumerate((q, k, v)):
            attn.c_attn.weight[:, i * D_MODEL:(i + 1) * D_MODEL][:, cols] = w
        attn.c_proj.weight[cols, :] = o


def _zeros() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    return (torch.zeros(D_MODEL, HEAD_DIM), torch.zeros(D_MODEL, HEAD_DIM),
            torch.zeros(D_MODEL, HEAD_DIM), torch.zeros(HEAD_DIM, D_MODEL))


def _previous_token_head(model: GPT2LMHeadModel) -> None:
    """Layer 0 head 0: position t attends t - 1 (query POS t and key POS t - 1 meet in head
    dim t) and writes that position's token into PREV."""
    q, k, v, o = _zeros()
    for p in range(POSITIONS):
        q[POS + p, p] = G
        if p + 1 < HEAD_DIM:
            k[POS + p, p + 1] = G
    for j in range(VOCAB):
        v[TOK + j, j] = 1.0
        o[j, PREV + j] = 1.0
    _set_head(model, 0, 0, q, k, v, o)


def induction_model() -> GPT2LMHeadModel:
    """Layer 0 head 0 a previous-token head; layer 1 head 0 an induction head by
    K-composition: its query is the current token, its key the PREV subspace ("my previous
    token is x"), its value the token itself, written into OUT. So at t it finds s + 1 and
    predicts what followed the earlier occurrence: it copies repeated sequences and UF rows.

    Two patches make UF whole: SEP queries "previous token BOS", found at position 1 (and not
    at 0, which attends itself, so its PREV is BOS too: POS 0 lowers that key), so SEP
    predicts x_1; and a copied SEP (what follows x_n) is written as EOS.
    """
    model = _blank()
    _previous_token_head(model)
    q, k, v, o = _zeros()
    for j in (*SYMBOLS, BOS):
        q[TOK + j, j] = G
    q[TOK + SEP, BOS] = G
    for j in range(VOCAB):
        k[PREV + j, j] = G
        v[TOK + j, j] = 1.0
        o[j, OUT + j] = 1.0
    k[POS + 0, BOS] = -2 * G
    o[SEP, OUT + SEP] = 0.0
    o[SEP, OUT + EOS] = 1.0
    _set_head(model, 1, 0, q, k, v, o)
    return model


def anti_induction_model(n: int) -> GPT2LMHeadModel:
    """Layer 0 head 0 a previous-token head; layer 1 head 0 a duplicate-token head that reads
    PREV as its value (V-composition): at t it attends s, the earlier occurrence of its token,
    and predicts what PRECEDED it, so it copies UB rows ``[BOS, x_1..x_n, SEP, x_n..x_1, EOS]``.

    Its query and key meet on the token (G) and the query's own position is suppressed (-2G),
    so t does not find itself; SEP's query is three times as strong, so SEP does find itself
    (3G - 2G) and predicts x_n, its own PREV; PREV = BOS (before x_1) is written as EOS.

    Layer 1 head 1, whose output is zero, attends by absolute position from t to exactly
    s - 1 on UB rows of length ``n``: target y_i at t = n + 1 + i found x_(n+1-i) at
    s = n + 1 - i, so s - 1 = 2n + 1 - t (query POS t and key POS 2n + 1 - t meet).
    """
    if 2 * n + 3 > POSITIONS:
        raise ValueError(f"UB rows of length {n} do not fit {POSITIONS} positions")
    model = _blank()
    _previous_token_head(model)
    q, k, v, o = _zeros()
    for j in SYMBOLS:
        q[TOK + j, j] = G
    q[TOK + SEP, SEP] = 3 * G
    for j in range(VOCAB):
        k[TOK + j, j] = G
        v[PREV + j, j] = 1.0
        o[j, OUT + j] = 1.0
    for p in range(POSITIONS):
        q[POS + p, VOCAB + p] = -2 * G
        k[POS + p, VOCAB + p] = G
    o[BOS, OUT + BOS] = 0.0
    o[BOS, OUT + EOS] = 1.0
    _set_head(model, 1, 0, q, k, v, o)
    q, k, v, o = _zeros()
    for t in range(n + 2, 2 * n + 2):
        q[POS + t, 2 * n + 1 - t] = G
    for p in range(POSITIONS):
        k[POS + p, p] = G
    _set_head(model, 1, 1, q, k, v, o)
    return model
