"""Strategies: the protocol, the registry, and discovery of strategy files (docs/design.md, "Decisions"; docs/strategies.md).

A strategy is a class registered by name with :func:`register`, in one file of ``strategies/``
(shipped inside the package as ``dominosim/strategies``) or of a user folder. A user's files are
loaded by path, so their folder needs no ``__init__.py`` and no import name; the built-in files
are the modules ``dominosim.strategies.<file>`` (one module object whether a file is loaded by
path or imported), so a strategy builds on another with ``from dominosim.strategies import
heaviest``.

The per-game interface, used by the reference engine::

    class MyBot(Strategy):
        name = "my-bot"
        def choose_one(self, obs, legal, key):   # -> one of legal
            ...

``legal`` is the list of legal action codes (:mod:`dominosim.game.actions`), ``key`` a 64-bit
random value addressed by (seed, match, hand, decision, seat): use
:func:`dominosim.game.seeding.below` to turn it into a choice, so that decisions are
reproducible.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from dominosim.base.errors import StrategyError, did_you_mean
from dominosim.base.signals import FAULTS, is_interruption
from dominosim.game.actions import action_type_message
from dominosim.strategy.policy_files import TWINS
from dominosim.strategy.registrations import BUILTINS, BY_NAME
from dominosim.strategy.registrations import Registration as Registration
from dominosim.strategy.registry import FILE_MAX, Registry, bind_package, builtin_dir
from dominosim.strategy.registry import PACKAGE as PACKAGE

if TYPE_CHECKING:
    import numpy as np

    from dominosim.engine.batch_observation import BatchObservation
    from dominosim.engine.legal import Legal
    from dominosim.game.observe import Observation

#: the process's registry of strategies (docs/design.md, "Built-ins are declared")
REGISTRY = Registry()


class Strategy:
    """Base class. Subclasses set ``name`` and implement :meth:`choose_one`.

    Parameters are keyword arguments of ``__init__``; ``params`` lists them with defaults for
    ``dominosim strategies``.
    """

    name: str = ""
    params: dict = {}
    #: What kind of player this is, one of :data:`CLASSIFIERS` (docs/strategies.md,
    #: "Classifiers"): ``random`` (uniform over its legal actions: the baseline), ``heuristic``
    #: (a fixed rule of what the seat sees), ``search`` (looks ahead over deals consistent with
    #: what the seat sees), ``perfect_information`` (reads the hidden tiles: a cheating
    #: reference for measurement, never a player; reports mark it).
    classifier: str = "heuristic"
    #: The place of a built-in among those of its classifier in lists of strategies (the skill
    #: ladder): lower first.
    rank: int = 0
    # The core's compiled policy that decides exactly as this class does (a name of
    # engine.kernel.POLICIES), declared on the class itself: a subclass that changes a decision
    # inherits none (compiled_policy), so it is asked in Python. It holds only for the built-in
    # class in its built-in file as shipped (policy_files): a copy of the file plays its Python.
    compiled: str | None = None

    def __init__(self, **params: object) -> None:
        unknown = set(params) - set(self.params)
        if unknown:
            bad = sorted(unknown)[0]
            raise StrategyError(
                f"unknown parameter '{bad}' for strategy '{self.name}'"
                f"{did_you_mean(bad, self.params)}; its parameters are: "
                f"{', '.join(self.params) or 'none'}"
            )
        self.settings = {**self.params, **params}

    @property
    def label(self) -> str:
        """The name with non-default parameters, as it appears in results."""
        extra = [f"{k}={_spelled(v)}" for k, v in self.settings.items() if v != self.params.get(k)]
        return ":".join([self.name, *extra])

    def compiled_policy(self) -> str | None:
        """The name of the compiled policy the engine may decide with instead of asking this
        strategy: the ``compiled`` attribute of the strategy's own class (not inherited), only
        with its default parameters, and only for a built-in class as shipped
        (:func:`shipped_builtin`); any other strategy plays its Python."""
        name = type(self).__dict__.get("compiled")
        if name is None or self.settings != self.params or not shipped_builtin(type(self)):
            return None
        return name

    def choose_one(self, obs: Observation, legal: list[int], key: int) -> int:
        """One decision: ``obs`` an Observation, ``legal`` the legal action codes in canonical
        order, ``key`` the decision's 64-bit random value. Returns one of ``legal``."""
        raise NotImplementedError

    def choose(self, obs: BatchObservation, legal: Legal, keys: np.ndarray) -> np.ndarray:
        """Decisions for a batch: ``obs`` a BatchObservation, ``legal`` a
        :class:`~dominosim.engine.legal.Legal`, ``keys`` ``[n]`` uint64. Returns ``[n]`` action
        codes. The default runs :meth:`choose_one` game by game (``BatchObservation.answers``:
        each decision's Observation read lazily from a copy of its row, its list from the
        core's legal arrays; about 1-3 µs a decision besides ``choose_one`` itself, bench/
        README.md); fast strategies override it (and must give the same answers)."""
        chosen = obs.answers(self.choose_one, legal, keys)
        if not set(map(type, chosen)) <= _INT:
            for a in chosen:  # a float or a string is refused, never truncated
                if isinstance(a, bool) or not hasattr(a, "__index__"):
                    raise StrategyError(action_type_message(self.label, a))
        return check_actions(self.label, chosen, len(keys))


_INT = {int}


def fallback(legal: list[int]) -> int:
    """The action of a placement-first strategy when no placement is legal: draw where drawing
    is a choice, else pass, else stop (blind's open phase)."""
    from dominosim.game.actions import DRAW, PASS, STOP

    return next((a for a in (DRAW, PASS, STOP) if a in legal), legal[0])


def check_actions(name: str, actions: object, n: int) -> np.ndarray:
    """``actions`` as ``[n]`` int64 when it is ``n`` integer action codes; else the
    StrategyError every engine path gives (a float or a string is never truncated)."""
    import numpy as np

    try:
        a = np.asarray(actions)
    except Exception:  # noqa: BLE001 - anything numpy cannot hold is not actions
        a = np.asarray([None, None], dtype=object)
    if a.dtype.kind in "iu" or (a.size == 0 and n == 0):
        return a.astype(np.int64)  # (a wrong shape is the engine's "illegal action")
    bad = actions
    if a.ndim == 1:
        items = a.tolist()
        bad = next((x for x in items if isinstance(x, bool) or not isinstance(x, int)), None)
        huge = next((x for x in items if isinstance(x, int) and not -(2**63) <= x < 2**63), None)
        if bad is None and huge is not None:  # (integers numpy cannot hold: no action code)
            from dominosim.game.actions import STOP

            shown = str(huge) if len(str(huge)) <= 60 else str(huge)[:57] + "..."
            raise StrategyError(
                f"strategy '{name}' returned an illegal action {shown}; action codes are 0 "
                f"to {STOP} (dominosim.actions); fix the strategy"
            )
        bad = actions if bad is None else bad
    raise StrategyError(action_type_message(name, bad))


#: The classifiers of Strategy.classifier, in the order lists of strategies follow.
CLASSIFIERS = ("random", "heuristic", "search", "perfect_information")


PERFECT_INFORMATION = "perfect_information"


def declared_classifier(cls: type) -> str | None:
    """What strategy class ``cls`` declares itself: ``perfect_information`` where it says
    ``cheating = True`` (the older way), else its ``classifier`` (None: not a string). Read
    only when the class is registered (:func:`register`, :func:`classify`)."""
    if getattr(cls, "cheating", False) is True:
        return PERFECT_INFORMATION
    got = getattr(cls, "classifier", None)
    return got if isinstance(got, str) else None


def classify(cls: type) -> type:
    """Class decorator: fix the classification of a strategy class that is never named in the
    registry (a measurement's wrapper, a test's strategy) as :func:`register` fixes that of a
    registered one: read once, from what the class declares now; later changes of the class
    change nothing."""
    got = declared_classifier(cls)
    if got not in CLASSIFIERS:
        raise StrategyError(
            f"strategy class {cls.__name__}: classifier must be one of "
            f"{', '.join(CLASSIFIERS)}, not {got!r}; see docs/strategies.md, Classifiers"
        )
    REGISTRY.classified.setdefault(cls, got)
    return cls


def wrapper(cls: type) -> type:
    """Class decorator for the package's own wrappers of a strategy (an ``inner`` attribute,
    played as it is: the worker's guard, the check's timer): the classification of a wrapper
    is its strategy's."""
    REGISTRY.wrappers.add(cls)
    return cls


def classification(cls: type) -> str | None:
    """The classifier strategy class ``cls`` was registered with (exactly that class: a
    subclass registered on its own has its own), or None for a class never registered."""
    return REGISTRY.classified.get(cls)


def plays_with_perfect_information(cls: type) -> bool:
    """Whether strategy class ``cls`` was registered as reading hidden tiles (classifier
    ``perfect_information``, or ``cheating = True``, the older way to say it), as fixed when
    it was registered: what the class says later, or an instance says of itself, counts not."""
    return REGISTRY.classified.get(cls) == PERFECT_INFORMATION


def sees_hidden(strategy: object) -> bool:
    """Whether the batch engine hands the strategy object the true state behind its
    Observation (``obs._e``, ``obs._g``): only where the object's own class (its exact type,
    through the package's wrappers) was registered ``perfect_information``; every other
    object, an unregistered one included, sees its seat's information and nothing more."""
    while type(strategy) in REGISTRY.wrappers:
        strategy = vars(strategy).get("inner")
    return plays_with_perfect_information(type(strategy))


def builtins(classifier: str | None = None, compiled: bool = False) -> list[str]:
    """The names of the built-in strategies (declared: :mod:`.registrations`; no file is
    run), in the order of lists of strategies: by classifier (:data:`CLASSIFIERS`), then
    ``rank``, then name; only those of ``classifier`` where it is given, only those with a
    compiled policy where ``compiled``."""
    # fmt: off
    rows = [r for r in BUILTINS
            if (classifier is None or r.classifier == classifier)
            and (not compiled or r.compiled is not None)]
    # fmt: on
    rows.sort(key=lambda r: (CLASSIFIERS.index(r.classifier), r.rank, r.name))
    return [r.name for r in rows]


def classifier_of(name: str) -> str | None:
    """The classifier of the strategy ``name``: its registered class's, or of a built-in not
    loaded its row's (None: a name not known)."""
    cls = REGISTRY.classes.get(name)
    if cls is not None:
        return REGISTRY.classified.get(cls)
    row = BY_NAME.get(name) if isinstance(name, str) else None
    return row.classifier if row is not None else None


def register(cls: type) -> type:
    """Class decorator: add a strategy to the registry under ``cls.name``."""
    name = cls.name
    origin = REGISTRY.new_origin(cls)
    if not isinstance(name, str) or not name:
        raise StrategyError(
            f"strategy class {cls.__name__} in {origin} has no name; "
            'set name = "my-bot" in the class'
        )
    from dominosim.strategy.spec import is_strategy_name

    if not is_strategy_name(name):  # (every registered strategy can be named in --strategies)
        raise StrategyError(
            f"strategy name {name!r} in {origin} cannot be written in --strategies; use "
            "letters (any alphabet), digits, '_', '-' or '.', starting with a letter or '_'"
        )
    if not isinstance(getattr(cls, "params", None), dict):
        raise StrategyError(
            f"strategy '{name}' in {origin}: params must be a dict of parameter defaults, "
            f"not {cls.params!r}; write params = {{}} for none"
        )
    declared = declared_classifier(cls)
    if declared not in CLASSIFIERS:
        raise StrategyError(
            f"strategy '{name}' in {origin}: classifier must be one of {', '.join(CLASSIFIERS)}, "
            f"not {getattr(cls, 'classifier', None)!r}; see docs/strategies.md, Classifiers"
        )
    REGISTRY.add(cls, origin)
    REGISTRY.classified.setdefault(cls, declared)  # (fixed now: read once, never again)
    return cls


def shipped_builtin(cls: type) -> bool:
    """Whether ``cls`` is a built-in strategy class as shipped, which its compiled policy may
    decide for: defined in the module ``dominosim.strategies.<file>`` now loaded from the
    built-in folder, declaring the ``twin_version`` that ``policy_files.TWINS`` records for
    its name, as every other built-in class with a twin loaded so far does (the twins read
    each other: ``greedy`` ranks with ``heaviest``'s key)."""
    if REGISTRY.builtin_module(cls) is None or "compiled" not in vars(cls):
        return False
    twins = REGISTRY.builtin_twins()
    return cls in twins and all(vars(c).get("twin_version") == TWINS.get(c.name) for c in twins)


def twin_note(name: str) -> str | None:
    """The one-line note for the registered strategy ``name`` when its class declares
    ``compiled`` and yet plays its Python, because it is not the built-in as shipped: a user's
    copy of a built-in file (the compiled twin serves only the shipped file), or a built-in
    file whose twin version is not the recorded one. None for every other strategy
    (docs/strategies.md, "Compiled policies")."""
    cls = REGISTRY.classes.get(name)
    twin = cls.__dict__.get("compiled") if cls is not None else None
    if twin is None or shipped_builtin(cls):
        return None
    path = REGISTRY.origins.get(name, "?")
    shown = _shown_path(path)
    if builtin_name(path) is None:
        return (
            f"note: {shown} sets compiled = {twin!r} but the compiled twin serves only the "
            "shipped file; your copy plays its Python (delete the line to drop this note)"
        )
    return (
        f"note: {shown} sets compiled = {twin!r} but it (or another built-in file with a twin) "
        "is not as shipped, so the compiled twin is off and it plays its Python"
    )


def _shown_path(path: str) -> str:
    """``path`` relative to the working folder where it lies in it (as the user typed it)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def load_folder(folder: str | Path) -> None:
    """Load every ``*.py`` file of a folder (files starting with ``_`` are skipped)."""
    REGISTRY.load_folder(folder)


def load_file(path: Path, expect: str | None = None) -> None:
    """Load one strategy file (:meth:`Registry.load_file`: a changed file is loaded again;
    with ``expect``, its content is checked against that sha256 before it is run)."""
    REGISTRY.load_file(path, expect)


def load_builtins() -> None:
    """Load every built-in strategy file (a process that forks children for a user's code
    loads the package's own first: the children inherit them)."""
    REGISTRY.load_builtins()


def file_hash(path: str | Path) -> str | None:
    """The sha256 of a strategy file's content, hashed in blocks (None when it cannot be read,
    is not a regular file, or is larger than :data:`FILE_MAX`)."""
    from dominosim.base import bounded

    try:
        return bounded.digest(path, FILE_MAX)[1]
    except (OSError, ValueError):
        return None


def builtin_file(name: str) -> Path | None:
    """The built-in strategy file called ``name`` (``"greedy.py"``) of this install, or None
    when there is none (a plain file name only: no folder, no ``..``)."""
    if not isinstance(name, str) or Path(name).name != name or not name.endswith(".py"):
        return None
    path = builtin_dir() / name
    return path.resolve() if path.is_file() and not name.startswith("_") else None


def builtin_name(path: str | Path) -> str | None:
    """The file name of ``path`` when it is one of this install's built-in strategy files
    (identified by folder and name, so a run folder moved to another install finds them)."""
    path = Path(path).resolve()
    return path.name if builtin_file(path.name) == path else None


def discover(paths: Iterable[str | Path] = ()) -> Mapping[str, type]:
    """Load the strategies in ``paths`` (folders or ``.py`` files, as given to
    ``--strategy-path``); return every name known, each to its class (a built-in's file is
    loaded when its class is asked for: :class:`~.registry.Known`)."""
    return REGISTRY.discover(paths)


def origin(name: str) -> str:
    """The file that registers strategy ``name`` (a built-in's from its row, not loaded)."""
    return REGISTRY.origin(name)


def loaded_version(name: str) -> tuple[str | None, str | None]:
    """(the file that registered strategy ``name``, that file's sha256 as it was loaded), or
    ``(None, None)`` for a name not known: what identifies the code a name runs now."""
    return REGISTRY.loaded_version(name)


def describe(cls: type) -> str:
    """The one-line description of a strategy class: the first line of its docstring (or of its
    module's)."""
    import inspect

    doc = inspect.getdoc(cls) if cls.__doc__ else None
    if not doc:
        doc = getattr(sys.modules.get(cls.__module__), "__doc__", None) or ""
    lines = [x.strip() for x in (doc or "").strip().splitlines()]
    return lines[0] if lines else ""


def get(name: str, paths: Iterable[str | Path] = (), **params: object) -> Strategy:
    """An instance of the strategy registered as ``name`` (a built-in's file loaded first)."""
    reg = discover(paths)
    if name not in reg:
        raise StrategyError(
            f"unknown strategy '{name}'{did_you_mean(name, reg)}; "
            f"known strategies: {', '.join(sorted(reg))}"
        )
    cls = reg[name]
    try:
        made = cls(**params)
    except StrategyError:
        raise
    except FAULTS as exc:  # an __init__ that fails is the strategy's error
        if is_interruption(exc):
            raise
        msg = " ".join(str(exc).split())
        raise StrategyError(
            f"strategy '{name}' failed to start: {type(exc).__name__}: {msg}; fix its __init__"
        ) from None
    if type(made) is not cls:  # (its classification is its class's: no other class)
        raise StrategyError(
            f"strategy '{name}' changed its class in __init__ (to {type(made).__name__}); "
            "a strategy plays as the class it registered: fix its __init__"
        )
    return made


bind_package()


def _spelled(v: object) -> str:
    """A parameter's value in a label as the command line writes it (on/off for booleans)."""
    return "on" if v is True else "off" if v is False else str(v)


def listing_rows(progress, paths: list[str], show_files: bool) -> list[list[str]]:
    """``dominosim strategies``' rows, in a child process (``progress``: what it loads, for
    the line of a file that ends the process): the strategies of ``paths`` and the built-ins,
    each with its parameters' defaults and its description (a built-in's from its row: no
    built-in file is run)."""
    from dominosim.game.variants import format_value

    for p in paths:
        progress(f"path {p}")
        discover([p])
    reg = discover(paths)
    rows = []
    for name in sorted(reg):
        cls = REGISTRY.classes.get(name)
        if cls is None:  # (a built-in not loaded: its declared row)
            defaults, text = BY_NAME[name].defaults, BY_NAME[name].description
        else:
            defaults, text = cls.params, describe(cls)
        params = ", ".join(f"{k}={format_value(v)}" for k, v in defaults.items()) or "-"
        row = [name, params, text]
        rows.append(row + ([origin(name)] if show_files else []))
    return rows
