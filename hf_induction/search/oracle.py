"""What a search costs before any training: its probes against a threshold oracle.

A size succeeds iff it is at least an assumed N*, so the count is the search's own, not a
guess; the campaign's time bound and the cost estimate both read it here.
"""

from __future__ import annotations

from .outcome import ProbeOutcome
from .run import run_search
from .settings import SearchSettings


def probes_to_find(n_star: int, pool_size: int, settings: SearchSettings) -> int:
    """How many probes ``settings``' search spends when exactly the sizes ≥ n_star succeed."""
    def oracle(n: int) -> ProbeOutcome:
        return ProbeOutcome(n=n, success=n >= n_star)

    return run_search(oracle, pool_size, settings).num_probes
