"""The tables and figures of a results folder, for docs/results.md.

    hf-induction report results/first_campaign --out docs/results/first_campaign

writes OUT/tables.md (protocol and its deviations from the paper, N* per search, κ, OOD, N*
against the group size, compute per model, and the attention heads where the folder has
them) and the PNG figures it links: N* against length and κ per task (the leaderboard's),
N* against |G|, and per checkpoint and prompt config the heads' heat maps and patching.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from hf_induction.commands.parsing import Parser, output_folder, prog
from hf_induction.results import ResultsFolder, existing_results_folder

from ..results.rows import HeadsRow, NstarRow, PatchingRow


def group_figures(folder: ResultsFolder, out: Path) -> list[Path]:
    """N* against the group size, one figure per series of cells; where several groups share
    a size (the group family's Z12, D6, A4), each group stands on its own, named."""
    from hf_induction.display.report import nstar_vs_group
    from hf_induction.hub.plots import plot_nstar_by_group, plot_nstar_vs_group
    from hf_induction.results import latest

    by_family = defaultdict(dict)
    for s in nstar_vs_group(latest(folder.read(NstarRow))):
        by_family[(s.dataset, s.family)][s.model] = [
            (r.variant, r.alphabet_size, r.solvable, r.n_star, r.largest_failing)
            for _, r in s.points]
    figures = []
    for (dataset, family), series in sorted(by_family.items()):
        path = out / f"nstar_vs_group_{dataset}_{family}.png"
        title = f"N* against |G|: {dataset} {family}"
        named = {label: size for points in series.values() for label, size, *_ in points}
        if len(set(named.values())) < len(named):
            figures.append(plot_nstar_by_group(series, path, title))
        else:
            figures.append(plot_nstar_vs_group(
                {model: [(size, n, f) for _, size, _, n, f in points]
                 for model, points in series.items()}, path, title))
    return figures


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog=prog(__name__), description=__doc__)
    p.add_argument("results", type=existing_results_folder,
                   help="a results folder (one holding protocol.json, as hf-induction nstar "
                   "writes)")
    p.add_argument("--out", required=True, type=output_folder, help="the folder to write into")
    args = p.parse_args(argv)
    folder = args.results
    # Imported after the arguments are checked: usage errors come before torch.
    from hf_induction.display.report import render_tables
    from hf_induction.hub.head_plots import write_head_figures
    from hf_induction.hub.leaderboard import leaderboard_entries
    from hf_induction.hub.plots import write_figures
    from hf_induction.hub.reach_plots import write_reach_figures
    from hf_induction.results import ReachRow, kappa_rows
    from hf_induction.results.reach import reach_groups

    args.out.mkdir(parents=True, exist_ok=True)
    figures = write_figures(leaderboard_entries(kappa_rows(folder)), args.out)
    figures += group_figures(folder, args.out)
    figures += write_reach_figures(reach_groups(folder.read(ReachRow)), args.out)
    # The heads section links its own figures (kept out of the list at the end).
    head_figures = write_head_figures([r.to_dict() for r in folder.read(HeadsRow)],
                                      [r.to_dict() for r in folder.read(PatchingRow)], args.out)
    tables = args.out / "tables.md"
    tables.write_text(render_tables(folder, [f.name for f in figures], head_figures),
                      encoding="utf-8")
    for path in (tables, *figures, *(p for f in head_figures.values() for p in f.values())):
        print(path)
    return 0

