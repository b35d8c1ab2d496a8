"""The built-in heuristics on both paths: as compiled policies inside the core, and the same
strategies asked through the public interface (``Strategy.choose``, ``compiled=False``), per
variant and player count, on the batch engine (hands per CPU second, unit hand, every seat the
same strategy).

    python bench/policy_speed.py [--hands 100000] [--python-hands 2000] [--variants a,b]
                                 [--players 2,3,4] [--no-python]

Prints one line per (variant, players, strategy): the compiled rate, the public interface's
rate and their ratio, and the C limit's random game measured at the start (the floor of issue
16 is 0.15x of it for every heuristic, every variant, 2 to 4 players).
"""

from __future__ import annotations

import argparse
import time

from batch_speed import c_rate, cpu_model  # bench/ is on the path when run as a script

from dominosim.base.errors import RulesError
from dominosim.engine.batch import BatchEngine
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import get

HEURISTICS = ("random", "heaviest", "greedy", "doubles-first", "suit-keeper", "blocker")


def rate(rules, name: str, hands: int, compiled: bool) -> float:
    strats = [get(name)] * rules.players
    t = time.process_time()
    BatchEngine(rules, 1, strats, range(hands), unit="hand", compiled=compiled).run()
    return hands / (time.process_time() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--python-hands", type=int, default=2_000)
    ap.add_argument("--variants", default=",".join(VARIANTS))
    ap.add_argument("--players", default="2,3,4")
    ap.add_argument("--no-python", action="store_true")
    a = ap.parse_args()
    c = c_rate(2_000_000, 0)
    print(
        f"cpu: {cpu_model()}; C limit (random game): {c:,.0f} hands/CPU-s; "
        f"floor 0.15x = {0.15 * c:,.0f}"
    )
    worst = None
    for variant in a.variants.split(","):
        for players in (int(p) for p in a.players.split(",")):
            try:
                rules = make_rules(variant, players)
            except RulesError:
                continue
            for name in HEURISTICS:
                fast = rate(rules, name, a.hands, True)
                line = f"{variant:9} {players}p {name:14} compiled {fast:>11,.0f} ({fast / c:.3f}x)"
                if not a.no_python:
                    slow = rate(rules, name, a.python_hands, False)
                    line += f"  public interface {slow:>10,.0f}  ({fast / slow:,.0f}x faster)"
                print(line, flush=True)
                if worst is None or fast < worst[0]:
                    worst = (fast, variant, players, name)
    if worst:
        print(
            f"slowest compiled: {worst[1]} {worst[2]}p {worst[3]}: {worst[0]:,.0f} hands/CPU-s "
            f"= {worst[0] / c:.3f}x the C limit's random game"
        )


if __name__ == "__main__":
    main()
