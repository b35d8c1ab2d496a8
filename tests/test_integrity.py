"""Results that can be trusted after any fault (issue 18): a run knows what produced it, chunks
are verified, ``done`` means done, inputs are in range, strategies cannot corrupt the output,
paths are taken as users write them. The one-line messages themselves are rows of
docs/errors.md, checked in test_errors.py; here: what happens to the results folder.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.analysis import chunk as chunk_type
from dominosim.analysis.chunk import ChunkResult, Expected, Timing
from dominosim.base import debug
from dominosim.cli import main
from dominosim.engine import kernel
from dominosim.storage import store

from helpers import BOT
from runs import aggregates, stop_after, strip

ROOT = Path(__file__).resolve().parents[1]
RUN = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--seed",
    "3",
    "--unit",
    "hand",
    "--workers",
    "1",
]


# the test strategies registered here do not leak into other tests of this worker
pytestmark = pytest.mark.usefixtures("clean_registry")


def invoke(args, **kw):
    return CliRunner().invoke(main, args, prog_name="dominosim", **kw)


def finished(t: Path, *extra) -> Path:
    r = invoke([*RUN, "--games", "16", "--chunk-size", "2", "--out", str(t), "--json", *extra])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def unfinish(d: Path) -> None:
    m = manifest(d)
    m["status"] = "interrupted"
    (d / "manifest.json").write_text(json.dumps(m))


def bot_file(t: Path, name: str, body: str) -> Path:
    d = t / "bots"
    d.mkdir(exist_ok=True)
    f = d / f"{name}.py"
    f.write_text(BOT.format(name=name, body=body))
    return f


# ---------------------------------------------------------------------------------------------
# 1. a run knows what produced it


def test_manifest_records_engine_version_and_strategy_hashes(tmp_path):
    from dominosim.base.version import ENGINE_VERSION
    from dominosim.strategy import file_hash

    f = bot_file(tmp_path, "firstbot", "return legal[0]")
    d = finished(tmp_path / "o", "--strategies", "firstbot,random", "--strategy-path", str(f))
    inputs = manifest(d)["inputs"]
    assert inputs["engine_version"] == ENGINE_VERSION
    files = inputs["strategy_files"]
    assert {"path": str(f.resolve()), "sha256": file_hash(f)} in files
    # the built-in ones too, by name (not by where this install keeps them)
    assert {e.get("builtin") for e in files} >= {"random.py", "greedy.py"}
    assert all(len(e) == 2 and ("builtin" in e) != ("path" in e) for e in files)


def test_a_long_lived_process_plays_the_strategy_file_as_it_is_now(tmp_path):
    f = bot_file(tmp_path, "shifty", "return legal[0]")
    kw = dict(
        variants=["fives"],
        strategies="shifty,random",
        games=4,
        seed=1,
        workers=1,
        out=str(tmp_path / "o"),
        strategy_path=[str(f)],
        echo=lambda s: None,
    )
    first = dominosim.run(**kw)
    assert first["status"] == "done"
    f.write_text(BOT.format(name="shifty", body="raise ValueError('version two')"))
    with pytest.raises(dominosim.base.errors.StrategyError, match="version two"):
        dominosim.run(**kw)


# ---------------------------------------------------------------------------------------------
# 2. chunks are verified


def _swap(a: Path, b: Path) -> None:
    tmp = a.with_name("swap")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


def _flip(p: Path, at: int) -> None:
    data = bytearray(p.read_bytes())
    data[at] ^= 0x01
    p.write_bytes(bytes(data))


def _edit(p: Path) -> None:  # a value changed, the file still valid JSON
    doc = json.loads(p.read_text())
    doc["rows"][0][5] += 1
    p.write_text(json.dumps(doc))


# fmt: off
DAMAGE = {
    "missing aggregates": lambda c: (c / "0-0.agg.json").unlink(),
    "missing records": lambda c: (c / "0-1.parquet").unlink(),
    "truncated aggregates": lambda c: (c / "0-2.agg.json").write_text(
        (c / "0-2.agg.json").read_text()[:40]),
    "truncated records": lambda c: (c / "0-3.parquet").write_bytes(
        (c / "0-3.parquet").read_bytes()[:100]),
    "bit-flipped aggregates": lambda c: _flip(c / "0-4.agg.json", 30),
    "bit-flipped records": lambda c: _flip(c / "0-5.parquet", 200),
    "swapped aggregates": lambda c: _swap(c / "0-6.agg.json", c / "0-7.agg.json"),
    "edited aggregates": lambda c: _edit(c / "0-1.agg.json"),
}
# fmt: on


def test_damaged_chunks_are_played_again_on_resume_never_merged(tmp_path):
    d = finished(tmp_path / "o")
    expected = aggregates(d)
    report = json.loads(invoke(["report", str(d), "--json"]).stdout)
    for damage in DAMAGE.values():
        damage(d / "chunks")
    unfinish(d)
    # the report of the unfinished run counts only the chunks that check out
    partial = json.loads(invoke(["report", str(d), "--json"]).stdout)
    assert partial["games_played"] == 0  # (chunk 0-0..0-7: all damaged one way or another)
    r = invoke(["run", "--resume", str(d), "--json"])
    assert r.exit_code == 0, r.output
    again = [x for x in r.stderr.splitlines() if x.endswith("; playing it again")]
    assert sorted(x.split(":")[0] for x in again) == [f"chunk 0-{c}" for c in range(8)], again
    pd.testing.assert_frame_equal(aggregates(d), expected)
    assert strip(json.loads(r.stdout)) == strip(report)


def test_a_finished_run_with_a_damaged_chunk_is_repaired_by_resume(tmp_path):
    d = finished(tmp_path / "o")
    expected = aggregates(d)
    _flip(d / "chunks" / "0-3.parquet", 120)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0 and "chunk 0-3: its records file" in r.stderr, r.output
    pd.testing.assert_frame_equal(aggregates(d), expected)
    assert invoke(["run", "--resume", str(d)]).stderr.count("playing it again") == 0


# ---------------------------------------------------------------------------------------------
# 2b. a chunk's result is one type (issue 48, point 1): encoded by write_chunk, decoded once

#: a chunk written before the type (dominosim at a636d54: fives, random vs heaviest, 2 hands)
BEFORE = Path(__file__).with_name("chunk_written_before.agg.json")


def _expected(doc: dict, players: int = 2, records: bool = True) -> Expected:
    """What a plan would say of the chunk ``doc`` (read from its own fields)."""
    rotations = tuple(sorted({r[1] for r in doc["rows"] if r[1] != -1}))
    head = {k: doc[k] for k in ("run", "group", "chunk", "start", "stop", "games")}
    return Expected(**head, players=players, rotations=rotations, records=records)


def test_a_chunk_written_before_the_type_decodes_and_encodes_to_its_bytes():
    data = BEFORE.read_bytes()
    result = chunk_type.decode(data, _expected(json.loads(data)))
    assert result.encode() == data
    assert result.match_parquet is not None and result.parquet.bytes == 6531
    assert chunk_type.decode(result.encode(), _expected(json.loads(data))) == result


def test_a_run_s_chunks_round_trip_through_the_type(tmp_path):
    d = finished(tmp_path / "o", "--games", "4")
    rd = store.RunDir.open(d)
    for path in sorted((d / "chunks").glob("*.agg.json")):
        data = path.read_bytes()
        result, why = rd.check_chunk(_expected(json.loads(data)))
        assert why is None and result.encode() == data, why
        assert list(result.body()) == list(chunk_type.KEYS[:-1])


def test_a_damaged_chunk_gives_the_reason_of_its_first_failed_check():
    doc = json.loads(BEFORE.read_bytes())
    expect = _expected(doc)

    def reason(edit) -> str:
        body = {k: v for k, v in doc.items() if k != "checksum"}
        edit(body)
        text = json.dumps({**body, "checksum": store.checksum(body)})
        with pytest.raises(chunk_type.Damaged) as e:
            chunk_type.decode(text.encode(), expect, lambda files: None)
        return e.value.reason

    assert "another run" in reason(lambda b: b.update(run="x", rows=1))
    assert "another chunk" in reason(lambda b: b.update(start=7, rows=1))
    assert reason(lambda b: b.update(rows=1)).endswith("(rows is not a list)")
    assert reason(lambda b: b.update(timing=[])).endswith("(timing)")
    assert reason(lambda b: b.update(hands=-1)).endswith("hands, not -1")
    with pytest.raises(chunk_type.Damaged, match="names no records"):
        chunk_type.decode(BEFORE.read_bytes(), expect, lambda files: "names no records")


#: names a chunk's document could be held in outside its type's module: what reads one by key
CHUNK_KEYS = set(chunk_type.KEYS) - set(kernel.HREC) - set(kernel.MREC)  # (records: "hands")
HANDLES = re.compile(r"ChunkResult|ChunkPlayed|\.agg\.json|check_chunk\(|read_chunk|write_chunk")


def _key_reads(tree: ast.Module):
    """``(line, key)`` of each read of a chunk document's key by string (``x["rows"]``,
    ``x.get("parquet")``)."""
    for n in ast.walk(tree):
        key = None
        if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
            key = getattr(n.slice, "value", None)
        elif isinstance(n, ast.Call) and getattr(n.func, "attr", None) in ("get", "pop") and n.args:
            key = getattr(n.args[0], "value", None)
        if isinstance(key, str) and key in CHUNK_KEYS:
            yield n.lineno, key


def test_no_module_reads_a_chunk_document_by_key_but_its_type_s():
    root = Path(dominosim.__file__).resolve().parent
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path.name == "chunk.py" or not HANDLES.search(text):
            continue
        found += [f"{path.name}:{line} {key}" for line, key in _key_reads(ast.parse(text))]
    assert found == []


def test_the_key_scan_finds_a_planted_read():
    code = 'doc, _ = rd.check_chunk(e)\nm = doc.get("match_parquet")\nn = doc["rows"]\n'
    assert HANDLES.search(code)
    assert list(_key_reads(ast.parse(code))) == [(2, "match_parquet"), (3, "rows")]


# ---------------------------------------------------------------------------------------------
# 3. done means done


def test_done_only_after_every_output_and_resume_writes_what_is_missing(tmp_path, monkeypatch):
    import errno

    real = store.write_text

    def full(path, text):
        if Path(path).name == "report.md":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, text)

    monkeypatch.setattr(store, "write_text", full)
    r = invoke([*RUN, "--games", "8", "--chunk-size", "4", "--out", str(tmp_path / "o")])
    assert r.exit_code == 5 and "No space left on device" in r.stderr, r.output
    (d,) = (tmp_path / "o" / "fives").iterdir()
    assert manifest(d)["status"] == "failed"
    assert (d / "aggregates.parquet").is_file() and not (d / "report.md").exists()
    monkeypatch.setattr(store, "write_text", real)
    assert invoke(["run", "--resume", str(d)]).exit_code == 0
    m = manifest(d)
    assert m["status"] == "done" and m["outputs"]["aggregates.parquet"]
    assert (d / "report.md").is_file() and (d / "summary.csv").is_file()
    assert (d / "plots").is_dir() and not list(d.glob(".plots*"))
    # a finished run whose report was deleted gets it back
    (d / "summary.csv").unlink()
    assert invoke(["run", "--resume", str(d)]).exit_code == 0
    assert (d / "summary.csv").is_file()


# ---------------------------------------------------------------------------------------------
# 4. no hang: a dead worker ends the run, finished chunks kept


def test_a_worker_that_dies_ends_the_run_and_keeps_finished_chunks(tmp_path):
    f = bot_file(
        tmp_path,
        "dier",
        "if obs.match_id >= 12:\n            __import__('os')._exit(9)\n        return legal[0]",
    )
    args = [
        *RUN[:4],
        "dier,random",
        *RUN[5:-2],
        "--games",
        "32",
        "--chunk-size",
        "4",
        "--workers",
        "2",
        "--out",
        str(tmp_path / "o"),
        "--strategy-path",
        str(f),
    ]
    r = invoke(args)
    assert r.exit_code == 6, r.output
    (d,) = (tmp_path / "o" / "fives").iterdir()
    assert manifest(d)["status"] == "failed"
    assert "finished chunks are kept, finish with: dominosim run --resume" in r.stderr
    kept = {p.name for p in (d / "chunks").glob("*.agg.json")}
    assert {"0-0.agg.json", "0-1.agg.json"} <= kept


def test_the_cause_of_a_worker_death_in_words():
    import signal

    from dominosim.runner.executors import _death

    assert _death(-signal.SIGKILL) == (
        "its worker process was killed by SIGKILL (out of memory, or killed)"
    )
    assert _death(-signal.SIGSEGV) == "its worker process was killed by SIGSEGV"
    assert _death(3).startswith("its worker process exited with code 3")


def test_errors_after_the_folder_is_made_leave_no_empty_folder(tmp_path):
    f = bot_file(tmp_path, "dier2", "__import__('os')._exit(9)")
    out = tmp_path / "o"
    r = invoke(
        [
            *RUN[:4],
            "dier2,random",
            *RUN[5:-2],
            "--games",
            "8",
            "--chunk-size",
            "4",
            "--workers",
            "2",
            "--out",
            str(out),
            "--strategy-path",
            str(f),
        ]
    )
    assert r.exit_code == 6 and "no chunk was finished" in r.stderr, r.output
    assert not (out / "fives").exists()
    r = invoke([*RUN, "--games", "4", "--out", str(out), "--executor", "dask"])
    assert r.exit_code == 2 and not (out / "fives").exists()


# ---------------------------------------------------------------------------------------------
# 5. inputs in range


def test_games_of_ten_to_the_fifteen_start_at_once(tmp_path, monkeypatch):
    stop_after(monkeypatch, 1)
    r = invoke(
        [
            "run",
            "--variant",
            "fives",
            "--games",
            str(10**15),
            "--chunk-size",
            "2",
            "--seed",
            "1",
            "--workers",
            "1",
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert r.exit_code == 130, r.output
    (d,) = (tmp_path / "o" / "fives").iterdir()
    m = manifest(d)
    assert m["chunk_count"] == 5 * 10**14 and "chunks" not in m
    rep = json.loads(invoke(["report", str(d), "--json"]).stdout)
    assert rep["chunks"] == 5 * 10**14 and rep["games_played"] == 2


def test_workers_above_the_core_count_warn_once(tmp_path):
    n = (os.cpu_count() or 1) + 3
    r = invoke([*RUN[:-2], "--games", "2", "--workers", str(n), "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.stderr.count(f"warning: --workers {n} is more than") == 1


def test_seed_is_never_reduced_mod_2_64(tmp_path):
    r = invoke([*RUN[:-4], "--seed", str(2**64 + 3), "--games", "2", "--out", str(tmp_path)])
    assert r.exit_code == 2 and "from 0 to 2**64-1" in r.stderr
    r = invoke(["trace", "--variant", "fives", "--seed", "-1"])
    assert r.exit_code == 2 and "from 0 to 2**64-1" in r.stderr
    assert not tmp_path.joinpath("fives").exists()


# ---------------------------------------------------------------------------------------------
# 6. strategies cannot corrupt the output


def _subprocess(args, **kw):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "dominosim", *args], env=env, text=True, timeout=120, **kw
    )


def test_a_strategys_prints_never_reach_the_json_on_stdout(tmp_path):
    f = bot_file(tmp_path, "chatty", "print('chatty was here')\n        return legal[0]")
    p = _subprocess(
        [
            *RUN[:4],
            "chatty,random",
            *RUN[5:-2],
            "--games",
            "16",
            "--chunk-size",
            "4",
            "--workers",
            "2",
            "--json",
            "--out",
            str(tmp_path / "o"),
            "--strategy-path",
            str(f),
        ],
        capture_output=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "done"
    assert "chatty was here" in p.stderr


def test_a_broken_stdout_pipe_ends_quietly(tmp_path):
    r, w = os.pipe()
    os.close(r)  # nobody reads: every write to stdout fails with EPIPE
    try:
        p = _subprocess(["variants"], stdout=w, stderr=subprocess.PIPE, cwd=tmp_path)
    finally:
        os.close(w)
    assert p.returncode == 141 and p.stderr == "", p.stderr


@pytest.mark.parametrize(
    ("body", "shown"),
    [("float(legal[0])", r"\d+\.0 \(float\)"), ("str(legal[0])", r"'\d+' \(str\)")],
)
def test_a_float_or_string_action_is_refused_alike_by_run_and_trace(tmp_path, body, shown):
    f = bot_file(tmp_path, "floater", f"return {body}")
    r1 = invoke(
        [
            *RUN[:4],
            "floater,random",
            *RUN[5:],
            "--games",
            "2",
            "--out",
            str(tmp_path),
            "--strategy-path",
            str(f),
        ]
    )
    r2 = invoke(
        ["trace", "--variant", "fives", "--strategies", "floater,random", "--strategy-path", str(f)]
    )
    assert r1.exit_code == r2.exit_code == 4, (r1.output, r2.output)
    m1, m2 = (x.stderr.splitlines()[-1] for x in (r1, r2))
    pattern = rf"error: strategy 'floater' returned {shown}, not an action; .*"
    import re

    assert re.fullmatch(pattern, m1) and re.fullmatch(pattern, m2), (m1, m2)


# ---------------------------------------------------------------------------------------------
# 7. paths and files as users write them


def test_tilde_in_out_expands(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    r = invoke([*RUN, "--games", "2", "--out", "~/res", "--json"])
    assert r.exit_code == 0, r.output
    assert Path(json.loads(r.stdout)["run_dir"]).parent.parent == tmp_path / "res"
    cfg = tmp_path / "exp.toml"
    cfg.write_text('variants = ["fives"]\ngames = 2\nworkers = 1\nout = "~/cfg"\n')
    assert invoke(["run", str(cfg)]).exit_code == 0
    assert list((tmp_path / "cfg" / "exp").iterdir())


def test_config_names_with_spaces_non_ascii_and_a_bom(tmp_path):
    cfg = tmp_path / "my über runs.toml"
    cfg.write_bytes(
        b"\xef\xbb\xbf"
        + f'variants = ["fives"]\ngames = 2\nworkers = 1\nout = "{tmp_path / "o"}"\n'.encode()
    )
    r = invoke(["run", str(cfg), "--json"])
    assert r.exit_code == 0, r.output
    assert Path(json.loads(r.stdout)["run_dir"]).parent.name == "my-uber-runs"


# ---------------------------------------------------------------------------------------------
# 7. strategies cannot end the process (issue 27): docs/design.md, "Errors"

PRINTS = (
    "os.system('echo fd-one-echo'); sys.__stdout__.write('fd-one-dunder\\n'); "
    "sys.__stdout__.flush(); print('plain-print')\n        return legal[0]"
)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_writes_to_file_descriptor_1_never_reach_the_json(tmp_path, workers):
    f = bot_file(tmp_path, "fdone", "import os\n        " + PRINTS)
    p = _subprocess(
        [
            *RUN[:4],
            "fdone,random",
            *RUN[5:-2],
            "--games",
            "8",
            "--chunk-size",
            "4",
            "--workers",
            workers,
            "--json",
            "--out",
            str(tmp_path / "o"),
            "--strategy-path",
            str(f),
        ],
        capture_output=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["status"] == "done"  # one JSON document, nothing else
    for text in ("fd-one-echo", "fd-one-dunder", "plain-print"):
        assert text in p.stderr


def test_writes_to_file_descriptor_1_never_reach_trace_json(tmp_path):
    """trace plays in the command's own process: its descriptor 1 points at stderr meanwhile."""
    f = bot_file(tmp_path, "fdtrace", "import os\n        " + PRINTS)
    p = _subprocess(
        [
            "trace",
            "--variant",
            "fives",
            "--strategies",
            "fdtrace,random",
            "--strategy-path",
            str(f),
            "--json",
        ],
        capture_output=True,
        cwd=tmp_path,
    )
    assert p.returncode == 0, p.stderr
    for line in p.stdout.splitlines():
        json.loads(line)
    assert "fd-one-echo" in p.stderr and "fd-one-dunder" in p.stderr


def _api(tmp_path, name: str, body: str, **kw):
    f = bot_file(tmp_path, name, body)
    return dominosim.run(
        variants=["fives"],
        strategies=f"{name},random",
        games=4,
        seed=1,
        workers=kw.pop("workers", 1),
        out=str(tmp_path / "o"),
        strategy_path=[str(f)],
        **kw,
    )


def test_the_python_api_raises_instead_of_ending_the_interpreter(tmp_path):
    from dominosim.base.errors import StrategyError, WorkerError

    d = tmp_path / "bots"
    d.mkdir()
    (d / "quits.py").write_text("import sys\nsys.exit(0)\n")
    with pytest.raises(StrategyError, match=r"quits\.py failed to load: SystemExit: 0; fix it"):
        dominosim.run(
            variants=["fives"],
            games=2,
            seed=1,
            workers=1,
            out=str(tmp_path / "o"),
            strategy_path=[str(d / "quits.py")],
        )
    # os._exit in choose_one: one chunk, one worker, still a worker process of its own
    with pytest.raises(WorkerError, match=r"exited with code 0 \(os\._exit in a strategy"):
        _api(tmp_path, "vanish", "__import__('os')._exit(0)")
    assert not (tmp_path / "o" / "fives").exists()  # (no chunk: no folder left)
    # this interpreter is alive, and the next run plays
    assert _api(tmp_path, "fine", "return legal[0]")["status"] == "done"


def test_builtin_strategies_alone_still_play_in_process(monkeypatch, tmp_path):
    from dominosim import runner

    made = []
    real = runner.session.make_executor
    monkeypatch.setattr(
        runner.session, "make_executor", lambda *a, **k: made.append(real(*a, **k)) or made[-1]
    )
    r = invoke([*RUN, "--games", "4", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert [type(x).__name__ for x in made] == ["_InProcess"]
    f = bot_file(tmp_path, "mine", "return legal[0]")
    r = invoke(
        [
            *RUN[:4],
            "mine,random",
            *RUN[5:],
            "--games",
            "4",
            "--out",
            str(tmp_path),
            "--strategy-path",
            str(f),
        ]
    )
    assert r.exit_code == 0, r.output
    assert [type(x).__name__ for x in made] == ["_InProcess", "_Pool"]


@pytest.mark.parametrize("exc", ["KeyboardInterrupt", "GeneratorExit"])
@pytest.mark.parametrize("where", ["in-process", "pool"])
def test_keyboard_interrupt_or_generator_exit_in_a_strategy_is_its_error(
    tmp_path, monkeypatch, exc, where
):
    from dominosim import runner

    if where == "in-process":  # (a user's strategy is played in a worker; force the other path)
        monkeypatch.setattr(runner.session, "user_strategies", lambda plan: False)
    f = bot_file(tmp_path, "ctrlc", f"raise {exc}")
    # fmt: off
    r = invoke([*RUN[:4], "ctrlc,random", *RUN[5:-2], "--games", "8", "--chunk-size", "4",
                "--workers", "1" if where == "in-process" else "2", "--out", str(tmp_path),
                "--strategy-path", str(f)])
    # fmt: on
    assert r.exit_code == 4, r.output
    assert r.stderr.splitlines()[-1] == (
        f"error: strategy 'ctrlc' raised {exc} at {debug.shown_path(str(f))}:13; fix the "
        "strategy (--debug shows the traceback)"
    )


@pytest.mark.parametrize("value", ["1e10", "1e-7", "-1", "nan", "inf", "soon"])
def test_strategy_timeout_out_of_range_is_one_config_error(tmp_path, value):
    from dominosim.base.errors import ConfigError

    r = invoke([*RUN, "--games", "2", "--out", str(tmp_path), "--strategy-timeout", value])
    assert r.exit_code == 2 and "Traceback" not in r.output, r.output
    assert r.stderr.splitlines() == [
        f"error: --strategy-timeout must be a number of seconds from 0.001 to 86400 (0: no "
        f"limit), not '{value}'"
    ]
    with pytest.raises(ConfigError, match="from 0.001 to 86400"):
        dominosim.run(
            variants=["fives"],
            games=2,
            seed=1,
            workers=1,
            out=str(tmp_path),
            strategy_timeout=float(value) if value != "soon" else value,
        )
    assert not (tmp_path / "fives").exists()


def test_strategy_timeout_holds_off_the_main_thread(tmp_path, monkeypatch):
    """The Python API called from a thread (so a Dask worker's thread too): the limit is kept
    by a timer thread, not skipped."""
    import threading

    from dominosim import runner
    from dominosim.base.errors import StrategyError

    # (played in this thread)
    monkeypatch.setattr(runner.session, "user_strategies", lambda plan: False)
    out: list = []

    def call():
        try:
            _api(tmp_path, "spin", "while True: pass", strategy_timeout=0.2)
            out.append(None)
        except BaseException as e:  # noqa: BLE001 - the test reads it
            out.append(e)

    t = threading.Thread(target=call, daemon=True)
    t.start()
    t.join(120)
    assert not t.is_alive(), "the strategy was not stopped"
    assert isinstance(out[0], StrategyError), out
    assert "did not return a decision batch within 0.2 s" in str(out[0])


def test_the_time_limit_never_lands_after_the_block(monkeypatch):
    """A timer thread that fires as the block ends is cancelled there: nothing is raised
    later in the thread."""
    import threading
    import time

    from dominosim import runner

    caught = []

    def body():
        for _ in range(200):
            try:
                with runner.worker._time_limit(0.001):
                    x = 0
                    for i in range(2000):
                        x += i
            except runner.StrategyTimeout:
                caught.append(1)
        time.sleep(0.05)  # a late exception would land here
        caught.append("end")

    t = threading.Thread(target=body)
    t.start()
    t.join(60)
    assert caught[-1] == "end"


@pytest.mark.parametrize("fails", ["write", "rename"])
def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch, fails):
    """write_text, write_json, write_chunk, write_aggregates (store.write_bytes) and
    staged_plots: when the write or the rename fails (a full disk, a read-only folder), the
    ``.NAME.PID.tmp`` file is removed, the old file (the old plots/) is left as it was, and
    the error is one OutputError."""
    import errno

    import pyarrow as pa

    from dominosim.base.errors import OutputError

    rd = store.RunDir.create(tmp_path, "x")
    (rd.path / "plots").mkdir()
    (rd.path / "plots" / "old.png").write_bytes(b"old")
    real_fdopen = os.fdopen

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    class Half:  # (part of the bytes reach the disk, then it is full)
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        def write(self, data):
            self.f.write(data[:3])
            full()

    if fails == "write":
        monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Half(real_fdopen(fd, *a, **k)))
    else:
        monkeypatch.setattr(os, "replace", full)
    table = pa.table({"a": [1, 2, 3]})
    attempts = [
        lambda: store.write_text(rd.path / "report.md", "text"),
        lambda: store.write_json(rd.path / "manifest.json", {"a": 1}),
        lambda: rd.write_chunk(ChunkResult("run", 0, 0, 0, 0, 0, 0, Timing(), rows=()), table),
        lambda: rd.write_aggregates([]),
    ]

    def plots():
        with rd.staged_plots() as stage:
            (stage / "new.png").write_text("new")

    if fails == "rename":  # (the plots are written by matplotlib, then renamed)
        attempts.append(plots)
    for attempt in attempts:
        with pytest.raises(OutputError, match="No space left on device"):
            attempt()
    monkeypatch.undo()
    left = sorted(p.relative_to(rd.path).as_posix() for p in rd.path.rglob("*"))
    assert left == ["chunks", "plots", "plots/old.png"], left
    assert (rd.path / "plots" / "old.png").read_bytes() == b"old"
