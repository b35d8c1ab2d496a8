"""The core's knob vector is built from the §15 options' rows (variants.OPTIONS: each row
carries its Rules field and its knob) and equals, for every variant, player count and option
value, the vector the hand-written kernel.knobs gave (tests/pinned/knobs.json)."""

import json
from pathlib import Path

import pytest

from dominosim.engine import kernel as KN
from dominosim.game.rules import Rules
from dominosim.game.variants import OPTION_KNOBS, OPTIONS, make_rules

PINNED = json.loads((Path(__file__).parent / "pinned" / "knobs.json").read_text())


def test_every_case_gives_the_pinned_knob_vector():
    names = PINNED["knobs"]
    assert sorted(names) == sorted(KN._KNOBS)
    assert len(PINNED["vectors"]) > 500
    for case, want in PINNED["vectors"].items():
        variant, players, opts = case.split("|")
        rules = make_rules(variant, int(players), **json.loads(opts))
        for unit in ("match", "hand"):
            got = dict(zip(KN._KNOBS, (int(x) for x in KN.knobs(rules, unit)), strict=True))
            expect = dict(zip(names, want, strict=True)) | {"unit_hand": int(unit == "hand")}
            assert got == expect, (case, unit)


def test_an_option_row_names_a_rules_field_and_a_knob_of_the_core():
    fields = set(Rules.__dataclass_fields__)
    for (variant, name), o in OPTIONS.items():
        assert o.field is None or o.field in fields, (variant, name)
        assert o.knob is None or o.knob in KN._KNOBS, (variant, name)
    assert {k for _, k in OPTION_KNOBS} < set(KN._KNOBS)


@pytest.mark.parametrize("value", [False, True])
def test_an_option_reaches_the_core_through_its_row(value):
    rules = make_rules("muggins", 2, may_draw_when_able=value)
    assert KN.knobs(rules, "match")[KN._KNOBS.index("may_draw")] == int(value)
