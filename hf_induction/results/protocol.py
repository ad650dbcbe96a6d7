"""The protocol a results folder was made under, and what differs from another."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..tasks.sampling import DISJOINT
from .keys import stable_hash

_ABSENT = "<absent>"

# The file that makes a folder a results folder: `ResultsFolder` writes it first, and every
# command that reads results asks `is_results_folder` / `not_a_results_folder` about a path.
PROTOCOL_FILE = "protocol.json"
WHAT_A_RESULTS_FOLDER_IS = (f"a results folder is the --out folder of hf-induction nstar: "
                            f"it holds {PROTOCOL_FILE}, journal/ and its tables")


def is_results_folder(path: str | Path) -> bool:
    """Whether ``path`` is a results folder: a folder holding ``protocol.json``."""
    return (Path(path) / PROTOCOL_FILE).is_file()


def not_a_results_folder(path: str | Path) -> str:
    """One line saying why ``path`` is not a results folder, and what one is."""
    path = Path(path)
    if not path.exists():
        why = "does not exist"
    elif not path.is_dir():
        why = "is a file"
    elif not any(path.iterdir()):
        why = "is an empty folder"
    else:
        why = f"holds no {PROTOCOL_FILE}"
    return f"{path} is not a results folder: it {why} ({WHAT_A_RESULTS_FOLDER_IS})"


class CorruptResults(ValueError):
    """A file of a results folder cannot be read as what it should be (say protocol.json)."""


class NestedResults(ValueError):
    """A new results folder would sit inside another results folder, or around one: each
    campaign is a folder of its own, beside the others."""


class ProtocolMismatch(ValueError):
    """The results folder holds results of another protocol; mixing them would be wrong."""

    def __init__(self, path: Path, differences: Mapping[str, tuple[Any, Any]]) -> None:
        self.path = path
        self.differences = dict(differences)
        listed = "; ".join(f"{key}: folder {old!r}, this run {new!r}"
                           for key, (old, new) in sorted(self.differences.items()))
        hint = resume_hint(self.differences)
        super().__init__(
            f"{path} was written under another protocol ({listed}); {hint}use another output "
            "folder, or --force to replace the protocol"
        )


def resume_hint(differences: Mapping[str, tuple]) -> str:
    """What resumes a folder whose protocol an earlier version wrote: the early-failure flag
    that records the same rule as the folder did ("" when none does)."""
    held = {key: old for key, (old, _) in differences.items()}
    if held.get("train.early_failure.name", None) is _ABSENT and "train.patience_steps" in held:
        # Written before the rules were objects: no rule, or a patience window.
        window = held["train.patience_steps"]
        if window is None:
            return ("it was made with no early-failure rule: resume it with "
                    "--early-failure off, or ")
        return (f"it was made with a patience window of {window} steps: resume it with "
                f"--early-failure {window}, or ")
    if held.get("train.early_failure.whole_pool", None) is _ABSENT:
        return ("it was made with the forecast rule's first version: resume it with "
                "--early-failure forecast-v1, or ")
    return ""


def _flatten(obj: Any, prefix: str = "") -> dict[str, Any]:
    # Dotted keys name the exact setting that differs, e.g. "search.rtol".
    if isinstance(obj, Mapping) and obj:
        out: dict[str, Any] = {}
        for key, value in obj.items():
            out.update(_flatten(value, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: obj}


def diff_protocols(held: Mapping[str, Any], given: Mapping[str, Any]) -> dict[str, tuple]:
    """{dotted key: (held value, given value)} for every key whose value differs."""
    old, new = _flatten(held), _flatten(given)
    return {
        key: (old.get(key, _ABSENT), new.get(key, _ABSENT))
        for key in sorted(old.keys() | new.keys())
        if old.get(key, _ABSENT) != new.get(key, _ABSENT)
    }


# protocol.json's list of the models a launch added to the folder after its protocol was first
# recorded (`extend_protocol`); their settings sit in ``by_model`` with the others'.
ADDED_MODELS = "added_models"


def extend_protocol(held: Mapping[str, Any], given: Mapping[str, Any]
                    ) -> tuple[dict[str, Any], dict[str, tuple]]:
    """(the protocol to record, the differences that refuse the launch) for a launch with
    protocol ``given`` on a folder holding ``held``.

    A model with settings of its own that the folder has not seen joins it: its settings are
    added to ``by_model`` and its name to ``added_models``, and `protocol_hash` leaves both
    out, so the folder's runs keep their keys. A model the launch does not name keeps what the
    folder recorded. Any other setting that differs, a shared one or a recorded model's own,
    is a difference."""
    held_own, given_own = held.get("by_model", {}), given.get("by_model", {})
    new = sorted(set(given_own) - set(held_own))
    # Only the models both record are compared; the rest of held's stand for themselves.
    compared = {**{k: v for k, v in given.items() if k not in ("by_model", ADDED_MODELS)},
                **({"by_model": {**held_own, **{m: given_own[m] for m in given_own
                                                 if m in held_own}}} if held_own else {})}
    differences = diff_protocols({k: v for k, v in held.items() if k != ADDED_MODELS},
                                 compared)
    if not new:
        return dict(held), differences
    extended = {**held, "by_model": {**held_own, **{m: given_own[m] for m in new}},
                ADDED_MODELS: sorted([*held.get(ADDED_MODELS, []), *new])}
    return extended, differences


def protocol_hash(protocol: Mapping[str, Any]) -> str:
    """The hash that keys a folder's runs and rows: of its protocol as first recorded, so a
    model added later (`extend_protocol`) changes no key."""
    added = set(protocol.get(ADDED_MODELS, ()))
    core = {k: v for k, v in protocol.items() if k != ADDED_MODELS}
    if added:
        own = {m: v for m, v in core.get("by_model", {}).items() if m not in added}
        core = {k: v for k, v in core.items() if k != "by_model"}
        if own:
            core["by_model"] = own
    return stable_hash(core)


def model_protocol(protocol: Mapping[str, Any], model: str) -> dict[str, Any]:
    """The protocol one model's results were made under: the folder's, with the settings the
    model's preset gave it of its own (``by_model``, only what differs) laid over it."""
    own = protocol.get("by_model", {}).get(model, {})
    merged = {k: v for k, v in protocol.items() if k != "by_model"}
    for part, values in own.items():
        merged[part] = {**protocol.get(part, {}), **values}
    return merged


def validation_rule(protocol: Mapping[str, Any]) -> str:
    """The rule that set each probe's validation set apart (`tasks.VALIDATION_RULES`): a
    protocol records it off its default, ``disjoint``, which every folder made before the
    rule could be chosen validated by."""
    return protocol.get("train", {}).get("validation", DISJOINT)


def protocol_summary(protocol: Mapping[str, Any], model: str | None = None, *,
                     values: bool = False) -> str:
    """One line: steps, grid, ε, search, early failure; "?" where the protocol is unknown.
    With a model: that model's, where its preset gave it settings of its own. ``values``
    spells the grid and the search's start out (``lr {0.01, 0.003} × seeds {10, 20}``,
    ``refined search from N = 8``), and the forecast rule's version, where the default counts
    them (``2 lr × 2 seeds``)."""
    if model is not None:
        protocol = model_protocol(protocol, model)
    train, search = protocol.get("train", {}), protocol.get("search", {})
    if not train:
        return "?"
    lrs, seeds = train.get("lrs", []), train.get("seeds", [])
    rule = train.get("early_failure") or (
        {"name": f"patience {train['patience_steps']}"} if train.get("patience_steps") else None)
    if values:
        grid = (f"lr {{{', '.join(f'{x:g}' for x in lrs)}}} × "
                f"seeds {{{', '.join(str(x) for x in seeds)}}}")
        start = f" from N = {search['n_start']:,}" if "n_start" in search else ""
        if rule and rule["name"] == "forecast":
            # The first version also decided the probe of the whole pool (resume_hint).
            rule = {"name": "forecast" if rule.get("whole_pool") is False else "forecast-v1"}
    else:
        grid, start = f"{len(lrs)} lr × {len(seeds)} seeds", ""
    parts = [f"{train.get('max_steps', 0):,} steps", grid,
             f"ε {train.get('epsilon', '?'):g}" if "epsilon" in train else "ε ?",
             f"{search.get('mode', '?')} search{start}",
             f"early failure: {rule['name']}" if rule else "every run to its budget"]
    return ", ".join(parts)
