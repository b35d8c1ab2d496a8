"""RULES §1.3, information: a strategy sees everything public (the hand's history of play,
Observation.history) and nothing hidden, on both engines alike."""

from __future__ import annotations

import numpy as np
import pytest

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
