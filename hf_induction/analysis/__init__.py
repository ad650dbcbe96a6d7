"""Reading trained attention models: attention-head scores and edge-level patching.

For the left/right asymmetry of arXiv 2505.21785 ("Born a Transformer -- Always a
Transformer?"): induction heads copy the token that FOLLOWED an earlier occurrence of the
current token, anti-induction heads the one that PRECEDED it.

    prompts = prompts_from_cell(parse("copy", "UF_L10"), n=200, seed=0)   # list[HeadPrompts]
    scores = head_scores(model, prompts)        # {"induction": [L, H], ..., "n_positions"}
    ranked = edge_patching(model, prompts)      # one row per (layer, head, kind)
    sets, _ = checkpoint_sets(parse("copy", "UF_L10"))   # UF, UB and repeated_L10_V32

Works for any model on transformers' attention interface (GPT-2, Llama/``rope``,
``gpt2_offset``); torch and transformers are imported here, unlike ``tasks``.
``analysis.heads`` reads the checkpoints a results folder keeps (or any model folder) on
their prompt sets and writes the scores as its ``heads`` and ``patching`` tables
(``hf-induction heads``).
"""

from .edges import EDGE_ATTENTION, KINDS, EdgePlan, Swap
from .patching import Tally, edge_patching, patched_logits
from .prompts import HeadPrompts, prompts_from_cell, repeated_random_prompts, scored_positions
from .running import NoAttention
from .scores import SCORES, head_scores
from .sets import PROMPT_TASKS, REPEATED, PromptSet, cell_sets, checkpoint_sets

__all__ = [
    "EDGE_ATTENTION",
    "KINDS",
    "PROMPT_TASKS",
    "REPEATED",
    "SCORES",
    "EdgePlan",
    "HeadPrompts",
    "NoAttention",
    "PromptSet",
    "Swap",
    "Tally",
    "edge_patching",
    "head_scores",
    "patched_logits",
    "cell_sets",
    "checkpoint_sets",
    "prompts_from_cell",
    "repeated_random_prompts",
    "scored_positions",
]
