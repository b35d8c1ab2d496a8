"""A session's settings declared once (issue 48, point 1): how, not what, a run plays.

:class:`Session` is the runner's value of a session (``runner.Session``), one frozen
dataclass whose fields a user gives each carry their declaration
(:class:`dominosim.base.params.Param`); :class:`CommandSettings` declares the command's own
(``--resume``, ``--json``, ``--debug``). Made from the two (:data:`SESSION`): the Python API's
keywords of a session (``resume``, ``executor``, ``scheduler``, ``progress``, ``echo``,
``strategy_timeout``, ``isolate``) and their type checks (``api``), the command line's options
of one and the options ``--resume`` takes (``cli.SHARED_OPTIONS``, ``cli.SESSION_OPTIONS``,
``cli.SESSION_FLAGS``; with the experiment's fields marked ``session``: ``--workers``,
``--strategy-path``, which are experiment fields, ``config.FIELDS``, because a manifest records
them). The entry points decode what a user gives into a :class:`Session` once (``api``).
Here, in ``base/``, so the command line reads the declarations without importing the runner.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dominosim.base.errors import ConfigError
from dominosim.base.params import declared, param

#: Where the program set it (``dominosim``'s entry: its process's start), the command's start
#: on :func:`time.monotonic`'s clock; else an API call's start is its command's.
COMMAND_START: list[float] = []


def process_start() -> float:
    """This process's start on :func:`time.monotonic`'s clock (Linux: from
    ``/proc/self/stat``, so the interpreter's start and every import count); elsewhere now."""
    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rpartition(b")")[2].split()
        ticks = int(fields[19])  # (field 22, starttime: clock ticks after boot)
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic()
    return time.monotonic() - max(0.0, age)


def command_start() -> float:
    """When the command began: the program's process start, or now (an API call)."""
    return COMMAND_START[-1] if COMMAND_START else time.monotonic()


#: The places a run's work items run (``--executor``).
EXECUTORS = ("local", "dask", "dask-local")
#: The range of ``--strategy-timeout`` (seconds): a timer finer or longer than this is a typo.
TIMEOUT_RANGE = (0.001, 86400.0)


# fmt: off
@dataclass(frozen=True)
class Session:
    """The settings of one session (how a run is played, never what: not part of the
    results), a frozen value passed beside the plan, declared once (issue 48, point 1): each
    setting a user gives carries its declaration (:class:`dominosim.base.params.Param`: the
    API keyword's type check, the command line's option), from which this module
    makes the session's keywords and options; the entry points decode what a user gives into
    this type once (``api``). ``workers`` None is the run's recorded count, else one per core;
    ``workers`` and ``strategy_path`` are experiment fields (``config.FIELDS``, marked
    ``session``) because a manifest records them. ``started``: the command's start
    (:func:`command_start`), which the summary line's time counts from."""

    workers: int | None = None
    executor: str = param(
        "string", "local", nullable=False, listed=False, flag=("--executor",),
        choices=EXECUTORS, show_default=True, help="Where work items run.")
    scheduler: str | None = param(
        "string", takes="a string tcp://HOST:PORT", listed=False, flag=("--scheduler",),
        metavar="tcp://HOST:PORT", help="Dask scheduler address (with --executor dask).")
    #: the progress bar; None: when stderr is a terminal
    progress: bool | None = param("bool", listed=False)
    #: callable(str) for status lines; None: stderr
    echo: Callable[[str], None] | None = param(
        "callable", takes="a callable taking a line, or None", listed=False)
    #: seconds per decision batch (:func:`timeout_seconds`); None: no limit
    strategy_timeout: float | None = param(
        "any", flag=("--strategy-timeout", "strategy_timeout"), metavar="SECONDS",
        help="End the run when a strategy takes longer for one decision batch (default: no "
             "limit).")
    started: float = field(default_factory=command_start)
    #: users' strategies in fresh processes of their own
    isolate: bool = param(
        "bool", False, flag=("--isolate",), is_flag=True,
        help="Play each strategy of --strategy-path in a fresh process of its own that holds "
             "no engine, seed or run folder (docs/strategies.md, Isolation).")
    #: the files and folders the user names (``--strategy-path``) for ``--resume``, ``verify``:
    #: a run folder's user strategy files are loaded only inside them (runner.files)
    strategy_path: tuple[str, ...] = ()
# fmt: on


def timeout_seconds(value) -> float | None:
    """``--strategy-timeout SECONDS``: a number of seconds in :data:`TIMEOUT_RANGE`, 0 or None
    (no limit)."""
    if value is None:
        return None
    try:
        t = float(value)
    except (TypeError, ValueError, OverflowError):
        t = float("nan")
    if t == 0:
        return None
    lo, hi = TIMEOUT_RANGE
    if not lo <= t <= hi:
        raise ConfigError(
            f"--strategy-timeout must be a number of seconds from {lo:g} to "
            f"{hi:g} (0: no limit), not '{value}'"
        )
    return t


# fmt: off
@dataclass(frozen=True)
class CommandSettings:
    """A command's settings of its session that the runner's :class:`Session` does not hold:
    ``resume`` (the API's keyword too: which folder the session finishes), ``json`` and
    ``debug`` (the command line's alone: the API returns the report and raises the error)."""

    resume: str | None = param(
        "path", listed=False, flag=("--resume",), metavar="RUN_DIR",
        help="Finish an interrupted run (a finished one: print its report).")
    json: bool = param(
        "any", False, listed=False, api=False, flag=("--json", "as_json"), is_flag=True,
        help="Print the report as one JSON object.")
    debug: bool = param(
        "any", False, listed=False, api=False, flag=("--debug",), is_flag=True,
        help="On a strategy's error, print its own traceback and the decision it failed "
             "at, with the 'dominosim trace' command that replays it.")
# fmt: on


def _session_settings() -> dict:
    """Each setting's declaration, by name: ``resume``, the runner's settings of a
    :class:`Session` a user gives (how it plays), the command's ``json`` and ``debug`` before
    the ones a function lists among its keywords (``strategy_timeout``, ``isolate``): the
    order of ``--resume``'s error and of the API's checks."""
    command, runner = declared(CommandSettings), declared(Session)
    first = {k: p for k, p in runner.items() if not p.listed}
    return {
        "resume": command["resume"],
        **first,
        **{k: p for k, p in command.items() if k != "resume"},
        **{k: p for k, p in runner.items() if k not in first},
    }


#: Each setting's declaration, by its keyword.
SESSION = _session_settings()
#: The API's keywords of a session that a function lists among its keywords.
LISTED = tuple(k for k, p in SESSION.items() if p.listed)
#: The API's keywords of a session checked before the experiment's: every one not listed but
#: ``resume`` (a path, checked after them).
CHECKED_FIRST = tuple(k for k, p in SESSION.items() if p.api and not p.listed and p.kind != "path")
