"""Interruptions: the user's Ctrl-C or SIGTERM, told apart from a strategy raising
KeyboardInterrupt (docs/design.md, "Errors").

While :func:`handled` is in force (the command line's whole life, and every run of the Python
API made in the main thread), SIGINT and SIGTERM note the signal in :data:`SIGNALS` and then
raise KeyboardInterrupt. A KeyboardInterrupt with a signal noted is an interruption (exit
130); one without, raised inside a strategy's code, is the strategy's error (exit 4).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

#: The signals received while :func:`handled` was in force (cleared by :func:`reset`).
SIGNALS: list[int] = []

#: What a strategy's own code may raise that is its fault, not the user's: an exception, a
#: ``sys.exit``, a KeyboardInterrupt it raised itself (see :func:`is_interruption`), a
#: GeneratorExit.
FAULTS = (Exception, SystemExit, KeyboardInterrupt, GeneratorExit)


def raised(exc: BaseException) -> str:
    """What a strategy raised, for a message: the type's name and the message on one line;
    a BaseException subclass of its own is said to be one (``Boom (a BaseException, not an
    Exception): bang``), never taken for a kill."""
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    if not isinstance(exc, FAULTS):
        name += " (a BaseException, not an Exception)"
    return f"{name}: {text}" if text else name


_HANDLED = (signal.SIGINT, signal.SIGTERM)


def on_signal(signum, frame) -> None:
    """The handler of SIGINT and SIGTERM: note the signal, then stop what runs."""
    SIGNALS.append(signum)
    raise KeyboardInterrupt


def reset() -> None:
    """Forget the signals noted so far (a new run begins)."""
    SIGNALS.clear()


def is_interruption(exc: BaseException) -> bool:
    """``exc`` is the user's interruption: a KeyboardInterrupt raised after a signal."""
    return isinstance(exc, KeyboardInterrupt) and bool(SIGNALS)


def install() -> dict:
    """Install :func:`on_signal` for SIGINT and SIGTERM (main thread only; a signal the
    process was told to ignore, as ``nohup`` does, stays ignored). Returns the handlers it
    replaced, for :func:`restore`."""
    old: dict = {}
    if threading.current_thread() is not threading.main_thread():
        return old
    for s in _HANDLED:
        try:
            current = signal.getsignal(s)
            if current is signal.SIG_IGN or current is on_signal:
                continue
            old[s] = signal.signal(s, on_signal)
        except (ValueError, OSError):  # (not settable here)
            pass
    return old


def restore(old: dict) -> None:
    for s, handler in old.items():
        try:
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, OSError, TypeError):
            pass


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """:func:`install` for the duration of the block, then the previous handlers again."""
    old = install()
    if old:  # (the outermost: a signal noted before belongs to an earlier run)
        reset()
    try:
        yield
    finally:
        restore(old)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """While a run that was interrupted cleans up (stops its workers, writes its manifest),
    a second signal is only noted, so the cleanup ends and the exit code stays 130."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    for s in _HANDLED:
        try:
            current = signal.getsignal(s)
            if current is not signal.SIG_IGN:
                old[s] = signal.signal(s, _note)
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        restore(old)


def note_only() -> None:
    """From here to the end of the process SIGINT and SIGTERM are only noted (the command
    line's last moments: its status is already decided)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for s in _HANDLED:
        try:
            if signal.getsignal(s) is not signal.SIG_IGN:
                signal.signal(s, _note)
        except (ValueError, OSError):
            pass


def _note(signum, frame) -> None:
    SIGNALS.append(signum)
