"""BatchEngine.from_arrays (a search's positions) rebuilds a game in progress on every open
layout: a position taken from a real game, with its true hands and stock, plays on to the
same end of the hand (mc's playouts rely on it; docs/strategies.md)."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim.engine import kernel
from dominosim.engine.batch import BatchEngine, pending_state
from dominosim.game import actions as A
from dominosim.game.variants import make_rules
from dominosim.strategies.mc import layout_row
from dominosim.strategy import Strategy, classify, get


@classify  # (it reads the true state: fixed perfect_information)
class Snapshot(Strategy):
    """doubles-first (it reads no voids, so a position without the voids plays the same), and
    at its decision number ``at`` of each game a copy of the true state and its choice, and
    the pending decision's state as :func:`pending_state` derives it from the Observation."""

    name = "snapshot-test"
    classifier = "perfect_information"  # (it reads the true state: obs._e)

    def __init__(self, at: int, inner=None):
        super().__init__()
        self.inner = inner or get("doubles-first")
        self.at = at
        self.taken = []

    def choose(self, obs, legal, keys):
        out = np.asarray(self.inner.choose(obs, legal, keys), dtype=np.int64)
        e = obs._e
        for i in np.flatnonzero(np.asarray(obs.decision) == self.at):
            g = int(obs._g[i])
            stock = np.array(e.state.stock[g], dtype=np.int64)
            stock[: int(e.state.sp[g])] = -1
            row = obs.row(int(i))
            seat = int(obs.seat[i])
            front = row.row[0] if row.row else None
            opened = bool(row.opened[seat]) if row.opened else False
            # fmt: off
            x = {"match": int(e.state.match[g]), "hands": e.state.hands[g].copy(), "stock": stock,
                 "seat": seat, "first": int(out[i]), "leader": int(e.state.leader[g]),
                 "layout": layout_row(row), "points": e.state.points[g].copy(),
                 "penalties": e.state.penalties[g].copy(), "phase": int(e.state.phase[g]),
                 "scores": e.state.scores[g].copy(),
                 "derived": pending_state(e.r, row.phase, legal.row_list(int(i)), opened, front)}
            # fmt: on
            if e.blind:
                x["blind"] = self._rows(e, g)
            self.taken.append(x)
        return out

    @staticmethod
    def _rows(e, g):
        """The true rows, front to back (the open phase's holes left out: no order is read
        there), and the turn's step."""
        rows = np.full((e.P, kernel.RB), -1, dtype=np.int64)
        for s in range(e.P):
            tiles = [
                int(e.state.buf[g, s, (int(e.state.head[g, s]) + j) % kernel.RB])
                for j in range(int(e.state.span[g, s]))
            ]
            tiles = [t for t in tiles if t >= 0]
            rows[s, : len(tiles)] = tiles
        bs = e.state.blind_records[g]
        return {
            "rows": rows,
            "known": e.state.known[g].copy(),
            "opened": e.state.opened[g].copy(),
            "face_up": int(e.state.face_up[g]),
            "turn_phase": int(bs["turn_phase"]),
            "dtile": int(bs["dtile"]),
            "cflag": int(bs["cflag"]),
        }


class Drawer(Strategy):
    """Draws whenever it may (the voluntary draws' after-draw decision comes up), else
    doubles-first."""

    name = "drawer-test"

    def choose_one(self, obs, legal, key):
        if A.DRAW in legal:
            return A.DRAW
        return get("doubles-first").choose_one(obs, legal, key)


def _replay(rules, t, strategy):
    """The snapshots ``t`` as positions of from_arrays, played on."""
    lay = {k: np.array([x["layout"][k] for x in t]) for k in t[0]["layout"]}
    blind = None
    if "blind" in t[0]:
        blind = {k: np.array([x["blind"][k] for x in t]) for k in t[0]["blind"]}
    pos = BatchEngine.from_arrays(
        rules,
        4,
        [strategy] * rules.players,
        hands=np.array([x["hands"] for x in t]),
        stock=np.array([x["stock"] for x in t]),
        vals=lay["vals"],
        dbl=lay["dbl"],
        alg=lay["alg"],
        spinner=lay["spinner"],
        covered=lay["covered"],
        table=lay["table"],
        to_move=np.array([x["seat"] for x in t]),
        leader=np.array([x["leader"] for x in t]),
        match_ids=np.array([x["match"] for x in t]),
        first=np.array([x["first"] for x in t]),
        points=np.array([x["points"] for x in t]),
        phase=np.array([x["phase"] for x in t]),
        penalties=np.array([x["penalties"] for x in t]),
        blind=blind,
        scores=np.array([x["scores"] for x in t]),
    )
    got, _ = pos.run()
    return got


# fmt: off
CASES = [("sniff", 2, {}), ("muggins", 2, {"first_double_spinner": True}), ("ladder", 2, {}),
         ("two-lane", 2, {}), ("fives", 2, {}), ("block", 2, {}),
         ("muggins", 2, {"may_draw_when_able": True}), ("bergen", 3, {"bergen_voluntary": True}),
         ("blind", 2, {}), ("blind", 3, {"blind_play_optional": True}),
         ("blind", 2, {"blind_draw_optional": True, "blind_unplayable_double_face_up": True})]
# fmt: on


@pytest.mark.parametrize(("variant", "players", "opts"), CASES)
def test_a_position_from_a_game_plays_on_as_the_game(variant, players, opts):
    """Every layout, the voluntary draws' decisions (§11.7, §15 bergen_voluntary: a first
    action that draws, the after-draw decision) and blind's rows and steps of a turn (§3.7a-c:
    the front tile, the drawn tile, the open phase's continue or stop)."""
    rules = make_rules(variant, players, **opts)
    inner = Drawer() if opts.get("bergen_voluntary") else get("doubles-first")
    snap = Snapshot(at=3 if variant != "blind" else 2, inner=inner)
    hands, _ = BatchEngine(rules, 4, [snap] * players, range(80), unit="hand").run()
    t = snap.taken
    assert len(t) > 30
    got = _replay(rules, t, inner)
    at = {int(m): i for i, m in enumerate(hands["match_id"])}
    assert len(got["match_id"]) == len(t)
    for j, m in enumerate(got["match_id"]):
        i = at[int(m)]
        for f in ("winner", "went_out", "end_reason", "points", "pips", "penalties"):
            assert np.array_equal(got[f][j], hands[f][i]), (variant, int(m), f)
    # what a search derives from the Observation is the core's own state of the decision
    for x in t:
        d = x["derived"]
        assert d["phase"] == x["phase"], x["match"]
        if "blind" in x:
            b = x["blind"]
            assert (d["turn_phase"], d["cflag"]) == (b["turn_phase"], b["cflag"]), x["match"]
            if d["dtile"] >= 0:
                assert d["dtile"] == b["dtile"], x["match"]
    phases = {x["phase"] for x in t}
    if opts.get("bergen_voluntary"):
        assert kernel.AFTERDRAW in phases and kernel.BOFFER in phases
    if variant == "blind":
        steps = {x["blind"]["turn_phase"] for x in t}
        assert kernel.T_CONT in steps or kernel.T_OPLAY in steps
        if opts.get("blind_play_optional"):
            assert {kernel.T_FRONT, kernel.T_DRAWN} <= steps
