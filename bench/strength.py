"""Strength of the built-in strategies: hand win rates on duplicate deals (not run in tests).

    python bench/strength.py [--deals 50000] [--mc-deals 1000] [--samples N] [--workers 2]
                             [--time-mc] [--variants all] [--players 2,4] [--mc-against greedy]

For block, classic and fives (``--variants all``: every variant) with 2 players (``--players
2,4``: also 4, in partnership where RULES §15 allows it, A in seats 0 and 2) it plays each
heuristic against ``random`` and ``mc`` against each heuristic (``--mc-against``: only those). Every pair plays the same deals twice, once in each seat order
(duplicate deals with seat rotation), one hand per deal (unit "hand"), on the batch engine.
Per deal, the paired score is A's wins minus B's wins over the two seatings, divided by two; the
table gives each side's hand win rate (draws, i.e. blocked hands without a winner, count for
nobody) and the mean paired difference with its 95% normal interval. Prints a Markdown table.
The heuristics are cheap on the batch engine, so they play 50,000 deals (interval half-width
about ±0.6 pp); ``mc`` plays 1,000 (about ±4 pp). ``--time-mc`` also times 4,000 fives 2-player
hands of ``mc`` (its defaults, or ``--samples``) against ``greedy``: the budget's yardstick.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

try:
    import dominosim  # noqa: F401
except ImportError:  # run from a checkout without installing: the children inherit sys.path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

VARIANTS = ("block", "classic", "fives")
HEURISTICS = ("heaviest", "greedy", "doubles-first", "suit-keeper", "blocker")
Z95 = 1.959963984540054


def _rules(variant: str, players: int):
    from dominosim.base.errors import RulesError
    from dominosim.game.variants import make_rules

    if players == 4:
        try:
            return make_rules(variant, 4, partnership=True)
        except RulesError:
            pass
    return make_rules(variant, players)


def _play(job):
    """Winners of deals ``lo..hi`` with A in the even seats and B in the odd ones, then the
    other way round."""
    variant, players, a, b, params_a, lo, hi, seed = job
    from dominosim.engine import BatchEngine
    from dominosim.strategy import get

    rules = _rules(variant, players)
    sa, sb = get(a, **params_a), get(b)
    out = []
    for a_parity in (0, 1):
        seats = [sa if s % 2 == a_parity else sb for s in range(players)]
        a_sides = {rules.side_of(s) for s in range(players) if s % 2 == a_parity}
        b_sides = {rules.side_of(s) for s in range(players) if s % 2 != a_parity}
        hands, _ = BatchEngine(
            rules, seed, seats, range(lo, hi), unit="hand", batch_size=hi - lo
        ).run()
        order = np.argsort(hands["match_id"])
        w = np.asarray(hands["winner"])[order]
        win_a = np.isin(w, list(a_sides)).astype(int)
        win_b = np.isin(w, list(b_sides)).astype(int)
        out += [win_a - win_b, win_a, win_b]
    return out


def run_pair(pool, variant, a, b, params_a, deals, seed, chunk, players=2):
    jobs = [
        (variant, players, a, b, params_a, lo, min(lo + chunk, deals), seed)
        for lo in range(0, deals, chunk)
    ]
    parts = pool.map(_play, jobs)
    diff = np.concatenate([(p[0] + p[3]) / 2 for p in parts])
    wa = np.concatenate([p[1] + p[4] for p in parts]).sum() / (2 * deals)
    wb = np.concatenate([p[2] + p[5] for p in parts]).sum() / (2 * deals)
    m = diff.mean()
    half = Z95 * diff.std(ddof=1) / math.sqrt(len(diff))
    return wa, wb, m, m - half, m + half


def time_mc(pool, samples, policy, hands=4000, seed=2024, workers=2):
    """Wall time of ``hands`` fives 2-player hands of mc against greedy (the budget's yardstick)."""
    deals = hands // 2
    chunk = max(1, math.ceil(deals / (4 * workers)))
    t0 = time.time()
    run_pair(
        pool, "fives", "mc", "greedy", {"samples": samples, "policy": policy}, deals, seed, chunk
    )
    return time.time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=50000, help="deals per heuristic pair")
    ap.add_argument("--mc-deals", type=int, default=1000, help="deals per mc pair")
    ap.add_argument(
        "--samples", type=int, default=None, help="mc samples per decision (default: mc's own)"
    )
    ap.add_argument("--time-mc", action="store_true", help="time 4,000 fives hands of mc")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--no-mc", action="store_true", help="only the heuristics against random")
    ap.add_argument("--players", default="2", help="player counts, e.g. 2,4")
    ap.add_argument("--mc-against", default=",".join(HEURISTICS), help="mc's opponents")
    args = ap.parse_args()
    if args.variants == "all":
        from dominosim.game.variants import VARIANTS as ALL

        args.variants = ",".join(ALL)

    import multiprocess as mp

    rows = []
    with mp.get_context("spawn").Pool(args.workers) as pool:
        for variant, players in (
            (v, int(p)) for v in args.variants.split(",") for p in args.players.split(",")
        ):
            pairs = [(h, "random", {}, args.deals) for h in HEURISTICS]
            if not args.no_mc:
                pa = {} if args.samples is None else {"samples": args.samples}
                pairs += [("mc", h, pa, args.mc_deals) for h in args.mc_against.split(",")]
            name = f"{_rules(variant, players).label} {players}p"
            for a, b, pa, deals in pairs:
                t0 = time.time()
                chunk = max(1, math.ceil(deals / (4 * args.workers)))
                wa, wb, m, lo, hi = run_pair(
                    pool, variant, a, b, pa, deals, args.seed, chunk, players
                )
                label = a + "".join(f":{k}={v}" for k, v in pa.items())
                rows.append((name, label, b, deals, wa, wb, m, lo, hi, time.time() - t0))
                print(
                    f"{name:8} {label:>16} vs {b:14} {deals:5} deals  "
                    f"{100 * wa:5.1f}% {100 * wb:5.1f}%  diff {100 * m:+6.1f} pp "
                    f"[{100 * lo:+6.1f}, {100 * hi:+6.1f}]  {time.time() - t0:6.1f} s",
                    flush=True,
                )
        if args.time_mc:
            from dominosim.strategy import get

            st = get("mc", **({} if args.samples is None else {"samples": args.samples}))
            s = st.settings
            wall = time_mc(pool, s["samples"], s["policy"], workers=args.workers)
            print(
                f"{st.label} ({s['samples']} samples, {s['policy']} playouts): "
                f"4000 fives 2-player hands against greedy on {args.workers} workers in "
                f"{wall:.1f} s ({4000 / wall:.1f} hands/s)",
                flush=True,
            )
    print()
    print("| variant | A | B | deals | A wins | B wins | A − B (pp) | 95% CI |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    for variant, a, b, deals, wa, wb, m, lo, hi, _ in rows:
        print(
            f"| {variant} | {a} | {b} | {deals} | {100 * wa:.1f}% | {100 * wb:.1f}% | "
            f"{100 * m:+.1f} | [{100 * lo:+.1f}, {100 * hi:+.1f}] |"
        )


if __name__ == "__main__":
    main()
