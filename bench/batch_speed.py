"""Hands per CPU second of the batch engine, as a ratio to the C limit (median of 5 runs).

    python bench/batch_speed.py [--hands N] [--reps 5]

Prints the CPU model, the C reference (`../shared/limit/run`, games_per_cpu_second, its random and its
heaviest game, each measured beside each repetition), classic 2-player `random` and `heaviest`
with their ratios to C (heaviest against both C games: the median of the repetitions'
ratios, each to the C game measured just before it, and the ratio of the medians), and hands/s per
variant (2 players, `random`). The engine is the compiled core. Unit "hand", one process, CPU
time from time.process_time(); one untimed repetition of each strategy comes first.
"""

from __future__ import annotations

import argparse
import platform
import re
import statistics
import subprocess
import time
from pathlib import Path

from dominosim.base.errors import RulesError
from dominosim.engine import BatchEngine
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import discover, get

LIMIT = Path(__file__).resolve().parents[1].parent / "shared" / "limit" / "run"


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def c_rate(games: int = 2_000_000, strategy: int = 0) -> float | None:
    """The C limit's games per CPU second (strategy 0: random, 1: heaviest)."""
    if not LIMIT.exists():
        return None
    out = subprocess.run(
        [str(LIMIT), str(games), "12345", str(strategy)], capture_output=True, text=True
    ).stdout
    m = re.search(r"games_per_cpu_second=([0-9.]+)", out)
    return float(m.group(1)) if m else None


def engine_rate(variant: str, strategy: str, hands: int, seed: int) -> float:
    rules = make_rules(variant, 2)
    eng = BatchEngine(
        rules, seed, [get(strategy)] * 2, range(hands), unit="hand", batch_size=10_000
    )
    t0 = time.process_time()
    recs, _ = eng.run()
    dt = time.process_time() - t0
    return len(recs["match_id"]) / dt


def median_of(fn, reps: int) -> float:
    return statistics.median(fn(rep) for rep in range(reps))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=500_000)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    print(f"cpu: {cpu_model()}")
    strategies = ["random"] + (["heaviest"] if "heaviest" in discover() else [])
    # one untimed repetition of each first: the process's first large allocations are slower
    # (fresh pages)
    for s in strategies:
        engine_rate("classic", s, a.hands, 0)
    # the C limit (its random and its heaviest game) is measured beside every engine
    # repetition (same machine state)
    c_rates = {s: [] for s in strategies}
    rates = {s: [] for s in strategies}
    for rep in range(a.reps):
        for k, s in enumerate(strategies):
            r = c_rate(strategy=k)
            if r:
                c_rates[s].append(r)
            rates[s].append(engine_rate("classic", s, a.hands, rep + 1))
    c = {s: statistics.median(v) if v else None for s, v in c_rates.items()}
    for s in strategies:
        print(f"C limit, {s}: {c[s]:,.0f} games/s" if c[s] else f"C limit, {s}: not found")
    # ratios: the median of the repetitions' ratios, each to the C game measured just before
    # it (a busy neighbour slows both), and the ratio of the medians
    for s in strategies:
        r = statistics.median(rates[s])
        ratio = ""
        for cs in dict.fromkeys(("random", s)):
            if c[cs]:
                per = statistics.median(e / x for e, x in zip(rates[s], c_rates[cs], strict=True))
                ratio += f"  {per:.3f} x C {cs} ({r / c[cs]:.3f} of medians)"
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
