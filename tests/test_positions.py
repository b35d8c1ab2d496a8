"""BatchEngine.from_arrays (a search's positions) rebuilds a game in progress on every open
layout: a position taken from a real game, with its true hands and stock, plays on to the
same end of the hand (mc's playouts rely on it; docs/strategies.md)."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.engine.batch import BatchEngine
from dominosim.strategies.mc import layout_row
from dominosim.strategy import Strategy, get
from dominosim.variants import make_rules


class Snapshot(Strategy):
    """doubles-first (it reads no voids, so a position without the voids plays the same), and
    at its decision number ``at`` of each game a copy of the true state and its choice."""

    name = "snapshot-test"

    def __init__(self, at: int):
        super().__init__()
        self.inner = get("doubles-first")
        self.at = at
        self.taken = []

    def choose(self, obs, legal, keys):
        out = np.asarray(self.inner.choose(obs, legal, keys), dtype=np.int64)
        e = obs._e
        for i in np.flatnonzero(np.asarray(obs.decision) == self.at):
            g = int(obs._g[i])
            stock = np.array(e.stock[g], dtype=np.int64)
            stock[: int(e.sp[g])] = -1
            row = obs.row(int(i))
            self.taken.append({"match": int(e.match[g]), "hands": e.hands[g].copy(),
                               "stock": stock, "seat": int(obs.seat[i]), "first": int(out[i]),
                               "leader": int(e.leader[g]), "layout": layout_row(row),
                               "points": e.points[g].copy(),
                               "penalties": e.penalties[g].copy()})  # fmt: skip
        return out


@pytest.mark.parametrize("variant", ["sniff", "muggins", "ladder", "two-lane", "fives", "block"])
def test_a_position_from_a_game_plays_on_as_the_game(variant):
    opts = {"first_double_spinner": True} if variant == "muggins" else {}
    rules = make_rules(variant, 2, **opts)
    snap = Snapshot(at=3)
    hands, _ = BatchEngine(rules, 4, [snap, snap], range(60), unit="hand").run()
    assert len(snap.taken) > 30
    t = snap.taken
    lay = {k: np.array([x["layout"][k] for x in t]) for k in t[0]["layout"]}
    pos = BatchEngine.from_arrays(
        rules, 4, [get("doubles-first")] * 2, hands=np.array([x["hands"] for x in t]),
        stock=np.array([x["stock"] for x in t]), vals=lay["vals"], dbl=lay["dbl"],
        alg=lay["alg"], spinner=lay["spinner"], covered=lay["covered"], table=lay["table"],
        to_move=np.array([x["seat"] for x in t]), leader=np.array([x["leader"] for x in t]),
        match_ids=np.array([x["match"] for x in t]), first=np.array([x["first"] for x in t]),
        points=np.array([x["points"] for x in t]),
        penalties=np.array([x["penalties"] for x in t]))  # fmt: skip
    got, _ = pos.run()
    at = {int(m): i for i, m in enumerate(hands["match_id"])}
    assert len(got["match_id"]) == len(t)
    for j, m in enumerate(got["match_id"]):
        i = at[int(m)]
        for f in ("winner", "went_out", "end_reason", "points", "pips", "penalties"):
            assert np.array_equal(got[f][j], hands[f][i]), (variant, int(m), f)
