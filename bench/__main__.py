"""``python -m bench``, from the repository root: the benchmarks (`bench.cli`)."""

import sys

from .cli import main

sys.exit(main())
