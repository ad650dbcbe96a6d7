"""Model sizes: `paper` (the paper's models) and `tiny` (CPU tests and demos), each model's
from its spec (`registry.SPECS`).

Values are config keyword arguments; `build_model` adds the vocabulary and special tokens.
"""

from .registry import SPECS
from .spec import PRESET_NAMES

PRESETS: dict[str, dict[str, dict]] = {
    preset: {name: dict(spec.presets[preset]) for name, spec in SPECS.items()}
    for preset in PRESET_NAMES
}
