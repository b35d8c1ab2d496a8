"""Regenerate tests/pinned/reports.json: the reports of a few small seeded runs.

Run from the repository root: ``python tests/pinned/make.py``. The file pins the numbers a
seed gives (test_pinned.py replays every case and compares), so a change of the engine that
alters games fails a test even when every engine changes with it. Regenerate it only for a
change that alters games on purpose, and say so in the commit.
"""

import json
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import dominosim  # noqa: E402

from runs import strip  # noqa: E402

# (name, flags of dominosim.run): every variant once, the options the core took over last
# (voluntary draws, doubles laid along), partnerships, 3 and 4 players, hands and matches
CASES = [
    (
        "classic-2p",
        dict(variants=["classic"], players=2, strategies="random,heaviest", games=60, unit="match"),
    ),
    (
        "fives-4p-partnership",
        dict(
            variants=["fives"],
            players=4,
            strategies="random,greedy,random,greedy",
            sets=["fives.partnership=on"],
            games=40,
            unit="match",
        ),
    ),
    (
        "threes-inline",
        dict(
            variants=["threes"],
            players=2,
            strategies="random,heaviest",
            sets=["threes.inline_double_counts_single=on"],
            games=40,
            unit="match",
        ),
    ),
    (
        "muggins-maydraw",
        dict(
            variants=["muggins"],
            players=2,
            strategies="random,greedy",
            sets=["muggins.may_draw_when_able=on"],
            games=30,
            unit="match",
        ),
    ),
    (
        "bergen-voluntary",
        dict(
            variants=["bergen"],
            players=3,
            strategies="random,heaviest,greedy",
            sets=["bergen.bergen_voluntary=on"],
            games=30,
            unit="match",
        ),
    ),
    (
        "blind-3p",
        dict(
            variants=["blind"],
            players=3,
            strategies="random,greedy,heaviest",
            games=60,
            unit="hand",
        ),
    ),
    (
        "sniff-2p",
        dict(variants=["sniff"], players=2, strategies="random,heaviest", games=20, unit="match"),
    ),
    (
        "kozel-4p",
        dict(
            variants=["kozel"],
            players=4,
            strategies="random,heaviest,random,heaviest",
            games=6,
            unit="match",
        ),
    ),
    (
        "rest-hands",
        dict(
            variants=["basic", "two-lane", "ladder", "block"],
            players=2,
            strategies="random,heaviest",
            games=100,
            unit="hand",
        ),
    ),
    (  # the search bots, asked in Python: pimc (its deals solved in the core) against mc
        "fives-pimc-mc",
        dict(
            variants=["fives"],
            players=2,
            strategies="pimc:samples=8:budget=20000:objective=vote,mc:samples=16",
            games=30,
            unit="hand",
        ),
    ),
]


def report(flags: dict, out: Path) -> dict:
    return strip(dominosim.run(seed=7, workers=1, out=str(out), **flags))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pinned = {name: report(flags, Path(tmp) / name) for name, flags in CASES}
    (HERE / "reports.json").write_text(json.dumps(pinned, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
