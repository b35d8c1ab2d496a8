"""How long a small `dominosim run` spends outside its play (issue 37, point 4), as users meet
it: a fresh process of the installed command, timed from start to exit.

    python bench/startup.py [--reps 7] [--games 1000] [--root PATH ...] [--importtime]

Each repetition runs, in a fresh process (the console script ``dominosim`` beside this Python,
or ``python -m dominosim.cli`` when there is none), once as given and once with ``--no-plots``:

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
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = ["run", "--variant", "classic", "--players", "2", "--strategies", "random,heaviest"]
COMMAND += ["--unit", "hand", "--workers", "1"]


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def entry_point() -> list[str]:
    script = Path(sys.executable).with_name("dominosim")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dominosim.cli"]


def timed_run(entry: list[str], env: dict, games: int, extra: list[str]) -> tuple[float, float]:
    """(the process's wall seconds, the play's wall seconds from its manifest)."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [*entry, *COMMAND, "--games", str(games), *extra, "--out", out]
        t0 = time.perf_counter()  # (cwd: not this checkout, which -m would put first)
        subprocess.run(cmd, env=env, check=True, capture_output=True, cwd=out)
        wall = time.perf_counter() - t0
        (manifest,) = Path(out).glob("*/*/manifest.json")
        timings = json.loads(manifest.read_text())["group_timings"]
        return wall, sum(t["wall_seconds"] for t in timings)


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
    cases = {"as given (plots drawn)": [], "--no-plots": ["--no-plots"]}
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
    report(results, python, a.reps)
    if a.importtime:
        for root, env in envs.items():
            print(f"{root}:")
            importtime(env, a.games)


def report(results: dict, python: list[float], reps: int) -> None:
    print(f"{'checkout, case':52} {'wall s':>14} {'play s':>8} {'outside s':>16}")
    for (root, name), rows in results.items():
        label = f"{root}, {name}"[-52:]
        if not rows:
            print(f"{label:52} (not in this checkout)")
            continue
        wall = [w for w, _ in rows]
        play = [p for _, p in rows]
        out = [w - p for w, p in rows]
        print(
            f"{label:52} {statistics.median(wall):7.3f} ({min(wall):.3f}) "
            f"{statistics.median(play):8.3f} {statistics.median(out):8.3f} ({min(out):.3f})"
        )
    print(f"{'python -c pass':52} {statistics.median(python):7.3f} ({min(python):.3f})")
    print(f"(medians of {reps} repetitions; minima in brackets)")


if __name__ == "__main__":
    main()
