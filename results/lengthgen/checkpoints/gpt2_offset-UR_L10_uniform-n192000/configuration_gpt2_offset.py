"""GPT-2 whose absolute positions start at a random offset while training."""

from transformers import GPT2Config


class GPT2OffsetConfig(GPT2Config):
    r"""
    GPT-2 with learned absolute positions, trained from a random position offset.

    Args:
        position_offset (`str`, *optional*, defaults to `"random"`):
            `"random"`: in training, each sequence's positions start at an offset drawn
            uniformly from 0..n_positions - T, so every one of the `n_positions` position
            embeddings is trained whatever the training lengths (the length-generalisation
            setup of arXiv 2505.21785); evaluation and generation start at 0. `"none"`: plain
            GPT-2.
        kwargs: `GPT2Config`'s arguments.
    """

    model_type = "gpt2_offset"

    def __init__(self, position_offset: str = "random", **kwargs):
        if position_offset not in ("random", "none"):
            raise ValueError(
                f"position_offset must be 'random' or 'none', got {position_offset!r}"
            )
        self.position_offset = position_offset
        super().__init__(**kwargs)


__all__ = ["GPT2OffsetConfig"]
