"""Hands per CPU second of the batch engine, as a ratio to the C limit (median of 5 runs).

    python bench/batch_speed.py [--hands N] [--reps 5]

Prints the CPU model, the C reference (`../shared/limit/run`, games_per_cpu_second), classic
2-player `random` (and `heaviest` when that strategy exists) with their ratios to C, and hands/s
per variant the batch engine plays (2 players, `random`). Unit "hand", batch_size 10 000, one
process; CPU time is time.process_time().
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import subprocess
import time
from pathlib import Path

from dominosim.engine import BatchEngine
from dominosim.errors import RulesError
from dominosim.strategy import discover, get
from dominosim.variants import VARIANTS, make_rules

LIMIT = Path(__file__).resolve().parents[1].parent / "shared" / "limit" / "run"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def c_rate(games: int = 2_000_000) -> float | None:
    if not LIMIT.exists():
        return None
    out = subprocess.run([str(LIMIT), str(games)], capture_output=True, text=True).stdout
    m = re.search(r"games_per_cpu_second=([0-9.]+)", out)
    return float(m.group(1)) if m else None


def engine_rate(variant: str, strategy: str, hands: int, seed: int) -> float:
    rules = make_rules(variant, 2)
    eng = BatchEngine(rules, seed, [get(strategy)] * 2, range(hands), unit="hand",
                      batch_size=10_000)  # fmt: skip
    t0 = time.process_time()
    recs, _ = eng.run()
    dt = time.process_time() - t0
    return len(recs["match_id"]) / dt


def median_of(fn, reps: int) -> float:
    return statistics.median(fn(rep) for rep in range(reps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    print(f"cpu: {cpu_model()}")
    rates = [r for r in (c_rate() for _ in range(a.reps)) if r]
    c = statistics.median(rates) if rates else None
    print(f"C limit: {c:,.0f} games/s" if c else "C limit: not found")
    strategies = ["random"] + (["heaviest"] if "heaviest" in discover() else [])
    for s in strategies:
        r = median_of(lambda rep, s=s: engine_rate("classic", s, a.hands, rep + 1), a.reps)
        ratio = f"  {r / c:.3f} x C" if c else ""
        print(f"classic 2p {s:9} {r:12,.0f} hands/s{ratio}")
    print(f"{'variant':10} {'hands/s (2p random)':>20}")
    for v in VARIANTS:
        try:
            r = median_of(lambda rep, v=v: engine_rate(v, "random", a.hands, rep + 1), a.reps)
        except RulesError as exc:
            print(f"{v:10} {'-':>20}  ({str(exc).split(';')[0]})")
            continue
        print(f"{v:10} {r:20,.0f}")


if __name__ == "__main__":
    main()
