"""How a launch stops on a signal: SIGTERM (a scheduler's preemption, torchrun stopping its
workers) ends it as Ctrl-C does, and an interrupt that lands where Python would swallow it (a
finalizer, a library's own cleanup) still ends it. Every finished run is journaled either way,
so a rerun resumes."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the process is, so that it stops as cleanly as on Ctrl-C."""


def _terminated(signum, frame):
    raise Terminated()


def interrupt_in(error: BaseException) -> KeyboardInterrupt | None:
    """The interrupt an exception was raised while handling, if any: a signal that lands inside
    a library's own cleanup (tqdm releasing its write lock) can surface as that library's error
    with the interrupt as its context, and it is still the interrupt."""
    cause = error.__context__
    while cause is not None and not isinstance(cause, KeyboardInterrupt):
        cause = cause.__context__
    return cause


@contextmanager
def _swallowed_interrupts_kept() -> Iterator[list[KeyboardInterrupt]]:
    """Ctrl-C or SIGTERM that lands in a finalizer (a weakref callback, a ``__del__``) is
    raised there and swallowed by Python, with a traceback on stderr: it is kept here instead,
    in the list this yields."""
    swallowed: list[KeyboardInterrupt] = []
    hook = sys.unraisablehook

    def keep(unraisable) -> None:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            swallowed.append(unraisable.exc_value)
        else:
            hook(unraisable)

    sys.unraisablehook = keep
    try:
        yield swallowed
    finally:
        sys.unraisablehook = hook


def run_interruptible(work: Callable[[], T]) -> T:
    """``work()``, ended by SIGTERM as by Ctrl-C (`Terminated`, a KeyboardInterrupt), with an
    interrupt Python would have swallowed or a library wrapped raised as itself once the work
    returns or fails."""
    signal.signal(signal.SIGTERM, _terminated)
    with _swallowed_interrupts_kept() as swallowed:
        try:
            result = work()
        except Exception as e:
            interrupt = interrupt_in(e)
            if interrupt is None:
                raise
            raise interrupt from None
        if swallowed:
            raise swallowed[0]
    return result
