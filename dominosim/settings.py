"""The session's settings declared once (issue 48, point 1): how, not what, a run plays.

:class:`SessionSettings` is one frozen dataclass whose fields declare each setting
(:class:`dominosim.base.params.Param`): the Python API's keywords of a session (``resume``,
``executor``, ``scheduler``, ``progress``, ``echo``, ``strategy_timeout``, ``isolate``) and the
command line's options of one (``--executor``, ``--scheduler``, ``--resume``, ``--json``,
``--debug``, ``--strategy-timeout``, ``--isolate``). Made from it: the API's type checks of
those keywords (``api``), the commands' options and the options ``--resume`` takes
(``cli.SHARED_OPTIONS``, ``cli.SESSION_OPTIONS``, ``cli.SESSION_FLAGS``; with the
experiment's fields marked ``session``, ``--workers``). The workers are an experiment field
(``config.FIELDS``) because a manifest records them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dominosim.base.errors import ConfigError
from dominosim.base.params import declared, param

#: The range of ``--strategy-timeout`` (seconds): a timer finer or longer than this is a typo.
TIMEOUT_RANGE = (0.001, 86400.0)
#: The places a run's work items run (``--executor``).
EXECUTORS = ("local", "dask", "dask-local")


# fmt: off
@dataclass(frozen=True)
class SessionSettings:
    """A session's settings, as the API's keywords and the command line's options spell
    them. ``json`` and ``debug`` are the command line's alone (the API returns the report and
    raises the error); ``progress`` and ``echo`` the API's alone; ``strategy_timeout`` and
    ``isolate`` are listed among a function's keywords, the others are not."""

    resume: str | None = param(
        "path", listed=False, flag=("--resume",), metavar="RUN_DIR",
        help="Finish an interrupted run (a finished one: print its report).")
    executor: str = param(
        "string", "local", nullable=False, listed=False, flag=("--executor",),
        choices=EXECUTORS, show_default=True, help="Where work items run.")
    scheduler: str | None = param(
        "string", takes="a string tcp://HOST:PORT", listed=False, flag=("--scheduler",),
        metavar="tcp://HOST:PORT", help="Dask scheduler address (with --executor dask).")
    progress: bool | None = param("bool", False, listed=False)
    echo: Callable[[str], None] | None = param(
        "callable", takes="a callable taking a line, or None", listed=False)
    json: bool = param(
        "any", False, listed=False, api=False, flag=("--json", "as_json"), is_flag=True,
        help="Print the report as one JSON object.")
    debug: bool = param(
        "any", False, listed=False, api=False, flag=("--debug",), is_flag=True,
        help="On a strategy's error, print its own traceback and the decision it failed "
             "at, with the 'dominosim trace' command that replays it.")
    strategy_timeout: float | str | None = param(
        "any", flag=("--strategy-timeout", "strategy_timeout"), metavar="SECONDS",
        help="End the run when a strategy takes longer for one decision batch (default: no "
             "limit).")
    isolate: bool | None = param(
        "bool", False, flag=("--isolate",), is_flag=True,
        help="Play each strategy of --strategy-path in a fresh process of its own that holds "
             "no engine, seed or run folder (docs/strategies.md, Isolation).")
# fmt: on


#: Each setting's declaration, by its field name, in the order above.
SESSION = declared(SessionSettings)
#: The API's keywords of a session that a function lists among its keywords.
LISTED = tuple(k for k, p in SESSION.items() if p.listed)
#: The API's keywords of a session checked before the experiment's: every one not listed but
#: ``resume`` (a path, checked after them).
CHECKED_FIRST = tuple(k for k, p in SESSION.items() if p.api and not p.listed and p.kind != "path")


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
