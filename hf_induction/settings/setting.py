"""What one setting declares, and what is read from the declarations alone: a preset's value,
the values a campaign resolves, the protocol's record of them, and the defaults and checks of
the settings objects that hold them (`TrainSettings`, `SearchSettings`)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A `Setting.plain` left unset: the setting is recorded at every value.
ALWAYS = object()
# A `Setting.api_default` left unset: the settings object's default is the paper preset's.
PAPER_PRESET = object()


@dataclass(frozen=True)
class Setting:
    """One training or search setting, declared once (`declared.SETTINGS`).

    Its flag, its recipe and sweep key, its value under each budget preset, and its place in
    the protocol are all read from here; the settings object it fills (`TrainSettings`,
    `SearchSettings`) holds a field of the same ``name``, read by the code that uses it.

    Args:
        name: the field of the settings object it fills.
        part: ``"train"`` (`TrainSettings`), ``"search"`` (`SearchSettings`) or ``"launch"``
            (`LaunchOptions`: how one launch runs, never in the protocol).
        help: what it does, for the flag's help (the default is added to it).
        parse: one value as written -> the value; its errors state the bound (`values`).
        default: its value where no preset gives one of its own.
        presets: {budget preset: value} where a preset sets another value than ``default``.
        derive: where no value was given, the default read from the other settings' values
            ({name: value} -> value; None keeps the preset's): n_max is max_steps x batch_size.
        build: the resolved value -> the value its settings object takes (off -> None, a
            rule's name -> the rule); it may import torch, which parsing never does.
        recorded: whether the protocol records it: False for what changes where or how fast
            a result is computed, not what it is.
        plain: the value every folder made before the setting existed trained with; at it the
            protocol leaves the setting out, so that those folders keep their hashes. A
            setting added later declares this (`ALWAYS`: recorded at every value).
        record: {name: value} the protocol records for the value, where it is not
            ``{name: value}`` (`legacy`).
        flag: its command-line flag ("" for ``--name``; None for none).
        group: the help group of its flag: ``"budget"``, ``"search"`` (both also a sweep's
            ``budget:`` keys) or ``"run"``; None: the command's own options.
        switch_to: a flag without a value that sets the setting to this (``--full-grid``:
            stop_on_first_success False).
        negatable: the flag comes as ``--name`` and ``--no-name`` (on and off).
        nargs: how many values its flag takes, as argparse says it (``--report-to a b``).
        const: the value of a flag given without one (``--push-checkpoints`` alone).
        choices: the values it takes, as argparse takes them.
        metavar: its value's name in the flag's help.
        default_help: the flag's "(default: ...)" text where the value is not one fixed
            value; ``{presets}`` stands for each preset's value.
        bound: the check of the value its settings object holds, where it is wider than the
            flag's ``parse`` (n_max, derived from max_steps x batch size where not given, may
            exceed what --n-max may ask; the memory check bounds the sets it reaches).
        api_default: where the settings object built in Python (``TrainSettings()``) takes
            another default than the paper preset's, one no flag spells: ``dtype`` None, the
            dtype the model's factory builds it in. The value is allowed besides the
            setting's own.
    """

    name: str
    part: str
    help: str
    parse: Callable[[str], Any] | None = None
    default: Any = None
    presets: Mapping[str, Any] = field(default_factory=dict)
    derive: Callable[[Mapping[str, Any]], Any] | None = None
    build: Callable[[Any], Any] | None = None
    recorded: bool = True
    plain: Any = ALWAYS
    record: Callable[[Any], dict[str, Any]] | None = None
    flag: str | None = ""
    group: str | None = "budget"
    switch_to: Any = None
    negatable: bool = False
    nargs: str | None = None
    const: Any = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    default_help: str | None = None
    bound: Callable[[str], Any] | None = None
    api_default: Any = PAPER_PRESET

    @property
    def option(self) -> str | None:
        """The flag as typed: ``--max-steps``."""
        if self.flag is None:
            return None
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def dest(self) -> str | None:
        """The flag's argparse dest, which is also its recipe key: ``max_steps``."""
        return None if self.option is None else self.option[2:].replace("-", "_")

    def under(self, preset: str) -> Any:
        """Its value under the budget preset ``preset``."""
        return self.presets.get(preset, self.default)

    def check(self, value: Any) -> None:
        """ValueError, one line naming the setting, if ``value`` (as its settings object holds
        it) is not one the setting takes: outside its ``choices``, or refused by its ``parse``
        read back from the value as a flag would spell it, so that the bound is written once
        and holds for the Python API as for the command line. The default needs no check."""
        if value == self.default or (self.api_default is not PAPER_PRESET
                                      and value == self.api_default):
            return
        # A flag of several values (nargs + or *) holds a sequence, each value checked.
        values = value if self.nargs in ("+", "*") else (value,)
        if self.choices is not None:
            if any(v not in self.choices for v in values):
                raise ValueError(f"{self.name} must be one of {', '.join(self.choices)}, "
                                 f"got {value!r}")
            return
        check = self.bound or self.parse
        if check is None:
            return
        try:
            for one in values:
                check(spelled(one))
        except (argparse.ArgumentTypeError, ValueError, TypeError) as e:
            raise ValueError(f"{self.name}: {e}") from None

    def protocol_record(self, value: Any) -> dict[str, Any]:
        """What the protocol records of it at ``value`` (as `dataclasses.asdict` gives it)."""
        if not self.recorded or (self.plain is not ALWAYS and value == self.plain):
            return {}
        return self.record(value) if self.record is not None else {self.name: value}


def spelled(value: Any) -> str:
    """A value as a flag spells it, exactly (repr for a number): 1e-05,0.001; on; off."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "off"
    if isinstance(value, tuple | list):
        return ",".join(spelled(v) for v in value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value if isinstance(value, str) else repr(value)


def defaults(settings: Iterable[Setting]) -> dict[str, Any]:
    """{name: value} a settings object takes where none is given: each setting's value under
    the paper's protocol (its `Setting.api_default` where it declares one), as the object
    holds it (`Setting.build`)."""
    def default(s: Setting) -> Any:
        if s.api_default is not PAPER_PRESET:
            return s.api_default
        return s.build(s.under("paper")) if s.build else s.under("paper")

    return {s.name: default(s) for s in settings}


def check_fields(settings: Iterable[Setting], holder: Any) -> None:
    """`Setting.check` of each declared setting's field of ``holder`` (a settings object)."""
    for s in settings:
        s.check(getattr(holder, s.name))


def resolve(settings: Iterable[Setting], preset: str, given: Mapping[str, Any],
            own: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """{name: value}: each setting's default, under its preset's value, under the model's own
    (``own``: its budget under the preset), under the values ``given``; then each one not
    given whose default follows from the others (`Setting.derive`) takes that."""
    settings = list(settings)
    own = own or {}
    values = {s.name: given.get(s.name, own.get(s.name, s.under(preset))) for s in settings}
    for s in settings:
        if s.derive is not None and s.name not in given:
            derived = s.derive(values)
            if derived is not None:
                values[s.name] = derived
    return values


def built(settings: Iterable[Setting], values: Mapping[str, Any]) -> dict[str, Any]:
    """{name: value} as the settings objects take them (`Setting.build`)."""
    return {s.name: s.build(values[s.name]) if s.build else values[s.name] for s in settings}


def protocol_record(settings: Iterable[Setting], fields: Mapping[str, Any]) -> dict[str, Any]:
    """The protocol's record of a settings object's ``fields`` (`dataclasses.asdict`)."""
    record: dict[str, Any] = {}
    for s in settings:
        record.update(s.protocol_record(fields[s.name]))
    return record
