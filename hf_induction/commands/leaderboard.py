"""Write the κ leaderboard of results folders and Hub datasets: markdown and PNG figures.

    hf-induction leaderboard results/cpu --out build/leaderboard
    hf-induction leaderboard results/cpu results/gpt2 ORG/REPO --out build/leaderboard

writes OUT/leaderboard.md (κ per model × format × task, N*_joint, Σ N*_n, sorted; the N*
of every search; accuracy at 2L, ranked; length generalisation beside chance), one table of
each over every source given, with a column naming each row's source when there are several,
and the figures over all of them: OUT/nstar_vs_length_*.png, OUT/kappa_*.png,
OUT/ood_final_state.png.
"""

from __future__ import annotations

import sys

from hf_induction.commands.parsing import Parser, first_line, output_folder, prog
from hf_induction.hub.errors import HubError
from hf_induction.hub.leaderboard import SourceResults, write_leaderboard
from hf_induction.hub.sources import chosen_sources, source_or_folder


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("results", nargs="+", type=source_or_folder,
                   help="results folders and/or Hub dataset ids (ORG/REPO); a folder that "
                   "is not a results folder is skipped with a line where others are given")
    p.add_argument("--out", required=True, type=output_folder, help="the folder to write into")
    args = p.parse_args(argv)
    args.results = chosen_sources(p, args.results)
    results = []
    for source in args.results:
        # Read one at a time, so that an error names the source it came from.
        try:
            results.append(SourceResults.load(source))
        except HubError as e:
            print(f"{p.prog}: error: {e}", file=sys.stderr)
            return 1
        except (OSError, ValueError) as e:
            print(f"{p.prog}: error: cannot read results {source}: {first_line(e)}",
                  file=sys.stderr)
            return 1
    try:
        written = write_leaderboard(results, args.out)
    except OSError as e:
        print(f"{p.prog}: error: cannot write {args.out}: {first_line(e)}", file=sys.stderr)
        return 1
    for path in written:
        print(path)
    return 0
