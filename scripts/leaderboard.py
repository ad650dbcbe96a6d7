"""Write the κ leaderboard of results folders and Hub datasets: markdown and PNG figures."""

import sys

from hf_induction.commands.leaderboard import main

if __name__ == "__main__":
    sys.exit(main())
