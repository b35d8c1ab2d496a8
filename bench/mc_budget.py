"""Is ``mc`` at one budget at least as strong as at another? Paired on duplicate deals.

    python bench/mc_budget.py [--deals 2000] [--variants block,classic,fives] [--old 256]
                              [--new 1024] [--against greedy] [--workers 2] [--seed 2024]

Both budgets play the same deals against the same opponent, each deal twice (both seat orders,
one hand per deal, as bench/strength.py). Per deal the score is mc's wins minus the opponent's
over the two seatings, divided by two; the table gives the mean difference new - old of those
scores per deal with its paired 95% normal interval (the issue asks that it not fall below
-1 pp). Not run in tests.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from strength import Z95, _play  # bench/ is on the path when run as a script


def scores(pool, variant, samples, against, deals, seed, workers):
    chunk = max(1, math.ceil(deals / (4 * workers)))
    jobs = [
        (variant, 2, "mc", against, {"samples": samples}, lo, min(lo + chunk, deals), seed)
        for lo in range(0, deals, chunk)
    ]
    parts = pool.map(_play, jobs)
    return np.concatenate([(p[0] + p[3]) / 2 for p in parts])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--variants", default="block,classic,fives")
    ap.add_argument("--old", type=int, default=256)
    ap.add_argument("--new", type=int, default=1024)
    ap.add_argument("--against", default="greedy")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    a = ap.parse_args()
    import multiprocess as mp

    print(
        f"| variant | deals | mc:{a.old} − {a.against} | mc:{a.new} − {a.against} | "
        f"new − old (pp) | 95% CI |"
    )
    print("|---|---:|---:|---:|---:|---|")
    with mp.get_context("spawn").Pool(a.workers) as pool:
        for variant in a.variants.split(","):
            old = scores(pool, variant, a.old, a.against, a.deals, a.seed, a.workers)
            new = scores(pool, variant, a.new, a.against, a.deals, a.seed, a.workers)
            d = new - old
            half = Z95 * d.std(ddof=1) / math.sqrt(len(d))
            print(
                f"| {variant} | {a.deals} | {100 * old.mean():+.1f} | {100 * new.mean():+.1f} | "
                f"{100 * d.mean():+.1f} | [{100 * (d.mean() - half):+.1f}, "
                f"{100 * (d.mean() + half):+.1f}] |",
                flush=True,
            )


if __name__ == "__main__":
    main()
