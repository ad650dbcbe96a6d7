"""Which models read learned absolute positions, and how many: what random position offsets
in training (`TrainSettings.position_offsets`) apply to.

A model declares it by its config's ``model_type``: one line per family whose forward takes
``position_ids`` as indices into a learned table of ``max_position_embeddings`` rows (GPT-2's
``n_positions``, by its config's attribute map). Rotary and recurrent models have nothing an
offset would train, and are left out.
"""

from __future__ import annotations

ABSOLUTE_POSITION_MODEL_TYPES = frozenset({
    # transformers' GPT-2, and ours trained from random offsets (position_ids override them).
    "gpt2",
    "gpt2_offset",
    # GPT-Neo and GPT-BigCode (SantaCoder, StarCoder 1): GPT-2's learned position table.
    "gpt_neo",
    "gpt_bigcode",
})


def absolute_positions(model_or_config) -> int | None:
    """How many learned absolute positions the model has, or None where it has none."""
    config = getattr(model_or_config, "config", model_or_config)
    if getattr(config, "model_type", None) not in ABSOLUTE_POSITION_MODEL_TYPES:
        return None
    return int(config.max_position_embeddings)
