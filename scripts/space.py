"""Write the κ leaderboard Space for results folders or Hub dataset ids, ready to upload."""

import sys

from hf_induction.commands.space import main

if __name__ == "__main__":
    sys.exit(main())
