"""What each field a strategy reads costs (issue 46 point 5; docs/strategies.md, "What each
path costs"), in one process.

    python bench/field_costs.py [--hands 20000] [--reps 5] [--variant fives]

The batch engine plays ``--hands`` hands (2 players, unit hand, uniformly random batch
strategies); at the 10th batch of ``--min`` decisions or more, each seat's strategy times,
``--reps`` times on a fresh copy each (``BatchObservation.take`` of every row: nothing read
yet), the first read of each field: of the batch Observation (the public fields are read
together, the history on its own), of ``LegalArrays`` (``legal.arrays(obs)`` itself, then each
array; ``best``), and of the per-decision Observation (``obs.row(i)`` for every decision, then
each field's first read; ``scoring.placement_points`` of every legal action, its first call per
decision and the later ones). Printed: the median CPU time per batch and per decision.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from batch_speed import cpu_model  # bench/ is on the path when run as a script

from dominosim.engine import BatchEngine
from dominosim.game import observe
from dominosim.game.scoring import placement_points
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy

BATCH_FIELDS = ("hand_mask", "doubles", "_history", "history_len")
ARRAYS = ("valid", "placement", "tile", "position", "pips", "double", "along", "points")
ROW_FIELDS = [f for f in observe.Observation.__dataclass_fields__ if f != "rules"]


def timed(f) -> float:
    t = time.process_time()
    f()
    return time.process_time() - t


class Timer(Strategy):
    """Plays uniformly at random; at its ``at``-th large batch times the fields' first reads."""

    name = "field-timer"
    params = {}

    def __init__(self, reps: int, least: int) -> None:
        super().__init__()
        self.reps, self.least, self.seen = reps, least, 0
        self.costs: dict = {}
        self.n = 0

    def choose(self, obs, legal, keys):
        n = len(keys)
        if n >= self.least and legal.lead is None:
            self.seen += 1
            if self.seen == 10:
                self.n = n
                for _ in range(self.reps):
                    self.measure(obs, legal)
        return legal.uniform(keys)

    def add(self, name: str, seconds: float) -> None:
        self.costs.setdefault(name, []).append(seconds)

    def measure(self, obs, legal) -> None:
        rows = np.arange(len(obs))
        fresh = obs.take(rows)
        for name in BATCH_FIELDS:
            self.add(f"batch `{name}`", timed(lambda name=name: getattr(fresh, name)))
        fresh = obs.take(rows)
        la = None

        def make():
            nonlocal la
            la = legal.arrays(fresh)

        self.add("`legal.arrays(obs)`", timed(make))
        for name in ARRAYS:
            self.add(f"arrays `{name}`", timed(lambda name=name: getattr(la, name)))
        score = la.pips
        self.add("arrays `best(score)`", timed(lambda: la.best(score)))
        self.measure_rows(obs.take(rows), legal)

    def measure_rows(self, obs, legal) -> None:
        got = []
        self.add("`obs.row(i)`", timed(lambda: got.extend(obs.row(i) for i in range(len(obs)))))
        for name in ROW_FIELDS:
            self.add(f"row `{name}`", timed(lambda name=name: [getattr(o, name) for o in got]))
        rows = [obs.row(i) for i in range(len(obs))]
        lists = legal.lists()
        first = [(o, a[0]) for o, a in zip(rows, lists, strict=True)]
        self.add(
            "`placement_points`, first call",
            timed(lambda: [placement_points(o, a) for o, a in first]),
        )
        self.add(
            "`placement_points`, later calls",
            timed(lambda: [placement_points(o, a) for o, a in first]),
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--min", type=int, default=2000, help="decisions in the timed batch")
    ap.add_argument("--variant", default="fives")
    a = ap.parse_args()
    timer = Timer(a.reps, a.min)
    BatchEngine(make_rules(a.variant, 2), 1, [timer] * 2, range(a.hands), unit="hand").run()
    print(
        f"cpu: {cpu_model()}; {a.variant} 2p, a batch of {timer.n:,} decisions; median of {a.reps}"
    )
    print("| what is read (first read) | µs per batch | µs per decision |")
    print("|---|---:|---:|")
    for name, ts in timer.costs.items():
        t = statistics.median(ts) * 1e6
        print(f"| {name} | {t:,.0f} | {t / timer.n:.3f} |")


if __name__ == "__main__":
    main()
