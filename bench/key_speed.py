"""The cost of a strategy's key (docs/design.md, "Randomness"): in the core, compiled from
bench/key_speed.c (the core's own _siphash.h), and in Python (seeding.py, the reference
engine's keys).

    python bench/key_speed.py [--n 20000000] [--reps 5]

Prints the CPU model and, per figure, the median of the repetitions in ns per call.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from batch_speed import cpu_model  # bench/ is on the path when run as a script

from dominosim.game import seeding

HERE = Path(__file__).resolve().parent


def c_figures(n: int, reps: int) -> dict[str, float]:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        sys.exit("key_speed: no C compiler (cc or gcc) on the PATH")
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "key_speed"
        subprocess.run(
            [cc, "-O3", "-std=c11", str(HERE / "key_speed.c"), "-o", str(exe)], check=True
        )
        runs = [
            subprocess.run([str(exe), str(n)], capture_output=True, text=True, check=True).stdout
            for _ in range(reps)
        ]
    out = {}
    for line in runs[0].splitlines():
        m = re.match(r"(.+): ([0-9.]+) ns", line)
        if m:
            out[m.group(1)] = statistics.median(
                float(re.search(re.escape(m.group(1)) + r": ([0-9.]+) ns", r).group(1))
                for r in runs
            )
    return out


def per_call(fn, n: int) -> float:
    t = time.process_time()
    for i in range(n):
        fn(i)
    return (time.process_time() - t) / n * 1e9


def python_figures(reps: int) -> dict[str, float]:
    seeding.strategy_key(1, 0, 0, 0, 0)
    uncached = seeding.seat_key.__wrapped__
    figs = {
        "Python siphash24 (24 bytes)": lambda i: seeding.siphash24(5, 6, i.to_bytes(24, "little")),
        "Python seat_key, not cached": lambda i: uncached(1, i, 0, 1),
        "Python strategy_key, hand key cached": lambda i: seeding.strategy_key(1, 7, 0, i, 1),
        "Python old key chain (seeding.key)": lambda i: seeding.key(
            1, seeding.STRATEGY, 7, 0, i, 1
        ),
    }
    return {
        name: statistics.median(per_call(fn, 20_000) for _ in range(reps))
        for name, fn in figs.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20_000_000)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    print(f"cpu: {cpu_model()}; median of {a.reps}")
    for name, ns in {**c_figures(a.n, a.reps), **python_figures(a.reps)}.items():
        print(f"{name}: {ns:,.1f} ns")


if __name__ == "__main__":
    main()
