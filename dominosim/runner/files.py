"""The strategy files of a run: listed with their hashes, checked, loaded (a manifest is
untrusted input)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from dominosim import strategy
from dominosim.base import bounded
from dominosim.base.errors import ConfigError, DominosimError, OutputError, StrategyError
from dominosim.strategy import sandbox
from dominosim.strategy.registrations import same_games
from dominosim.strategy.spec import parse_strategy

# ---------------------------------------------------------------------------------------------
# strategies in workers


def load_strategy_paths(paths: Iterable[str]) -> None:
    """Load strategy files and folders (a path may be a ``.py`` file or a folder): the user's
    own ``--strategy-path``, never a path read from a run folder (:func:`load_run_files`)."""
    for p in paths:
        path = Path(p).expanduser()
        if path.is_file():
            strategy.load_file(path)
        elif path.is_dir():
            strategy.load_folder(path)
        elif path.exists() or path.is_symlink():
            raise StrategyError(
                f"strategy path {p} is not a folder or a .py file; check --strategy-path"
            )
        else:
            raise StrategyError(f"strategy path {p} does not exist; check --strategy-path")


def strategy_files(
    paths: Iterable[str], labels: Iterable[str] = (), origins: dict[str, str] | None = None
) -> list[dict]:
    """The strategy files a run plays, with their sha256, as the manifest lists them: the
    built-in files by name (``{"builtin": "greedy.py", "sha256": ...}``: another install
    with the same files resumes the run) and, of the user's files (``paths``, loaded), only
    those that define a strategy of ``labels`` (the seated ones) and the files of ``paths``
    they import (:func:`imported_files`), by absolute path (``{"path": ..., "sha256": ...}``):
    another file of the same folder may change without touching the run. ``origins``: the
    file of each strategy name where the registry here does not know it (``--isolate``: the
    fresh process that loaded them said)."""
    out = []
    for x in _py_files(strategy.builtin_dir()):
        out.append({"builtin": x.name, "sha256": strategy.file_hash(x)})
    roots = [Path(p).expanduser().resolve() for p in paths]
    seated = []
    for label in dict.fromkeys(labels):
        name = parse_strategy(label).name
        try:
            where = Path(origins[name] if name in (origins or {}) else strategy.origin(name))
        except (KeyError, DominosimError):
            continue
        if strategy.builtin_name(where) is None and any(_within(where, r) for r in roots):
            seated.append(where.resolve())
    for x in imported_files(seated, roots):
        out.append({"path": str(x), "sha256": strategy.file_hash(x)})
    return out + model_files(labels)


def model_files(labels: Iterable[str]) -> list[dict]:
    """The model files the seated ``learned`` players read, as the manifest lists them
    (``{"model": ..., "sha256": ...}``): where one is seated, every shipped model by name
    (``shipped:fives-2p.json``) and each ``learned:model=PATH`` by absolute path. A model is
    data (never run), checked by its sha256 like a strategy file."""
    from dominosim.strategy.models import shipped_dir

    specs = [parse_strategy(x) for x in dict.fromkeys(labels)]
    learned = [s for s in specs if s.name == "learned"]
    if not learned:
        return []
    out = [
        {"model": f"shipped:{x.name}", "sha256": strategy.file_hash(x)}
        for x in sorted(shipped_dir().glob("*.json"))
    ]
    for s in learned:
        given = dict(s.params).get("model")
        if isinstance(given, str) and given:
            where = Path(given).expanduser().resolve()
            entry = {"model": str(where), "sha256": strategy.file_hash(where)}
            if entry not in out:
                out.append(entry)
    return out


def imported_files(files: Sequence[Path], roots: Sequence[Path]) -> list[Path]:
    """``files`` and, read statically (``ast``: nothing is run), the ``.py`` files of the
    folders ``roots`` (or beside a file) they import by module name, and those these import,
    in order of first appearance."""
    import ast

    out: dict[Path, None] = {}
    todo = list(files)
    while todo:
        f = todo.pop(0)
        if f in out:
            continue
        out[f] = None
        try:
            tree = ast.parse(bounded.read(f, strategy.FILE_MAX))
        except (SyntaxError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            for name in names:
                for folder in dict.fromkeys([f.parent, *(r for r in roots if r.is_dir())]):
                    cand = folder.joinpath(*name.split(".")).with_suffix(".py")
                    if cand.is_file() and not cand.is_symlink():
                        todo.append(cand.resolve())
    return list(out)


def _within(path: Path, root: Path) -> bool:
    """``path`` is ``root`` (a file) or lies inside the folder ``root``."""
    return path == root or root in path.parents


def probe_strategies(
    paths: Sequence[str],
    labels: Sequence[str],
    files: Sequence[tuple[str, str, str]] = (),
    timeout: float = 0.0,
) -> dict:
    """Load the strategy files ``paths`` (or a run's recorded ``files``, as
    :func:`load_run_files` does) and start the strategies ``labels`` in a child process first
    (:func:`dominosim.sandbox.call`): a file that ends its process at import or in a
    strategy's ``__init__`` (``os._exit``, a crash) is a StrategyError naming it, where
    loading it here would end this process quietly; one that takes longer than ``timeout``
    seconds (``--strategy-timeout``, 0: no limit) is one too, and so is an error of loading
    (raised in the child: the file is never imported here). Returns what the child found:
    the notes of the strategies' names (``notes``: strategy.twin_note), the file defining
    each strategy name known there (``origins``) and the names whose class plays with perfect
    information (``perfect_information``)."""

    def load(progress, paths, labels):
        return load_and_start(paths, files, labels, progress)

    def died(how: str, last: str | None) -> str:
        return load_failure(how, last, paths)

    def late(last: str | None) -> str:
        return load_failure(None, last, paths, timeout)

    # the seated built-ins first, here (dominosim's own code): the forked child inherits
    # them, so the engine and their files are not imported twice (a tenth of a second)
    for label in dict.fromkeys(labels):
        name = label.split(":", 1)[0]  # (a label's errors are the child's to say)
        if name in strategy.builtins():
            strategy.discover()[name]  # (its file loaded)
    return sandbox.call(load, list(paths), list(labels), died=died, late=late, timeout=timeout)


def load_and_start(
    paths: Sequence[str],
    files: Sequence[tuple[str, str, str]],
    labels: Sequence[str],
    progress: Callable[[str], None],
) -> dict:
    """Load the strategy files ``paths`` and a run's recorded ``files`` and make each
    strategy of ``labels`` once, saying each step to ``progress`` ("path P", "start NAME":
    what :func:`load_failure` names); what a child that did so tells the engine (by
    :func:`probe_strategies` and runner.isolated): ``notes`` (strategy.twin_note of the
    names), ``names`` (every strategy name known), ``origins`` (the file of each) and
    ``perfect_information`` (the names whose class plays with it)."""
    for p in paths:
        progress(f"path {p}")
        load_strategy_paths([p])
    for kind, ref, digest in files:
        if kind == "path":
            progress(f"path {ref}")
            strategy.load_file(Path(ref), expect=digest)
    names = []
    for label in dict.fromkeys(labels):
        spec = parse_strategy(label)
        progress(f"start {spec.name}")
        strategy.get(spec.name, **spec.kwargs)
        names.append(spec.name)
    notes = [n for n in dict.fromkeys(map(strategy.twin_note, names)) if n is not None]
    known = strategy.discover()
    return {
        "notes": notes,
        "names": sorted(str(x) for x in known),
        "origins": {str(x): str(strategy.origin(x)) for x in known},
        "perfect_information": [
            str(x) for x in known if strategy.classifier_of(x) == strategy.PERFECT_INFORMATION
        ],
    }


def load_failure(
    how: str | None, last: str | None, paths: Sequence[str], timeout: float = 0.0
) -> str:
    """The error of a child process that loaded strategy files (``paths``) and started
    strategies, saying last ``last`` ("path P" or "start NAME"): it ended (``how``, in words)
    or, ``how`` None, overran ``timeout`` seconds."""
    kind, _, what = (last or "path ").partition(" ")
    if how is None:
        thing = (
            f"strategy '{what}'" if kind == "start" else f"strategy path {what or ', '.join(paths)}"
        )
        return (
            f"{thing} did not load within {timeout:g} s (--strategy-timeout: a loop or a wait "
            "at import or in __init__); fix it or raise the limit"
        )
    if kind == "start":
        return (
            f"strategy '{what}' ended its process in __init__ ({how}: os._exit, or a "
            "crash); fix its __init__"
        )
    return (
        f"strategy path {what or ', '.join(paths)} ended its process while loading "
        f"({how}: os._exit at import, or a crash); fix it"
    )


def _py_files(f: Path) -> list[Path]:
    if f.is_dir():
        return sorted(x for x in f.glob("*.py") if not x.name.startswith("_"))
    return [f]


_SHA256 = re.compile(r"[0-9a-f]{64}")


def recorded_files(inputs: object) -> tuple[tuple[str, str, str], ...]:
    """The strategy files a manifest's ``inputs`` lists, as ``(kind, name or path, sha256)``
    (:func:`strategy_files`), each entry checked: a built-in by plain file name, a user's file
    by absolute ``.py`` path, a sha256 each; a ValueError names a bad entry. A manifest of
    format 1 (``{path: sha256}``) is read too: a path that is this install's built-in file,
    or a built-in file's name with its content, is that built-in."""
    if not isinstance(inputs, dict):  # (none recorded: check_inputs refuses to play on)
        return ()
    files = inputs.get("strategy_files", [])
    if isinstance(files, dict):  # (format 1)
        files = [_format1_entry(k, v) for k, v in files.items()]
    if not isinstance(files, list):
        raise TypeError(f"'inputs.strategy_files' is {files!r}, not a list")
    return tuple(_file_entry(e) for e in files)


def _format1_entry(path: object, digest: object) -> dict:
    name = strategy.builtin_name(path) if isinstance(path, str) else None
    if name is None and isinstance(path, str) and not Path(path).exists():
        here = strategy.builtin_file(Path(path).name)
        if here is not None and same_games(here.name, digest, strategy.file_hash(here)):
            name = here.name
    return {"builtin": name, "sha256": digest} if name else {"path": path, "sha256": digest}


def _file_entry(e: object) -> tuple[str, str, str]:
    if (
        not isinstance(e, dict)
        or len(e) != 2
        or not isinstance(e.get("sha256"), str)
        or not _SHA256.fullmatch(e["sha256"])
    ):
        raise ValueError(f"strategy file entry {e!r} is not a file and its sha256")
    if "model" in e:
        return ("model", _model_ref(e), e["sha256"])
    if "builtin" in e:
        if strategy.builtin_file(e["builtin"]) is None:
            raise ValueError(
                f"built-in strategy file {e['builtin']!r} is not one of this install's"
            )
        return ("builtin", e["builtin"], e["sha256"])
    path = e.get("path")
    if (
        not isinstance(path, str)
        or not Path(path).is_absolute()
        or not path.endswith(".py")
        or "\0" in path
    ):
        raise ValueError(f"strategy file entry {e!r} is not an absolute path of a .py file")
    return ("path", path, e["sha256"])


def _model_ref(e: dict) -> str:
    """A model entry's file: a shipped model of this install by name, or an absolute path of
    a ``.json`` file (a ValueError names a bad one)."""
    ref = e["model"]
    if isinstance(ref, str) and ref.startswith("shipped:"):
        if _shipped_model(ref) is None:
            raise ValueError(f"shipped model {ref!r} is not one of this install's")
        return ref
    if (
        not isinstance(ref, str)
        or not Path(ref).is_absolute()
        or not ref.endswith(".json")
        or "\0" in ref
    ):
        raise ValueError(f"model entry {e!r} is not a shipped model or an absolute .json path")
    return ref


def _shipped_model(ref: str) -> Path | None:
    from dominosim.strategy.models import shipped_dir

    name = ref.removeprefix("shipped:")
    path = shipped_dir() / name
    return path if Path(name).name == name and name.endswith(".json") and path.is_file() else None


def file_location(kind: str, ref: str) -> Path | None:
    """Where a recorded strategy or model file is on this machine (None: a built-in or a
    shipped model this install lacks)."""
    if kind == "builtin":
        return strategy.builtin_file(ref)
    if kind == "model" and ref.startswith("shipped:"):
        return _shipped_model(ref)
    return Path(ref)


def changed_strategy_file(recorded: Iterable[tuple[str, str, str]]) -> str | None:
    """The first recorded strategy file whose content is not what the run began with (or
    that is missing); a built-in file whose content plays the same games as the recorded one
    is not changed (``registrations.SAME_GAMES``: an edit of its imports)."""
    for kind, ref, digest in recorded:
        where = file_location(kind, ref)
        now = strategy.file_hash(where) if where is not None else None
        if now == digest or (kind == "builtin" and same_games(ref, digest, now)):
            continue
        return str(where or f"{ref} (built-in)")
    return None


def load_run_files(files: Iterable[tuple[str, str, str]]) -> None:
    """Load the user's strategy files of a run, each whose content is the recorded one
    (:func:`strategy.load_file` reads it once, checks its sha256 and runs what it checked; no
    other file of a folder is imported; a built-in's file is loaded when it is made)."""
    for kind, ref, digest in files:
        if kind == "path":
            strategy.load_file(Path(ref), expect=digest)


# ---------------------------------------------------------------------------------------------
# which recorded files may be run: only those the user names (a manifest is untrusted input)

#: the folders of the system's own files: a strategy file is never loaded from them
SYSTEM_FOLDERS = ("/proc", "/sys", "/dev")

#: the manifest's ``inputs`` key saying its user files are only the ones the run seats
#: (:func:`strategy_files`); a manifest without it lists every file of the strategy folders
SEATED = ("strategy_files_of", "seated")


def unsafe_path(ref: str) -> str | None:
    """Why the recorded path ``ref`` is never loaded whatever the user names (None: it may
    be, when named): not in its plain form (``..``, ``.``, doubled slashes), under
    :data:`SYSTEM_FOLDERS`, or through a symbolic link (a recorded path is a resolved one)."""
    if os.path.normpath(ref) != ref or ".." in Path(ref).parts:
        return "a path not in its plain form ('..' or '.' in it)"
    system = [s for s in SYSTEM_FOLDERS if ref == s or ref.startswith(s + "/")]
    if system:
        return f"a file of the system's {system[0]}"
    try:
        real = os.path.realpath(ref)
    except (OSError, ValueError):
        return "a path that cannot be resolved"
    if real != ref:
        return f"a path through a symbolic link (to {real})"
    return None


def named_roots(named: Iterable[str], command: str) -> list[Path]:
    """The files and folders the user names (``--strategy-path``), resolved; one that does
    not exist is a ConfigError."""
    out = []
    for p in named:
        path = Path(p).expanduser()
        if not path.exists():
            raise ConfigError(f"{command}: strategy path {p} does not exist; check --strategy-path")
        out.append(path.resolve())
    return out


def permitted_files(
    files: Iterable[tuple[str, str, str]], named: Iterable[str], command: str, strict: bool
) -> tuple[tuple[tuple[str, str, str], ...], list[str]]:
    """The recorded ``files`` that may be loaded, and the user's files left out: a built-in
    always; a user's file only inside a path the user names (``named``: ``--strategy-path``)
    and never one of :func:`unsafe_path` (a ConfigError, one line). ``strict`` (a manifest
    of :data:`SEATED`): a user's file not named is a ConfigError naming the fix; else (an
    older manifest, listing every file of its folders) it is left out, and the run goes on
    if its seated strategies do not need it (:func:`check_seated`)."""
    roots = named_roots(named, command)
    keep, left = [], []
    for kind, ref, digest in files:
        if kind == "builtin" or (kind == "model" and ref.startswith("shipped:")):
            keep.append((kind, ref, digest))
            continue
        why = unsafe_path(ref)
        if why is not None:
            raise ConfigError(
                f"{command}: the manifest names the strategy file {ref!r}, {why}; a run folder "
                "is data and no path it names is run: name your own copy of the strategy "
                "with --strategy-path DIR"
            )
        if kind == "model" or any(_within(Path(ref), r) for r in roots):  # (a model is data)
            keep.append((kind, ref, digest))
        elif strict:
            raise ConfigError(not_named(ref, command))
        else:
            left.append(ref)
    return tuple(keep), left


def not_named(ref: str, command: str) -> str:
    """The error of a user's strategy file the user did not name."""
    return (
        f"{command}: strategy file {ref} is a user file (not a built-in), and a run folder's "
        f"code is run only where you name it; name it, or the folder holding it, with "
        f"--strategy-path {Path(ref).parent}"
    )


def check_seated(
    labels: Iterable[str],
    loaded: Iterable[tuple[str, str, str]],
    left: Sequence[str],
    changed: Sequence[str],
    command: str,
    isolated_names: set[str] | None = None,
) -> None:
    """After the permitted files (``loaded``) are loaded: every seated strategy of
    ``labels`` is defined by a built-in or one of them (``isolated_names``: the names those
    files define, loaded in a fresh process under ``--isolate``, not here), else the error of
    the first file left out (``left``: not named; ``changed``: changed or missing since the
    run began), which may define it."""
    ours = {ref for kind, ref, _ in loaded if kind == "path"}
    missing = []
    for label in labels:
        if isolated_names is not None and parse_strategy(label).name in isolated_names:
            continue
        try:
            where = strategy.origin(parse_strategy(label).name)
        except KeyError:
            where = None
        if where is None or (strategy.builtin_name(where) is None and where not in ours):
            missing.append(label)
    if not missing:
        return
    if changed:
        raise OutputError(
            f"{command}: strategy file {changed[0]} changed since the run began (or is "
            f"missing), and the run seats '{missing[0]}', which no other file defines; "
            "restore the file, or start a new run"
        )
    if left:
        raise ConfigError(not_named(left[0], command))
