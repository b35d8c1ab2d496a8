"""Throughput of `dominosim run` with 1 and 2 workers (issue: ≥ 1.8× with 2 workers).

`--records none`, chunks of about 2+ seconds each, median of 5 runs of each setting. Prints the
CPU model, games per second for each worker count and the ratio.

    python bench/run_scaling.py [GAMES] [CHUNK]
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

from batch_speed import cpu_model  # bench/ is on the path when run as a script

import dominosim


def once(workers: int, games: int, chunk: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        dominosim.run(
            variants=["classic"],
            players=2,
            strategies="random",
            games=games,
            unit="hand",
            seed=1,
            chunk_size=chunk,
            workers=workers,
            out=out,
            records=False,
            echo=lambda s: None,
        )
        return games / (time.perf_counter() - t0)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1_200_000
    chunk = int(sys.argv[2]) if len(sys.argv) > 2 else 300_000
    print(f"cpu: {cpu_model()}; classic 2p random, unit hand, {games} games, chunks of {chunk}")
    rates = {}
    for workers in (1, 2):
        rates[workers] = statistics.median(once(workers, games, chunk) for _ in range(5))
        print(f"workers={workers}: {rates[workers]:,.0f} games/s (median of 5)")
    print(f"ratio 2 workers / 1 worker: {rates[2] / rates[1]:.2f}")


if __name__ == "__main__":
    main()
