"""The κ table of a results folder: ``python scripts/kappa.py results/``."""

import sys

from hf_induction.commands.kappa import main

if __name__ == "__main__":
    sys.exit(main())
