"""The grammar of a strategy entry (``name:key=value:key2=value2``, docs/config.md): the
:class:`StrategySpec` it names, its parsers, and the ``~`` of a strategy path. Shared by the
registry, the runner, the analyses and the configuration grammar (``dominosim.config``), so it
sits with the strategies' machinery, below them all."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from dominosim.base.errors import ConfigError

#: the random strategy's name: every seat's default, and what the checks and skill play against
RANDOM = "random"

_STRATEGY_RE = re.compile(r"^[^\W\d][\w.-]*\Z")  # (letters of any alphabet: 'жадный')
_PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")
_INT_RE = re.compile(r"^[+-]?\d+$")
_FLOAT_RE = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")


@dataclass(frozen=True)
class StrategySpec:
    """A strategy for one seat: its registered name and its parameters.

    ``params`` is a tuple of ``(key, value)`` pairs sorted by key so the spec hashes;
    :attr:`kwargs` gives them as a dict.
    """

    name: str
    params: tuple[tuple[str, object], ...] = ()

    @property
    def kwargs(self) -> dict[str, object]:
        return dict(self.params)

    @property
    def label(self) -> str:
        """``name`` or ``name:key=value:...``, the form accepted by :func:`parse_strategy`."""
        if not self.params:
            return self.name
        return self.name + "".join(f":{k}={format_param(v)}" for k, v in self.params)


def format_param(v) -> str:
    """A strategy parameter as written (``on``/``off`` for booleans; never ``none``: that is
    the spelling of an option's NO_TARGET only)."""
    return "on" if v is True else "off" if v is False else str(v)


def show(v) -> str:
    """A value as an error message quotes it: a string in quotes, a boolean as TOML writes it,
    anything else with its TOML type."""
    if isinstance(v, str):
        return f"'{v}'" if v.isprintable() else repr(v)  # (a newline is shown as \n)
    if isinstance(v, bool):
        return "true" if v else "false"
    return f"{v!r} ({type_name(v)})" if not isinstance(v, int | float) else repr(v)


def type_name(v) -> str:
    """The TOML name of a value's type (``table``, ``list``, ...)."""
    return {dict: "table", list: "list", str: "string", bool: "boolean", float: "float"}.get(
        type(v), type(v).__name__
    )


def parse_scalar(text: str) -> object:
    """``"3"`` -> 3, ``"0.5"`` -> 0.5, ``on/off/true/false`` -> bool, anything else unchanged."""
    s = text.strip()
    low = s.lower()
    if low in ("on", "true"):
        return True
    if low in ("off", "false"):
        return False
    if _INT_RE.match(s):
        return int(s)
    if _FLOAT_RE.match(s):
        return float(s)
    return s


def is_strategy_name(name: object) -> bool:
    """Whether ``name`` can be written in ``--strategies``: letters (of any alphabet), digits,
    ``_``, ``-``, ``.``, starting with a letter or ``_`` (``strategy.register`` checks it)."""
    return isinstance(name, str) and bool(_STRATEGY_RE.match(name))


def parse_strategy(entry: str, where: str = "--strategies") -> StrategySpec:
    """Parse ``name:key=value:key2=value2`` into a :class:`StrategySpec`."""
    if not isinstance(entry, str):
        raise ConfigError(
            f"{where}: a strategy entry must be a string like 'greedy:depth=2', not {show(entry)}"
        )
    parts = entry.strip().split(":")
    name = parts[0].strip()
    if not name:
        raise ConfigError(f"{where}: empty strategy name in '{entry}'; write e.g. 'random'")
    if not _STRATEGY_RE.match(name):
        raise ConfigError(
            f"{where}: bad strategy name '{name}'; use letters, digits, '_', '-' or '.'"
        )
    params: dict[str, object] = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not _PARAM_RE.match(key):
            raise ConfigError(
                f"{where}: bad parameter '{part}' in '{entry}'; write name:key=value:key2=value2"
            )
        if key in params:
            raise ConfigError(f"{where}: parameter '{key}' given twice in '{entry}'; keep one")
        params[key] = parse_scalar(value)
    return StrategySpec(name, tuple(sorted(params.items())))


def parse_strategies(text: str | Sequence[str], where: str = "--strategies") -> list[StrategySpec]:
    """Parse ``"a,b:k=1"`` (or a list of entries) into one StrategySpec per entry."""
    entries = text.split(",") if isinstance(text, str) else list(text)
    if not entries or any(isinstance(e, str) and not e.strip() for e in entries):
        raise ConfigError(
            f"{where}: empty strategy entry in {show(text)}; write e.g. random,greedy"
        )
    return [parse_strategy(e, where) for e in entries]


def expand_home(path: str, where: str) -> str:
    """``path`` with a leading ``~`` or ``~user`` made the home folder; a ``~`` that names no
    home (an unknown user, no HOME) is a ConfigError, never a folder named ``~user``."""
    full = os.path.expanduser(path)
    if full.startswith("~"):
        head = full.split("/", 1)[0]
        raise ConfigError(
            f"{where} '{path}': {head} names no home folder (no such user, or no HOME); "
            f"give a full path, or ./{path} for a folder named {head}"
        )
    return full
