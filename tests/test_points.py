"""In-play points computed by the core (issue 46 point 5) equal their pure-Python definitions:
``LegalArrays.points`` the numpy computation it replaced (line layouts) and
``scoring.points_by_definition`` (every layout), ``scoring.placement_points``' table (the
per-decision Observation's, ``kernel.points_row``) the definition at every placement code,
legal or not; at every decision of every rule set with in-play points (fives, threes,
muggins, sniff, bergen, their spinner and counting options, 2-4 players)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dominosim.check import rule_sets
from dominosim.engine import kernel, tables
from dominosim.engine.batch import BatchEngine
from dominosim.engine.batch_observation import points_inputs
from dominosim.game import actions as A
from dominosim.game import scoring
from dominosim.game.observe import Observation
from dominosim.game.scoring import placement_points, points_by_definition
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy

RULE_SETS = [r for r in rule_sets() if r.scoring != "none"] + [
    make_rules("fives", 2, inline_double_counts_single=True),
    make_rules("threes", 3, inline_double_counts_single=True),
    make_rules("muggins", 2, first_double_spinner=True),
    make_rules("muggins", 3, first_double_spinner=True, us_sniff_counting=True),
    make_rules("sniff", 2, spinner_open_all_four_immediately=True),
    make_rules("sniff", 2, us_sniff_counting=True),
    make_rules("sniff", 4, partnership=True),
]


def old_batch_points(la, obs, legal) -> np.ndarray:
    """``LegalArrays.points`` before the core computed it (line layouts: numpy over the batch;
    a spinner: the definition decision by decision), kept as the reference."""
    r = obs.rules
    out = np.zeros(la.action.shape, dtype=np.int64)
    if r.scoring == "none" or la.width == 0:
        return out
    if r.layout == "spinner":
        for i, row in enumerate(la.action.tolist()):
            o = obs.row(i)
            out[i] = [points_by_definition(o, a) if 0 <= a < A.DRAW else 0 for a in row]
        return out
    place, t = la.placement, np.maximum(la.tile, 0)
    if legal.lead is not None:
        pts = np.where(tables.IS_DOUBLE[t], 2, 0) if r.scoring == "bergen" else None
        return np.where(place, _count(r, tables.TILE_PIPS[t]) if pts is None else pts, 0)
    p = np.clip(la.position, 0, 1)
    v = np.take_along_axis(legal.values, p, axis=1)
    w = tables.TILE_LOW[t] + tables.TILE_HIGH[t] - v
    d = tables.IS_DOUBLE[t]
    other_v = np.take_along_axis(legal.values, 1 - p, axis=1)
    other_d = np.take_along_axis(np.asarray(obs.doubles, dtype=bool), 1 - p, axis=1)
    if r.scoring == "bergen":
        pts = np.where(w == other_v, np.where(d | other_d, 3, 2), 0)
        return np.where(place & (other_v >= 0), pts, 0)
    other_a = np.take_along_axis(np.asarray(obs.along, dtype=bool), 1 - p, axis=1)
    contrib = np.where(other_v < 0, 0, np.where(other_d & ~other_a, 2 * other_v, other_v))
    c = np.where(d & ~la.along, 2 * w, w) + contrib
    return np.where(place, _count(r, c), 0)


def _count(r, c):
    m = 3 if r.scoring == "threes" else 5
    hit = (c > 0) & (c % m == 0)
    return np.where(hit, c if r.scoring == "muggins" else c // m, 0)


def outcome(f, *args):
    """What ``f(*args)`` returns, or the type of what it raises."""
    try:
        return f(*args)
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        return type(exc)


class PointsChecker(Strategy):
    """Plays uniformly at random; at every batch holds the core's points to the definitions."""

    name = "points-checker"
    params = {}

    def __init__(self) -> None:
        super().__init__()
        self.decisions = self.codes = 0

    def choose(self, obs, legal, keys):
        la = legal.arrays(obs)
        got = la.points  # (the core reads the ends from the engine's records: fields unread)
        assert (got == old_batch_points(la, obs, legal)).all()
        again = np.zeros(la.action.shape, dtype=np.int64)  # (from the fields, once read)
        kernel.legal_points(*points_inputs(obs), kernel.points_how(obs.rules), la.action, again)
        assert (again == got).all() and (obs.placement_points(la.action) == got).all()
        for i in range(len(keys)):
            o = obs.row(i)
            for j, a in enumerate(legal.row_list(i)):
                assert got[i, j] == placement_points(o, a) == points_by_definition(o, a)
            if i < 3:  # every placement code, legal or not, through the table and without
                self.every_code(o)
        self.decisions += len(keys)
        return legal.uniform(keys)

    def every_code(self, o: Observation) -> None:
        eager = Observation(**{f.name: getattr(o, f.name) for f in dataclasses.fields(o)})
        for a in range(A.DRAW):
            want = outcome(points_by_definition, o, a)
            assert outcome(placement_points, o, a) == want, (o, a)
            assert outcome(placement_points, eager, a) == want
            assert outcome(placement_points, o, np.int64(a)) == want
        self.codes += A.DRAW


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.variant}-{r.players}-{r.options}")
def test_points_equal_their_definitions(rules):
    checker = PointsChecker()
    BatchEngine(rules, 3, [checker] * rules.players, range(12), unit="hand", batch_size=8).run()
    assert checker.decisions > 50 and checker.codes > 0


class Chooser(Strategy):
    """The most points now, batch and per decision (the default ``choose``'s loop, which
    makes each decision's Observation): both choose alike."""

    name = "points-chooser"
    params = {}

    def choose_one(self, obs, legal, key):
        return max(legal, key=lambda a: placement_points(obs, a))

    def choose(self, obs, legal, keys):
        la = legal.arrays(obs)
        chosen = la.best(la.points)
        assert chosen.tolist() == obs.answers(self.choose_one, legal, keys)
        return chosen


@pytest.mark.parametrize("variant", ["fives", "threes", "muggins", "sniff", "bergen"])
def test_points_choose_alike_in_batch_and_per_decision(variant):
    rules = make_rules(variant, 2)
    BatchEngine(rules, 3, [Chooser()] * 2, range(40), unit="hand", batch_size=16).run()


def test_points_without_in_play_scoring_are_zero():
    rules = make_rules("classic", 2)
    seen = []

    class Zero(Strategy):
        name = "zero"
        params = {}

        def choose(self, obs, legal, keys):
            la = legal.arrays(obs)
            assert not la.points.any()
            o = obs.row(0)
            seen.append(placement_points(o, legal.row_list(0)[0]) == 0)
            return legal.uniform(keys)

    BatchEngine(rules, 3, [Zero()] * 2, range(6), unit="hand", batch_size=4).run()
    assert seen and all(seen)


def _ends(n=1, K=2):
    # fmt: off
    return [np.full((n, K), 3, np.int64), np.zeros((n, K), np.int8), np.zeros((n, K), np.int8),
            np.full(n, -1, np.int64), np.zeros(n, np.int64), np.ones(n, np.int64)]
    # fmt: on


@pytest.mark.parametrize(
    "field, bad", [(0, 7), (0, -2), (3, 7), (3, -2), (4, 16), (4, -1)], ids=str
)
def test_points_arguments_out_of_range_are_refused(field, bad):
    """The core checks every value it indexes with: a value, the spinner, covered."""
    ends = _ends()
    ends[field][...] = bad
    act = np.array([[TILE_3_4 * 6]], dtype=np.int64)
    with pytest.raises(ValueError, match="out of range"):
        kernel.legal_points(*ends, kernel.PT_SPINNER | 1, act, np.zeros((1, 1), np.int64))
    row = np.concatenate([e.astype(np.int64).ravel() for e in ends]).tobytes()
    with pytest.raises(ValueError, match="out of range"):  # (the same ends in a decision's row)
        kernel.points_row(row, kernel.PT_SPINNER | 1, 2, 0, 2, 4, 6, 7, 8)


TILE_3_4 = 4 * 5 // 2 + 3  # (tile a-b, a <= b: b(b+1)/2 + a)
TILE_2_3 = 3 * 4 // 2 + 2
TILE_5_5 = 5 * 6 // 2 + 5


def test_points_arguments_of_the_wrong_shape_or_code_are_refused():
    ends, out = _ends(), np.zeros((1, 1), np.int64)
    for act in ([[339]], [[-2]]):
        with pytest.raises(ValueError, match="out of range"):
            kernel.legal_points(*ends, 1, np.array(act, np.int64), out)
    with pytest.raises(ValueError, match="off the open ends"):  # (3-4 does not fit a 5)
        e = _ends()
        e[0][...] = 5
        kernel.legal_points(*e, 1, np.array([[TILE_3_4 * 6]], np.int64), out)
    for how in (-1, 1 << 15, 64):
        with pytest.raises(ValueError):
            kernel.legal_points(*ends, how, np.zeros((1, 1), np.int64), out)
    with pytest.raises(ValueError, match="one row per decision"):
        kernel.legal_points(*_ends(n=2), 1, np.zeros((1, 1), np.int64), out)


def test_points_row_refuses_columns_past_the_row():
    row = np.array([3, 3, 0, 0, 0, 0, -1, 0, 1], np.int64).tobytes()
    table = kernel.points_row(row, 1, 2, 0, 2, 4, 6, 7, 8)
    assert len(table) == A.DRAW and table[TILE_3_4 * 6] == 0  # 3|3 -> 4|3: 7, no points
    assert table[TILE_2_3 * 6] == 1 and table[TILE_2_3 * 6 + 1] == 1  # 2|3 or 3|2: 5, one
    assert table[TILE_5_5 * 6] == kernel.PT_TABLE_NONE  # (5-5 does not fit: the definition's)
    assert scoring._NO_POINTS == kernel.PT_TABLE_NONE  # (what placement_points leaves over)
    for cols in ((0, 2, 4, 6, 7, 9), (0, 2, 8, 6, 7, 8), (-1, 2, 4, 6, 7, 8)):
        with pytest.raises(ValueError, match="past the row"):
            kernel.points_row(row, 1, 2, *cols)
    with pytest.raises(ValueError, match="out of range"):
        kernel.points_row(row, 1, 7, 0, 2, 4, 6, 7, 8)
    with pytest.raises(ValueError, match="out of range"):
        kernel.points_row(np.array([9] * 9, np.int64).tobytes(), 1, 2, 0, 2, 4, 6, 7, 8)


def test_points_of_the_seat_source_refuse_bad_columns():
    rules = make_rules("fives", 2)
    met = []

    class Bad(Strategy):
        name = "bad-cols"
        params = {}

        def choose(self, obs, legal, keys):
            la = legal.arrays(obs)
            src, out = obs._src, np.zeros(la.action.shape, np.int64)
            vals = np.ascontiguousarray(obs.values, dtype=np.int64)
            how = kernel.points_how(rules)
            for cols in (np.full(7, 99, np.int64), np.zeros(3, np.int64)):
                with pytest.raises(ValueError):
                    src.core.points(vals, cols, how, la.action, out)
            met.append(True)
            return legal.uniform(keys)

    BatchEngine(rules, 3, [Bad()] * 2, range(2), unit="hand", batch_size=2).run()
    assert met
