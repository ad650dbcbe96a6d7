"""Attention-head scores and patching of kept checkpoints or any causal LM:
``python scripts/heads.py results/lengthgen --patch``."""

import sys

from hf_induction.commands.heads import main

if __name__ == "__main__":
    sys.exit(main())
