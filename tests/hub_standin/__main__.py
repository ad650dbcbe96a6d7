"""``python -m tests.hub_standin --port 0 --root DIR``: the Hub stand-in, from the repository
root (``-m tests.hub_standin.hub`` runs the same)."""

import sys

from .hub import main

sys.exit(main())
