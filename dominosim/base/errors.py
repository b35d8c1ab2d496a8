"""The error layer: every user mistake is one of these, printed as one line, with its exit code.

The CLI catches :class:`DominosimError` and prints ``error: <message>`` to stderr and exits with
``exit_code``; no traceback reaches the user. ``docs/errors.md`` lists the messages and codes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class DominosimError(Exception):
    """A user-facing error: one line naming the problem and the fix."""

    exit_code = 1

    def __init__(self, message: str):
        message = printable(message)  # (a name or value given with a control character in it)
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class ConfigError(DominosimError):
    """Bad configuration: not TOML, unknown key, bad value, bad command-line grammar."""

    exit_code = 2


class RulesError(DominosimError):
    """Unknown variant or option, bad option value, player count, invalid combination."""

    exit_code = 3


class StrategyError(DominosimError):
    """Unknown strategy, a strategy file that fails to load, a strategy that raises or cheats."""

    exit_code = 4


class OutputError(DominosimError):
    """The results folder cannot be written or read (permissions, full disk, not a run)."""

    exit_code = 5


class Interrupted(DominosimError):
    """The user interrupted a run; finished work is kept."""

    exit_code = 130


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A suggestion suffix such as ``" (did you mean 'target'?)"``, or ``""``."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


class WorkerError(DominosimError):
    """A worker process died or stopped while playing a chunk (killed, out of memory, a
    strategy calling ``os._exit`` or raising KeyboardInterrupt there); finished work is kept."""

    exit_code = 6


def printable(text: object) -> str:
    """``text`` with every control or format character (a newline, a carriage return, an
    escape, a right-to-left mark) written as its Python escape (``\\n``, ``\\x1b``): a string
    of a received manifest (its ``name``, ...) is printed where it stands, never as lines of a
    report or of an error it does not hold; a message shows what was given, and no terminal
    acts on it."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
