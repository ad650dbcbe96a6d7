"""Write the κ leaderboard of a results folder or Hub dataset: markdown and PNG figures.

    python scripts/leaderboard.py results/ --out build/leaderboard
    python scripts/leaderboard.py org/induction-results --out build/leaderboard

writes DIR/leaderboard.md (κ per model × format × task, N*_joint, Σ N*_n, sorted; the N*
of every search) and DIR/nstar_vs_length_*.png, DIR/kappa_*.png.
"""

from __future__ import annotations

import sys

from hf_induction.commands.parsing import Parser, first_line, output_folder
from hf_induction.hub import write_leaderboard


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="leaderboard.py", description=__doc__)
    p.add_argument("results", help="a results folder, or a Hub dataset id (ORG/REPO)")
    p.add_argument("--out", required=True, type=output_folder, help="the folder to write into")
    args = p.parse_args(argv)
    try:
        written = write_leaderboard(args.results, args.out)
    except (OSError, ValueError) as e:
        print(f"leaderboard.py: error: cannot read results {args.results}: {first_line(e)}",
              file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0

