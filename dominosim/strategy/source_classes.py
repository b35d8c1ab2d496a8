"""The classifier a strategy file declares, read from its source without running it (issue 45):
what ``report`` of a received folder knows of a user's strategy, where no file a manifest
names may be imported (docs/strategies.md, "Classifiers"; docs/design.md, "Classification").

:func:`classifier_in_source` finds the class registered under a name (a top-level class whose
only decorator is ``register`` and whose body sets ``name = "..."``) and reads its
``classifier = "..."`` / ``cheating = True`` literals, following base classes defined in the same
file and the package's own classes (``Strategy``, a built-in strategy's class). Whatever could
change a class's attributes before it is registered and cannot be read without running the file
(a computed value, another decorator, a metaclass, ``__init_subclass__``, a store to a
``classifier`` / ``cheating`` attribute other than ``self``'s, ``setattr``, ``exec``, ...) makes
it unreadable: None, and the report says the classifier cannot be verified.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
from collections.abc import Mapping

from dominosim import strategy

_KEYS = ("classifier", "cheating")
# names whose use anywhere in a file could change a class's attributes unseen
_OPAQUE = frozenset(
    ("setattr", "delattr", "exec", "eval", "compile", "vars", "locals", "globals")
    + ("__import__", "__dict__", "__setattr__", "__init_subclass__", "__class__", "importlib")
)


# the package's modules a base class may come from (besides the built-in strategy files)
_BASES = frozenset({"dominosim.strategy", "dominosim.engine.solver", "dominosim.solver"})


class _Unreadable(Exception):
    """The file does not say its classifier in a way read without running it."""


def classifier_in_source(data: bytes, name: str) -> str | None:
    """The classifier strategy ``name`` is registered with in the strategy file ``data`` (its
    bytes), read without running it; None where it cannot be read so."""
    try:
        tree = ast.parse(data)
        _plain(tree)
        classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
        imports = _imports(tree)
        found = [c for c in classes.values() if _literal(c, "name") == (True, name)]
        if len(found) != 1 or not _registered(found[0]):
            return None
        cheating = _lookup(found[0], "cheating", classes, imports, set())
        if cheating is True:
            return strategy.PERFECT_INFORMATION
        got = _lookup(found[0], "classifier", classes, imports, set())
        return got if got in strategy.CLASSIFIERS else None
    except (_Unreadable, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _plain(tree: ast.Module) -> None:
    """Refuse a file with an opaque name or a store to another object's classifier."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _OPAQUE:
            raise _Unreadable
        if isinstance(node, ast.Attribute) and node.attr in _OPAQUE:
            raise _Unreadable
        if isinstance(node, ast.Attribute) and node.attr in _KEYS:
            mine = isinstance(node.value, ast.Name) and node.value.id == "self"
            if isinstance(node.ctx, ast.Store | ast.Del) and not mine:
                raise _Unreadable


def _imports(tree: ast.Module) -> dict[str, tuple[str, str | None]]:
    """Each name a top-level import binds: (module, attribute or None for a module)."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                out[a.asname or a.name] = (node.module, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                head = a.name.partition(".")[0]
                out[a.asname or head] = (a.name if a.asname else head, None)
    return out


def _registered(cls: ast.ClassDef) -> bool:
    """Registered by its one decorator, ``register`` (another could change it first), no
    metaclass or class keyword."""
    if len(cls.decorator_list) != 1 or cls.keywords:
        return False
    d = cls.decorator_list[0]
    return (isinstance(d, ast.Name) and d.id == "register") or (
        isinstance(d, ast.Attribute) and d.attr == "register"
    )


def _literal(cls: ast.ClassDef, key: str) -> tuple[bool, object]:
    """(whether the class body sets ``key``, its value): the last assignment; a value that is
    not a constant is unreadable."""
    found: tuple[bool, object] = (False, None)
    for node in cls.body:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign | ast.AugAssign)
            else []
        )
        if not any(isinstance(t, ast.Name) and t.id == key for t in targets):
            if any(not isinstance(t, ast.Name) for t in targets):
                raise _Unreadable  # (an unpacking that may bind it)
            continue
        value = getattr(node, "value", None)
        if isinstance(node, ast.AugAssign) or not isinstance(value, ast.Constant):
            raise _Unreadable
        found = (True, value.value)
    return found


def _lookup(cls: ast.ClassDef, key: str, classes: dict, imports: dict, seen: set) -> object:
    """``key`` of the class as Python finds it: its body, then its bases (each must be
    readable, and they must agree)."""
    here, value = _literal(cls, key)
    if here:
        return value
    if cls.name in seen or not cls.bases:
        raise _Unreadable
    got = {_base_value(b, key, classes, imports, seen | {cls.name}) for b in cls.bases}
    if len(got) != 1:
        raise _Unreadable
    return got.pop()


def _base_value(base: ast.expr, key: str, classes: dict, imports: dict, seen: set) -> object:
    """``key`` of a base class: one of the file's own, or a class of the package."""
    if isinstance(base, ast.Name) and base.id in classes:
        return _lookup(classes[base.id], key, classes, imports, seen)
    cls = _package_class(base, imports)
    if key == "cheating":
        return getattr(cls, "cheating", False) is True
    return strategy.classification(cls) or strategy.declared_classifier(cls)


def _package_class(base: ast.expr, imports: dict) -> type:
    """The package's class a base names (``Strategy``, ``greedy.Greedy``, ...)."""
    parts = []
    while isinstance(base, ast.Attribute):
        parts.append(base.attr)
        base = base.value
    if not isinstance(base, ast.Name) or base.id not in imports:
        raise _Unreadable
    module, attr = imports[base.id]
    full = ".".join([module, *([attr] if attr else []), *reversed(parts)])
    module, _, attr = full.rpartition(".")
    if module not in _BASES and not module.startswith(strategy.PACKAGE + "."):
        raise _Unreadable  # (only the package's strategy modules are imported to read it)
    try:  # (a built-in strategy file, the package's own, is imported as its module)
        cls = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError):
        raise _Unreadable from None
    if not isinstance(cls, type) or not issubclass(cls, strategy.Strategy):
        raise _Unreadable
    return cls


def recorded_user_files(inputs: object) -> list[tuple[str, str]]:
    """The user's strategy files a manifest's ``inputs`` list, ``(path, sha256)`` (format 2
    entries ``{"path", "sha256"}`` and format 1's ``{path: sha256}``; anything else is
    skipped)."""
    files = inputs.get("strategy_files", []) if isinstance(inputs, Mapping) else []
    if isinstance(files, Mapping):
        files = [{"path": k, "sha256": v} for k, v in files.items()]
    out = []
    for e in files if isinstance(files, list) else []:
        if isinstance(e, Mapping) and isinstance(e.get("path"), str):
            if isinstance(e.get("sha256"), str) and strategy.builtin_name(e["path"]) is None:
                out.append((e["path"], e["sha256"]))
    return out


def classifier_in_files(name: str, files: list[tuple[str, str]], cache: dict) -> str | None:
    """The classifier of strategy ``name`` read from the recorded ``files`` that are on this
    machine as recorded (their sha256): from the one file that defines it; None where none
    does, or it cannot be read there (``cache``: each file's bytes, read once)."""
    from dominosim.base import bounded

    got = []
    for path, digest in files:
        if path not in cache:
            try:
                data = bounded.read(path, strategy.FILE_MAX)
            except (OSError, ValueError, bounded.NotRegular, bounded.TooLarge):
                data = None
            cache[path] = data if data and hashlib.sha256(data).hexdigest() == digest else None
        data = cache[path]
        if data is not None and f"{name}".encode() in data:
            got.append(classifier_in_source(data, name))
    return got[0] if len(got) == 1 else None
