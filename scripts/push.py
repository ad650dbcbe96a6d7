"""Push a results folder to a Hub dataset repo, in one commit."""

import sys

from hf_induction.commands.push import main

if __name__ == "__main__":
    sys.exit(main())
