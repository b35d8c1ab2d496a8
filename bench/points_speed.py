"""A points rule of a user's own through `dominosim run` (issue 46 point 5): hands per CPU
second of ``bench/own/points.py`` against the compiled built-ins, as users run it.

    python bench/points_speed.py [--hands 400000] [--one-hands 40000] [--reps 3]
                                 [--variants fives]

The rule: the legal action with the most in-play points if played now, the first in canonical
order among equals; ``points-batch`` is a batch ``choose`` (``la.best(la.points)``, the
documented batch path of docs/strategies.md), ``points`` a ``choose_one`` calling
``scoring.placement_points`` on each legal action. Each repetition runs, for each variant (2
players, every seat the same strategy), in a fresh process each, ``run_rate`` of
``bench/own_strategy.py`` (``dominosim run ... --unit hand --workers 1 --records none``, the
report's hands per CPU second) for the compiled ``random`` and ``greedy`` and
``points-batch`` (``--hands`` hands) and ``points`` (``--one-hands``). Printed per strategy:
the median of the repetitions, and the medians of its ratios to the compiled ``random`` and
``greedy`` of the same repetition.
"""

from __future__ import annotations

import argparse
import statistics
import sys

from batch_speed import cpu_model  # bench/ is on the path when run as a script
from own_strategy import run_rate

# (strategy, its kind, its hands option)
STRATEGIES = (
    ("random", "compiled", "hands"),
    ("greedy", "compiled", "hands"),
    ("points-batch", "batch choose", "hands"),
    ("points", "choose_one", "one_hands"),
)


def measure(a: argparse.Namespace) -> tuple[dict, dict]:
    """Per (variant, strategy): the rates, and the ratios to the same repetition's compiled
    random and greedy."""
    rates: dict = {}
    ratios: dict = {}
    for _ in range(a.reps):
        for v in a.variants:
            rep = {s: run_rate(v, s, getattr(a, hk)) for s, _, hk in STRATEGIES}
            for s, r in rep.items():
                rates.setdefault((v, s), []).append(r)
                for base in ("random", "greedy"):
                    ratios.setdefault((v, s, base), []).append(r / rep[base])
    return rates, ratios


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=400_000, help="compiled and batch strategies")
    ap.add_argument("--one-hands", type=int, default=40_000, help="the choose_one strategy")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variants", default="fives")
    a = ap.parse_args()
    a.variants = a.variants.split(",")
    print(
        f"cpu: {cpu_model()}; dominosim run, 2 players, unit hand, --workers 1 --records none; "
        f"{a.hands:,} hands (compiled, batch), {a.one_hands:,} (choose_one); median of {a.reps}"
    )
    rates, ratios = measure(a)
    print("| variant | strategy | kind | hands/CPU-s | / compiled random | / compiled greedy |")
    print("|---|---|---|---:|---:|---:|")
    for v in a.variants:
        for s, kind, _ in STRATEGIES:
            r = statistics.median(rates[v, s])
            to_r = statistics.median(ratios[v, s, "random"])
            to_g = statistics.median(ratios[v, s, "greedy"])
            print(
                f"| {v} 2p | `{s}` | {kind} | {r:,.0f} | {to_r:.4f} (1/{1 / to_r:,.0f}) | "
                f"{to_g:.3f} |"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
