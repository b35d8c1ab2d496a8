"""Golden transcripts (tests/golden/, written by tests/golden/make.py): one seeded match per
variant and player count, move by move. The reference engine must play each one again line
for line, and the compiled core must give the same hands and result. Engine-against-engine
tests cannot see a change of seeding, tables or rules made in both engines at once; these
can. A change that alters games on purpose regenerates the files and says so."""

import json

import pytest

from dominosim.engine import BatchEngine
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from golden.make import HERE, MATCH_ID, SEED, STRATEGIES, cases, path, transcript

CASES = [pytest.param(v, p, id=f"{v}-{p}p") for v, p in cases()]


def test_every_case_has_a_transcript_and_no_other_file():
    assert sorted(HERE.glob("*.jsonl")) == sorted(path(v, p) for v, p in cases())


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_the_reference_engine_plays_the_golden_match(variant, players):
    want = path(variant, players).read_text(encoding="utf-8").splitlines()
    got = transcript(variant, players).splitlines()
    for i, (a, b) in enumerate(zip(want, got, strict=False)):
        assert a == b, f"line {i + 1} of {path(variant, players).name} changed:\n{a}\n{b}"
    assert len(want) == len(got)


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_the_core_plays_the_golden_match(variant, players):
    lines = [json.loads(x) for x in path(variant, players).read_text().splitlines()]
    ends = [x for x in lines if x["type"] == "hand_end"]
    (result,) = [x for x in lines if x["type"] == "match_end"]
    rules = make_rules(variant, players)
    strategies = [get(name) for name in STRATEGIES[:players]]
    hands, matches = BatchEngine(rules, SEED, strategies, [MATCH_ID]).run()
    reasons = ("domino", "blocked", "target")
    # fmt: off
    got = [(reasons[int(hands["end_reason"][i])], int(hands["winner"][i]),
            int(hands["hand_length"][i]), [int(x) for x in hands["points"][i]])
           for i in range(len(hands["match_id"]))]
    # fmt: on
    want = [
        (e["reason"], -1 if e["winner"] is None else e["winner"], e["hand_length"], e["points"])
        for e in ends
    ]
    assert got == want
    winner = -1 if result["winner"] is None else result["winner"]
    assert (int(matches["winner"][0]), [int(x) for x in matches["scores"][0]]) == (
        winner,
        result["scores"],
    )
