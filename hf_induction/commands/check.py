"""Verify a results folder without training: ``hf-induction check results/cpu``.

Reports, one line each, torn or garbled lines in the tables, lines that are JSON but not rows
of their table, files in a table's folder that are not its own, N* rows whose runs the
journal lacks or holds otherwise, and a card that does not declare the tables that hold rows.
Exit 0 when the folder is clean, 1 when something is wrong, 2 when DIR is not a results
folder. With ``--repair``, what can be rebuilt from the folder is (torn lines dropped, what is
not a table's moved into DIR/set-aside/, never deleted, journal runs restored from the N* rows
that record them, the card rewritten); the exit status then says whether anything is left
wrong.
"""

import sys

from hf_induction.commands.parsing import Parser, prog
from hf_induction.results import existing_results_folder
from hf_induction.results.check import check_folder, repair_folder


def main(argv=None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("results", type=existing_results_folder,
                   help="a results folder (one holding protocol.json)")
    p.add_argument("--repair", action="store_true",
                   help="mend what can be rebuilt from the folder, then check it again")
    args = p.parse_args(argv)
    folder = args.results
    findings = check_folder(folder)
    if args.repair and any(f.mendable for f in findings):
        for line in repair_folder(folder):
            print(f"repaired: {line}")
        findings = check_folder(folder)
    for finding in findings:
        print(finding.line)
    if findings:
        mendable = sum(f.mendable for f in findings)
        hint = f"; {mendable} mendable with --repair" if mendable and not args.repair else ""
        print(f"{folder.path}: {len(findings)} problem(s){hint}", file=sys.stderr)
        return 1
    print(f"{folder.path}: clean")
    return 0
