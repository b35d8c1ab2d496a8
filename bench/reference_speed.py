"""Hands per second of the reference engine per variant (2 players, random), median of 5.

For orientation only: the reference engine is the specification, not the fast path.
"""

from __future__ import annotations

import statistics
import time

from dominosim.game.reference import play_match
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import get


def main(matches: int = 20) -> None:
    rnd = get("random")
    print(f"{'variant':10} {'hands/s':>10}")
    for v in VARIANTS:
        rules = make_rules(v, 2)
        rates = []
        for rep in range(5):
            t0 = time.process_time()
            hands = sum(len(play_match(rules, rep, m, [rnd, rnd]).hands) for m in range(matches))
            rates.append(hands / (time.process_time() - t0))
        print(f"{v:10} {statistics.median(rates):10.0f}")


if __name__ == "__main__":
    main()
