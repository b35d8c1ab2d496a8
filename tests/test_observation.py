"""RULES §1.3, information: a strategy sees everything public (the hand's history of play,
Observation.history) and nothing hidden, on both engines alike."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.engine import BatchEngine
from dominosim.engine.batch_observation import BatchObservation
from dominosim.game import actions
from dominosim.game.observe import Event, public_history
from dominosim.game.reference import play_match
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import Strategy


class _Greedyish(Strategy):
    """Plays the heaviest placement, else the first legal action; every decision is kept."""

    name = "keeper-test"
    params = {}

    def __init__(self, log=None):
        super().__init__()
        self.log = [] if log is None else log

    def choose_one(self, obs, legal, key):
        self.log.append(obs)
        places = [a for a in legal if actions.is_placement(a)]
        return places[-1] if places else legal[0]


def _reference_hands(rules, seed, n):
    """The reference engine's hand records of matches 0..n-1 (the trace's events)."""
    out = {}
    for m in range(n):
        play_match(
            rules,
            seed,
            m,
            [_Greedyish()] * rules.players,
            on_hand=lambda h, m=m: out.__setitem__((m, h.hand_index), h.events),
        )
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_history_is_the_traces_public_events_in_order(variant):
    """§1.3: every placement, draw and pass is public, a drawn tile known to its drawer only.
    At every decision of the batch engine, the history is the public part of the reference
    engine's event list (what `dominosim trace` prints) up to that point, as the seat sees it."""
    players = 3 if variant == "blind" else 2
    rules = make_rules(variant, players)
    log: list = []
    strat = _Greedyish(log)
    BatchEngine(rules, 5, [strat] * players, range(4), compiled=False).run()
    expected = _reference_hands(rules, 5, 4)
    assert log
    kinds = set()
    for obs in log:
        full = public_history(rules, expected[(obs.match_id, obs.hand_index)], obs.seat)
        assert obs.history == full[: len(obs.history)], (obs.match_id, obs.hand_index)
        placed = [e for e in obs.history if e.kind in ("place", "start")]
        assert sorted(e.tile for e in placed) == list(obs.table)
        for e in obs.history:
            kinds.add(e.kind)
            assert isinstance(e, Event)
            if e.kind in ("draw", "look") and e.seat != obs.seat:
                assert e.tile is None  # the drawn tile is the drawer's alone
        if obs.leader is not None and placed and variant not in ("ladder",):
            assert obs.history[0].kind == "place" and obs.history[0].seat == obs.leader
    assert "place" in kinds


def test_a_seat_sees_its_own_draws_and_not_the_others():
    rules = make_rules("classic", 2)
    log: list = []
    BatchEngine(rules, 3, [_Greedyish(log)] * 2, range(30), compiled=False).run()
    own = other = 0
    for obs in log:
        for e in obs.history:
            if e.kind == "draw":
                if e.seat == obs.seat:
                    own += 1
                    assert e.tile is not None
                else:
                    other += 1
                    assert e.tile is None
    assert own and other


class _Walker(Strategy):
    """Walks what it is given, two levels deep, and keeps every object it finds."""

    name = "walker-test"
    params = {}

    def __init__(self, found):
        super().__init__()
        self.found = found

    def choose_one(self, obs, legal, key):
        return legal[0]

    def choose(self, obs, legal, keys):
        for top in (obs, legal, keys):
            self.found.append(top)
            for a in list(vars(top).values()) if hasattr(top, "__dict__") else []:
                self.found.append(a)
                for b in list(vars(a).values()) if hasattr(a, "__dict__") else []:
                    self.found.append(b)
                self.found.append(getattr(a, "base", None))
        return super().choose(obs, legal, keys)


@pytest.mark.parametrize("variant", ["classic", "blind", "fives"])
def test_nothing_hidden_is_reachable_from_what_a_strategy_is_given(variant):
    """No engine, and no array that is a view of another array (the engine's state, another
    seat's hand, the stock), two levels down from the batch Observation, legal actions, keys."""
    rules = make_rules(variant, 2)
    found: list = []
    BatchEngine(rules, 1, [_Walker(found)] * 2, range(3), compiled=False).run()
    assert found
    for x in found:
        assert not isinstance(x, BatchEngine)
        if isinstance(x, np.ndarray):
            assert x.base is None or not isinstance(x.base, np.ndarray) or x.base.size <= x.size
    obs_fields = [x for x in found if isinstance(x, BatchObservation)]
    assert obs_fields and all("_e" not in vars(o) for o in obs_fields)


class _Writer(Strategy):
    """Plays as its inner rule, then writes into every array it was given."""

    name = "writer-test"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[-1]

    def choose(self, obs, legal, keys):
        out = super().choose(obs, legal, keys)
        for holder in (obs, legal):
            for v in list(vars(holder).values()):
                if isinstance(v, np.ndarray):
                    try:
                        v[...] = 0
                    except ValueError:  # read-only: the write raises
                        pass
        keys[...] = 0
        return out


class _Plain(_Writer):
    name = "plain-test"

    def choose(self, obs, legal, keys):
        return Strategy.choose(self, obs, legal, keys)


@pytest.mark.parametrize("variant", ["classic", "blind", "bergen"])
def test_writes_into_the_given_arrays_change_no_game(variant):
    rules = make_rules(variant, 2)
    a = BatchEngine(rules, 2, [_Writer()] * 2, range(20), compiled=False).run()
    b = BatchEngine(rules, 2, [_Plain()] * 2, range(20), compiled=False).run()
    for x, y in zip(a, b, strict=True):
        assert x.keys() == y.keys()
        for k in x:
            assert np.array_equal(x[k], y[k]), k


def test_observation_arrays_cannot_be_written():
    rules = make_rules("fives", 2)
    seen: list = []

    class Try(_Plain):
        name = "try-test"

        def choose(self, obs, legal, keys):
            with pytest.raises(ValueError):
                obs.hand[...] = 0
            seen.append(len(obs))
            return super().choose(obs, legal, keys)

    BatchEngine(rules, 2, [Try()] * 2, range(2), compiled=False).run()
    assert seen


def test_the_history_arrays_match_the_per_decision_tuples():
    rules = make_rules("fives", 4, partnership=True)
    checked: list = []

    class Arrays(_Plain):
        name = "arrays-test"

        def choose(self, obs, legal, keys):
            kinds = ("place", "draw", "pass", "look", "to_back", "open", "stop", "start")
            for i in range(len(obs)):
                hist = obs.row(i).history
                n = int(obs.history_len[i])
                assert n == len(hist)
                for j, e in enumerate(hist):
                    assert kinds[obs.history_kind[i, j]] == e.kind
                    assert (e.seat if e.seat is not None else -1) == obs.history_seat[i, j]
                    assert (e.tile if e.tile is not None else -1) == obs.history_tile[i, j]
                assert (obs.history_kind[i, n:] == -1).all()
                checked.append(n)
            return super().choose(obs, legal, keys)

    BatchEngine(rules, 4, [Arrays()] * 4, range(3), compiled=False).run()
    assert max(checked) > 4


class _Keeper(Strategy):
    """Keeps every batch Observation it is given; reads ``read`` inside choose; plays each
    decision's first legal action."""

    name = "batch-keeper-test"
    params = {}

    def __init__(self, kept, read=()):
        super().__init__()
        self.kept, self.read = kept, read

    def choose_one(self, obs, legal, key):
        return legal[0]

    def choose(self, obs, legal, keys):
        self.kept.append((obs, {name: np.array(getattr(obs, name)) for name in self.read}))
        return legal.action_at(np.zeros(len(keys), dtype=np.int64))


@pytest.mark.parametrize("variant", ["fives", "blind"])
def test_a_kept_batch_observation_refuses_a_field_first_read_after_choose_returned(variant):
    """The public fields (together, on the first access of any) and the history are read from
    the engine on first access, while choose runs: a field first read after choose returned
    raises a StrategyError naming the fix (never a later state of the game); what was read
    inside choose keeps its values."""
    kept: list = []
    rules = make_rules(variant, 2)
    BatchEngine(rules, 3, [_Keeper(kept, ("counts",))] * 2, range(4), compiled=False).run()
    assert kept
    for obs, seen in kept:
        assert np.array_equal(obs.counts, seen["counts"])  # (read inside: kept)
        assert obs.table.shape == (len(obs),)  # (read with the counts)
        assert len(obs.hand) == len(obs)  # (given, not read on access)
        for read in (lambda o: o.history_len, lambda o: o.history(0), lambda o: o.row(0)):
            with pytest.raises(StrategyError, match="valid only while choose runs.*inside choose"):
                read(obs)
    kept.clear()
    BatchEngine(rules, 3, [_Keeper(kept)] * 2, range(2), compiled=False).run()
    for name in ("table", "counts", "scores", "stock_size", "history_len"):
        with pytest.raises(StrategyError, match=f"field '{name.replace('_len', '')}"):
            getattr(kept[0][0], name)


def test_the_core_source_holds_nothing_a_strategy_can_follow():
    """§1.3: the batch Observation's source (the core's SeatSource) shows the garbage collector
    no reference (no engine, no array of it), cannot be made from Python, and refuses every
    read once closed."""
    kept: list = []
    rules = make_rules("classic", 2)
    BatchEngine(rules, 1, [_Keeper(kept)] * 2, range(2), compiled=False).run()
    src = vars(kept[0][0])["_src"]
    assert gc.get_referents(src.core) == []  # (no reference the collector, or a walker, sees)
    assert src.closed
    with pytest.raises(TypeError):
        type(src.core)()
    with pytest.raises(ValueError, match="closed"):
        src.core.fields(np.zeros((len(kept[0][0]), 1), dtype=np.int64))
    with pytest.raises(ValueError, match="closed"):
        src.core.history_width()


class _Counts(_Plain):
    """Checks the batch arrays it reads lazily against each decision's Observation."""

    name = "counts-test"

    def __init__(self, checked):
        super().__init__()
        self.checked = checked

    def choose(self, obs, legal, keys):
        for i in range(len(obs)):
            o = obs.row(i)
            assert tuple(obs.counts[i]) == o.counts and int(obs.history_len[i]) == len(o.history)
            assert obs.stock_size[i] == o.stock_size and tuple(obs.scores[i]) == o.scores
            assert int(obs.seat[i]) == o.seat
            self.checked.append(o.seat)
        return super().choose(obs, legal, keys)


@pytest.mark.parametrize(("variant", "players"), [("classic", 3), ("kozel", 4), ("blind", 2)])
def test_each_strategys_share_of_a_batch_reads_its_own_rows(variant, players):
    """Seats of different strategies share a batch: each gets its rows (take), whose fields
    are read on first access, equal to its decisions' Observations; the games are those of
    one strategy object for every seat."""
    checked: list = []
    rules = make_rules(variant, players)
    mixed = [_Counts(checked) for _ in range(players)]
    a = BatchEngine(rules, 5, mixed, range(6), compiled=False).run()
    b = BatchEngine(rules, 5, [_Plain()] * players, range(6), compiled=False).run()
    assert set(checked) == set(range(players))
    for x, y in zip(a, b, strict=True):
        for k in x:
            assert np.array_equal(x[k], y[k]), k
