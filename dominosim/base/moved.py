"""The module paths of releases before the package had folders (issue 41), kept importable:
a user's strategy file that says ``from dominosim.scoring import placement_points`` or
``from dominosim.tiles import pips`` goes on working. ``dominosim/__init__.py`` installs
:class:`Finder` last on ``sys.meta_path``, so it is asked only for a name no folder holds; it
answers with the module that now lives at the new path (one module object under both names).
The old paths are deprecated (docs/strategies.md, "Writing a strategy"): they are kept for
users' files only, and no file of the package imports them, the built-in strategy files
included (``tests/test_registrations.py``); new code imports the new paths (docs/design.md,
"Layout of the package")."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from types import ModuleType

#: the folder each module of the top level moved into
_FOLDERS = {
    "base": ("errors", "version", "bounded", "signals"),
    "game": (
        "tiles",
        "actions",
        "rules",
        "variants",
        "layout",
        "seeding",
        "observe",
        "scoring",
        "reference",
    ),
    "strategy": ("sandbox", "policy_files"),
    "analysis": ("aggregates", "stats", "report", "render", "plots", "tournament", "table"),
    "storage": ("store", "arrow"),
    "engine": ("solver",),
}
#: old path -> the module's path now
MOVED = {f"dominosim.{m}": f"dominosim.{f}.{m}" for f, ms in _FOLDERS.items() for m in ms}
MOVED["dominosim.engine.observe"] = "dominosim.engine.batch_observation"


class Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads it as the module at its new path."""

    def find_spec(self, name: str, path: object = None, target: object = None):
        if name not in MOVED:
            return None
        return importlib.util.spec_from_loader(name, self)

    def __init__(self) -> None:
        self._specs: dict[str, object] = {}

    def create_module(self, spec) -> ModuleType:
        module = importlib.import_module(MOVED[spec.name])
        self._specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # (the import system stamped the old name's spec on the module: give it back its own)
        module.__spec__ = self._specs[module.__name__]


def install() -> None:
    """Put :class:`Finder` last on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, Finder) for f in sys.meta_path):
        sys.meta_path.append(Finder())
