"""How the protocol records a setting whose record an earlier version wrote otherwise: each rule
here keeps the published folders made under that version at their protocol hashes, so that
they still resume. A setting added now needs none: it declares its `Setting.plain` value.

tests/runner/test_published_protocols.py holds every published folder's hash."""

from __future__ import annotations

from typing import Any


def early_failure_record(rule: dict[str, Any] | None) -> dict[str, Any]:
    """The protocol's keys for the early-failure rule (`training.early`, as a dict)."""
    # Folders made before the rules were objects recorded no rule, or the patience window,
    # as these two keys (0.5: the patience rule's halving, then its only value).
    if rule is None:
        return {"patience_steps": None, "min_improvement": 0.5}
    if rule["name"] == "patience":
        return {"patience_steps": rule["window"], "min_improvement": rule["min_improvement"]}
    rule = dict(rule)
    if rule["name"] == "forecast" and rule["whole_pool"]:
        # Its first version (forecast-v1), recorded so before the rule had the field.
        del rule["whole_pool"]
    return {"early_failure": rule}
