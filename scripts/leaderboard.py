"""Write the κ leaderboard of a results folder or Hub dataset: markdown and PNG figures."""

import sys

from hf_induction.commands.leaderboard import main

if __name__ == "__main__":
    sys.exit(main())
