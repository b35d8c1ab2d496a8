"""A keyword declared once (issue 48, point 1): the fields of a frozen dataclass (an analysis's
parameters, ``analysis/analyses.py``; the session's settings, ``base/session.py``)
carry one :class:`Param` each, and the entry points make of it the Python API's type check of
the keyword and the command line's option (docs/design.md, "The experiment is a table").

The kinds of a keyword, as the API checks its type (``api.KINDS``): ``int`` (an int, or a
string of one as the command line gives it), ``bool`` (True or False), ``number`` (an int, a
float or a string of one), ``ints`` (a string ``"50,100"`` or a list of integers), ``string``,
``callable``, ``path`` (a string or a pathlib.Path) and ``any`` (no type check: the analysis
checks the value, naming its flag). What it must be (``takes``) is the kind's words unless the
row says otherwise; ``shown`` False: its error shows the value alone, not its type.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

KINDS = ("int", "bool", "number", "ints", "string", "callable", "path", "any")


@dataclass(frozen=True)
class Param:
    """How one keyword is spelled and checked: its kind, whether None is allowed
    (``nullable``), what an error says it must be (``takes``; "" for the kind's words) and
    whether it shows the value's type (``shown``), ``late``: checked after the other keywords
    and the paths; where the API lists it (``after`` the experiment's keywords, else before;
    ``listed`` False: not among them, a session's; ``api`` False: no keyword of the API, the
    command line's alone); ``default``: its field's (:func:`param`), the option's too; its
    command-line option (click's declarations ``flag``, ``metavar``, ``help``, ``choices``,
    ``is_flag``, ``show_default``); empty ``flag``: none. ``lo``: the least value of an
    ``int`` or ``ints`` keyword (its range, checked where the value is read, naming the
    flag); a ``number`` keyword's range is ``lo`` (excluded where ``open_lo``) to ``hi``
    (:meth:`within`, :meth:`interval`), checked where it is read too."""

    kind: str
    nullable: bool = True
    takes: str = ""
    shown: bool = True
    late: bool = False
    after: bool = False
    listed: bool = True
    api: bool = True
    flag: tuple[str, ...] = ()
    metavar: str | None = None
    help: str = ""
    choices: tuple[str, ...] = ()
    is_flag: bool = False
    show_default: bool = False
    lo: int | float | None = None
    hi: int | float | None = None
    open_lo: bool = False
    default: Any = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind {self.kind!r}; one of {', '.join(KINDS)}")

    def within(self, x: float) -> bool:
        """Whether the number ``x`` is in the declared range (never a NaN)."""
        above = self.lo is None or (x > self.lo if self.open_lo else x >= self.lo)
        return above and (self.hi is None or x <= self.hi)

    def interval(self) -> str:
        """The declared range as an interval, such as ``(0, 1]``."""
        return f"{'(' if self.open_lo else '['}{self.lo:g}, {self.hi:g}]"


def param(kind: str, value: Any = None, **settings: Any) -> Any:
    """A dataclass field of default ``value`` declared by ``Param(kind, **settings)``."""
    declaration = Param(kind, **settings, default=value)
    return dataclasses.field(default=value, metadata={"param": declaration})


def declared(cls: type) -> dict[str, Param]:
    """The declared keywords of a dataclass ``cls``, by name, in its fields' order."""
    return {f.name: f.metadata["param"] for f in dataclasses.fields(cls) if "param" in f.metadata}
