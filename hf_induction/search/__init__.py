"""The N* search (Algorithm 1 and the refined search) and the sharing factor κ.

This room sees training only through a probe: a function N -> ProbeOutcome that trains the
grid Φ on the first N training rows and says whether any run reached validation loss < ε.
It never imports torch or the models, so every rule here is tested against fake probes.

Wiring (the CLI builds the probe; ``hf_induction.results`` makes it resumable)::

    settings = SearchSettings(mode="refined", n_max=max_steps * batch_size)

    def probe(n: int) -> ProbeOutcome:      # answers recorded runs from the journal
        runs = [...]                        # one dict per run of the grid at size n
        return ProbeOutcome(n=n, success=any(r["success"] for r in runs),
                            best_val_loss=min(r["best_val_loss"] for r in runs),
                            steps=sum(r["steps"] for r in runs), runs=tuple(runs))

    result = run_search(probe, pool_size, settings)   # SearchResult
    print(result.summary())
    k = kappa({n: r.n_star for n, r in by_length.items()}, joint.n_star)
    low, high = kappa_bounds({n: r.bracket for n, r in by_length.items()}, joint.bracket)

Guarantees: no N is probed twice within a search; at most settings.max_search_steps probes
run; N is always an integer in [1, min(n_max, pool_size)].
"""

from .kappa import Bracket, kappa, kappa_bounds
from .outcome import Probe, ProbeOutcome
from .paper import paper_search
from .refined import refined_search
from .result import SEARCH_ENDS, SearchResult
from .run import run_search
from .settings import DEFAULT_MIDPOINT, MIDPOINTS, MODES, PAPER_N_MAX, SearchSettings

__all__ = [
    "Bracket",
    "DEFAULT_MIDPOINT",
    "MIDPOINTS",
    "MODES",
    "PAPER_N_MAX",
    "Probe",
    "SEARCH_ENDS",
    "ProbeOutcome",
    "SearchResult",
    "SearchSettings",
    "kappa",
    "kappa_bounds",
    "paper_search",
    "refined_search",
    "run_search",
]
