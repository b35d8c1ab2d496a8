"""Interrupted runs lose no work: stop a run part way, ``--resume`` it, and the aggregates equal
those of an uninterrupted run of the same experiment (docs/design.md, "Results that can be trusted"; docs/errors.md).

Three ways to stop: a deterministic interruption (``runs.stop_after``: a KeyboardInterrupt once
K chunks are written, in process), a real Ctrl-C (SIGINT to the process group of ``python -m dominosim run --workers 2``)
and a real ``kill -9`` of the parent (the manifest still says ``running``). The signal tests run
a subprocess, since a signal is what they test.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from dominosim.cli import main

from runs import aggregates, stop_after

ROOT = Path(__file__).resolve().parents[1]
SMALL = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--games",
    "240",
    "--chunk-size",
    "20",
    "--seed",
    "7",
    "--unit",
    "hand",
]
# 60 chunks; the parent holds after its first chunk (held_run.py) until the test's signal, so the
# signal lands part way through however fast the machine plays
BIG = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--games",
    "3000",
    "--chunk-size",
    "50",
    "--seed",
    "11",
    "--unit",
    "hand",
]
#: Seconds a signalled process may take to end (a generous bound: on a loaded machine the
#: interpreter's exit alone can take seconds; nothing here measures speed).
WAIT = 120
INTERRUPTED = re.compile(
    r"error: interrupted: (\d+) of (\d+) chunks kept in (\S+); "
    r"finish with: dominosim run --resume (\S+)"
)


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def the_run(out: Path) -> Path:
    (d,) = (out / "fives").iterdir()
    return d


def finished(d: Path) -> set[str]:
    return {p.name for p in (d / "chunks").glob("*.agg.json")}


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


_BASELINE: dict[tuple[str, ...], pd.DataFrame] = {}


def uninterrupted(tmp_path: Path, args) -> pd.DataFrame:
    """The aggregates of an uninterrupted run of ``args`` (computed once per process)."""
    if tuple(args) not in _BASELINE:
        r = invoke([*args, "--workers", "1", "--out", str(tmp_path / "full"), "--json"])
        assert r.exit_code == 0, r.output
        _BASELINE[tuple(args)] = aggregates(Path(json.loads(r.stdout)["run_dir"]))
    return _BASELINE[tuple(args)].copy()


def resume(d: Path, workers: str = "2") -> None:
    r = invoke(["run", "--resume", str(d), "--workers", workers, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["run_dir"] == str(d)
    m = manifest(d)
    assert m["status"] == "done" and m["games_played"] == m["games_requested"]


# ---------------------------------------------------------------------------------------------
# the deterministic hook


@pytest.mark.parametrize(("k", "workers"), [(1, "1"), (3, "2")])
def test_stop_after_k_chunks_then_resume(tmp_path, monkeypatch, k, workers):
    expected = uninterrupted(tmp_path, SMALL)
    stop_after(monkeypatch, k)
    r = invoke([*SMALL, "--workers", workers, "--out", str(tmp_path / "cut")])
    assert r.exit_code == 130, r.output
    assert "Traceback" not in r.output
    m = INTERRUPTED.fullmatch(r.stderr.splitlines()[-1])
    assert m and int(m.group(1)) == k and int(m.group(2)) == 12, r.stderr
    d = the_run(tmp_path / "cut")
    assert m.group(3) == m.group(4) == str(d)
    assert len(finished(d)) == k
    assert manifest(d)["status"] == "interrupted"
    assert not (d / "aggregates.parquet").exists()
    stop_after(monkeypatch, None)
    resume(d, workers="2" if workers == "1" else "1")  # another worker count: same numbers
    pd.testing.assert_frame_equal(aggregates(d), expected)
    sessions = manifest(d)["timings"]["sessions"]
    assert [s["status"] for s in sessions] == ["interrupted", "done"]
    assert [s["chunks"] for s in sessions] == [k, 12 - k]


def test_interrupted_twice_then_resumed(tmp_path, monkeypatch):
    expected = uninterrupted(tmp_path, SMALL)
    stop_after(monkeypatch, 2)
    assert invoke([*SMALL, "--workers", "1", "--out", str(tmp_path / "cut")]).exit_code == 130
    d = the_run(tmp_path / "cut")
    r = invoke(["run", "--resume", str(d), "--workers", "1"])
    assert r.exit_code == 130 and "interrupted: 4 of 12 chunks kept" in r.stderr, r.output
    assert len(finished(d)) == 4
    stop_after(monkeypatch, None)
    resume(d)
    pd.testing.assert_frame_equal(aggregates(d), expected)
    # a finished run resumed again is left as it is
    before = (d / "aggregates.parquet").read_bytes()
    resume(d)
    assert (d / "aggregates.parquet").read_bytes() == before


# ---------------------------------------------------------------------------------------------
# real signals on a real process


def in_a_terminal() -> None:
    """The child's SIGINT as a terminal's foreground job has it. A process started with SIGINT
    ignored (the test run launched in the background of a non-interactive shell, as CI may
    do) keeps ignoring it, as Python and dominosim must (``nohup``), and a Ctrl-C test would
    then wait for the whole run."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(  # (held_run.py: dominosim, its parent held after 1 chunk)
        [sys.executable, str(ROOT / "tests" / "held_run.py"), "1", *BIG, "--workers", "2"]
        + ["--out", str(out)],
        cwd=out.parent,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: a terminal's Ctrl-C reaches them all
        preexec_fn=in_a_terminal,
    )


def wait_for_a_chunk(p: subprocess.Popen, out: Path, timeout: float = 120.0) -> Path:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        assert p.poll() is None, p.communicate()
        runs = list((out / "fives").glob("*/chunks/*.agg.json")) if out.exists() else []
        if runs:
            return runs[0].parent.parent
        time.sleep(0.02)
    raise AssertionError("no chunk was written in time")


def kill_group(p: subprocess.Popen) -> None:
    """End what is left of the process group this test started (orphaned pool workers)."""
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def test_ctrl_c_keeps_chunks_and_resume_completes(tmp_path):
    out = tmp_path / "cut"
    out.mkdir()
    p = start(out)
    try:
        d = wait_for_a_chunk(p, out)
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole foreground group
        stdout, stderr = p.communicate(timeout=WAIT)
    finally:
        kill_group(p)
    assert p.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout
    lines = stderr.splitlines()
    errors = [x for x in lines if x.startswith("error:")]
    assert errors == [lines[-1]], stderr
    m = INTERRUPTED.fullmatch(lines[-1])
    assert m and m.group(3) == str(d), stderr
    kept = finished(d)
    assert len(kept) == int(m.group(1)) >= 1 and int(m.group(2)) == 60
    assert manifest(d)["status"] == "interrupted"
    resume(d)
    pd.testing.assert_frame_equal(aggregates(d), uninterrupted(tmp_path, BIG))


def test_kill_9_then_resume_completes(tmp_path):
    out = tmp_path / "cut"
    out.mkdir()
    p = start(out)
    try:
        d = wait_for_a_chunk(p, out)
        p.send_signal(signal.SIGKILL)  # the parent dies at once, mid-run
        p.communicate(timeout=WAIT)
    finally:
        kill_group(p)
    assert p.returncode == -signal.SIGKILL
    assert manifest(d)["status"] == "running"  # nobody closed the session
    assert finished(d)
    resume(d)
    pd.testing.assert_frame_equal(aggregates(d), uninterrupted(tmp_path, BIG))
    sessions = manifest(d)["timings"]["sessions"]
    assert [s["status"] for s in sessions] == ["done"]  # the killed session left no record


@pytest.mark.parametrize("to", ["parent", "group"])
def test_sigterm_is_handled_like_ctrl_c(tmp_path, to):
    out = tmp_path / "cut"
    out.mkdir()
    p = start(out)
    try:
        d = wait_for_a_chunk(p, out)
        if to == "parent":  # kill PID
            p.send_signal(signal.SIGTERM)
        else:  # a service manager stopping the whole group: the workers die of it too
            os.killpg(p.pid, signal.SIGTERM)
        stdout, stderr = p.communicate(timeout=WAIT)
    finally:
        kill_group(p)
    assert p.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout
    m = INTERRUPTED.fullmatch(stderr.splitlines()[-1])
    assert m and m.group(3) == str(d), stderr
    assert manifest(d)["status"] == "interrupted"
    assert len(finished(d)) == int(m.group(1)) >= 1


# ---------------------------------------------------------------------------------------------
# strategies cannot outlive or fake an interruption (issue 27)

LOOP = """import os
from pathlib import Path

from dominosim.strategy import Strategy, register


@register
class Spin(Strategy):
    name = "spin"

    def choose_one(self, obs, legal, key):
        Path(os.environ["SPIN_MARK"], str(os.getpid())).write_text("")
        while True:
            pass
"""


def _env(**extra) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return {**env, **extra}


def _spinning(tmp_path: Path, args, timeout: float = WAIT):
    """Start ``dominosim ARGS`` with the looping strategy ``spin``; wait until a process is in
    its loop; returns (process, the pids in the loop)."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "spin.py").write_text(LOOP)
    mark = tmp_path / "mark"
    mark.mkdir()
    p = subprocess.Popen(
        [sys.executable, "-m", "dominosim", *args, "--strategy-path", str(tmp_path / "bots")],
        cwd=tmp_path,
        env=_env(SPIN_MARK=str(mark)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=in_a_terminal,
    )
    t0 = time.monotonic()
    while not any(mark.iterdir()):
        assert p.poll() is None, p.communicate()
        assert time.monotonic() - t0 < timeout, "the strategy never ran"
        time.sleep(0.05)
    return p, [int(x.name) for x in mark.iterdir()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its reaper is gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


@pytest.mark.parametrize("workers", ["1", "2"])
def test_workers_die_with_a_killed_parent(tmp_path, workers):
    p, spinning = _spinning(
        tmp_path,
        [
            "run",
            "--variant",
            "fives",
            "--strategies",
            "spin,random",
            "--games",
            "8",
            "--chunk-size",
            "4",
            "--seed",
            "1",
            "--workers",
            workers,
            "--out",
            str(tmp_path / "o"),
        ],
    )
    try:
        assert p.pid not in spinning  # (a user's strategy is played in a worker)
        p.send_signal(signal.SIGKILL)
        p.communicate(timeout=WAIT)
        t0 = time.monotonic()
        while any(_alive(w) for w in spinning) and time.monotonic() - t0 < 20:
            time.sleep(0.05)
        assert not any(_alive(w) for w in spinning), "a worker outlived its parent"
    finally:
        kill_group(p)


def test_a_workers_watchdog_ends_it_where_prctl_is_missing(tmp_path):
    """The fallback of other platforms: the watchdog thread ends a worker whose parent died."""
    code = f"""
import os, sys, time
sys.platform = "other"  # (no prctl: the watchdog thread)
from dominosim import sandbox
sandbox.WATCH_SECONDS = 0.05
pid = os.fork()
if pid == 0:
    sandbox.die_with_parent(os.getppid())
    open({str(tmp_path / "child")!r}, "w").write(str(os.getpid()))
    while True:
        pass
time.sleep(600)
"""
    p = subprocess.Popen([sys.executable, "-c", code], env=_env(), start_new_session=True)
    try:
        f = tmp_path / "child"
        t0 = time.monotonic()
        while not (f.exists() and f.read_text()):
            assert time.monotonic() - t0 < WAIT, "the child never started"
            time.sleep(0.05)
        child = int(f.read_text())
        p.kill()
        p.wait(timeout=WAIT)
        t0 = time.monotonic()
        while _alive(child) and time.monotonic() - t0 < 20:
            time.sleep(0.05)
        assert not _alive(child), "the watchdog did not end the orphaned worker"
    finally:
        kill_group(p)


@pytest.mark.parametrize("command", ["check-strategy", "trace"])
def test_ctrl_c_inside_a_strategy_is_an_interruption_not_its_error(tmp_path, command):
    """check-strategy and trace play a user's strategy in a child of the command's process
    (issue 40): a real SIGINT while the strategy runs is 130, where a KeyboardInterrupt the
    strategy raises itself is its error (exit 4)."""
    args = (
        ["check-strategy", "spin", "--variant", "fives", "--check", "legal"]
        if command == "check-strategy"
        else ["trace", "--variant", "fives", "--strategies", "spin,random"]
    )
    p, spinning = _spinning(tmp_path, args)
    try:
        assert p.pid not in spinning  # (played in a child process)
        os.killpg(p.pid, signal.SIGINT)
        stdout, stderr = p.communicate(timeout=WAIT)
    finally:
        kill_group(p)
    assert p.returncode == 130, stderr
    assert stderr.splitlines() == ["error: interrupted; finished work is kept"], stderr
