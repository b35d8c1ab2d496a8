"""The compiled core (dominosim/engine/_core.c, its Python side kernel.py, driven by
engine/batch.py) as a machine: batch sizes and record flushes change nothing, positions from
elsewhere play like dealt ones, an illegal action names the strategy, the C structs match the
numpy records, and state or arguments out of range are refused. That it plays the rules of
the reference engine is tests/test_engine_equality.py."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.engine import BatchEngine, Legal
from dominosim.engine import kernel as KN
from dominosim.game import actions as A
from dominosim.game import seeding
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, get


def records(rules, strategies, ids, *, unit, batch_size=64, seed=11, **kw):
    eng = BatchEngine(rules, seed, strategies, ids, unit=unit, batch_size=batch_size)
    for k, v in kw.items():
        setattr(eng, k, v)
    return eng.run()


def differences(a, b) -> list[str]:
    out = []
    for name, x, y in (("hand", a[0], b[0]), ("match", a[1], b[1])):
        if list(x) != list(y):
            out.append(f"{name} fields {list(x)} vs {list(y)}")
            continue
        for k in x:
            if x[k].shape != y[k].shape or not np.array_equal(x[k], y[k]):
                i = np.flatnonzero((x[k] != y[k]).reshape(len(x[k]), -1).any(axis=1))
                at = int(i[0]) if len(i) else 0
                out.append(f"{name} {k}: first difference at row {at}")
    return out


def test_batch_size_and_full_record_buffers_change_nothing():
    """Slots and record flushes are bookkeeping: 1, 7 or 64 slots, buffers of one row."""
    rules = make_rules("kozel", 2)
    st = [get("random")] * 2
    base = records(rules, st, range(30), unit="match", batch_size=64)
    for bs, cap in ((1, 1), (7, 1), (7, 3), (64, 1)):
        other = records(rules, st, range(30), unit="match", batch_size=bs, _record_rows=cap)
        assert differences(base, other) == [], (bs, cap)


@pytest.mark.parametrize(("variant", "players"), [("fives", 2), ("basic", 3), ("sniff", 4)])
def test_positions_play_like_the_deals_they_copy(variant, players):
    """from_positions (a search's sampled hands): each slot given the very deal, leader and
    match id of a dealt hand plays that hand as the engine plays it from its own deal (lot-led
    variants: the lead is free)."""
    rules = make_rules(variant, players)
    assert rules.lead_first == "lot_any"
    st = [get("random")] * players
    n, h = 40, rules.hand_size
    dealt = records(rules, st, range(n), unit="hand", seed=3)
    positions = []
    for m in range(n):
        order = [int(t) for t in seeding.shuffle(3, players, m, 0, 0)]
        # fmt: off
        positions.append({"hands": [order[s * h : (s + 1) * h] for s in range(players)],
                          "stock": order[players * h :], "ends": {},
                          "to_move": int(dealt[0]["leader"][m]), "match_id": m})
        # fmt: on
    played = BatchEngine.from_positions(rules, 3, st, positions).run()
    assert differences(dealt, played) == []
    positions[5]["to_move"] = (positions[5]["to_move"] + 1) % players  # (the test can fail)
    other = BatchEngine.from_positions(rules, 3, st, positions).run()
    assert differences(dealt, other) != []


class _Cheat(Strategy):
    name = "cheat"
    params = {}

    def choose(self, obs, legal, keys):
        return np.full(len(legal), 27 * 6 + 1)  # 6-6 on the right end, mostly illegal


def test_an_illegal_action_is_refused_by_name():
    rules = make_rules("classic", 2)
    eng = BatchEngine(rules, 1, [_Cheat(), get("random")], range(20))
    with pytest.raises(StrategyError, match="strategy 'cheat' returned an illegal action"):
        eng.run()


class _BadDraw(Strategy):
    name = "bad-draw"
    params = {}

    def choose_one(self, obs, legal, key):
        return A.PASS if A.DRAW in legal else legal[0]  # pass where only drawing is offered


def test_an_illegal_flag_is_refused_by_name():
    rules = make_rules("muggins", 2, may_draw_when_able=True)
    eng = BatchEngine(rules, 1, [_BadDraw(), get("random")], range(20))
    with pytest.raises(
        StrategyError,
        match=r"strategy 'bad-draw' returned an illegal action 337; legal were .*draw",
    ):
        eng.run()


class _Along(Strategy):
    name = "along-everywhere"
    params = {}

    def choose(self, obs, legal, keys):
        return np.full(len(legal), 168 + 27 * 6 + 1)  # 6-6 laid along on the right end


def test_an_illegal_along_action_is_refused_by_name():
    for opts in ({}, {"inline_double_counts_single": True}):
        eng = BatchEngine(make_rules("fives", 2, **opts), 1, [_Along(), get("random")], range(20))
        with pytest.raises(StrategyError, match="strategy 'along-everywhere' returned an illegal"):
            eng.run()


def test_compiled_uniform_picks_what_the_numpy_helper_picks():
    """Legal.uniform's compiled path (placements and leads) = the k-th legal action in
    canonical order (Legal.action_at), k = below(key, count)."""
    rng = np.random.default_rng(5)
    n = 500
    lead = rng.integers(1, 1 << 28, size=n)
    keys = rng.integers(0, 2**63, size=n).astype(np.uint64) * np.uint64(2)
    for k in (2, 6):  # a line; a spinner's six slots
        values = rng.integers(-1, 7, size=(n, k))
        values[:, 0] = np.where(values[:, 0] < 0, 3, values[:, 0])
        masks = np.where(values >= 0, rng.integers(0, 128, size=(n, k)), 0)
        masks[(masks.sum(axis=1) == 0), 0] = 1
        for ld in (None, lead):
            legal = Legal.without_flags(values, masks, False, ld)
            want = legal.action_at(seeding.below_np(keys, legal.counts()).astype(np.int64))
            assert np.array_equal(legal.uniform(keys), want)
            assert np.array_equal(legal.uniform(np.ascontiguousarray(keys[::-1])[::-1]), want)


# ---------------------------------------------------------------------------------------------
# the core's guards: struct layout, state and arguments out of range


def test_the_records_are_made_from_the_core_s_structs():
    """kernel.SLOT and kernel.BSLOT are made from the fields the core lists of its structs
    (_core.layout(): the layout is written in C alone); a core whose list does not make one
    record, or makes another than the one loaded, fails at import with one message."""
    size, fields = KN._core.layout()["slot"]
    assert KN.SLOT.itemsize == size and KN.SLOT.names == tuple(f[0] for f in fields)
    assert [KN.SLOT.fields[f[0]][1] for f in fields] == [f[1] for f in fields]

    def core(edit):
        class Core:
            @staticmethod
            def layout():
                out = KN._core.layout()
                size, fields = out["slot"]
                out["slot"] = (size, tuple(edit(f) for f in fields))
                return out

            constants = staticmethod(KN._core.constants)

        return Core

    moved = core(lambda f: (f[0], f[1] + 1, *f[2:]) if f[0] == "alg" else f)  # onto stock
    unsigned = core(lambda f: (*f[:2], "u", *f[3:]) if f[0] == "dry" else f)  # another record
    KN.check_layout()  # the real one matches
    with pytest.raises(ImportError, match="slot record's field stock .*not one record.*reinstall"):
        KN.check_layout(moved)
    with pytest.raises(ImportError, match="does not match .*the slot record.*reinstall"):
        KN.check_layout(unsigned)


def test_a_state_out_of_range_is_refused_before_it_is_played():
    rules = make_rules("classic", 2)
    positions = [
        {"hands": [[27, 20, 3], [5, 9]], "stock": [1, 2], "ends": {"L": 6, "R": 3}, "to_move": 0}
    ]
    eng = BatchEngine.from_positions(rules, 3, [get("random")] * 2, positions)
    eng.state.vals[0, 0] = 9  # no such value
    with pytest.raises(ValueError, match="state is out of range: slot 0"):
        eng.run()


def test_the_core_checks_its_arguments():
    """Wrong dtypes, shapes and knob vectors are a ValueError, never a wild write."""
    rules = make_rules("classic", 2)
    R = KN.knobs(rules, "hand")
    st = np.zeros(2, dtype=KN.SLOT)
    bst = np.zeros(1, dtype=KN.BSLOT)
    assert KN.check_slots(R, st, bst, 2) == -1
    with pytest.raises(ValueError, match="R must"):
        KN.check_slots(R[:-1], st, bst, 2)
    with pytest.raises(ValueError, match="players must be 2 to 4"):
        KN.check_slots(np.where(np.arange(len(R)) == 0, 9, R), st, bst, 2)
    with pytest.raises(ValueError, match="st must"):
        KN.check_slots(R, np.zeros(2, dtype=np.int64), bst, 2)
    out = np.zeros(3, dtype=np.int64)
    keys = np.zeros(3, dtype=np.uint64)
    with pytest.raises(ValueError, match="masks must"):
        KN.uniform_slots(np.zeros((3, 2), np.int64), np.zeros((3, 2), np.float64), keys, out)
    with pytest.raises(ValueError, match="without a legal action"):
        KN.uniform_slots(np.zeros((3, 2), np.int64), np.zeros((3, 2), np.int64), keys, out)
    with pytest.raises(ValueError, match="one row per decision"):
        KN.uniform_lead(np.ones(2, np.int64), keys, out)
