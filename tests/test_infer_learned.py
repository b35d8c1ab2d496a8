"""pimc's and mc's inference with the learned likelihood (``likelihood=learned``;
strategies/mc.py: infer_events, learned_scores; docs/strategies.md, "pimc"): at each scored
event a tile's score is the shipped ``learned`` model's weighted sum of the features the
public table gives from the placer's seat, over the model's unit; the default likelihood
(``heuristic``) is today's soft doubles-first, unchanged."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.engine import kernel
from dominosim.game import actions, tiles
from dominosim.game.reference import play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, get
from dominosim.strategy.models import FEATURES, shipped_model
from dominosim.strategy.spec import parse_strategy
from tests.test_infer import _decisions, _mc

HIDDEN = ("control", "keeps_suit", "unseen_fit")  # read the placer's hand: left out


class _All(Strategy):
    """Every seat's decisions, by the length of the history it decided at."""

    name = "all-seen"

    def __init__(self):
        super().__init__()
        self.inner = get("greedy")
        self.at: dict = {}

    def choose_one(self, obs, legal, key):
        self.at.setdefault(len(obs.history), (obs, list(legal)))
        return self.inner.choose_one(obs, legal, key)


def _readable_score(obs, t: int, weights, unit: float) -> float:
    """The learned likelihood's score of tile ``t`` at the placer's decision ``obs``, by its
    definition: the best over the placements of ``t`` on the table then of the model's sum
    over the public features (``learned.features`` with an empty hand: what the placer holds
    is hidden; the placer's count and voids as the reference engine showed them), over the
    model's unit."""
    learned = _learned_module()
    view = dataclasses.replace(obs, hand=())
    spots = [("L", None)] if not obs.positions else obs.positions
    best = -np.inf
    for pid, v in spots:
        if v is not None and not tiles.fits(t, v):
            continue
        f = learned.features(view, actions.place(t, pid), 0)
        f = [0 if name in HIDDEN else x for name, x in zip(FEATURES, f, strict=True)]
        best = max(best, sum(w * x for w, x in zip(weights, f, strict=True)) / unit)
    return best


def _learned_module():
    return sys.modules[type(get("learned")).__module__]


@pytest.mark.parametrize(("variant", "players"), [("fives", 2), ("block", 2), ("fives", 4)])
def test_learned_scores_equal_their_readable_definition(variant, players):
    """On replayed hands, each scored event's weights are exp((score - the event's best) /
    temp) over the tiles that fitted, the score the readable definition's at the placer's
    own decision (the reference engine's observation then: its count, everyone's voids)."""
    mc = _mc()
    rules = make_rules(variant, players)
    w = np.array(shipped_model(rules).weights, dtype=np.float64)
    if rules.scoring == "none":
        w[[FEATURES.index("points"), FEATURES.index("threat")]] = 0
    w[[FEATURES.index(f) for f in HIDDEN]] = 0
    unit = np.abs(w).max() / mc.LEARNED_SPAN
    checked = 0
    for m in range(2):
        seen = _All()
        play_match(rules, 11, m, [seen] * players, unit="hand")
        for obs, _legal in seen.at.values():
            inf = mc.infer_events(obs, 3.0, 0.0, "learned")
            for row, got in zip(inf[0], inf[1], strict=True):
                i = next(
                    j
                    for j, e in enumerate(obs.history)
                    if e.kind == "place" and e.tile == row[kernel.IE_TILE]
                )
                if i not in seen.at:  # (a forced move: the engine asked nobody)
                    continue
                placer, _ = seen.at[i]
                assert placer.seat == row[kernel.IE_SEAT]
                fit = [t for t in range(28) if row[kernel.IE_FIT] >> t & 1]
                want = np.array([_readable_score(placer, t, w, unit) for t in fit])
                want = np.exp((want - want.max()) / 3.0)
                assert np.allclose(got[fit], want, rtol=1e-9, atol=0), (variant, i)
                checked += 1
    assert checked > 20


def test_the_learned_likelihood_is_deterministic_and_differs_from_the_heuristic():
    """The same decision, key and settings give the same deals and choices (two instances);
    the learned model weighs the events differently from the soft doubles-first."""
    mc = _mc()
    differs = 0
    for obs, legal, key in _decisions("fives", 2, matches=2)[4:12]:
        a = mc.infer_deals(obs, key, 16, 4, 4.0, 0.0, "learned")
        b = mc.infer_deals(obs, key, 16, 4, 4.0, 0.0, "learned")
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        p1, p2 = get("pimc", likelihood="learned"), get("pimc", likelihood="learned")
        assert p1.choose_one(obs, legal, key) == p2.choose_one(obs, legal, key)
        h = mc.infer_events(obs, 4.0)[1]
        differs += not np.allclose(h, mc.infer_events(obs, 4.0, 0.0, "learned")[1])
    assert differs > 0


def test_the_default_likelihood_is_todays():
    """``likelihood=heuristic`` is the default of pimc and mc, left out of their labels, and
    its events and weights are the soft doubles-first's (exactly)."""
    assert get("pimc").settings["likelihood"] == "heuristic" == get("mc").settings["likelihood"]
    assert get("pimc", likelihood="heuristic").label == "pimc"
    assert get("mc", likelihood="learned").label == "mc:likelihood=learned"
    mc = _mc()
    for obs, _legal, _key in _decisions("fives", 2, matches=1):
        a, b = mc.infer_events(obs, 4.0), mc.infer_events(obs, 4.0, 0.0, "heuristic")
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
        assert np.array_equal(a[1], np.exp(np.tile(mc.model_scores(), (len(a[0]), 1)) / 4.0))


def test_likelihood_is_checked():
    spec = parse_strategy("pimc:likelihood=learned")
    assert get(spec.name, **dict(spec.params)).settings["likelihood"] == "learned"
    for name in ("pimc", "mc"):
        for bad in ("learnt", "", 1, True):
            with pytest.raises(StrategyError, match="likelihood must be one of heuristic, learned"):
                get(name, likelihood=bad)
