"""Tasks: the `TaskCell` protocol, the family registry, the group word problems
(``word_problems``), retrieval, copy and the natural scenarios (``lorem``, ``git``), sampling
without replacement and the token layout.

Pure numpy; nothing here knows about torch or models.
"""

from .cell import SCALAR, SEQUENCE, Examples, TaskCell, vocab_of
from .groups import CyclicGroup, Group, SymmetricGroup, cyclic, symmetric
from .registry import (
    DATASETS,
    FAMILIES,
    HUB_ORG,
    family,
    grammar,
    hub_dataset_id,
    parse,
    parse_or_none,
)
from .sampling import (
    DEFAULT_TRAIN_SIZE,
    GENERATOR_VERSION,
    SPLITS,
    generate,
    sample_split,
    train_pool_size,
    validation_sizes,
)
from .token_layout import IGNORE, LAYOUT_VERSION, SPECIAL_TOKENS, Vocab
from .word_problems import (
    DISTS,
    FORMATS,
    GRAMMAR,
    TaskConfig,
    encode,
    pool_size,
    prompt_length,
)

__all__ = [
    "DATASETS", "DEFAULT_TRAIN_SIZE", "DISTS", "FAMILIES", "FORMATS", "GENERATOR_VERSION",
    "GRAMMAR", "IGNORE", "LAYOUT_VERSION", "SCALAR", "SEQUENCE", "SPECIAL_TOKENS", "SPLITS",
    "CyclicGroup", "Examples", "Group", "SymmetricGroup", "TaskCell", "TaskConfig", "Vocab",
    "HUB_ORG", "cyclic", "encode", "family", "generate", "grammar", "hub_dataset_id", "parse",
    "parse_or_none",
    "pool_size",
    "prompt_length", "sample_split", "symmetric", "train_pool_size", "validation_sizes",
    "vocab_of",
]
