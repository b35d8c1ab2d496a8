"""The cost of ``--isolate`` (issue 45 point 7): a user's batch strategy through ``dominosim
run``, in the engine's process and in a process of its own.

    python bench/isolate.py [--hands 1000000] [--reps 3] [--variants fives,classic]

The strategy is ``docs/example_batch_strategy.py`` (``lightest-batch``: ``legal.arrays`` and
``best``), every seat, loaded with ``--strategy-path``. Each repetition runs, per variant, in a
fresh process each, alternating the two:

    dominosim run --variant V --players 2 --strategies lightest-batch --games N --unit hand
                  --workers 1 --records none --no-plots --seed 1 --json
                  --strategy-path docs/example_batch_strategy.py [--isolate]

and reads hands per wall second: of the chunks (the report's ``groups[0].wall_seconds``: the
engine, the strategy, its process's start and the pipe; with ``--isolate`` the CPU of the
strategy's process is not the worker's, so CPU seconds would flatter it) and of the whole
command (start-up included). Printed: the median of the repetitions and the median of the
per-repetition ratios isolated / in-process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STRATEGY = ROOT / "docs" / "example_batch_strategy.py"


def rates(variant: str, hands: int, isolate: bool) -> tuple[float, float]:
    """(hands per wall second of the chunks, of the whole command) of one run."""
    with tempfile.TemporaryDirectory() as out:
        # fmt: off
        cmd = [sys.executable, "-m", "dominosim", "run", "--variant", variant, "--players", "2",
               "--strategies", "lightest-batch", "--games", str(hands), "--unit", "hand",
               "--workers", "1", "--records", "none", "--no-plots", "--seed", "1", "--out",
               out, "--json", "--strategy-path", str(STRATEGY)]
        # fmt: on
        started = time.perf_counter()
        res = subprocess.run(
            [*cmd, *(["--isolate"] if isolate else [])], capture_output=True, text=True, check=True
        )
        wall = time.perf_counter() - started
        group = json.loads(res.stdout)["groups"][0]
        return group["hands"] / group["wall_seconds"], group["hands"] / wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--variants", default="fives,classic")
    a = ap.parse_args()
    print("| variant | path | hands/s (chunks) | hands/s (command) | isolated / in-process |")
    print("|---|---|---:|---:|---:|")
    for variant in a.variants.split(","):
        got: dict[bool, list] = {False: [], True: []}
        for _ in range(a.reps):
            for isolate in (False, True):
                got[isolate].append(rates(variant, a.hands, isolate))
        for isolate in (False, True):
            chunks = statistics.median(r[0] for r in got[isolate])
            whole = statistics.median(r[1] for r in got[isolate])
            ratio = statistics.median(
                i[0] / p[0] for i, p in zip(got[True], got[False], strict=True)
            )
            shown = f"{ratio:.3f} (command {statistics.median(i[1] / p[1] for i, p in zip(got[True], got[False], strict=True)):.3f})"
            print(
                f"| {variant} 2p | {'--isolate' if isolate else 'in-process'} | {chunks:,.0f} | "
                f"{whole:,.0f} | {shown if isolate else ''} |"
            )


if __name__ == "__main__":
    main()
