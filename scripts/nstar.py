"""Find N* and the sharing factor kappa: ``accelerate launch scripts/nstar.py --help``."""

import sys

from hf_induction.commands.nstar import main

if __name__ == "__main__":
    sys.exit(main())
