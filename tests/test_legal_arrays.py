"""``Legal.arrays``: each decision's legal actions as padded arrays (docs/strategies.md,
"Writing a batch strategy") equal, row by row, the per-decision list of legal actions
(``Legal.row_list``, what ``choose_one`` receives) and ``scoring.placement_points`` on that
decision's Observation, at every decision of every variant and player count, partnership play
and the options that add decision kinds or layouts (the rule sets of check-strategy, the
spinner's options)."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.check import rule_sets
from dominosim.engine.batch import BatchEngine
from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.scoring import placement_points
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy

RULE_SETS = rule_sets() + [
    make_rules("muggins", 2, first_double_spinner=True),
    make_rules("muggins", 3, first_double_spinner=True, us_sniff_counting=True),
    make_rules("sniff", 2, spinner_open_all_four_immediately=True),
    make_rules("sniff", 2, us_sniff_counting=True),
]


class ArrayChecker(Strategy):
    """Plays uniformly at random and compares, at every batch, ``legal.arrays(obs)`` with the
    per-decision lists and points."""

    name = "array-checker"
    params = {}

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0
        self.kinds: set = set()

    def choose(self, obs, legal, keys):
        la = legal.arrays(obs)
        n = len(keys)
        assert la.action.shape == (n, la.width) and len(la) == n
        assert la.width == int(legal.counts().max(initial=0))
        for i in range(n):
            row = legal.row_list(i)
            k = len(row)
            assert la.count[i] == k
            assert la.action[i, :k].tolist() == row
            assert (la.action[i, k:] == -1).all() and not la.valid[i, k:].any()
            o = obs.row(i)
            for j, a in enumerate(row):
                place = A.is_placement(a)
                assert la.valid[i, j] and la.placement[i, j] == place
                t = A.tile_of(a) if place else -1
                assert la.tile[i, j] == t
                assert la.position[i, j] == ("LRWENS".index(A.pos_of(a)) if place else -1)
                assert la.along[i, j] == (place and A.is_along(a))
                assert la.pips[i, j] == (tiles.pips(t) if place else 0)
                assert la.double[i, j] == (place and tiles.is_double(t))
                assert la.points[i, j] == placement_points(o, a), (o, a)
                self.kinds.add((obs.phase, place, legal.lead is not None))
        self.decisions += n
        for name in ("action", "tile", "points", "count"):
            with pytest.raises(ValueError):
                getattr(la, name)[...] = 0  # read-only
        return legal.uniform(keys)


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.variant}-{r.players}-{r.options}")
def test_arrays_equal_the_lists_and_points(rules):
    checker = ArrayChecker()
    BatchEngine(rules, 5, [checker] * rules.players, range(40), unit="hand", batch_size=16).run()
    assert checker.decisions > 100


@pytest.mark.parametrize(
    "rules",
    [make_rules("fives", 2, inline_double_counts_single=True), make_rules("sniff", 2)],
    ids=lambda r: r.variant,
)
def test_arrays_of_leads(rules):
    """Later hands' leads are choices (the lead mask, doubles laid along, the spinner)."""
    checker = ArrayChecker()
    BatchEngine(rules, 5, [checker] * 2, range(4), unit="match", batch_size=4).run()
    assert ("play", True, True) in checker.kinds


def test_best_is_the_first_highest_legal_action():
    rules = make_rules("fives", 2)
    seen = []

    class Best(Strategy):
        name = "best"
        params = {}

        def choose(self, obs, legal, keys):
            la = legal.arrays(obs)
            score = np.where(la.placement, la.pips, -1)
            got = la.best(score)
            for i in range(len(keys)):
                row = legal.row_list(i)
                s = [tiles.pips(A.tile_of(a)) if A.is_placement(a) else -1 for a in row]
                assert got[i] == row[s.index(max(s))]  # the first of the highest
                seen.append(len(set(s)) < len(s))
            assert (la.best(np.zeros(la.action.shape, bool)) == la.action[:, 0]).all()
            return got

    BatchEngine(rules, 3, [Best()] * 2, range(30), unit="hand", batch_size=8).run()
    assert any(seen)  # ties met
