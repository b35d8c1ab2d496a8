"""The per-decision path (issue 37): what ``choose_one(obs, legal, key)`` receives on the batch
engine, built cheaply, is the reference engine's Observation and legal list at every decision
(RULES §1.3), immutable, and holds nothing of the batch or the engine."""

from __future__ import annotations

import dataclasses
import gc
import pickle

import numpy as np
import pytest

from dominosim.engine import BatchEngine
from dominosim.engine.batch_observation import BatchObservation
from dominosim.game import actions as A
from dominosim.game.observe import Observation
from dominosim.game.reference import play_match
from dominosim.game.scoring import placement_points
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy

from engine_compare import _decision_difference, _ordered

# every layout (line, single end, spinner) and decision kind (lead, play, voluntary draw and
# after-draw, blind's front tile, drawn tile and continue), partnership play, along doubles
RULES = [
    ("classic", 2, {}),
    ("blind", 3, {}),
    ("blind", 2, {"blind_draw_optional": True, "blind_unplayable_double_face_up": True}),
    ("sniff", 4, {"partnership": True}),
    ("ladder", 2, {}),
    ("muggins", 2, {"may_draw_when_able": True}),
    ("bergen", 2, {"bergen_voluntary": True}),
    ("fives", 2, {"inline_double_counts_single": True}),
    ("kozel", 4, {}),
]


class OneByOne(Strategy):
    """Decides one decision at a time (no batch ``choose``: the engine's default asks it) by
    the key, and reads a field or two while it decides; keeps every question it is asked."""

    name = "one-by-one-test"
    params = {}

    def __init__(self, log: list) -> None:
        super().__init__()
        self.log = log

    def choose_one(self, obs, legal, key):
        assert isinstance(legal, list) and isinstance(key, int)
        # (a field read while deciding, the others only when the test compares them)
        if key % 3 == 0 and obs.hand and A.DRAW in legal:
            a = A.DRAW
        else:
            a = legal[key % len(legal)]
        self.log.append((obs, tuple(legal), key, a))
        return a


def _rules(variant, players, opts):
    return make_rules(variant, players, **opts)


@pytest.mark.parametrize(("variant", "players", "opts"), RULES)
def test_choose_one_is_asked_what_the_reference_engine_asks(variant, players, opts):
    """At every decision the batch engine's Observation (every field, ``history`` included,
    read after the batch is gone), legal list and key equal the reference engine's."""
    rules = _rules(variant, players, opts)
    ref_log: list = []
    core_log: list = []
    n = 40
    for m in range(n):
        play_match(rules, 7, m, [OneByOne(ref_log)] * players, unit="hand")
    BatchEngine(rules, 7, [OneByOne(core_log)] * players, range(n), unit="hand").run()
    assert len(ref_log) > n
    assert all(type(o) is Observation for o, *_ in core_log)
    assert _decision_difference(_ordered(ref_log), _ordered(core_log)) is None


def _one_observation(variant="classic", players=2) -> tuple[Observation, list]:
    """A batch engine's per-decision Observation (mid-hand) and its legal list."""
    seen: list = []
    BatchEngine(
        make_rules(variant, players), 3, [OneByOne(seen)] * players, range(2), unit="hand"
    ).run()
    obs, legal, _, _ = next(d for d in seen if d[0].history)
    return obs, list(legal)


def test_the_observation_is_immutable_and_compares_as_one_built_with_its_fields():
    obs, _ = _one_observation()
    eager = Observation(**{f.name: getattr(obs, f.name) for f in dataclasses.fields(obs)})
    assert obs == eager and hash(obs) == hash(eager) and repr(obs) == repr(eager)
    assert dataclasses.replace(obs) == obs
    assert pickle.loads(pickle.dumps(obs)) == obs
    for o in (obs, eager):
        for name in ("seat", "hand", "history", "_raw", "_how", "_pts", "new_name"):
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(o, name, 0)
            with pytest.raises(dataclasses.FrozenInstanceError):
                delattr(o, name)
        with pytest.raises(AttributeError):
            o.no_such_field  # noqa: B018 - the read must raise
    for f in dataclasses.fields(obs):
        value = getattr(obs, f.name)
        assert isinstance(value, (int, str, tuple, frozenset, type(None), type(obs.rules)))


def test_a_fresh_observation_reads_each_field_once_and_keeps_it():
    obs, _ = _one_observation("blind", 3)
    first = obs.history
    assert obs.history is first and obs.row is obs.row
    assert type(obs._raw) is bytes  # (the row's numbers: each field unpacks what it needs)


def _reachable(top, depth: int) -> list:
    """Everything ``top`` refers to, ``depth`` levels down (the objects themselves included)."""
    found, layer = [top], [top]
    for _ in range(depth):
        layer = [r for x in layer for r in gc.get_referents(x)]
        found += layer
    return found


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("blind", 2), ("sniff", 4)])
def test_a_decisions_observation_holds_nothing_of_the_batch_or_the_engine(variant, players):
    """§1.3: an Observation given to ``choose_one`` holds its own row of numbers (a ``bytes``
    copy), the rules and the phase, nothing else: no engine, no batch Observation, no array
    (of the engine's state, another seat's hand, another decision), before and after its
    fields are read."""
    found: list = []

    class Walker(Strategy):
        name = "walker-one-test"
        params = {}

        def choose_one(self, obs, legal, key):
            for top in (obs, legal):
                found.extend(_reachable(top, 2))
            assert type(obs._raw) is bytes and obs.hand is not None
            found.extend(_reachable(obs, 2))
            placement_points(obs, legal[0])  # (its points table: bytes of its own)
            assert type(obs._pts) is bytes
            found.extend(_reachable(obs, 2))
            return legal[0]

    rules = make_rules(variant, players)
    BatchEngine(rules, 1, [Walker()] * players, range(3), unit="hand").run()
    assert found
    for x in found:
        assert not isinstance(x, (BatchEngine, BatchObservation, np.ndarray, memoryview))


@pytest.mark.parametrize(("variant", "players", "opts"), RULES)
def test_legal_lists_are_the_canonical_order_and_new_each_time(variant, players, opts):
    """``Legal.lists`` and ``row_list`` (the core's arrays) equal ``action_at`` column by
    column (numpy), and every call gives new lists."""
    checked: list = []

    class Lists(Strategy):
        name = "lists-test"
        params = {}

        def choose(self, obs, legal, keys):
            lists = legal.lists()
            for i in range(len(keys)):
                c = int(legal.counts()[i])
                want = legal.take(np.full(c, i)).action_at(np.arange(c)).tolist()
                assert lists[i] == legal.row_list(i) == want
                lists[i].append(-7)  # (a strategy's change to its list)
                assert legal.row_list(i) == want and legal.lists()[i] == want
                checked.append(c)
            return legal.action_at(np.zeros(len(keys), dtype=np.int64))

    rules = _rules(variant, players, opts)
    BatchEngine(rules, 2, [Lists()] * players, range(5), unit="hand").run()
    assert checked and max(checked) > 1


def test_pack28_packs_each_tile_of_a_mask():
    """``tables.pack28`` (blind's known tiles as a packed hand, the Observation's ``hand``) is
    the union of each set tile's packed bits, and ``mask28_of`` reads the mask back."""
    from dominosim.engine import tables

    rng = np.random.default_rng(5)
    masks = np.concatenate([rng.integers(0, 1 << 28, 2000), 1 << np.arange(28), [0, (1 << 28) - 1]])
    want = np.zeros(len(masks), dtype=np.uint64)
    for t in range(28):
        want |= np.where(masks >> t & 1 == 1, tables.PACK[t], np.uint64(0))
    assert np.array_equal(tables.pack28(masks), want)
    assert np.array_equal(tables.mask28_of(tables.pack28(masks)), masks)
