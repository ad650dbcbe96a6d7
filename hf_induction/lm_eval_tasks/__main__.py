"""Write the lm-evaluation-harness task files from `utils.FAMILIES`.

    python -m hf_induction.lm_eval_tasks                      # the shipped files (Hub datasets)
    python -m hf_induction.lm_eval_tasks --out build/tasks --datasets-from build/hub
        # task files that read each dataset from build/hub/<dataset>, a folder built with
        # `hf-induction build-datasets` (offline, or before the datasets are published)
"""

import argparse
from pathlib import Path

from . import FOLDER, write_tasks


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m hf_induction.lm_eval_tasks",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, default=None,
                   help="where the task files go (default: the package's own folder)")
    p.add_argument("--datasets-from", type=Path, metavar="ROOT", default=None,
                   help="read each dataset from ROOT/<dataset> (default: its Hub repo)")
    args = p.parse_args(argv)
    if args.datasets_from is not None and args.out is None:
        p.error("--datasets-from writes task files for one machine's folders: add --out DIR "
                "(the package's own files read the Hub)")
    if args.out is not None and args.out.resolve() == FOLDER:
        p.error(f"--out {args.out} is the package's own folder; leave --out out to rewrite it")
    kwargs = {}
    if args.datasets_from is not None:
        root = args.datasets_from.resolve()
        kwargs["dataset_path"] = lambda dataset: str(root / dataset)
    for path in write_tasks(FOLDER if args.out is None else args.out, **kwargs):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
