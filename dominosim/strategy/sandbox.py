"""A user's code in a process of its own: what it does there cannot end ours (docs/design.md,
"Errors": strategies cannot end the process).

:func:`die_with_parent` makes a child process end when its parent does (pool workers, and the
children of :func:`call`); :func:`call` runs a function in a forked child and gives back its
result or its error, or says how the child ended when it ended without answering
(``os._exit`` at a strategy file's import, a crash).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from dominosim.base.errors import DominosimError, StrategyError
from dominosim.base.signals import is_interruption, raised

#: Seconds between two looks of a child's watchdog at its parent (where prctl is missing).
WATCH_SECONDS = 0.5


def die_with_parent(parent: int) -> None:
    """End this process as soon as its parent process ``parent`` is gone (``kill -9`` of the
    run), whatever a strategy is doing: on Linux the kernel kills it
    (``prctl(PR_SET_PDEATHSIG, SIGKILL)``); elsewhere a daemon thread looks at the parent
    every :data:`WATCH_SECONDS` and ends the process. A parent gone before this ran (the race
    prctl leaves) ends it at once."""
    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(1, signal.SIGKILL, 0, 0, 0) == 0  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if armed:
        return
    import threading

    def watch() -> None:
        while True:
            time.sleep(WATCH_SECONDS)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="dominosim-watchdog", daemon=True).start()


class ProcessEnded(StrategyError):
    """The child process of :func:`call` ended without answering (a user's code ended it)."""


def how_it_ended(status: int) -> str:
    """A child's wait status in words."""
    if os.WIFSIGNALED(status):
        try:
            name = signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            name = f"signal {os.WTERMSIG(status)}"
        return f"killed by {name}"
    return f"exit code {os.WEXITSTATUS(status) if os.WIFEXITED(status) else status}"


def call(
    fn: Callable[..., Any],
    *args: Any,
    died: Callable[[str, str | None], str],
    late: Callable[[str | None], str] | None = None,
    timeout: float = 0.0,
) -> Any:
    """``fn(*args)`` in a forked child process: its result, or the DominosimError (or the
    strategy's fault, as a StrategyError) it raised there. ``fn`` may call ``progress(text)``
    of this module's child side through its first argument (a callable, given here) to say
    what it is doing. A child that ends without answering is a :class:`ProcessEnded` whose
    message is ``died(how, last_progress)``; one that has not answered within ``timeout``
    seconds (0: no limit) is killed, a :class:`ProcessEnded` of message ``late(last_progress)``.
    Where ``os.fork`` is missing, ``fn`` runs here."""
    if not hasattr(os, "fork"):
        return fn(lambda text: None, *args)
    r, w = os.pipe()
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(r)
        _child(parent, w, fn, args)
    os.close(w)
    last, answer, status = _answer(r, pid, timeout)
    if status is None:
        raise ProcessEnded((late or (lambda last: died("no answer in time", last)))(last))
    if answer is None:
        raise ProcessEnded(died(how_it_ended(status), last))
    kind, value = answer
    if kind == "error":
        raise value
    if kind == "fault":
        raise StrategyError(f"a strategy raised {value}; fix the strategy")
    return value


def _child(parent: int, w: int, fn: Callable[..., Any], args: tuple) -> None:
    """The forked child of :func:`call`: runs ``fn``, writes its answer to ``w``, and ends
    the process (it never returns)."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        die_with_parent(parent)
        os.dup2(2, 1)  # (its prints go to stderr, never into the output)
        out = os.fdopen(w, "wb")

        def progress(text: str) -> None:
            pickle.dump(("at", text), out)
            out.flush()

        try:
            answer = ("ok", fn(progress, *args))
        except DominosimError as e:
            answer = ("error", e)
        except BaseException as e:  # (its own BaseException subclass too: a fault, said so)
            if is_interruption(e):
                raise
            answer = ("fault", raised(e))
        pickle.dump(answer, out)
        out.flush()
    except BaseException:  # noqa: BLE001 - the parent says what happened
        code = 1
    finally:
        os._exit(code)


def _answer(r: int, pid: int, timeout: float = 0.0) -> tuple[str | None, tuple | None, int | None]:
    """What child ``pid`` said on ``r``: its last progress, its answer (None: none came) and
    its wait status (None: killed after ``timeout`` seconds without an end, 0: no limit); the
    child is killed if this is interrupted."""
    import io
    import select

    deadline = time.monotonic() + timeout if timeout > 0 else None
    data, late = bytearray(), False
    try:
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([r], [], [], wait)[0]:
                late = True
                os.kill(pid, signal.SIGKILL)
                break
            chunk = os.read(r, 1 << 16)
            if not chunk:
                break
            data += chunk
        _, status = os.waitpid(pid, 0)
    except BaseException:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        raise
    finally:
        os.close(r)
    last, answer = None, None
    f = io.BytesIO(bytes(data))
    while True:
        try:
            kind, value = pickle.load(f)
        except (EOFError, pickle.UnpicklingError, ValueError, TypeError):
            break
        if kind == "at":
            last = value
        else:
            answer = (kind, value)
    return last, answer, None if late else status
