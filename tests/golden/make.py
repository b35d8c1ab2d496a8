"""Regenerate tests/golden/*.jsonl: one seeded match per variant and player count, move by
move, as the JSON Lines of ``dominosim trace --match --json`` (docs/trace.md).

Run from the repository root: ``python tests/golden/make.py``. The files pin the games
themselves (tests/test_golden.py plays every case again on the reference engine and on the
compiled core and compares), so a change of seeding, tables or rules fails a test even when
both engines change with it. Regenerate them only for a change that alters games on purpose,
bump ``dominosim.version.ENGINE_VERSION`` and say so in the commit.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

from dominosim.game.variants import VARIANTS, make_rules  # noqa: E402
from dominosim.strategy import get  # noqa: E402
from dominosim.trace import make_trace, to_jsonl  # noqa: E402

SEED = 2024
MATCH_ID = 3
# mixed strategies, so that the strategies' answers (and their random keys) are pinned too
STRATEGIES = ("random", "heaviest", "greedy", "doubles-first")


def cases() -> list[tuple[str, int]]:
    """(variant, players) for every player count a variant allows."""
    out = []
    for v in VARIANTS:
        for p in (2, 3, 4):
            try:
                make_rules(v, p)
            except Exception:  # noqa: BLE001 - a player count the variant does not allow
                continue
            out.append((v, p))
    return out


def path(variant: str, players: int) -> Path:
    return HERE / f"{variant}-{players}p.jsonl"


def transcript(variant: str, players: int) -> str:
    rules = make_rules(variant, players)
    strategies = [get(name) for name in STRATEGIES[:players]]
    return to_jsonl(
        make_trace(rules, seed=SEED, match_id=MATCH_ID, hand=None, strategies=strategies)
    )


def main() -> None:
    for old in HERE.glob("*.jsonl"):
        old.unlink()
    for variant, players in cases():
        path(variant, players).write_text(transcript(variant, players), encoding="utf-8")
    print(f"wrote {len(cases())} transcripts to {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
