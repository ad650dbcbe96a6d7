"""The rows of a results folder's tables, with the column types the dataset card declares.

Every column has one type in every row (None-able ints stay int64), and the probes with
their runs, whose shape the trainer decides, are one JSON string column, so
``load_dataset(DIR, "nstar")`` never meets two schemas. The rows of a cell (nstar, kappa,
ood, lengthgen) carry the cell's name parsed into columns (`CellRow`), so that a reader
filters and plots by L, group or task without parsing ``acot_L10_uniform_m3``.
"""

from __future__ import annotations

import json
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import KW_ONLY, MISSING, asdict, dataclass, fields
from datetime import datetime, timezone
from typing import Any, ClassVar

from .. import __version__, tasks
from ..search import ProbeOutcome, SearchResult, SearchSettings, kappa, kappa_bounds
from ..search.result import ALL_DIVERGED, BRACKET_ON_DIVERGED
from .jsonl import to_json

# The ends whose failing size measured the learning rates, not the data.
DIVERGED_ENDS = (ALL_DIVERGED, BRACKET_ON_DIVERGED)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Row:
    """A row of a results table, to and from the JSON object its line holds: one
    implementation for every table's row class."""

    # Columns an older version wrote that `from_dict` still reads (an N* row's ``converged``).
    READ_ALSO: ClassVar[tuple[str, ...]] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """The row a line holds; ValueError naming the columns it lacks."""
        # A column with a default is one a later version added: an older row lacks it.
        missing = [f.name for f in fields(cls)
                   if f.name not in data and f.default is MISSING
                   and f.default_factory is MISSING]
        if missing:
            raise ValueError(f"a {cls.__name__} needs {', '.join(missing)}")
        # JSON gives lists where the row holds tuples; frozen rows compare equal only as tuples.
        return cls(**{
            f.name: tuple(data[f.name]) if isinstance(data[f.name], list) else data[f.name]
            for f in fields(cls) if f.name in data
        })


    @classmethod
    def misfit(cls, data: Mapping[str, Any]) -> str | None:
        """Why the JSON object ``data`` is not a row of this table, in words (the first fault
        found), or None where it is one: a column the table does not have or a value of
        another type than its column's (`load_dataset` refuses the table for either, where it
        reads a missing column as null), or no key (no lookup finds it)."""
        columns = {f.name for f in fields(cls)}
        extra = sorted(set(data) - columns - set(cls.READ_ALSO))
        if extra:
            return f"column(s) {', '.join(extra)} not of the table"
        if "key" not in data:
            return "no key"
        hints = typing.get_type_hints(cls)
        for name, value in data.items():
            if name in hints and value is not None and not _fits(value, hints[name]):
                return f"{name} is a {type(value).__name__}, not {_dtype(hints[name])[1]}"
        return None


@dataclass(frozen=True)
class CellRow(Row):
    """What every row of a cell starts with: its key, the cell's name, and the name parsed.

    The parsed columns are a function of (dataset, config), filled in here whatever the
    caller passes, so they never disagree with the name; a name this version of the package
    cannot parse keeps the values given (a row written by another version), else None.
    """

    key: str
    dataset: str
    config: str
    # Keyword-only, so the rows that extend this one keep positional columns of their own.
    _: KW_ONLY
    # The cell parsed: L (the longest length), the family parameter as a label ("Z_5",
    # "S_3", "V16") and as the alphabet's size (|G| or V), the format or task ("acot",
    # "NRLast"), and the length law ("fixed", "uniform", "s2l").
    max_len: int | None = None
    variant: str | None = None
    alphabet_size: int | None = None
    kind: str | None = None
    dist: str | None = None
    # A word problem's group, its facts (`tasks.group_facts`): the order, whether it is
    # abelian, solvable, nilpotent, its exponent and conjugacy classes, and the circuit class
    # of its word problem ("TC0" if solvable, "NC1-complete" if not). None for other families.
    group_order: int | None = None
    abelian: bool | None = None
    solvable: bool | None = None
    nilpotent: bool | None = None
    exponent: int | None = None
    conjugacy_classes: int | None = None
    word_problem: str | None = None

    def __post_init__(self) -> None:
        cell = tasks.parse_or_none(self.dataset, self.config)
        if cell is None:
            return
        for name, value in cell_columns(cell).items():
            object.__setattr__(self, name, value)


def cell_columns(cell: tasks.TaskCell) -> dict[str, Any]:
    """The `CellRow` columns of a parsed cell."""
    return {"max_len": cell.max_len, "variant": cell.variant,
            "alphabet_size": cell.alphabet_size, "kind": cell.kind, "dist": cell.dist,
            **cell.facts()}


CELL_COLUMNS = tuple(f.name for f in fields(CellRow) if f.kw_only)


# The columns an N* row copies from its `SearchResult` under the same name.
_FROM_RESULT = ("pool_size", "n_cap", "n_star", "largest_failing", "num_probes", "total_steps")


@dataclass(frozen=True)
class NstarRow(CellRow):
    """One finished search. ``probes`` is a JSON list of ProbeOutcome dicts with their runs."""

    model: str
    model_config_hash: str
    search_mode: str
    # float64 on the Hub: pools such as S5 at length 10 (6.2e20 words) overflow int64.
    pool_size: float
    n_cap: int
    n_star: int | None
    largest_failing: int | None
    # How the search ended, in words (`search.SEARCH_ENDS`): "bracket closed", "largest
    # size failed", "every run diverged", "probe limit reached", ...
    search_end: str
    num_probes: int
    total_steps: int
    probes: str
    search_settings: str
    epsilon: float
    protocol_hash: str
    package_version: str
    git_commit: str
    hardware: str
    wall_s: float
    finished_at: str

    @classmethod
    def from_search(
        cls,
        result: SearchResult,
        settings: SearchSettings,
        *,
        key: str,
        dataset: str,
        config: str,
        model: str,
        model_config_hash: str,
        epsilon: float,
        protocol_hash: str,
        git_commit: str = "",
        hardware: str = "",
        wall_s: float | None = None,
        package_version: str = __version__,
        finished_at: str | None = None,
    ) -> NstarRow:
        """The row for ``result``; wall_s defaults to the probes' summed wall time."""
        return cls(
            key=key,
            dataset=dataset,
            config=config,
            model=model,
            model_config_hash=model_config_hash,
            search_mode=result.mode,
            search_end=result.end,
            **{name: getattr(result, name) for name in _FROM_RESULT},
            probes=to_json([p.to_dict() for p in result.probes]),
            search_settings=to_json(settings.to_dict(), sort_keys=True),
            epsilon=float(epsilon),
            protocol_hash=protocol_hash,
            package_version=package_version,
            git_commit=git_commit,
            hardware=hardware,
            wall_s=float(result.wall_s if wall_s is None else wall_s),
            finished_at=finished_at or _now(),
        )

    @property
    def bracket(self) -> tuple[int | None, int | None]:
        """(largest_failing, n_star), as ``kappa_bounds`` takes it. A failing size where every
        run diverged bounds nothing (the rates failed, not the data): no failure is known."""
        if self.search_end in DIVERGED_ENDS:
            return None, self.n_star
        return self.largest_failing, self.n_star

    def probe_outcomes(self) -> tuple[ProbeOutcome, ...]:
        return tuple(ProbeOutcome.from_dict(p) for p in json.loads(self.probes))

    @property
    def diverged_probes(self) -> tuple[ProbeOutcome, ...]:
        """The probes at which every run's loss went to inf or NaN."""
        return tuple(p for p in self.probe_outcomes() if p.all_diverged)

    READ_ALSO: ClassVar[tuple[str, ...]] = ("converged",)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NstarRow:
        if "search_end" not in data and "converged" in data:
            data = _legacy_search_end(data)
        return super().from_dict(data)


def _legacy_search_end(data: Mapping[str, Any]) -> dict[str, Any]:
    """A row written before `search_end` held a boolean ``converged``: its end in words, as
    the search that wrote it would name it now."""
    probes = tuple(ProbeOutcome.from_dict(p) for p in json.loads(data.get("probes") or "[]"))
    result = SearchResult(mode=data["search_mode"], n_star=data["n_star"],
                          largest_failing=data["largest_failing"],
                          converged=bool(data["converged"]), pool_size=data["pool_size"],
                          n_cap=data["n_cap"], probes=probes)
    rest = {k: v for k, v in data.items() if k != "converged"}
    return {**rest, "search_end": result.end}


@dataclass(frozen=True)
class KappaRow(CellRow):
    """One κ: N*_n for each length (in ``lengths`` order) and N*_joint; its cell is the joint
    one.

    kappa is None when some N* is None (undefined); kappa_high is None when unbounded.
    """

    model: str
    model_config_hash: str
    search_mode: str
    lengths: tuple[int, ...]
    nstar_by_length: tuple[int | None, ...]
    largest_failing_by_length: tuple[int | None, ...]
    nstar_joint: int | None
    largest_failing_joint: int | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    epsilon: float
    protocol_hash: str
    package_version: str
    git_commit: str
    finished_at: str

    @classmethod
    def build(
        cls,
        *,
        key: str,
        by_length: Mapping[int, NstarRow],
        joint: NstarRow,
        git_commit: str | None = None,
        package_version: str = __version__,
        finished_at: str | None = None,
    ) -> KappaRow:
        """κ from the nstar rows of each fixed length n and of the joint (uniform) config.

        Dataset, config (the joint one), model, search mode, ε and protocol come from
        ``joint``, and so does the code's commit unless ``git_commit`` is given.
        """
        lengths = tuple(sorted(by_length))
        value = kappa({n: by_length[n].n_star for n in lengths}, joint.n_star)
        low, high = kappa_bounds({n: by_length[n].bracket for n in lengths}, joint.bracket)
        return cls(
            key=key,
            dataset=joint.dataset,
            config=joint.config,
            model=joint.model,
            model_config_hash=joint.model_config_hash,
            search_mode=joint.search_mode,
            lengths=lengths,
            nstar_by_length=tuple(by_length[n].n_star for n in lengths),
            largest_failing_by_length=tuple(by_length[n].largest_failing for n in lengths),
            nstar_joint=joint.n_star,
            largest_failing_joint=joint.largest_failing,
            kappa=None if math.isnan(value) else value,
            kappa_low=low,
            kappa_high=None if math.isinf(high) else high,
            epsilon=joint.epsilon,
            protocol_hash=joint.protocol_hash,
            package_version=package_version,
            git_commit=joint.git_commit if git_commit is None else git_commit,
            finished_at=finished_at or _now(),
        )



@dataclass(frozen=True)
class BestRunRow(CellRow):
    """What a check of the best run at size ``n`` starts with: the model, and the run the
    grid chose (its learning rate, seed, steps and best validation loss)."""

    model: str
    model_config_hash: str
    n: int
    lr: float
    seed: int
    steps: int
    val_loss: float | None


@dataclass(frozen=True)
class OodRow(BestRunRow):
    """One out-of-distribution check: the best run at size ``n``, tested at length 2L.

    Normalised accuracies map chance (1/|G|) to 0 and perfect to 1.
    """

    test_length: int
    state_accuracy: float
    final_state_accuracy: float
    normalised_state_accuracy: float
    normalised_final_state_accuracy: float
    protocol_hash: str
    finished_at: str



@dataclass(frozen=True)
class ReachRow(BestRunRow):
    """How far an OOD check's best run carries: its accuracies at one length, ``factor``
    times L (`runner.reach`), over ``rows`` rows of that length (fewer than asked where the
    length's pool holds fewer words; 0 where it was not scored).

    ``scored`` False: the rows are longer than the model's learned absolute positions, and
    the accuracies are None. Normalised accuracies map ``chance`` (1/|G|) to 0 and perfect
    to 1.
    """

    length: int
    factor: int
    rows: int
    scored: bool
    chance: float
    state_accuracy: float | None
    final_state_accuracy: float | None
    normalised_state_accuracy: float | None
    normalised_final_state_accuracy: float | None
    protocol_hash: str
    finished_at: str


@dataclass(frozen=True)
class LengthGenRow(BestRunRow):
    """One length-generalisation check: the best run at size ``n``, scored on the validation
    set (the training lengths) and on every test split (longer lengths).

    ``results`` is JSON: ``{split: {"lengths": "11..20", metric: value, ...}}`` with the
    family's own metrics (a word problem's state accuracies, retrieval's accuracy, copy's
    exact match and token accuracy), in split order.
    """

    results: str
    protocol_hash: str
    finished_at: str

    def table(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.results)



@dataclass(frozen=True)
class HeadsRow(Row):
    """One attention head of one checkpoint, scored on one prompt config
    (``analysis.head_scores``): the share of its attention, averaged over the scored
    positions, on the token after the earlier occurrence (``induction``), before it
    (``anti_induction``), on the previous token and on the occurrence itself.

    ``checkpoint`` is the kept checkpoint's folder name, or the path given; ``dataset`` and
    ``config`` name the prompts: a task cell's validation rows, or ``repeated``,
    ``repeated_L{k}_V{v}`` for repeated random sequences; ``trained_on`` is the checkpoint's
    training cell as ``dataset/config``, "" where unknown.
    """

    key: str
    model: str
    checkpoint: str
    dataset: str
    config: str
    trained_on: str
    layer: int
    head: int
    induction: float
    anti_induction: float
    previous_token: float
    duplicate_token: float
    n_prompts: int
    n_positions: int
    seed: int
    finished_at: str



@dataclass(frozen=True)
class PatchingRow(Row):
    """One head of one checkpoint, patched on one prompt config for one ``kind``
    (``analysis.edge_patching``): the loss and exact match with its induction keys or
    anti-induction values taken from the run whose previous-token edges are cut, against the
    clean run's (``base_*``). ``rank`` orders the heads by ``delta_ce`` (1: the largest rise)
    within their (checkpoint, config, kind); losses are null where nothing was scored."""

    key: str
    model: str
    checkpoint: str
    dataset: str
    config: str
    trained_on: str
    kind: str
    rank: int
    layer: int
    head: int
    ce: float | None
    exact_match: float | None
    base_ce: float | None
    base_exact_match: float | None
    delta_ce: float | None
    delta_exact_match: float | None
    n_edges: int
    n_prompts: int
    seed: int
    finished_at: str



@dataclass(frozen=True)
class JournalRow(Row):
    """One finished training run, as the runner journals it: the cell's key fields, the size
    ``n``, and the trainer's `RunResult` (losses are null where the run never evaluated or
    diverged). The folder stores the runner's mapping as it comes (`ResultsFolder.append_run`);
    this class declares the journal's columns for the dataset card.
    """

    key: str
    dataset: str
    config: str
    model: str
    model_config_hash: str
    protocol: str
    data_seed: int
    n: int
    lr: float
    seed: int
    success: bool
    best_val_loss: float | None
    final_val_loss: float | None
    steps: int
    wall_s: float
    stop_reason: str


@dataclass(frozen=True)
class PushRow(Row):
    """One checkpoint push that landed: the model repo ``repo_id`` of the search ``search``."""

    key: str
    repo_id: str
    search: str
    pushed_at: str

    @classmethod
    def now(cls, key: str, repo_id: str, search: str) -> PushRow:
        return cls(key=key, repo_id=repo_id, search=search, pushed_at=_now())



_DTYPES = {str: "string", bool: "bool", int: "int64", float: "float64"}


def _dtype(tp: Any) -> tuple[str, str]:
    # (YAML key, dtype): a plain value, or a list of one.
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        (tp,) = [a for a in typing.get_args(tp) if a is not type(None)]
    if typing.get_origin(tp) is tuple:
        return "list", _dtype(typing.get_args(tp)[0])[1]
    return "dtype", _DTYPES[tp]


def _fits(value: Any, tp: Any) -> bool:
    """Whether a JSON value is of a column's type: a list for a list column; JSON's number
    for a float (an integer-valued float is written as an integer), never a boolean."""
    kind, dtype = _dtype(tp)
    if kind == "list":
        return isinstance(value, list)
    if dtype == "bool" or isinstance(value, bool):
        return dtype == "bool" and isinstance(value, bool)
    return isinstance(value, {"string": str, "int64": int, "float64": (int, float)}[dtype])


def features_yaml(cls: type) -> list[dict[str, str]]:
    """The ``dataset_info.features`` list of a dataset card for one row class."""
    hints = typing.get_type_hints(cls)
    out = []
    for f in fields(cls):
        yaml_key, dtype = _dtype(hints[f.name])
        out.append({"name": f.name, yaml_key: dtype})
    return out
