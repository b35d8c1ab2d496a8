"""The registry of strategies, one object (issue 48): the names registered and the files that
registered them, the strategy files loaded (with their content's hash and stamp as loaded),
the classes each file registered, the built-in modules loaded and each class's
classification. ``strategy.REGISTRY`` is the
process's; ``dominosim.strategy``'s functions (``register``, ``get``, ``discover``,
``load_file``, ...) are its methods, and :meth:`Registry.scoped` gives back the names and files
a block registered (the suite's ``clean_registry``).

The built-ins are declared (:mod:`dominosim.strategy.registrations`): their names are known,
their files and what lists of strategies show of them read from their rows, and a built-in
file is run only when a strategy it defines is asked for (:meth:`Registry.builtin`), so a run
loads the files of the strategies it seats and no other.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from dominosim.base.errors import StrategyError
from dominosim.base.signals import FAULTS, is_interruption
from dominosim.strategy.registrations import BY_NAME

PACKAGE = "dominosim.strategies"  # the built-in strategy files' package

#: The most bytes a strategy file may have (a source file; anything larger is not one).
FILE_MAX = 16 << 20


def builtin_dir() -> Path:
    """The built-in strategies: ``dominosim/strategies`` when installed, else ``strategies/``."""
    here = Path(__file__).resolve().parent.parent
    installed = here / "strategies"
    return installed if installed.is_dir() else here.parent / "strategies"


def module_file(module_name: str) -> str | None:
    """The resolved file of a loaded module (None for one without a file)."""
    file = getattr(sys.modules.get(module_name), "__file__", None)
    return str(Path(file).resolve()) if file else None


class Known(Mapping):
    """The strategy names known (every built-in's, declared, and every name registered), each
    to its class: a built-in's file is loaded when its class is first asked for."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry

    def __getitem__(self, name: str) -> type:
        if isinstance(name, str) and name in BY_NAME:
            return self._registry.builtin(name)
        cls = self._registry.classes.get(name)
        if cls is None:
            raise KeyError(name)
        return cls

    def __contains__(self, name: object) -> bool:
        return name in self._registry.classes or (isinstance(name, str) and name in BY_NAME)

    def __iter__(self) -> Iterator[str]:
        return iter(self._registry.names())

    def __len__(self) -> int:
        return len(self._registry.names())


class Registry:
    """The strategies of a process: what is registered, from which file, and the files loaded."""

    def __init__(self) -> None:
        self.classes: dict[str, type] = {}  # name -> registered class
        self.origins: dict[str, str] = {}  # name -> the file that registered it
        self.loaded: set[Path] = set()  # the strategy files loaded
        self.hashes: dict[Path, str] = {}  # the content hash of each loaded file, as loaded
        self.stamps: dict[Path, tuple] = {}  # its size, modification time, inode when hashed
        self.loading: list[str] = []  # the files being loaded now, innermost last
        self.file_classes: dict[str, list[type]] = {}  # the classes each file registered
        # per built-in module (dominosim.strategies.<file>): the module object, and whether
        # it was loaded from the built-in folder
        self.modules: dict[str, tuple[object, bool]] = {}
        # each registered (or classified) class's classifier, read once when the class is
        # registered and never again: what a strategy is handed and how reports mark it
        # (docs/design.md, "Classification"); kept by scoped, as a class's classification is
        # fixed for the process
        self.classified: dict[type, str] = {}
        # classes that hold a strategy (``inner``) and play it as it is: looked through to it
        self.wrappers: set[type] = set()
        # the strategies' instances this process plays, by seat label and the version of the
        # file they came from (``runner.worker.make_strategy``): forgotten with the names
        # registered in a ``scoped`` block
        self.instances: dict[tuple, object] = {}

    # -- names ---------------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Every name known: the built-ins' (declared), then the others registered."""
        return [*BY_NAME, *(n for n in self.classes if n not in BY_NAME)]

    def known(self) -> Known:
        return Known(self)

    def builtin_origin(self, name: str) -> str:
        """The file of the built-in strategy ``name`` (its row's), resolved."""
        return str((builtin_dir() / BY_NAME[name].file).resolve())

    def origin(self, name: str) -> str:
        """The file that registers strategy ``name`` (a KeyError for a name not known)."""
        if name in self.origins:
            return self.origins[name]
        if isinstance(name, str) and name in BY_NAME:
            return self.builtin_origin(name)
        raise KeyError(name)

    def builtin(self, name: str) -> type:
        """The class of the built-in strategy ``name``, its file loaded first (if it is not
        loaded, or changed since: :meth:`load_file`)."""
        self.load_file(builtin_dir() / BY_NAME[name].file)
        cls = self.classes.get(name)
        if cls is None:
            raise StrategyError(
                f"built-in strategy file {BY_NAME[name].file} registers no strategy '{name}'; "
                "its row in dominosim/strategy/registrations.py names another file"
            )
        return cls

    def load_builtins(self) -> None:
        """Load every built-in strategy file."""
        for name in BY_NAME:
            self.builtin(name)

    def discover(self, paths: Iterable[str | Path] = ()) -> Known:
        """Load the strategy files and folders ``paths`` (as given to ``--strategy-path``);
        every name known, each to its class (a built-in's loaded when asked for)."""
        from dominosim.strategy.spec import expand_home

        for p in paths:
            p = Path(expand_home(str(p), "--strategy-path"))
            if p.is_file():
                self.load_file(p)
            elif p.exists() and not p.is_dir():
                raise StrategyError(
                    f"strategy path {p} is not a folder or a .py file; check --strategy-path"
                )
            else:
                self.load_folder(p)
        return self.known()

    def loaded_version(self, name: str) -> tuple[str | None, str | None]:
        """(the file that registered ``name``, that file's sha256 as it was loaded), or
        ``(None, None)`` for a name not known; a built-in's file is loaded first."""
        if isinstance(name, str) and name in BY_NAME:
            self.builtin(name)
        path = self.origins.get(name)
        return path, (self.hashes.get(Path(path)) if path else None)

    @contextlib.contextmanager
    def scoped(self) -> Iterator[Registry]:
        """The names registered, the files loaded and the instances made inside the block are
        forgotten after it (the classes of a built-in file loaded there are registered again
        when asked for)."""
        kept = (self.classes, self.origins, self.loaded, self.instances)
        saved = tuple(x.copy() for x in kept)
        try:
            yield self
        finally:
            for live, old in zip(kept, saved, strict=True):
                live.clear()
                live.update(old)

    # -- registering ---------------------------------------------------------------------------

    def new_origin(self, cls: type) -> str:
        """The file a class being registered comes from: its module's, else the file being
        loaded, else its module's name."""
        return module_file(cls.__module__) or (self.loading[-1] if self.loading else cls.__module__)

    def add(self, cls: type, origin: str) -> None:
        """Register ``cls`` under its name, from the file ``origin`` (a name registered, or
        declared a built-in's, by another file is a StrategyError)."""
        name = cls.name
        before = self.origins.get(name)
        if before is None and name in BY_NAME:
            before = self.builtin_origin(name)
        if before is not None and before != origin:
            raise StrategyError(
                f"strategy '{name}' is defined twice: in {before} and in {origin}; rename one"
            )
        self.classes[name] = cls
        self.origins[name] = origin
        self._note_builtin(cls.__module__)
        classes = self.file_classes.setdefault(origin, [])
        if cls not in classes:
            classes.append(cls)

    def _note_builtin(self, module_name: str) -> None:
        """For a built-in module, whether its file is the built-in folder's (once per module
        object: a module loaded again is noted again)."""
        module = sys.modules.get(module_name)
        if not module_name.startswith(PACKAGE + ".") or module is None:
            return
        if self.modules.get(module_name, (None,))[0] is module:
            return
        file = module_file(module_name)
        in_folder = file is not None and Path(file).parent == builtin_dir().resolve()
        self.modules[module_name] = (module, in_folder)

    def builtin_module(self, cls: type) -> object | None:
        """The built-in module ``dominosim.strategies.<file>`` now loaded from the built-in
        folder that defines ``cls`` (None: ``cls`` is no such class)."""
        module, in_folder = self.modules.get(cls.__module__, (None, False))
        if module is None or not in_folder or sys.modules.get(cls.__module__) is not module:
            return None
        return module if vars(module).get(cls.__qualname__) is cls else None

    def builtin_twins(self) -> list[type]:
        """The classes declaring a compiled twin in the built-in modules now loaded."""
        # fmt: off
        return [c for name, (mod, in_folder) in self.modules.items()
                if in_folder and sys.modules.get(name) is mod
                for c in vars(mod).values()
                if isinstance(c, type) and c.__module__ == name and "compiled" in vars(c)]
        # fmt: on

    # -- loading files -------------------------------------------------------------------------

    def load_folder(self, folder: str | Path) -> None:
        """Load every ``*.py`` file of a folder (files starting with ``_`` are skipped)."""
        folder = Path(folder)
        if not folder.is_dir():
            raise StrategyError(f"strategy folder {folder} does not exist; check --strategy-path")
        for path in sorted(folder.glob("*.py")):
            if not path.name.startswith("_"):
                self.load_file(path)

    def load_file(self, path: Path, expect: str | None = None) -> None:
        """Load one strategy file; a file changed since it was loaded is loaded again, so a
        long-lived process plays the file as it is now. With ``expect`` (a sha256), the file
        is read once, its content checked against it, and that content imported (a file
        named by a manifest: nothing else is ever run); a mismatch is a StrategyError and
        nothing is run. The code is compiled from the bytes read, so no ``__pycache__`` is
        written beside it."""
        path = Path(path).resolve()
        if path.suffix != ".py":
            raise StrategyError(
                f"strategy path {path} is not a folder or a .py file; check --strategy-path"
            )
        stamp = _stamp(path)
        cached = path in self.loaded and stamp is not None and self.stamps.get(path) == stamp
        if cached and expect in (None, self.hashes.get(path)):
            return
        data = _read_source(path)
        digest = hashlib.sha256(data).hexdigest()
        if expect is not None and digest != expect:
            raise StrategyError(
                f"strategy file {path} is not the file the run recorded (its content changed "
                "or it is another file); restore it, or start a new run"
            )
        if path in self.loaded and self.hashes.get(path) == digest:
            self.stamps[path] = stamp
            return
        # a built-in file is the module dominosim.strategies.<stem>: one imported already (by
        # a strategy that builds on it) is that file, not loaded a second time
        public = _public_name(path)
        if public and path not in self.loaded and module_file(public) == str(path):
            for cls in self.file_classes.get(str(path), ()):  # (registered again if taken out)
                if self.classes.get(cls.name) is not cls:
                    self.add(cls, str(path))
        else:
            self._exec_file(path, public, data)
        self.loaded.add(path)
        self.hashes[path] = digest
        self.stamps[path] = stamp

    def _exec_file(self, path: Path, public: str | None, data: bytes) -> None:
        """Run a strategy file's code (``data``, the bytes read and checked) as a module."""
        mod_name = (
            public or f"dominosim_strategy_{abs(hash(str(path))):x}_{path.stem.replace('-', '_')}"
        )
        spec = importlib.util.spec_from_file_location(mod_name, path)
        module = importlib.util.module_from_spec(spec)
        self.loading.append(str(path))
        self.file_classes.pop(str(path), None)
        try:
            sys.modules[mod_name] = module
            exec(compile(data, str(path), "exec"), module.__dict__)  # noqa: S102 - the file's code
            if public:
                setattr(sys.modules[PACKAGE], path.stem, module)
        except StrategyError:
            sys.modules.pop(mod_name, None)
            raise
        except SyntaxError as exc:
            sys.modules.pop(mod_name, None)
            raise StrategyError(
                f"strategy file {path} has a syntax error at line {exc.lineno}: {exc.msg}; fix it"
            ) from None
        except FAULTS as exc:  # (sys.exit at import too: it must not end the process quietly)
            sys.modules.pop(mod_name, None)
            if is_interruption(exc):
                raise
            text = " ".join(str(exc).split())
            raise StrategyError(
                f"strategy file {path} failed to load: {type(exc).__name__}"
                f"{': ' + text if text else ''}; fix it"
            ) from None
        finally:
            self.loading.pop()


def _stamp(path: Path) -> tuple | None:
    try:  # (unchanged size and modification time: the content hashed at load time stands)
        st = path.stat()
        return (st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        return None


def _read_source(path: Path) -> bytes:
    """A strategy file's bytes: a regular file (never a FIFO, a device) of at most
    :data:`FILE_MAX` bytes."""
    from dominosim.base import bounded

    try:
        return bounded.read(path, FILE_MAX)
    except (bounded.NotRegular, bounded.TooLarge) as e:
        raise StrategyError(f"strategy file {path} {e}; give a .py file") from None
    except OSError as e:
        raise StrategyError(
            f"cannot read strategy file {path}: {e.strerror or e}; check the path"
        ) from None


def bind_package() -> None:
    """Make ``dominosim.strategies`` the package of the built-in files of :func:`builtin_dir`
    (an editable install maps it there too; this also holds in a source tree run by path)."""
    if PACKAGE in sys.modules:
        return
    folder = builtin_dir()
    init = folder / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(
            PACKAGE, init, submodule_search_locations=[str(folder)]
        )
    else:
        spec = importlib.machinery.ModuleSpec(PACKAGE, None, is_package=True)
        spec.submodule_search_locations = [str(folder)]
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    if spec.loader is not None:
        spec.loader.exec_module(package)
    parent = sys.modules.get("dominosim")
    if parent is not None:
        parent.strategies = package


def _public_name(path: Path) -> str | None:
    """``dominosim.strategies.<stem>`` for a built-in strategy file, else None."""
    package = sys.modules.get(PACKAGE)
    folders = [Path(f).resolve() for f in getattr(package, "__path__", ())]
    if path.parent in folders and path.stem.isidentifier():
        return f"{PACKAGE}.{path.stem}"
    return None
