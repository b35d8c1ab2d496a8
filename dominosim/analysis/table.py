"""A report table printed and written as pandas does, without importing pandas.

``dominosim run`` prints its report's tables and writes ``summary.csv`` / ``paired.csv``; pandas
(a quarter of a second to import) did that. :class:`Table` gives the same text for the cells a
report has (strings, integers, floats and None): ``to_string(index=False)`` and
``to_csv(index=False)`` are byte for byte those of ``pandas.DataFrame`` (tests/test_startup.py
compares them); a table with other cells (or none) is handed to pandas itself.
"""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterator, Mapping, Sequence

_ESCAPED = ("\t", "\r", "\n")  # (pandas prints these escaped: leave such a table to pandas)


class Table:
    """Rows of cells under named columns, made as ``pandas.DataFrame(rows, columns=columns)``
    makes a frame of a list of dicts: the columns in the order the keys first appear (or
    ``columns``), a key a row lacks is None."""

    def __init__(self, rows: Sequence[Mapping], columns: Sequence[str] | None = None) -> None:
        if columns is None:
            columns = list(dict.fromkeys(k for r in rows for k in r))
        self.columns = list(columns)
        self.rows = [tuple(r.get(c) for c in self.columns) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def itertuples(self, index: bool = False) -> Iterator[tuple]:
        assert not index
        return iter(self.rows)

    def _column(self, j: int) -> list:
        return [r[j] for r in self.rows]

    def _frame(self):
        import pandas as pd

        rows = [dict(zip(self.columns, r, strict=True)) for r in self.rows]
        return pd.DataFrame(rows, columns=self.columns)

    def to_string(self, index: bool = False) -> str:
        """As ``DataFrame.to_string(index=False)``: each column right-justified to its widest
        cell or header (a number column's header one space wider), one space between."""
        kinds = [_kind(self._column(j)) for j in range(len(self.columns))]
        if not self.rows or any(k not in ("str", "int") for k in kinds) or _escaped(self):
            return self._frame().to_string(index=index)
        cols = []
        for j, (name, kind) in enumerate(zip(self.columns, kinds, strict=True)):
            head = (" " if kind == "int" else "") + str(name)
            cells = [str(v) for v in self._column(j)]
            width = max(len(head), *(len(c) for c in cells))
            cols.append([x.rjust(width) for x in (head, *cells)])
        return "\n".join(" ".join(line) for line in zip(*cols, strict=True))

    def to_csv(self, index: bool = False) -> str:
        """As ``DataFrame.to_csv(index=False)``: a number column with a float or an empty cell
        is a float column (``5`` is written ``5.0``), None is an empty field."""
        kinds = [_kind(self._column(j)) for j in range(len(self.columns))]
        if not self.columns or "other" in kinds:
            return self._frame().to_csv(index=index)
        out = io.StringIO()
        w = csv.writer(out, lineterminator=os.linesep, quoting=csv.QUOTE_MINIMAL)
        w.writerow(self.columns)
        for row in self.rows:
            w.writerow([_csv_cell(v, k) for v, k in zip(row, kinds, strict=True)])
        return out.getvalue()


def _kind(values: list) -> str:
    """A column's kind as pandas would type it: "int" (ints only), "float" (numbers with a
    float or None), "none" (all None), "str" (strings only), "mixed" (strings, numbers and
    None: an object column), "other" (bools, or anything else: pandas' own business)."""
    types = {type(v) for v in values}
    if not types <= {str, int, float, type(None)}:
        return "other"
    if any(type(v) is int and not -(2**63) <= v < 2**63 for v in values):
        return "other"
    if any(type(v) is float and not math.isfinite(v) for v in values):
        return "other"
    if types == {type(None)}:
        return "none"
    if types == {str}:
        return "str"
    if types == {int}:
        return "int"
    if str not in types:
        return "float"
    return "mixed"


def _csv_cell(v, kind: str) -> str:
    if v is None:
        return ""
    return repr(float(v)) if kind == "float" else str(v)


def _escaped(t: Table) -> bool:
    return any(isinstance(v, str) and any(e in v for e in _ESCAPED) for r in t.rows for v in r)
