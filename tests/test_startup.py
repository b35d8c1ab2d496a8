"""What a run loads and writes (issue 37, start-up): a run imports neither pandas nor (with
``--no-plots``) matplotlib, and what it writes without them is what pandas and ``pyarrow.array``
wrote: the Arrow columns of dominosim/storage/arrow.py, the printed tables and the CSV files of
dominosim/analysis/table.py. ``--plots/--no-plots`` (the experiment key ``plots``) decides whether
plots/ is drawn. (How long a run takes is measured in bench/startup.py, not here.)"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from dominosim.analysis import render
from dominosim.analysis.table import Table
from dominosim.cli import main
from dominosim.storage import arrow

ROOT = Path(__file__).resolve().parents[1]
RUN = ["run", "--variant", "fives", "--strategies", "greedy,random", "--games", "20"]
RUN += ["--seed", "4", "--workers", "1"]


def _run(tmp_path, *extra, out="out"):
    r = CliRunner().invoke(main, [*RUN, *extra, "--out", str(tmp_path / out), "--json"])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


# --- Arrow columns: the same data, the same parquet bytes, as pyarrow.array -----------------


@pytest.mark.parametrize(
    "dtype", ["int8", "int16", "int32", "int64", "uint8", "uint64", "float32", "float64", "bool"]
)
def test_arrow_column_is_pyarrow_array(dtype):
    rng = np.random.default_rng(5)
    for n in (0, 1, 7, 8, 9, 1000):
        if dtype == "bool":
            a = rng.integers(0, 2, n).astype(bool)
        elif dtype.startswith("float"):
            a = rng.normal(size=n).astype(dtype)
        else:
            info = np.iinfo(dtype)
            a = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        ours, theirs = arrow.column(a), pa.array(a)
        ours.validate(full=True)
        assert ours.equals(theirs) and ours.type == theirs.type
        assert _parquet(pa.table({"x": ours})) == _parquet(pa.table({"x": theirs}))


def test_arrow_column_of_a_python_list_takes_the_type_and_refuses_an_overflow():
    ours = arrow.column([1, -2, 300], "int16")
    assert ours.equals(pa.array([1, -2, 300], type=pa.int16()))
    with pytest.raises(OverflowError):
        arrow.column([1, 40_000], "int16")
    with pytest.raises(TypeError):
        arrow.column(np.zeros((2, 2), dtype=np.int32))


def test_arrow_strings_are_pyarrow_strings():
    for values in ([], [""], ["random", "greedy:depth=2", "é中", ""], ["x" * 1000] * 50):
        ours = arrow.strings(values)
        ours.validate(full=True)
        assert ours.equals(pa.array(values, type=pa.string()))
        if values:
            codes = arrow.column(np.zeros(3, np.int8))
            assert pa.DictionaryArray.from_arrays(codes, ours).to_pylist() == [values[0]] * 3


def _parquet(table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return sink.getvalue().to_pybytes()


# --- tables: printed and written as pandas does ----------------------------------------------


def _same_as_pandas(rows, columns=None):
    t = Table(rows, columns)
    df = pd.DataFrame(rows, columns=columns) if columns is not None else pd.DataFrame(rows)
    assert t.to_csv(index=False) == df.to_csv(index=False), rows
    if rows:
        assert t.to_string(index=False) == df.to_string(index=False), rows
    assert len(t) == len(df) and list(t.columns) == [str(c) for c in df.columns]


def test_tables_of_real_reports_print_as_pandas(tmp_path):
    """The text, Markdown and CSV of a hand run, a match run with option groups and a compare
    are those pandas gave: each table of each report compared."""
    runs = [
        _run(tmp_path, "--no-plots", out="a"),
        _run(tmp_path, "--unit", "match", "--set", "fives.reserve_k=0,2", "--no-plots", out="b"),
    ]
    args = ["compare", "--variant", "fives", "--strategies", "random,greedy,heaviest"]
    args += ["--games", "12", "--seed", "1", "--workers", "1", "--out", str(tmp_path / "c")]
    r = CliRunner().invoke(main, [*args, "--json"])
    assert r.exit_code == 0, r.output
    runs.append(Path(json.loads(r.stdout)["run_dir"]))
    for d in runs:
        from dominosim import runner

        data = runner.load_report(d)
        tabs = render.tables(data)
        per_group = [x for k in ("strategies", "seats", "paired") for x in tabs[k].values()]
        for t in [tabs["groups"], *per_group]:
            df = pd.DataFrame([dict(zip(t.columns, r, strict=True)) for r in t.rows])
            assert t.to_string(index=False) == df.to_string(index=False)
        assert (d / "summary.csv").read_text() == render.summary_csv(data)
        assert (d / "paired.csv").read_text() == render.paired_csv(data)


def test_random_tables_print_and_write_as_pandas():
    """Strings (with commas, quotes, spaces, non-ASCII), ints, floats and None in every mix a
    column can have: to_string and to_csv as pandas writes them (a table pandas would type
    otherwise is handed to pandas)."""
    rng = random.Random(37)
    cells = [
        lambda: rng.choice(["random", "a,b", 'say "hi"', "  x", "é", "", "[1.0, 2.5]", "-"]),
        lambda: rng.randint(-(10**6), 10**12),
        lambda: rng.choice([0.1, -2.5, 1e-7, 123456789.125, 1 / 3, 5.0, -0.0, 1e16]),
        lambda: None,
        lambda: rng.choice([True, False]),
    ]
    for _ in range(300):
        ncol = rng.randint(1, 5)
        kinds = [rng.sample(range(len(cells)), rng.randint(1, 2)) for _ in range(ncol)]
        rows = [
            {f"c{j} x": cells[rng.choice(kinds[j])]() for j in range(ncol)}
            for _ in range(rng.randint(0, 6))
        ]
        _same_as_pandas(rows)
        _same_as_pandas(rows, columns=[f"c{j} x" for j in range(ncol)])


def test_empty_paired_csv_is_its_header(tmp_path):
    data = {"groups": [{"index": 0, "label": "x", "paired": []}]}
    assert render.paired_csv(data) == pd.DataFrame(
        [], columns=list(pd.read_csv(io.StringIO(render.paired_csv(data))).columns)
    ).to_csv(index=False)


# --- --plots / --no-plots ---------------------------------------------------------------------


def test_no_plots_draws_none_and_says_so(tmp_path):
    d = _run(tmp_path, "--no-plots")
    m = json.loads((d / "manifest.json").read_text())
    assert not (d / "plots").exists()
    assert m["outputs"]["plots"] is False and m["experiment"]["plots"] is False
    again = CliRunner().invoke(main, ["run", "--resume", str(d), "--json"])  # a done run
    assert again.exit_code == 0, again.output
    assert not (d / "plots").exists()
    with_plots = _run(tmp_path, out="p")
    assert sorted(p.name for p in (with_plots / "plots").iterdir()) == [
        "hand_length.png",
        "turns.png",
        "win_rates.png",
    ]
    assert (d / "report.md").read_text().replace(d.name, "") == (
        with_plots / "report.md"
    ).read_text().replace(with_plots.name, "")


def test_plots_key_of_an_experiment_file(tmp_path):
    cfg = tmp_path / "e.toml"
    cfg.write_text('variants = ["fives"]\ngames = 10\nseed = 2\nworkers = 1\nplots = false\n')
    r = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp_path / "o"), "--json"])
    assert r.exit_code == 0, r.output
    assert not (Path(json.loads(r.stdout)["run_dir"]) / "plots").exists()
    cfg.write_text('variants = ["fives"]\nplots = "no"\n')
    r = CliRunner().invoke(main, ["run", str(cfg), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and r.stderr.count("\n") == 1, r.output
    assert "'plots' in" in r.stderr and "must be true or false, not 'no'" in r.stderr


def test_plots_flag_is_refused_with_resume(tmp_path):
    d = _run(tmp_path, "--no-plots")
    r = CliRunner().invoke(main, ["run", "--resume", str(d), "--plots"])
    assert r.exit_code == 2 and "--plots" in r.stderr, r.output


# --- what a run imports -----------------------------------------------------------------------

_PROBE = """
import atexit, sys
atexit.register(lambda: print("MODULES", *sorted(
    m for m in ("pandas", "matplotlib", "dask", "multiprocess") if m in sys.modules),
    file=sys.stderr))
from dominosim.cli import entry
sys.argv = ["dominosim", *sys.argv[1:]]
entry()
"""


@pytest.mark.parametrize("plots", ["--no-plots", "--plots"])
def test_a_run_imports_only_what_it_needs(tmp_path, plots):
    """A one-worker run imports no pandas, no Dask, no process pool; matplotlib only to draw
    the plots (a fresh interpreter: the test process has them all loaded)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [*RUN, "--unit", "hand", plots, "--out", str(tmp_path / "o")]
    r = subprocess.run(
        [sys.executable, "-c", _PROBE, *args[0:]], capture_output=True, text=True, env=env
    )
    assert r.returncode == 0, r.stderr
    loaded = r.stderr.split("MODULES", 1)[1].split()
    assert loaded == ([] if plots == "--no-plots" else ["matplotlib"]), r.stderr
