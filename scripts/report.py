"""The tables and figures of a results folder, for docs/results.md."""

import sys

from hf_induction.commands.report import main

if __name__ == "__main__":
    sys.exit(main())
