"""The N* search's modes and midpoints, and the paper's largest N: the facts the settings'
declarations (`settings.declared`) and `SearchSettings` both read."""

from __future__ import annotations

from typing import Literal

Mode = Literal["paper", "refined"]
Midpoint = Literal["geometric", "arithmetic"]

MODES: tuple[str, ...] = ("paper", "refined")
MIDPOINTS: tuple[str, ...] = ("geometric", "arithmetic")

# The paper's N_max: every sample its 250,000-step budget at batch 64 can draw.
PAPER_N_MAX = 250_000 * 64

# Where the midpoint is None, each mode takes its own default:
# - paper: "arithmetic", the plain reading of "binary search" in Algorithm 1;
# - refined: "geometric", so each step halves the bracket in log space, the scale on
#   which rtol is measured.
DEFAULT_MIDPOINT: dict[str, str] = {"paper": "arithmetic", "refined": "geometric"}
