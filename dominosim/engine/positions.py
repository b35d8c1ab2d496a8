"""The positions of a search or a test, built into a batch engine's slots
(:meth:`BatchEngine.from_positions`, :meth:`BatchEngine.from_arrays`; docs/design.md, "The
batch engine"): a position's hands, stock, layout, tallies and the point its turn stands at,
and :func:`pending_state`, the core's state of a pending decision as the seat to move sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dominosim.engine import kernel, tables
from dominosim.game import actions
from dominosim.game.rules import Rules

LEAD, TURN = kernel.LEAD, kernel.TURN
# (``e`` below: the BatchEngine being built; this module imports no batch, which imports it)
_PACK_INT = [int(x) for x in tables.PACK]


def pending_state(
    rules: Rules, phase_name: str, legal: Sequence[int], opened: bool, front: int | None
) -> dict:
    """The core's state of a pending decision as the seat to move sees it (a search's
    positions, :meth:`BatchEngine.from_arrays`): the slot's ``phase`` (voluntary draws) and, in
    blind, the step of the turn ``turn_phase``, the tile looked at ``dtile`` and the flags
    ``cflag``. ``phase_name`` and ``legal`` are the decision's (Observation.phase, the legal
    actions), ``opened`` whether the seat's row is turned up and ``front`` its front tile
    (blind)."""
    places = [a for a in legal if actions.is_placement(a)]
    if rules.draw_mode != "blind":
        if phase_name == "after_draw":
            phase = kernel.AFTERDRAW
        elif actions.DRAW in legal:
            phase = kernel.MAYDRAW if rules.may_draw_when_able else kernel.BOFFER
        else:
            phase = TURN
        return {"phase": phase}
    flags = {actions.DRAW: kernel.F_DRAW, actions.PASS: kernel.F_PASS, actions.STOP: kernel.F_STOP}
    cflag = sum(f for a, f in flags.items() if a in legal)
    steps = {
        "continue": kernel.T_CONT,
        "blind_front": kernel.T_FRONT,
        "blind_drawn": kernel.T_DRAWN,
    }
    if phase_name in steps:
        step = steps[phase_name]
    elif opened:
        step = kernel.T_OPLAY if places else kernel.T_ODRAWQ
    else:
        step = kernel.T_FRONT if places else kernel.T_DRAWQ
    dtile = -1
    if step in (kernel.T_FRONT, kernel.T_DRAWN):
        dtile = actions.tile_of(places[0]) if places else int(front)
    return {"phase": TURN, "turn_phase": step, "dtile": dtile, "cflag": cflag}


@dataclass(frozen=True)
class PositionArrays:
    """The positions of :meth:`BatchEngine.from_arrays`, one row per position: ``hands``
    ``[n, P]`` packed (tiles.PACK), ``stock`` ``[n, 28]`` (the draw order at the end, -1 before it), ``vals``
    and ``dbl`` ``[n, K]`` (the open positions ``L R`` or, on a SPINNER, ``L R W E N S``;
    -1 closed; formed by a double), ``to_move``, ``leader``, ``match_ids``, optionally
    ``hand_index``, ``first`` (-1: none), ``scores``, and for any layout's state ``alg``
    (``[n, K]``: a double laid along), ``spinner`` (its value, -1 none), ``covered`` (bits
    W E N S of the spinner's covered arms) and ``table`` (28-bit tiles on the table; the
    end count of a lone tile reads it), ``points`` and ``penalties`` (this hand's so far, by
    side or seat as the records give them; 0 else), ``phase`` (the seat to move's point in
    its turn, a ``kernel`` phase: ``TURN``, the default; ``MAYDRAW`` / ``BOFFER``, a turn
    that may start with a voluntary draw; ``AFTERDRAW``, after one) and for blind
    ``blind``, a dict of arrays: ``rows`` ``[n, P, L]`` (each seat's row front to back, -1
    after its end), ``known`` ``[n, P]`` (28-bit: the row tiles its owner has looked at),
    ``opened`` ``[n, P]``, ``face_up`` (28-bit), and the pending decision's ``turn_phase``
    (a ``kernel.T_*`` step of the turn), ``dtile`` (the tile looked at, -1 none) and
    ``cflag`` (its flags, ``kernel.F_*``): :func:`pending_state` derives those from what
    the seat sees. With a ``first`` action the position's turn counts as begun there (``turns`` + 1)
    unless it stands after a draw of this turn (``AFTERDRAW``; blind's ``T_DRAWQ``,
    ``T_DRAWN``, ``T_CONT``)."""

    hands: np.ndarray
    stock: np.ndarray
    vals: np.ndarray
    dbl: np.ndarray
    to_move: np.ndarray
    leader: np.ndarray
    match_ids: np.ndarray
    hand_index: np.ndarray | None = None
    first: np.ndarray | None = None
    scores: object = None
    alg: np.ndarray | None = None
    spinner: np.ndarray | None = None
    covered: np.ndarray | None = None
    table: np.ndarray | None = None
    points: np.ndarray | None = None
    penalties: np.ndarray | None = None
    phase: np.ndarray | None = None
    blind: dict | None = None
    compiled: bool | None = None  # (as BatchEngine's own: None, the compiled policies' default)


def _packed(P: int, positions: Sequence[dict]) -> tuple[list, list, list, list]:
    """from_positions: each position's packed hands, stock (draw order at the end, -1 before
    it), open values and doubles of ``L R``, as Python lists (converted once by the caller: a
    search builds thousands per decision)."""
    hands, stock, vals, dbl = [], [], [], []
    for p in positions:
        seat_hands = list(p["hands"]) + [()] * (P - len(p["hands"]))
        row = []
        for h in seat_hands:
            x = 0
            for t in h:
                x |= _PACK_INT[t]
            row.append(x)
        hands.append(row)
        st = list(p.get("stock", ()))
        stock.append([-1] * (28 - len(st)) + st)
        ends = p.get("ends", {})
        doubles = p.get("doubles", {})
        vals.append([ends.get("L", -1), ends.get("R", -1)])
        dbl.append([bool(doubles.get("L", False)), bool(doubles.get("R", False))])
    return hands, stock, vals, dbl


def arrays_of(rules: Rules, positions: Sequence[dict]) -> dict:
    """The position dicts of :meth:`BatchEngine.from_positions` as the fields of
    :class:`PositionArrays` (``compiled`` aside)."""
    P = rules.players
    hands, stock, vals, dbl = _packed(P, positions)
    n = len(positions)

    def col(key, default):
        return np.array(
            [p.get(key, default(i, p)) for i, p in enumerate(positions)], dtype=np.int64
        )

    scores = None
    if any("scores" in p for p in positions):
        scores = [p.get("scores", [0] * 4) for p in positions]
    return {
        "hands": np.array(hands, dtype=np.uint64).reshape(n, P),
        "stock": np.array(stock, dtype=np.int64).reshape(n, 28),
        "vals": np.array(vals, dtype=np.int64).reshape(n, 2),
        "dbl": np.array(dbl, dtype=bool).reshape(n, 2),
        "to_move": col("to_move", lambda i, p: 0),
        "leader": col("leader", lambda i, p: p["to_move"]),
        "match_ids": col("match_id", lambda i, p: i),
        "hand_index": col("hand_index", lambda i, p: 0),
        "first": col("first", lambda i, p: -1),
        "scores": scores,
    }


def build(cls: type, rules: Rules, seed: int, strategies, p: PositionArrays):
    """An engine of class ``cls`` (BatchEngine) whose slot i holds position i of ``p``, not yet
    run (:meth:`BatchEngine.from_arrays`)."""
    n = len(p.to_move)
    e = cls(
        rules,
        seed,
        strategies,
        range(n),
        unit="hand",
        batch_size=n,
        compiled=p.compiled,
        _positions=True,
    )  # (a position a slot)
    e.next_q = n
    g = np.arange(n)
    e.state.active[g] = True
    e.state.match[g] = p.match_ids
    e.state.hand_idx[g] = 0 if p.hand_index is None else p.hand_index
    e._qmatch = e.state.match.copy()
    e.state.skeys[g] = 0  # the seats' keys of the hand: computed in the core when needed
    e.state.hands[:] = p.hands
    e.state.stock[:] = p.stock
    e.state.sp[:] = (e.state.stock < 0).sum(axis=1)
    drawable = rules.stock_in_play and rules.draw_mode != "none"
    e.state.send[:] = np.maximum(e.state.sp, 28 - rules.reserve_k) if drawable else e.state.sp
    e.state.to_move[:] = p.to_move
    e.state.leader[:] = p.leader
    _set_layout(e, p.vals, p.dbl, p.alg, p.spinner, p.covered, p.table)
    _set_tallies(e, p.scores, p.points, p.penalties)
    _set_turn(e, p.phase, p.blind, p.first)
    return e


def _set_turn(e, phase, blind, first) -> None:
    """Where each position's turn stands (its phase; blind's rows and pending step) and the
    first action to play (-1: none)."""
    g = np.arange(len(e.queue))  # (a position a slot)
    e.state.phase[g] = np.where(e.state.ntable[g] > 0, TURN if phase is None else phase, LEAD)
    e.state.lead_tile[g] = -1
    if e.blind:
        if blind is None:
            raise ValueError("from_arrays: blind positions need their rows (blind=...)")
        _set_rows(e, blind)
    if first is not None and (np.asarray(first) >= 0).any():
        e._first = np.asarray(first, dtype=np.int64).copy()


def _set_tallies(e, scores, points, penalties) -> None:
    """The match scores and this hand's points and penalties so far (None: zero)."""
    if scores is not None:
        e.state.scores[:] = np.asarray(scores, dtype=np.int64)[:, : e.state.scores.shape[1]]
    if points is not None:
        e.state.points[:] = points
    if penalties is not None:
        e.state.penalties[:] = penalties


def _set_layout(e, vals, dbl, alg, spinner, covered, table) -> None:
    """The open positions, doubles (across and along), the spinner's arms and the tiles on the
    table of every position."""
    K = np.shape(vals)[1]
    e.state.vals[:, :K] = vals
    e.state.dbl[:, :K] = dbl
    if alg is not None:
        e.state.alg[:, :K] = alg
    if spinner is not None and e.NP == 6:  # the arms: a covered one shows its tile's end
        e.state.spin[:] = spinner
        e.state.cov[:] = covered
        arms = (np.asarray(covered)[:, None] >> np.arange(4)) & 1 == 1
        e.state.armv[:] = np.where(arms, e.state.vals[:, 2:6], -1)
        e.state.armd[:] = arms & e.state.dbl[:, 2:6]
    if table is None:
        e.state.ntable[:] = np.where((e.state.vals >= 0).any(axis=1), 2, 0)
    else:
        t = np.asarray(table, dtype=np.int64)
        e.state.table[:] = t
        e.state.ntable[:] = np.bitwise_count(t)
        lone = e.state.ntable == 1
        e.state.first[:] = np.where(lone, np.log2(np.maximum(t, 1)).astype(np.int64), -1)


def _set_rows(e, b: dict) -> None:
    """Blind's rows and the pending decision's step of the turn."""
    rows = np.asarray(b["rows"], dtype=np.int64)
    n, P, L = rows.shape
    if P != e.P or L > kernel.RB:
        raise ValueError(f"from_arrays: blind rows must be [n, {e.P}, <= {kernel.RB}]")
    e.state.head[:] = 0
    e.state.span[:] = (rows >= 0).sum(axis=2)
    e.state.buf[:] = -1
    e.state.buf[:, :, :L] = rows
    e.state.known[:] = b["known"]
    e.state.opened[:] = b["opened"]
    e.state.face_up[:] = b["face_up"]
    bs = e.state.blind_records
    for name in ("turn_phase", "dtile", "cflag"):
        bs[name] = b[name]
