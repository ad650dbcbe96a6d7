"""Tasks: groups, the config grammar, sampling without replacement and the token layout.

Pure numpy; nothing here knows about torch or models.
"""

from .cell import Examples, generate, vocab_of
from .config import DATASETS, DISTS, FORMATS, GRAMMAR, TaskConfig
from .groups import CyclicGroup, Group, SymmetricGroup, cyclic, symmetric
from .layout import IGNORE, LAYOUT_VERSION, SPECIAL_TOKENS, Vocab, encode, prompt_length
from .sampling import (
    DEFAULT_TRAIN_SIZE,
    GENERATOR_VERSION,
    SPLITS,
    pool_size,
    sample_split,
    train_pool_size,
    validation_sizes,
)

__all__ = [
    "DATASETS", "DEFAULT_TRAIN_SIZE", "DISTS", "FORMATS", "GENERATOR_VERSION", "GRAMMAR",
    "IGNORE", "LAYOUT_VERSION", "SPECIAL_TOKENS",
    "SPLITS", "CyclicGroup", "Examples", "Group", "SymmetricGroup", "TaskConfig", "Vocab",
    "cyclic", "encode", "generate", "pool_size", "prompt_length", "sample_split", "symmetric",
    "train_pool_size", "validation_sizes", "vocab_of",
]
