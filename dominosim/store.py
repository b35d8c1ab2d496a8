"""The results folder of one run (DESIGN §8, docs/results.md).

```
<out>/<name>/<run-id>/
  manifest.json              resolved experiment, rules, versions, seed, chunk plan, status, timings
  chunks/<g>-<c>.parquet     per-hand records of chunk c of option group g (unless records off)
  chunks/<g>-<c>.agg.json    the chunk's integer aggregates (its presence marks the chunk done)
  aggregates.parquet         the merge of every chunk's aggregates (exact integers)
  summary.csv  report.md  plots/*.png
```

Every file is written under a temporary name and renamed when complete, so a killed run leaves
only whole files. Any ``OSError`` becomes an :class:`~dominosim.errors.OutputError`.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterable, Mapping
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputError

MANIFEST = "manifest.json"
CHUNKS = "chunks"
AGGREGATES = "aggregates.parquet"
SUMMARY = "summary.csv"
REPORT = "report.md"
PLOTS = "plots"

#: Columns of an aggregate row (docs/results.md, "Aggregates").
AGG_KEYS = ("metric", "rotation", "seat", "bin", "pair")
AGG_COLUMNS = ("group", *AGG_KEYS, "value")


@contextmanager
def output_errors(what: str):
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


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (temporary name, then rename)."""
    with output_errors(str(path)):
        tmp = _tmp(path)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)


def write_json(path: Path, obj, compact: bool = False) -> None:
    if compact:
        write_text(path, json.dumps(obj, separators=(",", ":")) + "\n")
    else:
        write_text(path, json.dumps(obj, indent=1) + "\n")


def read_json(path: Path):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OutputError(f"{path} does not exist; is this a run folder?") from None
    except (OSError, ValueError) as e:
        raise OutputError(f"cannot read {path}: {e}; the run folder is damaged") from None


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
            base = Path(out) / name
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
        if not (p / MANIFEST).is_file():
            raise OutputError(f"{p} is not a run folder (no {MANIFEST}); give results/NAME/RUN-ID")
        return cls(p)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def read_manifest(self) -> dict:
        return read_json(self.manifest_path)

    def write_manifest(self, manifest: Mapping) -> None:
        write_json(self.manifest_path, dict(manifest))

    # --- chunks ------------------------------------------------------------------------------
    def chunk_path(self, group: int, chunk: int, suffix: str) -> Path:
        return self.path / CHUNKS / f"{group}-{chunk}{suffix}"

    def write_chunk(self, group: int, chunk: int, agg: Mapping, records=None) -> None:
        """Write a chunk: its records (a pyarrow Table, or None) first, then its aggregates.

        The ``.agg.json`` file is written last: its presence marks the chunk finished.
        """
        with output_errors(str(self.path / CHUNKS)):
            (self.path / CHUNKS).mkdir(exist_ok=True)
            if records is not None:
                import pyarrow.parquet as pq

                path = self.chunk_path(group, chunk, ".parquet")
                tmp = _tmp(path)
                pq.write_table(records, tmp)
                os.replace(tmp, path)
            write_json(self.chunk_path(group, chunk, ".agg.json"), dict(agg), compact=True)

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

    def read_chunk_agg(self, group: int, chunk: int) -> dict:
        return read_json(self.chunk_path(group, chunk, ".agg.json"))

    def record_files(self) -> list[Path]:
        d = self.path / CHUNKS
        files = [p for p in d.glob("*.parquet") if not p.name.startswith(".")]
        return sorted(files, key=lambda p: tuple(int(x) for x in p.stem.split("-")))

    # --- merged outputs ----------------------------------------------------------------------
    def write_aggregates(self, rows: Iterable[tuple]) -> None:
        """Write ``aggregates.parquet`` from ``(group, metric, rotation, seat, bin, pair,
        value)`` rows (sorted here, so the file does not depend on chunk order)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = sorted(rows)
        cols = list(zip(*rows, strict=True)) if rows else [[] for _ in AGG_COLUMNS]
        types = [pa.int32(), pa.string(), pa.int16(), pa.int16(), pa.int32(), pa.string(),
                 pa.int64()]  # fmt: skip
        table = pa.table(
            {n: pa.array(list(c), type=t) for n, c, t in zip(AGG_COLUMNS, cols, types, strict=True)}
        )
        path = self.path / AGGREGATES
        with output_errors(str(path)):
            tmp = _tmp(path)
            pq.write_table(table, tmp)
            os.replace(tmp, path)

    def read_aggregates(self):
        """``aggregates.parquet`` as a pandas DataFrame (columns of docs/results.md)."""
        import pandas as pd

        path = self.path / AGGREGATES
        try:
            return pd.read_parquet(path)
        except FileNotFoundError:
            raise OutputError(f"{path} does not exist; finish the run with --resume") from None
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot read {path}: {e}") from None

    def write_outputs(self, report_md: str, summary_csv: str) -> None:
        write_text(self.path / REPORT, report_md)
        write_text(self.path / SUMMARY, summary_csv)

    def plots_dir(self) -> Path:
        p = self.path / PLOTS
        with output_errors(str(p)):
            p.mkdir(exist_ok=True)
        return p
