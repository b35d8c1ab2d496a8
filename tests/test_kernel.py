"""The compiled kernel (dominosim/engine/kernel.py) plays the same games as the numpy path of
the batch engine, and so as the reference engine: identical hand and match records for every
variant, player count and §15 option it plays (issue 5: "both give identical records")."""

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

pytestmark = pytest.mark.skipif(not KN.HAVE_NUMBA, reason="numba (the fast extra) not installed")


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
                rules = make_rules(v, p)
            except Exception:
                continue
            if KN.supports(rules):
                cases.append(pytest.param(v, p, id=f"{v}-{p}p"))
    return cases


def test_the_kernel_plays_most_variants_and_not_the_others():
    """Which rules run compiled; the rest stays on the numpy path (and says so)."""
    plays = {v for v in VARIANTS if KN.supports(make_rules(v, 2))}
    assert plays == set(VARIANTS)
    assert KN.supports(make_rules("muggins", 2, first_double_spinner=True))
    assert KN.supports(make_rules("blind", 3, blind_deal="all_tiles", blind_draw_optional=True))
    assert not KN.supports(make_rules("fives", 2, inline_double_counts_single=True))
    with pytest.raises(ValueError, match="cannot play"):
        BatchEngine(make_rules("fives", 2, inline_double_counts_single=True), 1,
                    [get("random")] * 2, range(3), kernel=True)  # fmt: skip
    with pytest.raises(ValueError, match="cannot play"):
        BatchEngine(make_rules("classic", 2), 1, [get("random")] * 2, range(3), kernel=True,
                    log=True)  # fmt: skip
    auto = BatchEngine(make_rules("classic", 2), 1, [get("random")] * 2, range(3))
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
    """Every §15 option the kernel plays: 200 deals and whole matches."""
    rules = make_rules(variant, players, **opts)
    if not KN.supports(rules):
        pytest.skip("numpy path only")
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


def test_compiled_uniform_picks_what_the_numpy_helper_picks(monkeypatch):
    """Legal.uniform's compiled path (placements and leads) = its numpy path."""
    from dominosim.engine import Legal

    rng = np.random.default_rng(5)
    n = 500
    lead = rng.integers(1, 1 << 28, size=n)
    keys = rng.integers(0, 2**63, size=n).astype(np.uint64) * np.uint64(2)
    no = np.zeros(n, dtype=bool)
    cases = []
    for k in (2, 6):  # a line; a spinner's six slots
        values = rng.integers(-1, 7, size=(n, k))
        values[:, 0] = np.where(values[:, 0] < 0, 3, values[:, 0])
        masks = np.where(values >= 0, rng.integers(0, 128, size=(n, k)), 0)
        masks[(masks.sum(axis=1) == 0), 0] = 1
        cases += [(values, masks, None), (values, masks, lead)]
    out = {}
    for on in ("1", "0"):
        monkeypatch.setenv("DOMINOSIM_KERNEL", on)
        got = []
        for values, masks, ld in cases:
            legal = Legal(values, masks, False, ld, no, no, no)
            legal._no_flags = True
            got.append(legal.uniform(keys))
        out[on] = got
    for a, b in zip(out["1"], out["0"], strict=True):
        assert np.array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# the kernel compiled for one rule set (kernel.advance_for)


def test_a_specialized_kernel_has_the_rule_knobs_written_in():
    """Every knob read becomes its value, except the numbers a study varies (a target score
    per point of a sweep must not compile a kernel each)."""
    import re

    src = KN._specialized_source(KN._key(KN.knobs(make_rules("classic", 2), "hand")))
    left = set(re.findall(r"R\[(_R_[A-Z0-9_]+)\]", src))
    assert left == {KN._KNOB_NAMES[i] for i in KN._RUNTIME} & left
    assert "_R_TARGET" in left and "_R_SPINNER" not in left and "_R_BLIND" not in left
    assert "def advance(" in src and "def _blind_run(" in src
    compile(src, "specialized", "exec")


@pytest.mark.parametrize(
    ("variant", "players", "opts", "unit", "n"),
    [("classic", 2, {}, "hand", 300),
     ("sniff", 4, {}, "match", 20),
     ("blind", 3, {"blind_deal": "all_tiles", "blind_draw_optional": True,
                   "blind_play_optional": True}, "match", 20)],
)  # fmt: skip
def test_the_specialized_kernel_plays_what_the_general_one_plays(
    monkeypatch, variant, players, opts, unit, n
):
    """The kernel compiled for a rule set (what a plain run uses) gives the records of the
    general kernel: classic (the benchmark), a spinner with fives scoring and 4 seats, and
    blind's rows with its options."""
    rules = make_rules(variant, players, **opts)
    st = [get("heaviest"), get("random")] * 2
    monkeypatch.setenv("DOMINOSIM_SPECIALIZE", "0")
    general = records(rules, st[:players], range(n), unit=unit, kernel=True)
    monkeypatch.setenv("DOMINOSIM_SPECIALIZE", "1")
    fn = KN.advance_for(KN.knobs(rules, unit))
    assert fn is not KN.advance and fn.py_func.__module__.startswith("_dominosim_kernel_")
    special = records(rules, st[:players], range(n), unit=unit, kernel=True)
    assert differences(general, special) == []
    assert len(general[0]["match_id"]) >= n


def test_an_unwritable_cache_falls_back_to_the_general_kernel(monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("DOMINOSIM_SPECIALIZE", "1")
    monkeypatch.setenv("DOMINOSIM_CACHE_DIR", str(blocker / "kernels"))
    monkeypatch.setattr(KN, "_specialized", {})
    assert KN.advance_for(KN.knobs(make_rules("block", 3), "match")) is KN.advance


def test_a_specialized_kernel_that_fails_to_compile_gives_way_to_the_general_one(monkeypatch):
    """A safety net: a warning and the general kernel's records, not a failed run."""
    import numba

    @numba.njit
    def broken(R, sd, prio, htmpl, queue, qpos, st, bst, nd, cd, cact, cvals, cmasks, hdir,
               hrec, mdir, nrec, scr, start):  # fmt: skip
        return "a" + 1  # a typing error: raised when it compiles, before it runs

    rules = make_rules("classic", 2)
    st = [get("random")] * 2
    want = records(rules, st, range(40), unit="match", kernel=True)
    monkeypatch.setattr(KN, "_specialized", {})
    monkeypatch.setattr(KN, "advance_for", lambda R: broken)
    with pytest.warns(RuntimeWarning, match="failed to compile; the general kernel plays"):
        got = records(rules, st, range(40), unit="match", kernel=True)
    assert differences(want, got) == []
    assert KN._specialized[KN._key(KN.knobs(rules, "match"))] is KN.advance
