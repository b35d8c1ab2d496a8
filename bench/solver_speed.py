"""Solved deals per second of the perfect-information solver (dominosim.solver), per variant.

    python bench/solver_speed.py [--deals 40] [--budget 2000000] [--seed 1]

For every variant at 2 players, and at 4 in partnership where RULES §15 allows it (kozel: its
teams), the first hands of match ids 0..deals-1 are solved from their deals (solve_deals, one
call, one process): deals per CPU-second, the share solved within the node budget, nodes per
deal (median, mean, max) and nodes per CPU-second. 3 players and 4 without partnership give
the paranoid bound (not measured here).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from dominosim.engine import solver
from dominosim.game.variants import OPTIONS, VARIANTS, make_rules


def shapes():
    for v in VARIANTS:
        yield v, 2, {}
        if v == "kozel":
            yield v, 4, {}
        elif (v, "partnership") in OPTIONS:
            yield v, 4, {"partnership": True}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--budget", type=int, default=solver.DEFAULT_BUDGET)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    print("| variant | players | deals/s | solved | nodes median | mean | max | Mnodes/s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for v, p, opts in shapes():
        rules = make_rules(v, p, **opts)
        solver.solve_deals(rules, a.seed + 1, range(1), budget=a.budget)  # (warm: not timed)
        t0 = time.process_time()
        s = solver.solve_deals(rules, a.seed, range(a.deals), budget=a.budget)
        dt = max(time.process_time() - t0, 1e-9)
        print(
            f"| {v} | {p}{'p' if not opts else ' (teams)'} | {a.deals / dt:,.0f} | "
            f"{int(s.solved.sum())}/{a.deals} | {int(np.median(s.nodes)):,} | "
            f"{int(s.nodes.mean()):,} | {int(s.nodes.max()):,} | "
            f"{s.nodes.sum() / dt / 1e6:.1f} |"
        )


if __name__ == "__main__":
    main()
