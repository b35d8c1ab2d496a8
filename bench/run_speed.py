"""Hands per CPU second through `dominosim run`, as users run it, as a ratio to the C limit.

    python bench/run_speed.py [--hands N] [--reps 5] [--variants]

Each repetition runs the C limit (`../shared/limit/run`, its random game before a `random`
run, its heaviest game before a `heaviest` one) and then the real command in a fresh process:

    dominosim run --variant classic --players 2 --strategies S --games N --unit hand
                  --workers 1 --records none --json

and reads the hands per CPU second of the report (`groups[0].hands_per_second`: the chunks'
CPU time, the engine, the strategies, the aggregation). The ratio of a repetition is to the C
game measured just before it; the median of the repetitions' ratios is printed with the
medians. ``--variants`` adds every variant, 2 players, `random`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

from batch_speed import c_rate, cpu_model  # bench/ is on the path when run as a script

from dominosim.game.variants import VARIANTS


def run_rate(variant: str, strategy: str, hands: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        # fmt: off
        cmd = ["dominosim", "run", "--variant", variant, "--players", "2", "--strategies",
               strategy, "--games", str(hands), "--unit", "hand", "--workers", "1",
               "--records", "none", "--seed", "1", "--out", out, "--json"]
        # fmt: on
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return float(json.loads(res.stdout)["groups"][0]["hands_per_second"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variants", action="store_true")
    a = ap.parse_args()
    print(
        f"cpu: {cpu_model()}; dominosim run, classic 2p, unit hand, {a.hands:,} hands, "
        f"--workers 1 --records none; median of {a.reps}"
    )
    for strategy, c_game in (("random", 0), ("heaviest", 1)):
        cs, rs, ratios = [], [], []
        for _ in range(a.reps):
            c = c_rate(2_000_000, c_game)
            r = run_rate("classic", strategy, a.hands)
            cs.append(c)
            rs.append(r)
            ratios.append(r / c)
        name = "random" if c_game == 0 else "heaviest"
        print(
            f"C limit ({name} game): {statistics.median(cs):,.0f} hands/CPU-s; "
            f"classic {strategy}: {statistics.median(rs):,.0f} hands/CPU-s = "
            f"{statistics.median(ratios):.3f}x (per repetition: "
            f"{', '.join(f'{x:.3f}' for x in ratios)})"
        )
        sys.stdout.flush()
    if a.variants:
        for v in VARIANTS:
            rate = statistics.median(run_rate(v, "random", a.hands // 2) for _ in range(a.reps))
            print(f"{v:10s} {rate:>12,.0f} hands/CPU-s")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
