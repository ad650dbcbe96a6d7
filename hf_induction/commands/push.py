"""Push a results folder to a Hub dataset repo, in one commit.

    hf-induction push results/first_campaign org/induction-results [--create] [--private]
        [--max-retries 4]

The token comes from --token, HF_TOKEN or `hf auth login`. Unchanged results make no new
commit. On failure: one line on stderr, exit status 1, the local folder untouched, and the
Hub repo still at its previous commit.
"""

from __future__ import annotations

import sys

from hf_induction.commands.parsing import Parser, nonnegative_float, nonnegative_int, prog, repo_id
from hf_induction.hub import HubError, push_results
from hf_induction.results import existing_results_folder


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("folder", type=existing_results_folder,
                   help="the results folder (the --out folder of hf-induction nstar)")
    p.add_argument("repo_id", metavar="ORG/REPO", type=repo_id, help="the Hub dataset repo")
    p.add_argument("--token", default=None,
                   help="a write token (default: HF_TOKEN, else the `hf auth login` token)")
    p.add_argument("--create", action="store_true", help="create the repo if it does not exist")
    p.add_argument("--private", action="store_true", help="with --create: a private repo")
    p.add_argument("--max-retries", type=nonnegative_int, default=4,
                   help="retries of transient failures")
    p.add_argument("--backoff", type=nonnegative_float, default=1.0,
                   help="seconds before the first retry; doubled each time")
    p.add_argument("--message", default=None,
                   help="the commit message (default: \"Results from FOLDER\")")
    args = p.parse_args(argv)
    try:
        result = push_results(
            args.folder.path, args.repo_id, args.token, max_retries=args.max_retries,
            create=args.create, private=args.private or None, commit_message=args.message,
            backoff_s=args.backoff,
        )
    except HubError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    what = "pushed" if result.changed else "unchanged, no new commit"
    print(f"{args.repo_id}: {what} (commit {result.commit})")
    return 0

