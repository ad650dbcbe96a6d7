"""The κ table of a results folder: ``hf-induction kappa results/first_campaign``.

Prints the κ rows the searches recorded, and any κ the recorded N* rows allow beyond them
(searches of one family run in separate commands).
"""

import sys

from hf_induction.commands.parsing import Parser, prog
from hf_induction.results import (
    KAPPA_COLUMNS,
    existing_results_folder,
    kappa_lines,
    kappa_rows,
    write_table,
)


def main(argv=None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("results", type=existing_results_folder,
                   help="a results folder (one holding protocol.json, as hf-induction nstar "
                   "writes)")
    args = p.parse_args(argv)
    rows = kappa_rows(args.results)
    if not rows:
        print("no kappa yet: run hf-induction nstar with --kappa, or searches of acot_L2..acot_LL "
              "and acot_LL_uniform", file=sys.stderr)
        return 1
    write_table(kappa_lines(rows), KAPPA_COLUMNS, file=sys.stdout)
    return 0

