"""The compiled policies (docs/strategies.md, "Compiled policies"; engine/_policy.h) decide as
their strategy files do: every built-in heuristic on every variant, player count, partnership
and the options that add decisions or layouts (blind's rows and open phase, voluntary draws,
doubles laid along, the spinner's options).

Each rule set is played twice on the core, 150 deals per table (DEALS). First with every strategy
asked in Python through a ``Twin`` wrapper, which plays its per-game ``choose_one`` (the
specification) and compares it at each decision with the compiled policy's choice on the same
position (``kernel.decide``); then with the strategies themselves, which the engine hands to
their compiled policies, so that no decision comes back to Python. The records of the two runs
must be equal field by field. (That a strategy's batch ``choose`` equals its ``choose_one`` is
the conformance checks' part, ``check.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.base.errors import RulesError
from dominosim.engine import kernel as KN
from dominosim.engine.batch import BatchEngine
from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import Strategy, classify, get
from dominosim.strategy.models import FEATURES, Model

HEURISTICS = KN.POLICIES  # (the compiled twins, as the core lists them: a new one is tested too)
DEALS = 150  # (with learned a 2-player rule set has four tables: 600 deals, as three of 200 were)


def compiled_choices(code: int, obs, legal, inner=None) -> np.ndarray:
    """The compiled policy ``code``'s answers at the decisions of a batch (``kernel.decide`` on
    the engine's slots; ``inner``: the learned strategy whose weights it takes)."""
    e, n = obs._e, len(legal)
    lead = legal.lead if legal.lead is not None else np.zeros(n, dtype=np.int64)
    flags = legal.draw * KN.F_DRAW + legal.pass_ * KN.F_PASS + legal.stop * KN.F_STOP
    out = np.empty(n, dtype=np.int64)
    w = (
        inner.compiled_weights(e.r)
        if code == KN.POLICIES.index("learned")
        else [0] * KN.LEARN_FEATURES
    )
    KN.decide(
        KN.knobs(e.r, e.unit),
        code,
        e.state.records,
        e.state.blind_records,
        np.ascontiguousarray(obs._g, dtype=np.int64),
        np.ascontiguousarray(obs.decision, dtype=np.int64),
        legal.lead is not None,
        np.ascontiguousarray(lead, dtype=np.int64),
        np.ascontiguousarray(legal.masks, dtype=np.int64),
        np.ascontiguousarray(flags, dtype=np.int64),
        out,
        np.asarray(w, dtype=np.int64),
    )
    return out


@classify  # (it reads the true state: fixed perfect_information)
class Twin(Strategy):
    """Asks ``inner`` in Python and checks its compiled policy against it at every decision."""

    name = "twin"
    classifier = "perfect_information"  # (it reads the true state: obs._e)

    def __init__(self, inner: Strategy, found: list):
        super().__init__()
        self.inner = inner
        self.found = found
        self.code = KN.POLICIES.index(inner.compiled_policy())
        self.asked = 0

    def choose(self, obs, legal, keys):
        compiled = compiled_choices(self.code, obs, legal, self.inner)
        spec = np.empty(len(keys), dtype=np.int64)
        for i in range(len(keys)):
            row = obs.row(i)
            legal_i = legal.row_list(i)
            spec[i] = self.inner.choose_one(row, legal_i, int(keys[i]))
            if spec[i] != compiled[i] and len(self.found) < 3:
                self.found.append(
                    f"{self.inner.name} at {row.phase} decision {row.decision} of "
                    f"match {row.match_id}: choose_one {spec[i]}, compiled "
                    f"{compiled[i]}; legal {legal_i}, hand {row.hand}, "
                    f"positions {row.positions}, voids {row.voids}"
                )
        self.asked += len(keys)
        return spec


def _tables(players: int) -> list[list[str]]:
    """Seatings in which every heuristic sits (each strategy plays every deal of one)."""
    rot = list(HEURISTICS)
    tables = []
    while rot:
        table, rot = rot[:players], rot[players:]
        tables.append(table + list(HEURISTICS[: players - len(table)]))
    return tables


def _rule_sets():
    cases = []
    for variant in VARIANTS:
        for players in (2, 3, 4):
            for opts in ({}, {"partnership": True}):
                if opts and players != 4:
                    continue
                try:
                    make_rules(variant, players, **opts)
                except RulesError:
                    continue
                tag = "-partners" if opts else ""
                cases.append(pytest.param(variant, players, opts, id=f"{variant}-{players}p{tag}"))
    # fmt: off
    extra = (("blind", 2, {"blind_draw_optional": True}),
             ("blind", 2, {"blind_play_optional": True}),
             ("blind", 3, {"blind_unplayable_double_face_up": True, "blind_play_optional": True,
                           "blind_draw_optional": True}),
             ("blind", 3, {"blind_deal": "all_tiles"}),
             ("bergen", 2, {"bergen_voluntary": True}),
             ("muggins", 2, {"may_draw_when_able": True}),
             ("fives", 2, {"inline_double_counts_single": True}),
             ("muggins", 2, {"first_double_spinner": True}),
             ("muggins", 3, {"first_double_spinner": True, "us_sniff_counting": True}),
             ("sniff", 2, {"spinner_open_all_four_immediately": True}))
    # fmt: on
    for variant, players, opts in extra:
        name = ",".join(f"{k}={v}" for k, v in opts.items())
        cases.append(pytest.param(variant, players, opts, id=f"{variant}-{players}p-{name}"))
    return cases


def _records_differ(a: dict, b: dict) -> list[str]:
    return [k for k in a if not np.array_equal(a[k], b[k])]


def _learned(rules, folder) -> Strategy:
    """``learned`` with a model for ``rules``' game whose weights are drawn from the rule set's
    name (each feature counts, with either sign)."""
    rng = np.random.default_rng(list(rules.label.encode()) + [rules.players])
    weights = [int(x) for x in rng.integers(-50, 51, size=len(FEATURES))]
    model = Model(rules.variant, rules.players, bool(rules.partnership), tuple(weights))
    path = folder / "model.json"
    path.write_text(model.to_json())
    return get("learned", model=str(path))


@pytest.mark.parametrize(("variant", "players", "opts"), _rule_sets())
def test_compiled_policies_decide_as_their_files(variant, players, opts, tmp_path):
    rules = make_rules(variant, players, **opts)

    def make(name):
        return _learned(rules, tmp_path) if name == "learned" else get(name)

    for t, table in enumerate(_tables(players)):
        found: list = []
        twins = [Twin(make(name), found) for name in table]
        seed = 5 + t
        ids = range(DEALS)
        asked = BatchEngine(rules, seed, twins, ids, unit="hand", batch_size=64)
        hands_py, _ = asked.run()
        assert not found, "\n".join(found)
        assert all(tw.asked > 0 for tw in twins), "a seat was never asked"
        inside = BatchEngine(
            rules, seed, [make(name) for name in table], ids, unit="hand", batch_size=64
        )
        assert (inside._policy[:players] >= 0).all()  # every seat decided in the core
        hands_c, _ = inside.run()
        assert not _records_differ(hands_py, hands_c), (table, _records_differ(hands_py, hands_c))


@pytest.mark.parametrize("variant", ["fives", "blind", "sniff", "kozel"])
def test_whole_matches_with_compiled_policies_equal_python(variant):
    rules = make_rules(variant, 2)
    strats = [get("greedy"), get("suit-keeper")]
    runs = [
        BatchEngine(rules, 3, strats, range(40), unit="match", batch_size=16, compiled=c).run()
        for c in (True, False)
    ]
    (h1, m1), (h2, m2) = runs
    assert not _records_differ(h1, h2) and not _records_differ(m1, m2)
    assert len(h1["match_id"]) > 40  # matches of several hands


def test_a_mixed_table_sends_only_the_python_seat_back():
    """A user's strategy beside compiled ones: only its decisions are asked in Python, and the
    games are those of an all-Python table."""

    class Lowest(Strategy):
        name = "lowest-test"

        def choose_one(self, obs, legal, key):
            return legal[0]

    rules = make_rules("fives", 3)
    lowest = Lowest()
    strats = [get("heaviest"), lowest, get("blocker")]
    eng = BatchEngine(rules, 9, strats, range(300), unit="hand")
    assert list(eng._policy[:3]) == [
        KN.POLICIES.index("heaviest"),
        KN.POL_PYTHON,
        KN.POLICIES.index("blocker"),
    ]
    h1, _ = eng.run()
    h2, _ = BatchEngine(rules, 9, strats, range(300), unit="hand", compiled=False).run()
    assert not _records_differ(h1, h2)


def test_a_subclass_or_other_parameters_are_asked_in_python():
    """The compiled policy belongs to the class that declares it, with its defaults only."""
    Greedy = type(get("greedy"))

    class Tweaked(Greedy):
        name = "tweaked-test"

        def choose_one(self, obs, legal, key):
            return legal[-1]

    assert get("greedy").compiled_policy() == "greedy"
    assert Tweaked().compiled_policy() is None
    assert get("mc").compiled_policy() is None


@classify  # (it reads the true state: fixed perfect_information)
class _FirstDecision(Strategy):
    """Seat 0's strategy: at its first decision, keeps the answers of ``inner``'s
    ``choose_one``, its batch ``choose`` and its compiled policy; then plays ``inner``."""

    name = "first-decision-test"
    classifier = "perfect_information"  # (it reads the true state: obs._e)

    def __init__(self, inner: Strategy):
        super().__init__()
        self.inner = inner
        self.answers: tuple | None = None

    def choose(self, obs, legal, keys):
        if self.answers is None:
            code = KN.POLICIES.index(self.inner.compiled_policy())
            # fmt: off
            self.answers = (self.inner.choose_one(obs.row(0), legal.row_list(0), int(keys[0])),
                            int(self.inner.choose(obs, legal, keys)[0]),
                            int(compiled_choices(code, obs, legal, self.inner)[0]))
            # fmt: on
        return self.inner.choose(obs, legal, keys)


def _tie_on_a_void(variant: str, name: str, void_seat: int | None) -> tuple:
    """Seat 0 (partner: seat 2) holds 1-5 and 2-4 on ends L=1, R=2: 1-5@L leaves 5-2, 2-4@R
    leaves 1-4; equal pips, no double, equal control (1), no in-play points in threes. The one
    difference: ``void_seat`` is known to lack 4. The answers of choose_one, choose and the
    compiled policy."""
    T = tiles.parse
    hands = [[T("1-5"), T("2-4")], [T("0-0"), T("6-6")], [T("3-3"), T("0-3")], [T("6-5"), T("5-5")]]
    rules = make_rules(variant, 4, partnership=True)
    seat0 = _FirstDecision(get(name))
    position = {"hands": hands, "stock": [], "ends": {"L": 1, "R": 2}, "to_move": 0}
    eng = BatchEngine.from_positions(rules, 1, [seat0] + [get("random")] * 3, [position])
    if void_seat is not None:
        eng.state.voids[0, void_seat] = 1 << 4
    eng.run()
    return seat0.answers


@pytest.mark.parametrize(("variant", "name"), [("classic", "heaviest"), ("threes", "greedy")])
def test_the_void_tie_break_counts_the_opponents_not_the_partner(variant, name):
    """docs/strategies.md: ties go to the open ends the opponents are known to lack, counted
    per opponent; the partner is no opponent. Python (one by one and in batches) and the
    compiled policy agree (classic: heaviest's line loop; threes: greedy's ranking)."""
    first, other = A.parse("1-5@L"), A.parse("2-4@R")
    assert _tie_on_a_void(variant, name, None) == (first,) * 3  # a tie: the first
    assert _tie_on_a_void(variant, name, 1) == (other,) * 3  # an opponent lacks 4
    assert _tie_on_a_void(variant, name, 3) == (other,) * 3
    assert _tie_on_a_void(variant, name, 2) == (first,) * 3  # the partner's void: no count
