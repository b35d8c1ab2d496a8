"""The strategy files of a run: listed with their hashes, checked, loaded (a manifest is
untrusted input)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from dominosim import strategy
from dominosim.base.errors import StrategyError
from dominosim.strategy import sandbox
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


def strategy_files(paths: Iterable[str]) -> list[dict]:
    """Every strategy file a run loads, with its sha256, as the manifest lists them: the
    built-in files by name (``{"builtin": "greedy.py", "sha256": ...}``: another install
    with the same files resumes the run) and the user's files by absolute path (``{"path":
    ..., "sha256": ...}``), the ``*.py`` files of the folders of ``paths`` included."""
    out = []
    for x in _py_files(strategy.builtin_dir()):
        out.append({"builtin": x.name, "sha256": strategy.file_hash(x)})
    for p in paths:
        for x in _py_files(Path(p).expanduser()):
            if strategy.builtin_name(x) is None:
                out.append({"path": str(x.resolve()), "sha256": strategy.file_hash(x)})
    return out


def probe_strategies(
    paths: Sequence[str],
    labels: Sequence[str],
    files: Sequence[tuple[str, str, str]] = (),
    timeout: float = 0.0,
) -> None:
    """Load the strategy files ``paths`` (or a run's recorded ``files``, as
    :func:`load_run_files` does) and start the strategies ``labels`` in a child process first
    (:func:`dominosim.sandbox.call`): a file that ends its process at import or in a
    strategy's ``__init__`` (``os._exit``, a crash) is a StrategyError naming it, where
    loading it here would end this process quietly; one that takes longer than ``timeout``
    seconds (``--strategy-timeout``, 0: no limit) is one too, and so is an error of loading
    (raised in the child: the file is never imported here)."""

    def load(progress, paths, labels):
        for p in paths:
            progress(f"path {p}")
            load_strategy_paths([p])
        for kind, ref, digest in files:
            if kind == "path":
                progress(f"path {ref}")
                strategy.load_file(Path(ref), expect=digest)
        for label in dict.fromkeys(labels):
            spec = parse_strategy(label)
            progress(f"start {spec.name}")
            strategy.get(spec.name, **spec.kwargs)

    def died(how: str, last: str | None) -> str:
        return load_failure(how, last, paths)

    def late(last: str | None) -> str:
        return load_failure(None, last, paths, timeout)

    # the built-ins first, here (dominosim's own code): the forked child inherits them, so
    # the engine and the built-in files are not imported twice (a tenth of a second)
    strategy.discover()
    sandbox.call(load, list(paths), list(labels), died=died, late=late, timeout=timeout)


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
        if here is not None and strategy.file_hash(here) == digest:
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


def file_location(kind: str, ref: str) -> Path | None:
    """Where a recorded strategy file is on this machine (None: a built-in this install lacks)."""
    return strategy.builtin_file(ref) if kind == "builtin" else Path(ref)


def changed_strategy_file(recorded: Iterable[tuple[str, str, str]]) -> str | None:
    """The first recorded strategy file whose content is not what the run began with (or
    that is missing)."""
    for kind, ref, digest in recorded:
        where = file_location(kind, ref)
        if where is None or strategy.file_hash(where) != digest:
            return str(where or f"{ref} (built-in)")
    return None


def load_run_files(files: Iterable[tuple[str, str, str]]) -> None:
    """Load the strategy files of a run (the built-in ones, then each of the user's files
    whose content is the recorded one: :func:`strategy.load_file` reads it once, checks its
    sha256 and runs what it checked; no other file of a folder is imported)."""
    strategy.discover()
    for kind, ref, digest in files:
        if kind == "path":
            strategy.load_file(Path(ref), expect=digest)
