"""Estimate the device hours of a sweep at the paper's model sizes and 250,000-step budget."""

import sys

from hf_induction.commands.estimate_grid import main

if __name__ == "__main__":
    sys.exit(main())
