"""``python -m hf_induction.testing``: the Hub stand-in, as ``-m hf_induction.testing.hub``."""

import sys

from .hub import main

sys.exit(main())
