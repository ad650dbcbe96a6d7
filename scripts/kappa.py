"""The κ table of a results folder: ``python scripts/kappa.py results/first_campaign``."""

import sys

from hf_induction.commands.kappa import main

if __name__ == "__main__":
    sys.exit(main())
