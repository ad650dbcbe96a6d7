"""Materialise task configs into a folder laid out as a Hub dataset repo (parquet + card)."""

import sys

from hf_induction.commands.build_datasets import main

if __name__ == "__main__":
    sys.exit(main())
