"""``python -m hf_induction COMMAND ...``: the console script ``hf-induction`` as a module, so a
launcher that starts Python modules runs it from a wheel (``accelerate launch -m hf_induction
nstar ...``, ``torchrun -m hf_induction nstar ...``)."""

import sys

from hf_induction.commands import main

if __name__ == "__main__":
    sys.exit(main())
