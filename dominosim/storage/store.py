"""The results folder of one run (docs/design.md, "Results that can be trusted"; docs/results.md).

```
<out>/<name>/<run-id>/
  manifest.json              resolved experiment, rules, versions, seed, chunk plan, status, timings
  chunks/<g>-<c>.parquet     per-hand records of chunk c of option group g (unless records off)
  matches/<g>-<c>.parquet    its per-match records (unless records off)
  chunks/<g>-<c>.agg.json    the chunk's integer aggregates (its presence marks the chunk done)
  aggregates.parquet         the merge of every chunk's aggregates (exact integers)
  summary.csv  paired.csv  report.md  plots/*.png
```

Every file is written under a temporary name and renamed when complete, so a killed run leaves
only whole files; a write or rename that fails removes its temporary file. Any ``OSError``
becomes an :class:`~dominosim.errors.OutputError`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dominosim.analysis.aggregates import AGG_COLUMNS  # (re-exported: the aggregates' schema)
from dominosim.analysis.chunk import (
    NOT_NAMED,
    ChunkResult,
    Damaged,
    Expected,
    Files,
    RecordsFile,
    decode,
)
from dominosim.analysis.chunk import checksum as checksum  # (re-exported: the plan's, tests')
from dominosim.analysis.manifest import Manifest
from dominosim.base import bounded
from dominosim.base.errors import OutputError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

MANIFEST = "manifest.json"
CHUNKS = "chunks"
AGGREGATES = "aggregates.parquet"
SUMMARY = "summary.csv"
PAIRED = "paired.csv"
#: the folder of the per-match records, matches/<group>-<chunk>.parquet (beside chunks/, so
#: that chunks/*.parquet stays the per-hand records), and the "suffix" that names them
MATCHES = "matches"
MATCHES_SUFFIX = ".matches"
REPORT = "report.md"
PLOTS = "plots"
LOCK = ".lock"
#: The most bytes a manifest may have (a plan lists at most 10,000 chunks: well under 1 MB).
MANIFEST_MAX = 4 << 20
#: The most bytes a chunk's aggregates file may have (one chunk's rows: a few kilobytes;
#: skill's measurements and every histogram bin of a long match stay far below it).
AGG_MAX = 2 << 20


def records_limit(hands: int) -> int:
    """The most bytes the records file of a chunk of ``hands`` hands may have (about 20 bytes
    a hand are written; 64 KiB of schema and footers)."""
    return (64 << 10) + 256 * max(0, hands)


def records_size_limit(hands: int) -> int:
    """The bound of a chunk's records file: from the hands its aggregates recorded (0 where
    they are past any chunk's)."""
    return records_limit(hands if 0 <= hands < 2**40 else 0)


def aggregates_limit(groups: int) -> int:
    """The most bytes aggregates.parquet may have for a run of ``groups`` option groups."""
    return AGG_MAX * max(1, groups)


_LOCK_FDS: set[int] = set()  # lock files this process holds (closed in forked workers)


@contextmanager
def output_errors(what: str) -> Iterator[None]:
    """Turn any OSError raised inside the block into a one-line OutputError."""
    try:
        yield
    except OutputError:
        raise
    except OSError as e:
        where = e.filename or what
        reason = e.strerror or str(e)
        raise OutputError(
            f"cannot write {where}: {reason}; check the --out folder (permissions, disk space)"
        ) from None


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: into a new temporary file (created here, never
    through a link left at its name), then renamed over ``path`` (which replaces a link
    there, never follows it). A failed write removes the temporary file."""
    tmp = _tmp(path)
    with output_errors(str(path)):
        tmp.unlink(missing_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(tmp, flags | getattr(os, "O_BINARY", 0), 0o644)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`write_bytes`)."""
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, obj: object) -> None:
    write_text(path, json.dumps(obj, indent=1) + "\n")


def close_locks_in_child() -> None:
    """In a forked worker: drop the inherited lock file descriptors (the parent keeps its)."""
    for fd in list(_LOCK_FDS):
        try:
            os.close(fd)
        except OSError:
            pass
    _LOCK_FDS.clear()


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _kind(path: Path) -> str | None:
    """``is a FIFO (named pipe)`` (and the like) when ``path`` exists and is not a regular
    file; None otherwise."""
    import stat

    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"is {bounded.kind_of(mode)}"


def _link_message(path: Path) -> str:
    return (
        f"{path} is a symbolic link; dominosim writes only into a run folder's own "
        "files: replace the link by a copy of what it points to (or copy the folder with "
        "cp -rL), then resume"
    )


def read_json(path: Path, limit: int = MANIFEST_MAX) -> Any:
    """A JSON file of a run folder: a regular file of at most ``limit`` bytes (one line
    naming what is wrong otherwise: docs/errors.md)."""
    try:
        data = bounded.read(path, limit)
    except FileNotFoundError:
        raise OutputError(f"{path} does not exist; is this a run folder?") from None
    except (bounded.NotRegular, bounded.TooLarge) as e:
        raise OutputError(f"cannot read {path}: it {e}; the run folder is damaged") from None
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (OSError, ValueError, RecursionError) as e:
        reason = " ".join(str(e).split())[:200]
        raise OutputError(f"cannot read {path}: {reason}; the run folder is damaged") from None


def new_run_id() -> str:
    """A run id: local time and a short random suffix, e.g. ``20250101-120000-3fa9``."""
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


class RunDir:
    """One run's folder; see the module docstring for the layout."""

    def __init__(self, path: str | Path):
        self.path = Path(path)

    # --- creation and manifest ---------------------------------------------------------------
    @classmethod
    def create(cls, out: str | Path, name: str) -> RunDir:
        with output_errors(str(out)):
            base = Path(out).expanduser() / name
            base.mkdir(parents=True, exist_ok=True)
            for _ in range(100):
                p = base / new_run_id()
                try:
                    p.mkdir()
                except FileExistsError:
                    continue
                (p / CHUNKS).mkdir()
                return cls(p)
        raise OutputError(f"cannot create a run folder in {base}; too many runs at once")

    @classmethod
    def open(cls, path: str | Path) -> RunDir:
        """An existing run folder (OutputError if it has no manifest)."""
        p = Path(path)
        if not os.path.lexists(p / MANIFEST) or (p / MANIFEST).is_dir():
            raise OutputError(f"{p} is not a run folder (no {MANIFEST}); give results/NAME/RUN-ID")
        return cls(p)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def read_manifest(self) -> dict:
        m = read_json(self.manifest_path)
        if not isinstance(m, dict):
            raise OutputError(
                f"cannot read {self.manifest_path}: a JSON {type(m).__name__}, not an object; "
                "the run folder is damaged"
            )
        return m

    def manifest(self) -> Manifest:
        """The folder's manifest as its type, decoded leniently (nothing refused that a
        reader of a received folder reads past: ``Manifest.decode(strict=False)``)."""
        return Manifest.decode(self.read_manifest(), strict=False)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the folder's lock file for the block: a second process playing the same folder
        is refused (the lock goes with the process, so a killed run leaves none behind)."""
        try:
            import fcntl
        except ImportError:  # (no advisory locks on this platform)
            yield
            return
        path = self.path / LOCK
        if path.is_symlink():
            raise OutputError(_link_message(path))
        with output_errors(str(path)):  # (O_NOFOLLOW: a link put there since is refused too)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OutputError(
                f"{self.path} is being played by another dominosim process; wait for it to "
                "finish or stop it, then resume"
            ) from None
        _LOCK_FDS.add(fd)
        try:
            yield
        finally:
            _LOCK_FDS.discard(fd)
            os.close(fd)

    def check_writable(self) -> None:
        """Refuse to write into a run folder whose own entries are links (a received folder
        whose ``chunks`` points at another run's would have that run's chunks deleted, a
        ``.lock`` link would create a file elsewhere): every write of a run stays inside
        its folder. Links among the chunk files are not followed: they are not the run's
        chunks (:meth:`check_chunk`)."""
        for name in (MANIFEST, CHUNKS, MATCHES, AGGREGATES, SUMMARY, PAIRED, REPORT, PLOTS, LOCK):
            if (self.path / name).is_symlink():
                raise OutputError(_link_message(self.path / name))
        if (self.path / CHUNKS).exists() and not (self.path / CHUNKS).is_dir():
            raise OutputError(
                f"{self.path / CHUNKS} is not a folder; the run folder is damaged, start a new run"
            )

    def remove(self) -> None:
        """Delete the run folder (a run that failed before finishing any chunk)."""
        shutil.rmtree(self.path, ignore_errors=True)
        try:  # and OUT/NAME when this run was all it held
            self.path.parent.rmdir()
        except OSError:
            pass

    def write_manifest(self, manifest: Mapping) -> None:
        write_json(self.manifest_path, dict(manifest))

    # --- chunks ------------------------------------------------------------------------------
    def chunk_path(self, group: int, chunk: int, suffix: str) -> Path:
        """A chunk's file: ``.agg.json``, ``.parquet`` in chunks/, :data:`MATCHES_SUFFIX` its
        per-match records in matches/."""
        if suffix == MATCHES_SUFFIX:
            return self.path / MATCHES / f"{group}-{chunk}.parquet"
        return self.path / CHUNKS / f"{group}-{chunk}{suffix}"

    def write_chunk(
        self,
        result: ChunkResult,
        records: pa.Table | None = None,
        matches: pa.Table | None = None,
    ) -> None:
        """Write a chunk: its per-hand and per-match records (pyarrow Tables, or None) first,
        then its result (:meth:`ChunkResult.encode`), which names each records file's size
        and sha256.

        The ``.agg.json`` file is written last: its presence marks the chunk finished.
        """
        group, chunk = result.group, result.chunk
        with output_errors(str(self.path / CHUNKS)):
            (self.path / CHUNKS).mkdir(exist_ok=True)
            parquet = match_parquet = None
            if records is not None:
                parquet = self._write_table(records, group, chunk, ".parquet")
            if matches is not None:
                match_parquet = self._write_table(matches, group, chunk, MATCHES_SUFFIX)
            result = replace(result, parquet=parquet, match_parquet=match_parquet)
            write_bytes(self.chunk_path(group, chunk, ".agg.json"), result.encode())

    def _write_table(self, table: pa.Table, group: int, chunk: int, suffix: str) -> RecordsFile:
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        data = sink.getvalue().to_pybytes()
        path = self.chunk_path(group, chunk, suffix)
        path.parent.mkdir(exist_ok=True)
        write_bytes(path, data)
        return RecordsFile(len(data), hashlib.sha256(data).hexdigest())

    def check_chunk(self, expect: Expected) -> tuple[ChunkResult | None, str | None]:
        """``(result, None)`` when chunk ``expect.group``-``expect.chunk`` is whole and is the
        chunk ``expect`` describes (run, place, counts; :func:`~dominosim.analysis.chunk.decode`),
        with its records files when the run keeps them; else ``(None, reason)``: missing,
        truncated, altered, swapped, another run's, a link."""
        try:
            return self._read_chunk(expect, check_files=True), None
        except Damaged as e:
            return None, e.reason

    def read_chunk(self, expect: Expected) -> ChunkResult:
        """A chunk that checked out (:meth:`check_chunk`), read again (its records files are
        checked when they are read, :meth:`read_records`): an OutputError where it no longer
        checks out (as :meth:`read_records` says of a records file)."""
        try:
            return self._read_chunk(expect, check_files=False)
        except Damaged:
            path = self.chunk_path(expect.group, expect.chunk, ".agg.json")
            raise OutputError(
                f"{path} changed while it was read; read the run folder again"
            ) from None

    def _read_chunk(self, expect: Expected, check_files: bool) -> ChunkResult:
        """The chunk's aggregates file, read within its bound and decoded once."""
        group, chunk = expect.group, expect.chunk
        try:
            data = bounded.read(self.chunk_path(group, chunk, ".agg.json"), AGG_MAX)
        except (bounded.NotRegular, bounded.TooLarge) as e:
            raise Damaged(f"its aggregates file {e}") from None
        except OSError as e:
            raise Damaged(f"its aggregates file cannot be read ({type(e).__name__})") from None

        def files(named: Files) -> str | None:
            return self._check_record_files(group, chunk, named, expect.records)

        return decode(data, expect, files if check_files else None)

    def _check_record_files(
        self, group: int, chunk: int, named: Files, records: bool
    ) -> str | None:
        """Why a chunk's records files are not the ones its aggregates name (``records``: the
        run keeps records), or a records file of a run without them is not a regular file;
        None where they are."""
        if records:  # (the counts themselves: chunk.check_counts)
            reason = self._check_records(group, chunk, named.parquet, named.hands)
            # (per-match records: named by the chunks of this version, absent in older ones)
            if reason is None and named.match_parquet is not None:
                reason = self._check_match_records(group, chunk, named.match_parquet, named.hands)
            return reason
        if os.path.lexists(self.chunk_path(group, chunk, ".parquet")):
            kind = _kind(self.chunk_path(group, chunk, ".parquet"))
            if kind is not None:
                return f"its records file {kind}, not a regular file (damage)"
        return None

    def _check_match_records(
        self, group: int, chunk: int, part: RecordsFile, hands: int
    ) -> str | None:
        """Why a chunk's per-match records file is not the one its aggregates name, or None
        (a regular file of the size and sha256 they list, within the bound of its hands)."""
        if part is NOT_NAMED:
            return "its aggregates file names no match records file"
        path = self.chunk_path(group, chunk, MATCHES_SUFFIX)
        try:
            size, sha = bounded.digest(path, records_size_limit(hands))
        except (bounded.NotRegular, bounded.TooLarge) as e:
            return f"its match records file {e}"
        except OSError:
            return "its match records file is missing"
        if size != part.bytes or sha != part.sha256:
            return "its match records file does not match its checksum (damaged or swapped)"
        return None

    def _check_records(
        self, group: int, chunk: int, part: RecordsFile | None, hands: int
    ) -> str | None:
        """Why the records file of a chunk is not the one its aggregates name (None: it is):
        a regular file of the size and sha256 they list, within the bound of its hands."""
        if part is None:
            return "its aggregates file names no records file"
        path = self.chunk_path(group, chunk, ".parquet")
        try:
            size, sha = bounded.digest(path, records_size_limit(hands))
        except (bounded.NotRegular, bounded.TooLarge) as e:
            return f"its records file {e}"
        except OSError:
            return "its records file is missing"
        if size != part.bytes or sha != part.sha256:
            return "its records file does not match its checksum (damaged or swapped)"
        return None

    def read_records(self, result: ChunkResult) -> bytes:
        """The bytes of a chunk's records file that checked out (:meth:`check_chunk`), read
        again within its bound and checked against its sha256 once more (the file may have
        changed since): an OutputError otherwise."""
        path = self.chunk_path(result.group, result.chunk, ".parquet")
        try:
            data = bounded.read(path, records_size_limit(result.hands))
        except (OSError, ValueError) as e:
            raise OutputError(
                f"cannot read {bounded.problem(path, e)}; the run folder is damaged"
            ) from None
        sha = result.parquet.sha256 if result.parquet is not None else None
        if hashlib.sha256(data).hexdigest() != sha:
            raise OutputError(f"{path} changed while it was read; read the run folder again")
        return data

    def remove_chunk(self, group: int, chunk: int) -> None:
        """Delete a chunk's files (a damaged chunk, before it is played again)."""
        with output_errors(str(self.path / CHUNKS)):
            for suffix in (".agg.json", ".parquet", MATCHES_SUFFIX):
                self.chunk_path(group, chunk, suffix).unlink(missing_ok=True)

    def finished_chunks(self) -> set[tuple[int, int]]:
        """``(group, chunk)`` of every chunk whose aggregates file exists."""
        d = self.path / CHUNKS
        if not d.is_dir():
            return set()
        done = set()
        for p in d.glob("*.agg.json"):
            stem = p.name[: -len(".agg.json")]
            try:
                g, c = stem.split("-")
                done.add((int(g), int(c)))
            except ValueError:
                continue
        return done

    def orphan_records(self) -> set[tuple[int, int]]:
        """``(group, chunk)`` of every records file (with or without its aggregates)."""
        found = set()
        for p in (self.path / CHUNKS).glob("*.parquet"):
            try:
                g, c = p.stem.split("-")
                found.add((int(g), int(c)))
            except ValueError:
                continue
        return found

    def record_files(
        self, chunks: Iterable[tuple[int, int]], suffix: str = ".parquet"
    ) -> list[Path]:
        """The records files of ``chunks``, ``(group, chunk)`` pairs (those that checked out),
        in order (``suffix`` :data:`MATCHES_SUFFIX`: the per-match records); never a stray or
        copied file of ``chunks/``."""
        return [self.chunk_path(g, c, suffix) for g, c in sorted(chunks)]

    # --- merged outputs ----------------------------------------------------------------------
    def write_aggregates(self, rows: Iterable[tuple]) -> str:
        """Write ``aggregates.parquet`` from ``(group, metric, rotation, seat, bin, pair,
        value)`` rows (sorted here, so the file does not depend on chunk order); returns the
        file's sha256."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        from dominosim.storage import arrow

        rows = sorted(rows)
        cols = list(zip(*rows, strict=True)) if rows else [[] for _ in AGG_COLUMNS]
        types = ["int32", "string", "int16", "int16", "int32", "string", "int64"]
        table = pa.table(
            {
                n: arrow.strings(c) if t == "string" else arrow.column(c, t)
                for n, c, t in zip(AGG_COLUMNS, cols, types, strict=True)
            }
        )
        path = self.path / AGGREGATES
        with output_errors(str(path)):
            sink = pa.BufferOutputStream()
            pq.write_table(table, sink)
            data = sink.getvalue().to_pybytes()
        write_bytes(path, data)
        return hashlib.sha256(data).hexdigest()

    def read_aggregates(self, groups: int = 1) -> pd.DataFrame:
        """``aggregates.parquet`` as a pandas DataFrame (columns of docs/results.md): a
        regular file within the bound of a run of ``groups`` option groups."""
        import io

        import pandas as pd

        path = self.path / AGGREGATES
        try:
            data = bounded.read(path, aggregates_limit(groups))
            return pd.read_parquet(io.BytesIO(data))
        except FileNotFoundError:
            raise OutputError(f"{path} does not exist; finish the run with --resume") from None
        except (bounded.NotRegular, bounded.TooLarge) as e:
            raise OutputError(
                f"cannot read {path}: it {e}; write it again from the chunks with: "
                f"dominosim run --resume {self.path}"
            ) from None
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot read {path}: {e}") from None

    def aggregates_digest(self, groups: int = 1) -> str | None:
        """The sha256 of aggregates.parquet, hashed in blocks (None: missing, not a regular
        file, or larger than a run of ``groups`` groups can write)."""
        try:
            return bounded.digest(self.path / AGGREGATES, aggregates_limit(groups))[1]
        except (OSError, ValueError):
            return None

    def write_outputs(self, report_md: str, summary_csv: str, paired_csv: str | None = None):
        write_text(self.path / REPORT, report_md)
        write_text(self.path / SUMMARY, summary_csv)
        if paired_csv is not None:
            write_text(self.path / PAIRED, paired_csv)

    @contextmanager
    def staged_plots(self) -> Iterator[Path]:
        """A folder to write the plots into; on success it replaces ``plots/`` (a run stopped
        while plotting leaves the old folder or none, never half of one)."""
        final = self.path / PLOTS
        stage = self.path / f".{PLOTS}.{os.getpid()}.tmp"
        with output_errors(str(final)):
            shutil.rmtree(stage, ignore_errors=True)
            stage.mkdir()
        try:
            with output_errors(str(final)):
                yield stage
                old = self.path / f".{PLOTS}.{os.getpid()}.old"
                moved = final.exists()
                if moved:
                    os.replace(final, old)
                try:
                    os.replace(stage, final)
                except BaseException:  # (the old plots go back; nothing temporary is left)
                    if moved:
                        with contextlib.suppress(OSError):
                            os.replace(old, final)
                    raise
                shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(stage, ignore_errors=True)

    def plots_dir(self) -> Path:
        p = self.path / PLOTS
        with output_errors(str(p)):
            p.mkdir(exist_ok=True)
        return p
