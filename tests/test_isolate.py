"""``--isolate`` (docs/strategies.md, "Isolation"): a user's strategy in a fresh process of its
own plays the same games, finds nothing of the engine or the run, and its errors are the
engine's; and a user's file is loaded in a child first, so a file that ends, crashes, loops
or raises at import is one line and a non-zero exit, never a quiet exit 0."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import dominosim
from dominosim import api
from dominosim.base.errors import Interrupted

ROOT = Path(__file__).resolve().parents[1]

# three ways of deciding: choose_one, a batch choose, and one that reads the history
PLAYERS = textwrap.dedent(
    """
    import numpy as np

    from dominosim.game import actions as A, tiles
    from dominosim.strategy import Strategy, register


    @register
    class One(Strategy):
        name = "iso-one"

        def choose_one(self, obs, legal, key):
            places = [a for a in legal if A.is_placement(a)]
            if not places:
                return legal[key % len(legal)]
            return max(places, key=lambda a: (tiles.pips(A.tile_of(a)), -places.index(a)))


    @register
    class Batch(Strategy):
        name = "iso-batch"
        params = {"w": 1}

        def choose(self, obs, legal, keys):
            la = legal.arrays(obs)
            score = np.where(la.placement, la.pips * self.settings["w"] + obs.counts[:, :1], 0)
            return la.best(score)


    @register
    class History(Strategy):
        name = "iso-history"

        def choose_one(self, obs, legal, key):
            seen = sum(1 for e in obs.history if e.tile is not None)
            return legal[(seen + key) % len(legal)]
    """
)


def _folder(tmp_path: Path, name: str, text: str) -> str:
    d = tmp_path / name
    d.mkdir(parents=True)
    (d / "bot.py").write_text(text, encoding="utf-8")
    return str(d)


def _numbers(report: dict) -> dict:
    """A report without what differs from run to run (its folder, id and timings)."""
    out = {k: v for k, v in report.items() if k not in ("run_id", "run_dir", "wall_seconds")}
    out["groups"] = [
        {k: v for k, v in g.items() if k not in ("cpu_seconds", "wall_seconds", "hands_per_second")}
        for g in report["groups"]
    ]
    return out


@pytest.mark.parametrize(
    "variant, strategies",
    [
        ("fives", "iso-one,iso-batch:w=2"),
        ("bergen", "iso-history,heaviest"),
        ("blind", "iso-one,iso-history,iso-batch"),
    ],
)
def test_the_same_games_with_and_without_isolate(tmp_path, clean_registry, variant, strategies):
    path = _folder(tmp_path, "mine", PLAYERS)
    players = 3 if variant == "blind" else 2
    reports = [
        dominosim.run(
            variants=[variant],
            players=players,
            strategies=strategies,
            games=60,
            seed=5,
            strategy_path=[path],
            out=tmp_path / f"out{isolate}",
            plots=False,
            workers=1,
            isolate=isolate,
        )
        for isolate in (False, True)
    ]
    assert _numbers(reports[0]) == _numbers(reports[1])
    assert reports[0]["groups"][0]["games"] == 60


# a strategy that looks for the run's seed or engine where a strategy in the engine's process
# finds them: the command line, the environment, the objects of the process, the frames, the
# working folder; what it finds is its error (so the run fails), else it plays its first action
CHEATER = textwrap.dedent(
    """
    import gc
    import os
    import sys

    from dominosim.strategy import Strategy, register

    SEED = "918273645"


    def found():
        if any(SEED in a for a in sys.argv) or any(SEED in v for v in os.environ.values()):
            return "argv or environment"
        for o in gc.get_objects():
            if type(o).__name__ in ("BatchEngine", "WorkItem", "Plan", "Experiment"):
                return "engine object " + type(o).__name__
        for f in sys._current_frames().values():
            while f is not None:
                for v in f.f_locals.values():
                    if type(v).__name__ in ("BatchEngine", "WorkItem") or (type(v) is int and v == int(SEED)):
                        return "frame"
                f = f.f_back
        for name in os.listdir("."):
            if os.path.isfile(name) and SEED in open(name, errors="replace").read():
                return "working folder " + name
        return None


    @register
    class Cheat(Strategy):
        name = "cheat"

        def choose_one(self, obs, legal, key):
            what = found()
            if what:
                raise RuntimeError("found the seed: " + what)
            return legal[0]
    """
)


def _cli(args, cwd, timeout=120, env=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "dominosim", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_strategy_finds_no_seed_or_engine_when_isolated(tmp_path):
    path = _folder(tmp_path, "cheat", CHEATER)
    (tmp_path / "run.toml").write_text("seed = 918273645\n")  # (in the run's working folder)
    args = ["run", "--variant", "fives", "--strategies", "cheat,random", "--games", "8"]
    args += ["--seed", "918273645", "--strategy-path", path, "--out", str(tmp_path / "o")]
    args += ["--json", "--no-plots", "--workers", "1"]
    seen = _cli(args, tmp_path, env={"RUN_SEED": "918273645"})
    assert seen.returncode == 4 and "found the seed" in seen.stderr  # (the test can fail)
    hidden = _cli([*args, "--isolate"], tmp_path, env={"RUN_SEED": "918273645"})
    assert hidden.returncode == 0, hidden.stderr
    assert json.loads(hidden.stdout)["groups"][0]["games"] == 8


def _run_with(tmp_path, body, *extra, strategies="bot,random"):
    path = _folder(tmp_path, "b", body)
    args = ["run", "--variant", "fives", "--strategies", strategies, "--games", "6"]
    args += ["--strategy-path", path, "--out", str(tmp_path / "o"), "--json", "--no-plots"]
    args += ["--workers", "1", "--seed", "3"]
    return _cli([*args, *extra], tmp_path)


BOT = """
import os, sys, time
from dominosim.strategy import Strategy, register


@register
class Bot(Strategy):
    name = "bot"

    def choose_one(self, obs, legal, key):
        {body}
"""


@pytest.mark.parametrize(
    "body, extra, message",
    [
        (
            "raise ValueError('no move\\nhere')",
            (),
            "strategy 'bot' raised ValueError: no move here",
        ),
        (
            "time.sleep(30)",
            ("--strategy-timeout", "0.5"),
            "strategy 'bot' did not return a decision batch within 0.5 s (--strategy-timeout)",
        ),
        ("return 999", (), "strategy 'bot' returned an illegal action 999"),
    ],
)
def test_an_isolated_strategys_errors_are_the_engines(tmp_path, body, extra, message):
    """The same one line with and without --isolate, exit 4, no traceback."""
    lines = []
    for isolate in ((), ("--isolate",)):
        got = _run_with(tmp_path / str(len(lines)), BOT.format(body=body), *extra, *isolate)
        assert got.returncode == 4 and got.stdout == "", got.stderr
        assert "Traceback" not in got.stderr
        lines.append(got.stderr.strip().splitlines()[-1])
    assert message in lines[0]
    assert lines[0] == lines[1]


def test_an_isolated_strategy_that_ends_its_process(tmp_path):
    got = _run_with(tmp_path, BOT.format(body="os._exit(0)"), "--isolate")
    assert got.returncode == 4 and got.stdout == ""
    assert got.stderr.strip().splitlines()[-1] == (
        "error: strategy 'bot' ended its process (exit code 0: os._exit, or a crash); fix the "
        "strategy"
    )


LOADS = {
    "exit": ("import os\nos._exit(0)\n", (), "ended its process while loading (exit code 0"),
    "crash": (
        "import ctypes\nctypes.string_at(0)\n",
        (),
        "ended its process while loading (killed by SIGSEGV",
    ),
    "loop": (
        "while True:\n    pass\n",
        ("--strategy-timeout", "1"),
        "did not load within 1 s (--strategy-timeout",
    ),
    "raise": ("raise ValueError('bad file')\n", (), "failed to load: ValueError: bad file"),
}


@pytest.mark.parametrize(
    "kind, isolate",
    [(k, False) for k in sorted(LOADS)] + [("exit", True), ("loop", True), ("raise", True)],
)
def test_a_file_that_fails_at_import_is_one_line(tmp_path, kind, isolate):
    body, extra, message = LOADS[kind]
    if kind == "crash" and not sys.platform.startswith("linux"):
        pytest.skip("a null read is a segfault on Linux")
    started = time.monotonic()
    got = _run_with(tmp_path, body, *extra, *(("--isolate",) if isolate else ()))
    assert got.returncode == 4 and got.stdout == "", got.stderr
    last = got.stderr.strip().splitlines()[-1]
    assert last.startswith("error: strategy ") and message in last, got.stderr
    assert "Traceback" not in got.stderr
    assert time.monotonic() - started < 60


def test_the_child_ends_with_its_parent(tmp_path):
    """kill -9 of the engine's process ends the strategy's process."""
    path = _folder(tmp_path, "b", BOT.format(body="return legal[0]"))
    code = textwrap.dedent(
        f"""
        import time
        from dominosim.runner.isolated import IsolatedStrategy, base_folder
        from dominosim.strategy import builtin_dir
        from dominosim import strategy
        from pathlib import Path
        f = Path({path!r}) / "bot.py"
        s = IsolatedStrategy("bot", [("path", str(f), strategy.file_hash(f))], 0)
        print(s._child.proc.pid, base_folder(), flush=True)
        time.sleep(60)
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, env=env)
    try:
        pid, folder = parent.stdout.readline().split()
        child = int(pid)
        os.kill(child, 0)  # (alive)
    finally:
        parent.kill()
        parent.wait()
    shutil.rmtree(folder)  # (its working folders: the killed parent could not remove them)
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the isolated strategy's process outlived its parent")


def test_compare_and_a_resume_with_isolate(tmp_path, clean_registry, monkeypatch):
    """compare plays its tables the same isolated; a run cut short finishes isolated with the
    numbers of the uninterrupted run (--isolate is a session's option, like --workers)."""
    from runs import stop_after

    path = _folder(tmp_path, "mine", PLAYERS)
    kw = dict(variant="fives", strategies=["iso-one", "iso-batch", "random"], games=36, seed=2)
    kw.update(strategy_path=[path], workers=1, records=False)
    plain = api.compare(**kw, out=tmp_path / "c0")
    isolated = api.compare(**kw, out=tmp_path / "c1", isolate=True)
    assert _numbers(plain)["analysis"] == _numbers(isolated)["analysis"]
    run = dict(variants=["fives"], strategies="iso-batch,iso-one", games=40, seed=4)
    run.update(strategy_path=[path], plots=False, chunk_size=8, workers=1)
    full = dominosim.run(**run, out=tmp_path / "full")
    stop_after(monkeypatch, 2)
    with pytest.raises(Interrupted) as cut:
        dominosim.run(**run, out=tmp_path / "cut", isolate=True)
    stop_after(monkeypatch, None)
    folder = next((tmp_path / "cut").glob("*/*"))
    assert "2 of 5 chunks" in str(cut.value)
    resumed = dominosim.run(resume=folder, isolate=True, strategy_path=[path])
    assert _numbers(resumed) == _numbers(full)


def test_trace_with_isolate(tmp_path):
    """trace plays the same match with each strategy in its own process (asked one decision at
    a time), finds the cheater nothing, and gives a strategy's error in the same line."""
    path = _folder(tmp_path, "mine", PLAYERS + CHEATER)
    base = ["trace", "--variant", "fives", "--strategy-path", path, "--match", "--json"]
    one = [*base, "--strategies", "iso-one,iso-history", "--seed", "3"]
    assert _cli(one, tmp_path).stdout == _cli([*one, "--isolate"], tmp_path).stdout != ""
    cheat = [*base, "--strategies", "cheat,random", "--seed", "918273645"]
    seen = _cli(cheat, tmp_path)
    assert seen.returncode == 4 and "found the seed: argv" in seen.stderr
    hidden = _cli([*cheat, "--isolate"], tmp_path)
    assert hidden.returncode == 0 and hidden.stdout, hidden.stderr


def test_trace_of_a_recorded_hand_with_isolate(tmp_path, clean_registry):
    path = _folder(tmp_path, "mine", PLAYERS)
    dominosim.run(
        variants=["fives"],
        strategies="iso-history,iso-one",
        games=4,
        seed=6,
        strategy_path=[path],
        out=tmp_path / "o",
        plots=False,
        workers=1,
    )
    run_dir = str(next((tmp_path / "o").glob("*/*")))
    args = ["trace", "--run", run_dir, "--hand", "0:1:1:0", "--json", "--strategy-path", path]
    plain = _cli(args, tmp_path)
    assert plain.returncode == 0 and plain.stdout, plain.stderr
    assert _cli([*args, "--isolate"], tmp_path).stdout == plain.stdout


POINTS = """
from dominosim.strategy import Strategy, register


@register
class IsoPoints(Strategy):
    name = "iso-points"
    params = {}

    def choose(self, obs, legal, keys):
        la = legal.arrays(obs)
        return la.best(la.points)
"""


def test_a_batch_points_rule_plays_the_same_isolated(tmp_path, clean_registry):
    """LegalArrays.points (the core reads the engine's records in-process; the isolated
    strategy's process has only the batch's fields) gives the same games either way."""
    path = _folder(tmp_path, "pts", POINTS)
    run = dict(variants=["fives"], strategies="iso-points,greedy", games=24, seed=5)
    run.update(strategy_path=[path], plots=False, workers=1)
    plain = dominosim.run(**run, out=tmp_path / "a")
    isolated = dominosim.run(**run, out=tmp_path / "b", isolate=True)
    assert _numbers(plain) == _numbers(isolated)


SECOND_IMPORT = """
import os
from pathlib import Path

from dominosim.strategy import Strategy, register

_SEEN = Path(__file__).with_suffix(".seen")
if _SEEN.exists():  # (its second import: wherever that is, the process ends quietly)
    os._exit(0)
_SEEN.write_text("imported once")


@register
class Twice(Strategy):
    name = "twice"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[0]
"""


@pytest.mark.parametrize("isolate", [False, True])
def test_a_file_that_ends_its_second_import_never_ends_the_run_quietly(tmp_path, isolate):
    """The run's own process never imports a user's file (issue 45 point 7): the child that
    loads it first is its first import; the process that plays it, its second, ends; the
    command says so in one line and exits non-zero, never 0 without output."""
    path = _folder(tmp_path, "twice", SECOND_IMPORT)
    args = ["run", "--variant", "fives", "--strategies", "twice,random", "--games", "8"]
    args += ["--strategy-path", path, "--out", str(tmp_path / "o"), "--json", "--no-plots"]
    got = _cli([*args, "--isolate"] if isolate else args, tmp_path)
    assert got.returncode != 0 and got.stdout == "", (got.returncode, got.stdout)
    last = got.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and ("ended" in last or "exited" in last), got.stderr
