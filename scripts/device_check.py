"""The prepared accelerator check: ``python scripts/device_check.py --help``
(`bench.device_check`; ``scripts/device_check.sh`` installs the package first if needed)."""

import sys
from pathlib import Path

# The benchmarks are not in the installed package: they are found beside scripts/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.device_check import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
