"""The results folder: one campaign as a Hub dataset repo of the journal and the result tables.

Layout of ``DIR`` (``load_dataset(DIR, "nstar" | "kappa" | "journal" | ...)`` reads it)::

    README.md        the card: what the folder holds, its protocol and commands, configs +
                     declared column types of every table (rank 0 writes it, atomically)
    protocol.json    what every result depends on; another protocol is refused
    campaign.json    the card's description and the command lines that wrote the folder
    journal/rank<r>.jsonl   one line per finished training run
    nstar/rank<r>.jsonl     one NstarRow per finished search
    kappa/rank<r>.jsonl     one KappaRow per κ
    ood/rank<r>.jsonl       one OodRow per out-of-distribution check (word problems)
    reach/rank<r>.jsonl     one ReachRow per (OOD check, length 2L..1,000L) scored
    lengthgen/rank<r>.jsonl one LengthGenRow per length-generalisation check
    pushes/rank<r>.jsonl    one PushRow per checkpoint pushed to the Hub
    heads/rank<r>.jsonl     one HeadsRow per (checkpoint, prompt config, layer, head) scored
    patching/rank<r>.jsonl  one PatchingRow per (checkpoint, prompt config, kind, head)
    heads.json              the heads and patching rows nested by checkpoint and config
    checkpoints/<model>-<config>-n<N>/   a kept model (`checkpoints.checkpoint_name`)

Campaigns are sibling folders (``results/cpu``, ``results/gpt2``): a new folder inside or
around another results folder is refused (NestedResults).

Wiring in the CLI (rank = PartialState().process_index)::

    folder = ResultsFolder(out, rank=rank)
    phash = folder.check_protocol(protocol, force=args.force)    # main process first
    folder.record_command(sys.argv)                             # listed on the card once
    cell = dict(dataset=ds, config=cfg, model=m, model_config_hash=mch, protocol=phash)
    skey = run_key(kind="search", **cell)
    if (row := folder.find(NstarRow, skey)) is None:               # finished searches skip
        def probe(n):                                           # one run per (lr, seed)
            rkey = run_key(kind="run", n=n, lr=lr, seed=seed, **cell)
            rec = folder.find_run(rkey) or folder.append_run(rkey, train(...))
            ...                                                 # -> ProbeOutcome
        result = run_search(probe, pool_size, settings)
        row = NstarRow.from_search(result, settings, key=skey, ...)
        folder.append(row)
    folder.append(KappaRow.build(key=kkey, by_length=rows_by_n, joint=joint_row))
    write_table(kappa_lines(folder.read(KappaRow)), KAPPA_COLUMNS, file=sys.stdout)

A rerun repeats the (deterministic) search from its start; every probe it already ran is
answered from the journal, so no finished training run is repeated.
"""

from .checkpoints import checkpoint_name, kept_checkpoints, read_trained_on
from .derived import kappa_from_nstar, kappa_rows
from .folder import ResultsFolder, check_not_nested, command_line, existing_results_folder
from .jsonl import CorruptLineWarning
from .keys import run_key, stable_hash
from .load import read_rows, read_table
from .protocol import (
    CorruptResults,
    NestedResults,
    ProtocolMismatch,
    diff_protocols,
    model_protocol,
    protocol_summary,
)
from .render import (
    KAPPA_COLUMNS,
    LENGTHGEN_COLUMNS,
    NSTAR_COLUMNS,
    OOD_COLUMNS,
    REACH_COLUMNS,
    Column,
    Columns,
    kappa_bounds_text,
    kappa_lines,
    kappa_text,
    lengthgen_lines,
    missing_nstar,
    nstar_bracket,
    nstar_lines,
    nstar_text,
    write_table,
)
from .rows import (
    CELL_COLUMNS,
    CellRow,
    HeadsRow,
    JournalRow,
    KappaRow,
    LengthGenRow,
    NstarRow,
    OodRow,
    PatchingRow,
    PushRow,
    ReachRow,
    Row,
)
from .tables import TABLES, Table, latest

__all__ = [
    "CELL_COLUMNS",
    "CellRow",
    "HeadsRow",
    "JournalRow",
    "PatchingRow",
    "checkpoint_name",
    "kept_checkpoints",
    "read_trained_on",
    "NestedResults",
    "PushRow",
    "Row",
    "TABLES",
    "Table",
    "check_not_nested",
    "command_line",
    "protocol_summary",
    "KAPPA_COLUMNS",
    "kappa_bounds_text",
    "kappa_from_nstar",
    "kappa_rows",
    "latest",
    "kappa_lines",
    "kappa_text",
    "missing_nstar",
    "nstar_bracket",
    "nstar_lines",
    "nstar_text",
    "LENGTHGEN_COLUMNS",
    "NSTAR_COLUMNS",
    "OOD_COLUMNS",
    "REACH_COLUMNS",
    "Column",
    "Columns",
    "CorruptLineWarning",
    "CorruptResults",
    "KappaRow",
    "LengthGenRow",
    "NstarRow",
    "OodRow",
    "ReachRow",
    "ProtocolMismatch",
    "ResultsFolder",
    "diff_protocols",
    "model_protocol",
    "existing_results_folder",
    "lengthgen_lines",
    "read_rows",
    "read_table",
    "run_key",
    "stable_hash",
    "write_table",
]
