"""The compiled core (dominosim/engine/_core.c, its Python side kernel.py) plays the same games
as the numpy path of the batch engine, and so as the reference engine: identical hand and match
records for every variant, player count and §15 option, whole matches, from_positions, batch
sizes and record flushes; an illegal action names the strategy; the C structs match the numpy
records."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.engine import BatchEngine
from dominosim.engine import kernel as KN
from dominosim.errors import StrategyError
from dominosim.reference import play_match
from dominosim.strategy import Strategy, get
from dominosim.variants import VARIANTS, make_rules

from engine_compare import option_cases


def records(rules, strategies, ids, *, unit, kernel, batch_size=64, seed=11, **kw):
    eng = BatchEngine(rules, seed, strategies, ids, unit=unit, batch_size=batch_size,
                      kernel=kernel)  # fmt: skip
    for k, v in kw.items():
        setattr(eng, k, v)
    hands, matches = eng.run()
    o = np.lexsort((hands["hand_index"], hands["match_id"]))
    hands = {k: np.asarray(v)[o] for k, v in hands.items()}
    o = np.argsort(matches["match_id"], kind="stable")
    matches = {k: np.asarray(v)[o] for k, v in matches.items()}
    return hands, matches


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


def both(rules, strategies, n, unit, **kw):
    ids = range(n)
    a = records(rules, strategies, ids, unit=unit, kernel=False, **kw)
    b = records(rules, strategies, ids, unit=unit, kernel=True, **kw)
    return differences(a, b)


def _kernel_cases():
    cases = []
    for v in VARIANTS:
        for p in (2, 3, 4):
            try:
                make_rules(v, p)
            except Exception:
                continue
            cases.append(pytest.param(v, p, id=f"{v}-{p}p"))
    return cases


def test_the_core_plays_every_variant_and_option():
    """Every variant and option runs on the core; only event logs use the numpy path."""
    every = [(v, 2, {}) for v in VARIANTS] + [case.values for case in option_cases()]
    for variant, players, opts in every:
        eng = BatchEngine(make_rules(variant, players, **opts), 1, [get("random")] * players,
                          range(3))  # fmt: skip
        assert eng.kernel == KN.enabled(), (variant, opts)
    with pytest.raises(ValueError, match="cannot play"):
        BatchEngine(make_rules("classic", 2), 1, [get("random")] * 2, range(3), kernel=True,
                    log=True)  # fmt: skip
    auto = BatchEngine(make_rules("fives", 2, inline_double_counts_single=True), 1,
                       [get("random")] * 2, range(3))  # fmt: skip
    assert auto.kernel == KN.enabled()


@pytest.mark.parametrize(("variant", "players"), _kernel_cases())
@pytest.mark.parametrize("strategy", ["random", "heaviest", "greedy"])
def test_hands_equal_numpy_path(variant, players, strategy):
    """200 deals (unit hand) per variant and player count."""
    rules = make_rules(variant, players)
    assert both(rules, [get(strategy)] * players, 200, "hand") == []


@pytest.mark.parametrize(("variant", "players"), _kernel_cases())
def test_matches_equal_numpy_path(variant, players):
    """Whole matches: later-hand leads, settlement, match ends, slots re-dealt in place;
    mixed strategies per seat."""
    rules = make_rules(variant, players)
    strategies = [get("random"), get("heaviest")] * 2
    assert both(rules, strategies[:players], 25, "match") == []


@pytest.mark.parametrize(("variant", "players", "opts"), option_cases())
def test_options_equal_numpy_path(variant, players, opts):
    """Every §15 option: 200 deals and whole matches."""
    rules = make_rules(variant, players, **opts)
    st = [get("random")] * players
    assert both(rules, st, 200, "hand") == []
    assert both(rules, st, 20, "match") == []


@pytest.mark.parametrize(
    ("players", "opts"),
    [(3, {"blind_deal": "all_tiles"}),
     (3, {"blind_deal": "all_tiles", "blind_draw_optional": True, "blind_play_optional": True}),
     (4, {"blind_draw_optional": True, "blind_play_optional": True,
          "blind_unplayable_double_face_up": True}),
     (2, {"blind_play_optional": True, "blind_unplayable_double_face_up": True})],
)  # fmt: skip
def test_blind_rows_equal_numpy_path(players, opts):
    """Blind's rows (§3.2, §3.7) with its options together, and the 3-player all_tiles deal
    whose leftover tile starts the layout (§15): decisions on the front tile, the drawn tile,
    optional draws, continue or stop."""
    rules = make_rules("blind", players, **opts)
    for st in ([get("random")] * players, [get("heaviest"), get("random")] * 2):
        assert both(rules, st[:players], 200, "hand") == []
        assert both(rules, st[:players], 20, "match") == []


@pytest.mark.parametrize("variant", ["classic", "fives", "kozel", "bergen", "two-lane", "blind"])
def test_kernel_records_equal_reference(variant):
    """Directly against the reference engine (not only through the numpy path)."""
    players = 4 if variant == "kozel" else 2
    rules = make_rules(variant, players)
    st = [get("random")] * players
    hands, matches = records(rules, st, range(15), unit="match", kernel=True, batch_size=4)
    at = 0
    for m in range(15):
        ref = play_match(rules, 11, m, st)
        for rec in ref.hands:
            assert (
                int(hands["match_id"][at]) == m and int(hands["hand_index"][at]) == rec.hand_index
            )
            for f in ("leader", "winner", "went_out", "hand_length", "turns", "draws", "passes"):
                want = getattr(rec, f)
                assert int(hands[f][at]) == (-1 if want is None else want), (m, rec.hand_index, f)
            assert list(hands["points"][at]) == rec.points
            assert list(hands["pips"][at]) == rec.pips
            assert list(hands["values"][at]) == rec.values  # (kozel's §14.12 hand values)
            at += 1
        assert int(matches["winner"][m]) == (-1 if ref.winner is None else ref.winner)
        assert list(matches["scores"][m]) == list(ref.scores)
    assert at == len(hands["match_id"])


def test_batch_size_and_full_record_buffers_change_nothing():
    """Slots and record flushes are bookkeeping: 1, 7 or 64 slots, buffers of one row."""
    rules = make_rules("kozel", 2)
    st = [get("random")] * 2
    base = records(rules, st, range(30), unit="match", kernel=True, batch_size=64)
    for bs, cap in ((1, 1), (7, 1), (7, 3), (64, 1)):
        other = records(rules, st, range(30), unit="match", kernel=True, batch_size=bs,
                        _kcap=cap)  # fmt: skip
        assert differences(base, other) == [], (bs, cap)


def test_from_positions_on_the_kernel():
    """A search strategy's positions play on identically on both paths."""
    rules = make_rules("fives", 2)
    positions = [
        {"hands": [[27, 20, 3], [5, 9]], "stock": [1, 2, 4, 6], "ends": {"L": 6, "R": 3},
         "to_move": 0, "scores": [10, 5], "match_id": 4},
        {"hands": [[0, 1], [2, 3, 7]], "stock": [], "ends": {}, "to_move": 1},
    ]  # fmt: skip
    out = []
    for kernel in (False, True):
        eng = BatchEngine.from_positions(rules, 3, [get("random")] * 2, positions, kernel=kernel)
        out.append(eng.run())
    assert differences(out[0], out[1]) == []


class _Cheat(Strategy):
    name = "cheat"
    params = {}

    def choose(self, obs, legal, keys):
        return np.full(len(legal), 27 * 6 + 1)  # 6-6 on the right end, mostly illegal


def test_an_illegal_action_is_refused_by_name():
    rules = make_rules("classic", 2)
    eng = BatchEngine(rules, 1, [_Cheat(), get("random")], range(20), kernel=True)
    with pytest.raises(StrategyError, match="strategy 'cheat' returned an illegal action"):
        eng.run()


@pytest.mark.parametrize(
    ("variant", "players", "opts"),
    [("muggins", 2, {"may_draw_when_able": True}), ("muggins", 4, {"may_draw_when_able": True}),
     ("bergen", 2, {"bergen_voluntary": True}), ("bergen", 3, {"bergen_voluntary": True}),
     ("fives", 2, {"inline_double_counts_single": True}),
     ("threes", 4, {"inline_double_counts_single": True, "partnership": True})],
)  # fmt: skip
@pytest.mark.parametrize("strategy", ["heaviest", "greedy", "doubles-first"])
def test_voluntary_draws_and_along_doubles_with_every_kind_of_strategy(
    variant, players, opts, strategy
):
    """The three options the numba kernel left to the numpy path (§11.7 may_draw_when_able,
    §15 bergen_voluntary, §5.6 / §6.6 inline_double_counts_single): the decisions with a draw
    or pass flag, the after-draw decision and the along actions, with strategies that choose
    them differently, mixed with random."""
    rules = make_rules(variant, players, **opts)
    st = [get(strategy), get("random")] * 2
    assert both(rules, st[:players], 200, "hand") == []
    assert both(rules, st[:players], 15, "match") == []


class _Drawer(Strategy):
    """Draws whenever it may, else plays the last legal action (along ones included)."""

    name = "drawer"
    params = {}

    def choose_one(self, obs, legal, key):
        from dominosim import actions as A

        return A.DRAW if A.DRAW in legal else legal[-1]


@pytest.mark.parametrize(
    ("variant", "opts"),
    [("muggins", {"may_draw_when_able": True}), ("bergen", {"bergen_voluntary": True}),
     ("threes", {"inline_double_counts_single": True})],
)  # fmt: skip
def test_a_strategy_that_always_draws_or_lays_along(variant, opts):
    """Drawing the stock dry by choice, and every double laid along, on both paths."""
    rules = make_rules(variant, 2, **opts)
    assert both(rules, [_Drawer(), get("random")], 150, "hand") == []
    assert both(rules, [get("random"), _Drawer()], 10, "match") == []


class _BadDraw(Strategy):
    name = "bad-draw"
    params = {}

    def choose_one(self, obs, legal, key):
        from dominosim import actions as A

        return A.PASS if A.DRAW in legal else legal[0]  # pass where only drawing is offered


def test_an_illegal_flag_is_refused_by_name():
    rules = make_rules("muggins", 2, may_draw_when_able=True)
    eng = BatchEngine(rules, 1, [_BadDraw(), get("random")], range(20), kernel=True)
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
        eng = BatchEngine(make_rules("fives", 2, **opts), 1, [_Along(), get("random")],
                          range(20), kernel=True)  # fmt: skip
        with pytest.raises(StrategyError, match="strategy 'along-everywhere' returned an illegal"):
            eng.run()


def test_compiled_uniform_picks_what_the_numpy_helper_picks():
    """Legal.uniform's compiled path (placements and leads) = the k-th legal action in
    canonical order (Legal.action_at), k = below(key, count)."""
    from dominosim.engine import Legal
    from dominosim.seeding import below_np

    rng = np.random.default_rng(5)
    n = 500
    lead = rng.integers(1, 1 << 28, size=n)
    keys = rng.integers(0, 2**63, size=n).astype(np.uint64) * np.uint64(2)
    no = np.zeros(n, dtype=bool)
    for k in (2, 6):  # a line; a spinner's six slots
        values = rng.integers(-1, 7, size=(n, k))
        values[:, 0] = np.where(values[:, 0] < 0, 3, values[:, 0])
        masks = np.where(values >= 0, rng.integers(0, 128, size=(n, k)), 0)
        masks[(masks.sum(axis=1) == 0), 0] = 1
        for ld in (None, lead):
            legal = Legal(values, masks, False, ld, no, no, no)
            legal._no_flags = True
            want = legal.action_at(below_np(keys, legal.counts()).astype(np.int64))
            assert np.array_equal(legal.uniform(keys), want)
            assert np.array_equal(legal.uniform(np.ascontiguousarray(keys[::-1])[::-1]), want)


# ---------------------------------------------------------------------------------------------
# the core's guards: struct layout, state and arguments out of range


def test_the_layout_check_refuses_a_core_that_does_not_match():
    """A core built from other sources (a field moved) fails at import with one message."""

    class Moved:
        KNOBS = KN._core.KNOBS
        POLICIES = KN._core.POLICIES

        @staticmethod
        def layout():
            out = KN._core.layout()
            size, offsets = out["slot"]
            out["slot"] = (size, {**offsets, "alg": offsets["alg"] + 1})
            return out

        constants = staticmethod(KN._core.constants)

    KN.check_layout()  # the real one matches
    with pytest.raises(ImportError, match="does not match .*the slot record.*reinstall"):
        KN.check_layout(Moved)

    class Renamed(Moved):
        POLICIES = KN._core.POLICIES[::-1]
        layout = staticmethod(KN._core.layout)

    with pytest.raises(ImportError, match="does not match .*the compiled policies"):
        KN.check_layout(Renamed)


def test_a_state_out_of_range_is_refused_before_it_is_played():
    rules = make_rules("classic", 2)
    positions = [{"hands": [[27, 20, 3], [5, 9]], "stock": [1, 2], "ends": {"L": 6, "R": 3},
                  "to_move": 0}]  # fmt: skip
    eng = BatchEngine.from_positions(rules, 3, [get("random")] * 2, positions, kernel=True)
    eng.vals[0, 0] = 9  # no such value
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
