"""Training and search settings, each declared once (`declared`): its flag, recipe and sweep
key, value under each budget preset, and protocol record are read from its declaration.

Torch-free: the command line parses and checks every setting before torch is imported; only
`Setting.build` (a rule's name into the rule, the device) may import it."""

from .declared import GROUPS, LAUNCH, SEARCH, SETTINGS, SWEEP_GROUPS, TRAINING
from .setting import ALWAYS, Setting, built, check_fields, defaults, protocol_record, resolve

__all__ = ["ALWAYS", "GROUPS", "LAUNCH", "SEARCH", "SETTINGS", "SWEEP_GROUPS", "TRAINING",
           "Setting", "built", "check_fields", "defaults", "protocol_record", "resolve"]
