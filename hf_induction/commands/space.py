"""Write the κ leaderboard Space for results folders or Hub dataset ids, ready to upload.

    hf-induction space results/first_campaign results/gpt2 ORG/REPO --out build/space
    hf upload ORG/SPACE build/space . --repo-type space

The folder holds the app, its card (sdk_version: the gradio installed here), its
requirements, the package code the app runs, the results folders given (copied) and
results.txt, the list it reads. ``python build/space/app.py`` runs it locally.
"""

from __future__ import annotations

import sys

from hf_induction.commands.parsing import Parser, first_line, output_folder, prog
from hf_induction.hub.sources import chosen_sources, source_or_folder


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("results", nargs="+", type=source_or_folder,
                   help="results folders and/or Hub dataset ids (ORG/REPO; read by the app, "
                   "not while building); a folder that is not a results folder is skipped "
                   "with a line where others are given")
    p.add_argument("--out", required=True, type=output_folder, help="the folder to write into")
    args = p.parse_args(argv)
    args.results = chosen_sources(p, args.results)
    from hf_induction.hub.space import write_space

    try:
        out = write_space(args.results, args.out)
    except (OSError, ValueError) as e:
        print(f"{p.prog}: error: {first_line(e)}", file=sys.stderr)
        return 1
    print(out)
    return 0
