"""How long a small `dominosim run` spends outside its play (issue 37, point 4), as users meet
it: a fresh process of the installed command, timed from start to exit.

    python bench/startup.py [--reps 7] [--games 1000] [--root PATH ...] [--importtime]

Each repetition runs, in a fresh process (the console script ``dominosim`` beside this Python,
or ``python -m dominosim.cli`` when there is none), once as given and once with ``--no-plots``,
and both again with a user's strategy file (docs/example_batch_strategy.py, ``--strategies
lightest-batch,random``: its file is probed in a forked child and played in a worker process):

    dominosim run --variant classic --players 2 --strategies random,heaviest --games 1000
                  --unit hand --workers 1 --out TMP

and reads the play from the run's manifest (``group_timings``: the chunks' wall time, the
engine and the strategies); "outside" is the process's wall time less that. ``python -c pass``
is timed too (the interpreter's own start, which no change here can remove). Medians (and
minima) of the repetitions are printed. ``--root`` runs a checkout (PYTHONPATH=ROOT), and may be
given several times (e.g. the commit before and this one: their repetitions alternate, so a
busy machine slows both alike). ``--importtime`` prints the slowest top-level imports of one
run of each (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from batch_speed import cpu_model  # bench/ is on the path when run as a script

COMMAND = ["run", "--variant", "classic", "--players", "2", "--strategies", "random,heaviest"]
COMMAND += ["--unit", "hand", "--workers", "1"]


def entry_point() -> list[str]:
    script = Path(sys.executable).with_name("dominosim")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dominosim.cli"]


def timed_run(entry: list[str], env: dict, games: int, extra: list[str]) -> tuple:
    """(the process's wall seconds, its CPU seconds (children included: a worker process), the
    play's wall and CPU seconds from its manifest). stderr is a terminal (a pseudo-terminal),
    as at a user's prompt: the progress bar is set up (it shows after 2 s)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [*entry, *COMMAND, "--games", str(games), *extra, "--out", out]
        terminal, other_end = pty.openpty()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()  # (cwd: not this checkout, which -m would put first)
        try:
            kw = {"stdout": subprocess.PIPE, "stderr": other_end, "cwd": out}
            subprocess.run(cmd, env=env, check=True, **kw)
        finally:
            os.close(other_end)
            os.close(terminal)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        (manifest,) = Path(out).glob("*/*/manifest.json")
        timings = json.loads(manifest.read_text())["group_timings"]
        play_wall = sum(t["wall_seconds"] for t in timings)
        return wall, cpu, play_wall, sum(t["cpu_seconds"] for t in timings)


def interpreter(env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return time.perf_counter() - t0


def importtime(env: dict, games: int, top: int = 15) -> None:
    """The slowest top-level imports of one run (cumulative microseconds)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-X", "importtime", "-m", "dominosim.cli", *COMMAND]
        cmd += ["--games", str(games), "--out", out]
        res = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, cwd=out)
    rows = []
    for line in res.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if not name.startswith("  ") and cumulative.strip().isdigit():
                rows.append((int(cumulative), name.strip()))
    total = sum(r[0] for r in rows) / 1e3
    print(f"slowest top-level imports of one run (ms, cumulative; all top-level: {total:.0f})")
    for us, name in sorted(rows, reverse=True)[:top]:
        print(f"  {us / 1e3:7.1f}  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--root", action="append", help="a checkout to run (PYTHONPATH)")
    ap.add_argument("--importtime", action="store_true")
    a = ap.parse_args()
    envs = {}
    for root in a.root or [None]:
        envs[root or "installed"] = dict(os.environ)
        if root:
            envs[root]["PYTHONPATH"] = str(Path(root).resolve())
    entry = entry_point()
    print(f"CPU: {cpu_model()}; {os.cpu_count()} cores; Python {sys.version.split()[0]}")
    shown = " ".join([Path(entry[0]).name, *entry[1:], *COMMAND])
    print(f"command: {shown} --games {a.games} --out TMP")
    own = tempfile.mkdtemp()  # a user's strategy file: played in a worker process
    shutil.copy(Path(__file__).resolve().parents[1] / "docs" / "example_batch_strategy.py", own)
    mine = ["--strategies", "lightest-batch,random", "--strategy-path", own]
    cases = {
        "as given (plots drawn)": [],
        "--no-plots": ["--no-plots"],
        "own strategy": mine,
        "own strategy, --no-plots": [*mine, "--no-plots"],
    }
    results = {(root, name): [] for root in envs for name in cases}
    python = []
    for env in envs.values():
        timed_run(entry, env, a.games, [])  # (warm the file cache)
    for _ in range(a.reps):
        for root, env in envs.items():
            for name, extra in cases.items():
                try:
                    results[root, name].append(timed_run(entry, env, a.games, extra))
                except subprocess.CalledProcessError:  # (a checkout from before --no-plots)
                    pass
        python.append(interpreter(os.environ))
    shutil.rmtree(own)
    report(results, python, a.reps)
    if a.importtime:
        for root, env in envs.items():
            print(f"{root}:")
            importtime(env, a.games)


def report(results: dict, python: list[float], reps: int) -> None:
    head = ["wall s".rjust(14), "outside, wall".rjust(14), "cpu s".rjust(6)]
    head += ["outside, cpu".rjust(12), "play cpu".rjust(8)]
    print(f"{'checkout, case':46} {' '.join(head)}")
    for (root, name), rows in results.items():
        label = f"{root}, {name}"[-46:]
        if not rows:
            print(f"{label:46} (not in this checkout)")
            continue
        med = [statistics.median(x) for x in zip(*rows, strict=True)]
        wall, cpu, _, play_cpu = med
        out_wall = statistics.median(w - p for w, _, p, _ in rows)
        out_cpu = statistics.median(c - p for _, c, _, p in rows)
        low = min(w - p for w, _, p, _ in rows)
        print(
            f"{label:46} {wall:7.3f} ({min(r[0] for r in rows):.3f}) {out_wall:6.3f} ({low:.3f}) "
            f"{cpu:6.3f} {out_cpu:12.3f} {play_cpu:8.3f}"
        )
    print(f"{'python -c pass':46} {statistics.median(python):7.3f} ({min(python):.3f})")
    print(f"(medians of {reps} repetitions, minima in brackets; outside = the process less the")
    print(" play of its manifest's group_timings; cpu: the process and its children)")


if __name__ == "__main__":
    main()
