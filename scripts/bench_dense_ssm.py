"""Print the speed of the fast Dense-SSM path against the naive reference (same batch, same
run): ``python scripts/bench_dense_ssm.py --help`` (`bench.dense_ssm_fast_vs_reference`)."""

import sys
from pathlib import Path

# The benchmarks are not in the installed package: they are found beside scripts/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.dense_ssm_fast_vs_reference import main  # noqa: E402

if __name__ == "__main__":
    main()
