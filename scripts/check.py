"""Verify a results folder without training: ``python scripts/check.py results/cpu``."""

import sys

from hf_induction.commands.check import main

if __name__ == "__main__":
    sys.exit(main())
