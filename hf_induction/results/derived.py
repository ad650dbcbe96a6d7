"""κ from recorded N* rows, for folders whose searches ran in separate commands."""

from __future__ import annotations

from collections import defaultdict

from .. import tasks
from .folder import ResultsFolder
from .keys import run_key
from .rows import KappaRow, NstarRow
from .tables import latest


def kappa_from_nstar(rows: list[NstarRow]) -> list[KappaRow]:
    """Every κ the rows allow: a uniform row plus fixed rows for each n = 2..L.

    Rows are matched on dataset, model, model config hash, protocol and search mode.
    """
    by_cell: dict[tuple, dict[str, NstarRow]] = defaultdict(dict)
    for row in rows:
        by_cell[(row.dataset, row.model, row.model_config_hash, row.protocol_hash,
                 row.search_mode)][row.config] = row
    out = []
    for (dataset, *_), configs in sorted(by_cell.items()):
        for name, joint in sorted(configs.items()):
            cell = tasks.parse(dataset, name)
            if cell.dist != "uniform":
                continue
            fixed = {n: configs.get(str(cell.with_length(n))) for n in cell.lengths}
            if all(fixed.values()):
                key = run_key(kind="kappa-table", search=joint.key)
                out.append(KappaRow.build(key=key, by_length=fixed, joint=joint))
    return out


def kappa_rows(folder: ResultsFolder) -> list[KappaRow]:
    """Recorded κ rows plus those the N* rows allow (a campaign cut short records none)."""
    recorded = latest(folder.read(KappaRow))

    def family(r: KappaRow) -> tuple:
        return (r.dataset, r.config, r.model, r.model_config_hash, r.protocol_hash)

    known = {family(r) for r in recorded}
    derived = [r for r in kappa_from_nstar(latest(folder.read(NstarRow))) if family(r) not in known]
    return recorded + derived
