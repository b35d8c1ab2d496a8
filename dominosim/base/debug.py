"""A strategy's error for the one who wrote it (docs/strategies.md, "Debugging a strategy").

The one-line error names where in the strategy's own file the exception was raised
(``... raised KeyError: 'oops' at my_bots/buggy.py:12; fix the strategy ...``); ``--debug``
prints besides the strategy's own traceback (its frames only: those outside the package, or in
a built-in strategy file; never the engine's) and the decision it failed at, with the
``dominosim trace`` command that replays that decision. Both are text on the
:class:`~dominosim.base.errors.StrategyError` (``traceback``, ``decision``), made where the
exception is caught: a pool worker or a trace's child sends them across the process boundary
with the error, as a traceback object could not go.
"""

from __future__ import annotations

import inspect
import os
import shlex
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dominosim.base.errors import StrategyError
from dominosim.base.signals import FAULTS

PACKAGE = Path(__file__).resolve().parents[1]
_BUILTINS = PACKAGE / "strategies"


def _resolved(filename: str) -> Path | None:
    try:
        return Path(filename).resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def _own(filename: str) -> bool:
    """A frame of the strategy's: outside the package, or in a built-in strategy file."""
    p = _resolved(filename)
    return p is None or not p.is_relative_to(PACKAGE) or p.is_relative_to(_BUILTINS)


def frames(exc: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback that are the strategy's, outermost first."""
    return [f for f in traceback.extract_tb(exc.__traceback__) if _own(f.filename)]


def shown_path(filename: str) -> str:
    """A file as an error names it: relative to the current folder when inside it."""
    p = _resolved(filename)
    if p is None:
        return filename
    try:
        return p.relative_to(Path.cwd()).as_posix()
    except (ValueError, OSError):
        return str(p)


def _unwrapped(strat: object) -> object:
    while "inner" in getattr(strat, "__dict__", {}):  # (a worker's guard, a check's watch)
        strat = strat.__dict__["inner"]
    return strat


def strategy_file(strat: object) -> str | None:
    """The file of a strategy's class (a wrapper's ``inner`` unwrapped), or None."""
    try:
        return inspect.getfile(type(_unwrapped(strat)))
    except (TypeError, OSError):
        return None


def _users_file(strat: object) -> str | None:
    """The file of a user's strategy (not a built-in one: those need no --strategy-path)."""
    if type(_unwrapped(strat)).__module__.startswith("dominosim."):
        return None
    return strategy_file(strat)


def where(exc: BaseException, file: str | None = None) -> str:
    """``path:line`` of the deepest frame of ``exc`` in the strategy's file ``file`` (else
    the deepest of the strategy's frames), or ``""`` where it has none."""
    own = frames(exc)
    if file is not None:
        mine = [f for f in own if _resolved(f.filename) == _resolved(file)]
        own = mine or own
    return f"{shown_path(own[-1].filename)}:{own[-1].lineno}" if own else ""


def traceback_text(exc: BaseException) -> str:
    """The strategy's own traceback (its frames only) and the exception, as Python prints
    them."""
    head = "Traceback (the strategy's own frames, most recent call last):\n"
    shown = traceback.format_list(frames(exc))
    return head + "".join(shown) + "".join(traceback.format_exception_only(type(exc), exc))


def _kind(exc: BaseException) -> str:
    """The type's name of what a strategy raised; a BaseException subclass of its own is said
    to be one, never taken for a kill (as ``signals.raised`` says it)."""
    name = type(exc).__name__
    return name if isinstance(exc, FAULTS) else f"{name} (a BaseException, not an Exception)"


def raised(name: str, exc: BaseException, file: str | None = None) -> StrategyError:
    """The error of strategy ``name`` raising ``exc`` (``file``: its class's file): one line
    naming where, its own traceback on ``traceback``."""
    text = " ".join(str(exc).split())
    if len(text) > 200 and not isinstance(exc, StrategyError):  # (ours are one line already)
        text = text[:197] + "..."
    said = f": {text}" if text else ""
    if isinstance(exc, MemoryError):  # (often raised with no message: say what it is)
        said += " (out of memory)"
    at = where(exc, file)
    err = StrategyError(
        f"strategy '{name}' raised {_kind(exc)}{said}{' at ' + at if at else ''}; "
        "fix the strategy (--debug shows the traceback)"
    )
    err.traceback = traceback_text(exc)
    return err


@dataclass(frozen=True)
class Decision:
    """Where a strategy failed: the rule set (``rules``: a :class:`~dominosim.game.rules.
    Rules`), the seed, the decision's coordinates and every seat's strategy (objects with a
    ``label`` or ``name``), from which :meth:`text` writes the ``dominosim trace`` command
    that replays the decision."""

    rules: object
    seed: int
    match: int
    hand: int
    decision: int
    seat: int
    strategies: Sequence[object]

    def _labels(self) -> list[str]:
        return [
            str(getattr(s, "label", None) or getattr(s, "name", type(s).__name__))
            for s in self.strategies
        ]

    def command(self) -> str:
        r = self.rules
        files = [_users_file(s) for s in self.strategies]
        paths = dict.fromkeys(f for f in files if f is not None)
        words = ["dominosim", "trace", "--variant", r.variant, "--players", str(r.players)]
        for s in r.set_flags:
            words += ["--set", s]
        words += ["--seed", str(self.seed), "--match-id", str(self.match)]
        words += ["--hand", str(self.hand), "--decision", str(self.decision)]
        words += ["--strategies", ",".join(self._labels())]
        for p in paths:
            words += ["--strategy-path", os.path.abspath(p)]
        return " ".join(shlex.quote(w) for w in words)

    def text(self) -> str:
        r = self.rules
        who = self._labels()[self.seat]
        return (
            f"decision: {r.label}, {r.players} players, seed {self.seed}, match {self.match}, "
            f"hand {self.hand}, decision {self.decision}, seat {self.seat} (strategy "
            f"'{who}')\nreplay it: {self.command()}"
        )


def attach(err: StrategyError, at: Decision) -> StrategyError:
    """``err`` with the decision it was raised at (kept where it has one already)."""
    if getattr(err, "decision", None) is None:
        try:
            err.decision = at.text()
        except Exception:  # noqa: BLE001 - never hide the strategy's error behind ours
            err.decision = None
    return err


def details(err: BaseException) -> str:
    """What ``--debug`` prints before the error's line: its traceback and decision."""
    parts = [getattr(err, "traceback", None), getattr(err, "decision", None)]
    return "\n".join(p.rstrip("\n") for p in parts if p)
