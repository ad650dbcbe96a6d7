"""Tasks: what a model is asked to learn, as rows of tokens. Pure numpy; nothing here knows
about torch or models.

Words, each with one meaning here:

- **family**: one Hub dataset and one module: the group word problems (``modadd``,
  ``permutation``, ``group``: ``word_problems``), ``retrieval``, ``copy`` (``copying``),
  ``lorem``, ``git``.
- **cell**: one configuration of a family, a frozen ``<Family>Cell`` (`WordProblemCell`,
  `RetrievalCell`, `CopyCell`, `LoremCell`, `GitCell`, all `TaskCell`s); a pure function of
  (split, size, seed) to rows.
- **config**: the Hub's word for a cell of a dataset; a cell's *config name* is its name in the
  one grammar of every family (`NameGrammar`), ``{kind}_L{L}[_{dist}][_{x}{n}]``, e.g.
  ``acot_L20``, ``NRLast_L16_uniform_V8``.
- **task**: what the model is asked to do within a family, the first part of a retrieval, copy,
  lorem or git name (``NRLast``, ``UF``, ``copy``, ``revert``). A word problem's task is always
  to track the state; the first part of its name is its supervision *format* (``acot``).
  `TaskCell.kind` reads either. The Hub's and lm-eval's own words keep their meaning where
  their files need them: a model card's task category (`TaskCell.TASK_NAME`, "State
  tracking"), lm-eval's tasks (``lm_eval_tasks``).
- **family parameter**: what a name's last part sets, ``family_param`` of every cell (m of
  Z_m, k of S_k, V symbols or words; the group family's group name, ``A4xZ5``);
  ``alphabet_size`` is the symbols the items are made of (|G|, V), the x-axis of "N* against
  size".
- **group**: a finite group as permutations (``groups``), named in ``group_names`` (Z, S, A,
  D, Q8, products, groups from generators), its facts computed in ``group_facts``.

The package holds the `TaskCell` protocol (``cell``), the family registry, one module per
family, sampling without replacement (``sampling``) and the token layout.
"""

from .cell import DISTS, SCALAR, SEQUENCE, Examples, NameGrammar, TaskCell, vocab_of
from .copying import CopyCell
from .git import GitCell
from .group_facts import GroupFacts, facts
from .group_names import named, register_group, register_groups_file
from .groups import (
    CyclicGroup,
    Group,
    PermutationGroup,
    ProductGroup,
    SymmetricGroup,
    cyclic,
    symmetric,
)
from .lorem import LoremCell
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
from .retrieval import RetrievalCell
from .sampling import (
    DEFAULT_TRAIN_SIZE,
    DISJOINT,
    GENERATOR_VERSION,
    IN_DISTRIBUTION,
    SPLITS,
    VALIDATION_RULES,
    generate,
    sample_split,
    train_pool_size,
    validation_sizes,
)
from .token_layout import IGNORE, LAYOUT_VERSION, SPECIAL_TOKENS, Vocab
from .word_problems import (
    FORMATS,
    WordProblemCell,
    encode,
    pool_size,
    prompt_length,
)

__all__ = [
    "DATASETS", "DEFAULT_TRAIN_SIZE", "DISJOINT", "DISTS", "FAMILIES", "FORMATS",
    "GENERATOR_VERSION",
    "IGNORE", "IN_DISTRIBUTION", "LAYOUT_VERSION", "SCALAR", "SEQUENCE", "SPECIAL_TOKENS",
    "SPLITS",
    "CopyCell", "CyclicGroup", "Examples", "GitCell", "Group", "GroupFacts", "LoremCell",
    "NameGrammar", "PermutationGroup", "ProductGroup", "RetrievalCell", "SymmetricGroup",
    "TaskCell", "VALIDATION_RULES", "Vocab", "WordProblemCell",
    "HUB_ORG", "cyclic", "encode", "facts", "family", "generate", "grammar", "hub_dataset_id",
    "named", "parse", "parse_or_none", "pool_size", "prompt_length", "register_group",
    "register_groups_file", "sample_split", "symmetric", "train_pool_size",
    "validation_sizes", "vocab_of",
]
