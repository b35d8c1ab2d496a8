"""Your own strategy through `dominosim run`: hands per CPU second of a user's strategy file
against the compiled built-ins, as users run it.

    python bench/own_strategy.py [--hands 400000] [--one-hands 40000] [--reps 5]
                                 [--variants classic,fives]

The strategies are the files of ``bench/own/`` (loaded with ``--strategy-path``, as a user's
own folder is): ``first`` (``return legal[0]``) and ``doubles-heavy`` (a double first, then the
heaviest tile) as ``choose_one``, and the same two rules as batch ``choose``
(``first-batch``, ``doubles-heavy-batch``). Each repetition runs, for each variant (2 players,
every seat the same strategy), in a fresh process each:

    dominosim run --variant V --players 2 --strategies S --games N --unit hand --workers 1
                  --records none --seed 1 --json [--strategy-path bench/own]

for the compiled ``random`` and ``heaviest`` (``--hands`` hands), the two batch strategies
(``--hands``) and the two ``choose_one`` strategies (``--one-hands``), and reads the report's
hands per CPU second (``groups[0].hands_per_second``: the chunks' CPU time, the engine, the
strategies and the aggregation, not the start-up). Before them it runs the C limit
(``../shared/limit/run``, its random game: classic 2 players). Printed: the median of the
repetitions per strategy, its ratio to the compiled ``random`` of the same variant and
repetition (median of the ratios), the batch ``doubles-heavy`` to the compiled ``heaviest``,
and each to the C limit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from batch_speed import c_rate, cpu_model  # bench/ is on the path when run as a script

OWN = Path(__file__).resolve().parent / "own"
# (strategy, its kind, its hands option)
STRATEGIES = (
    ("random", "compiled", "hands"),
    ("heaviest", "compiled", "hands"),
    ("first-batch", "batch choose", "hands"),
    ("doubles-heavy-batch", "batch choose", "hands"),
    ("first", "choose_one", "one_hands"),
    ("doubles-heavy", "choose_one", "one_hands"),
)


def run_rate(variant: str, strategy: str, hands: int) -> float:
    """Hands per CPU second of one ``dominosim run`` in a fresh process."""
    with tempfile.TemporaryDirectory() as out:
        # fmt: off
        cmd = [sys.executable, "-m", "dominosim", "run", "--variant", variant, "--players", "2",
               "--strategies", strategy, "--games", str(hands), "--unit", "hand",
               "--workers", "1", "--records", "none", "--seed", "1", "--out", out, "--json",
               "--strategy-path", str(OWN)]
        # fmt: on
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
        return float(json.loads(res.stdout)["groups"][0]["hands_per_second"])


def measure(a: argparse.Namespace) -> tuple[dict, dict, list]:
    """Per (variant, strategy): the rates and the ratios to the same repetition's compiled
    random (and, for the batch doubles-heavy, heaviest); the C limit's rates."""
    rates: dict = {}
    ratios: dict = {}
    limits = []
    for _ in range(a.reps):
        limits.append(c_rate(2_000_000, 0))
        for v in a.variants:
            rep = {s: run_rate(v, s, getattr(a, hk)) for s, _, hk in STRATEGIES}
            for s, r in rep.items():
                rates.setdefault((v, s), []).append(r)
                ratios.setdefault((v, s, "random"), []).append(r / rep["random"])
                ratios.setdefault((v, s, "heaviest"), []).append(r / rep["heaviest"])
    return rates, ratios, limits


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=400_000, help="compiled and batch strategies")
    ap.add_argument("--one-hands", type=int, default=40_000, help="choose_one strategies")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variants", default="classic,fives")
    a = ap.parse_args()
    a.variants = a.variants.split(",")
    print(
        f"cpu: {cpu_model()}; dominosim run, 2 players, unit hand, --workers 1 --records none; "
        f"{a.hands:,} hands (compiled, batch), {a.one_hands:,} (choose_one); median of {a.reps}"
    )
    rates, ratios, limits = measure(a)
    ok = [x for x in limits if x]
    limit = statistics.median(ok) if ok else None
    print(f"C limit (classic 2p, random game): {limit:,.0f} hands/CPU-s" if limit else "no C limit")
    print(
        "| variant | strategy | kind | hands/CPU-s | / compiled random | / compiled heaviest | / C limit |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    for v in a.variants:
        for s, kind, _ in STRATEGIES:
            r = statistics.median(rates[v, s])
            to_r = statistics.median(ratios[v, s, "random"])
            to_h = statistics.median(ratios[v, s, "heaviest"])
            to_c = f"{r / limit:.4f}" if limit else "-"
            print(
                f"| {v} 2p | `{s}` | {kind} | {r:,.0f} | {to_r:.4f} (1/{1 / to_r:,.0f}) | "
                f"{to_h:.3f} | {to_c} |"
            )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
