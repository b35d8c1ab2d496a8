"""What the tool costs per decision around a trivial ``choose_one`` (issue 37), per rule set and
decision kind, in one process.

    python bench/per_decision.py [--hands 20000] [--reps 3]

For each rule set (every variant, 2 players, blind 3; a spinner with 4 partners; the options
that add decisions: voluntary draws, bergen's voluntary draw, doubles laid along) the batch
engine plays ``--hands`` hands (unit hand, one process, the core) with every seat the trivial
``choose_one`` ``return legal[0]``. Each question the engine puts to the strategy (one batch of
decisions: ``BatchEngine._ask``, the BatchObservation, the legal actions, the per-decision
Observations and lists, the calls and their check) is timed with ``time.process_time`` and
counted by its kind: ``lead`` (the table empty), ``play``, and the phases with flags
(``after_draw``, blind's ``blind_front``, ``blind_drawn``, ``continue``). Printed per rule set and
kind: decisions per hand and CPU µs per decision of those questions (the median of the
repetitions), and the whole run's CPU µs per decision (the engine's own play included: an upper
bound). One untimed run of the same size comes first (the first run allocates the buffers).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict

from batch_speed import cpu_model  # bench/ is on the path when run as a script

from dominosim.engine import BatchEngine
from dominosim.engine.batch import BatchEngine as _Engine
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import Strategy

EXTRA = (
    ("sniff", 4, {"partnership": True}),
    ("muggins", 2, {"may_draw_when_able": True}),
    ("bergen", 2, {"bergen_voluntary": True}),
    ("fives", 2, {"inline_double_counts_single": True}),
)


class First(Strategy):
    """The trivial per-decision strategy: the first legal action."""

    name = "first-bench"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[0]


def rule_sets() -> list[tuple[str, int, dict]]:
    return [(v, 3 if v == "blind" else 2, {}) for v in VARIANTS] + list(EXTRA)


def timed_run(rules, hands: int) -> tuple[float, dict, dict]:
    """The run's CPU seconds, and per decision kind the questions' CPU seconds and decisions."""
    spent: dict = defaultdict(float)
    asked: dict = defaultdict(int)
    ask = _Engine._ask

    def timed(self, ga, sa, sub, keys, dec, phase_name, check=True, pre=None):
        kind = "lead" if sub.lead is not None else phase_name
        t = time.process_time()
        out = ask(self, ga, sa, sub, keys, dec, phase_name, check, pre)
        spent[kind] += time.process_time() - t
        asked[kind] += len(ga)
        return out

    _Engine._ask = timed
    try:
        t = time.process_time()
        BatchEngine(rules, 1, [First()] * rules.players, range(hands), unit="hand").run()
        total = time.process_time() - t
    finally:
        _Engine._ask = ask
    return total, spent, asked


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    print(
        f"cpu: {cpu_model()}; {a.hands:,} hands per run, unit hand, one process; median of {a.reps}"
    )
    print("| rules | kind | decisions/hand | µs/decision (questions) | µs/decision (whole run) |")
    print("|---|---|---:|---:|---:|")
    for variant, players, opts in rule_sets():
        rules = make_rules(variant, players, **opts)
        timed_run(rules, a.hands)  # (untimed: the first run of a size allocates its buffers)
        runs = [timed_run(rules, a.hands) for _ in range(a.reps)]
        label = f"{variant} {players}p" + "".join(f" {k}" for k in opts)
        kinds = sorted({k for _, _, asked in runs for k in asked})
        whole = statistics.median(t / max(1, sum(asked.values())) for t, _, asked in runs)
        for kind in kinds:
            per = statistics.median(s[kind] / asked[kind] for _, s, asked in runs if asked[kind])
            n = runs[0][2][kind] / a.hands
            print(f"| {label} | {kind} | {n:.2f} | {per * 1e6:.2f} | {whole * 1e6:.2f} |")
        print(flush=True)


if __name__ == "__main__":
    main()
