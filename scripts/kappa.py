"""The κ table of a results folder: ``python scripts/kappa.py results/``.

Prints the κ rows the searches recorded, and any κ the recorded N* rows allow beyond them
(searches of one family run in separate commands).
"""

import argparse
import sys
from pathlib import Path

from hf_induction.results import KAPPA_COLUMNS, ResultsFolder, write_table
from hf_induction.runner.tables import kappa_from_nstar


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("results", type=Path, help="a results folder written by nstar.py")
    args = p.parse_args(argv)
    try:
        folder = ResultsFolder.existing(args.results)
    except FileNotFoundError as e:
        print(f"kappa.py: error: {e}", file=sys.stderr)
        return 2
    recorded = folder.read_kappa()
    known = {(r.dataset, r.config, r.model, r.model_config_hash, r.protocol_hash)
             for r in recorded}
    derived = [r for r in kappa_from_nstar(folder.read_nstar())
               if (r.dataset, r.config, r.model, r.model_config_hash, r.protocol_hash)
               not in known]
    rows = recorded + derived
    if not rows:
        print("no kappa yet: run nstar.py with --kappa, or searches of acot_L2..acot_LL and "
              "acot_LL_uniform", file=sys.stderr)
        return 1
    write_table(rows, KAPPA_COLUMNS, file=sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
