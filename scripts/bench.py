"""Benchmarks: ``python scripts/bench.py --help``; the sections are the `bench` package at the
repository root (``python -m bench`` runs the same command)."""

import sys
from pathlib import Path

# The benchmarks are not in the installed package: they are found beside scripts/, and the
# package's folder must come before this file's, whose name it shares.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
