"""The batch engine's arrays, each declared once with its name, dtype and shape rule
(docs/design.md, "The batch engine").

:class:`SlotArrays` holds every game slot's state: one record per slot (``kernel.SLOT``,
blind's rows ``kernel.BSLOT``) and the engine's views of their fields, each showing the rules'
own width. :class:`AdvanceArrays` holds the arrays the core's ``advance`` reads by name (the
attribute names are its contract): its declaration is compared with the core's own table
(``kernel.ADVANCE_ARRAYS``) when this module is imported, and a core built from other sources
fails that import with one message saying how to rebuild.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

import numpy as np

from dominosim.engine import kernel
from dominosim.game.rules import Rules

# a width rule: None (one value per slot), a number, or the rules' seats ("P"), sides ("S"),
# open positions ("NP") or point lanes ("NPOINTS")
Width = int | str | None


def _field(record: str, key: str | int | None, width: Width, dtype, fill: int = 0):
    """A declared view: ``record`` ("slot", "blind", or a block of the slot record: "hb" the
    per-hand rows, "prev" the previous hand's), its field (None: the view's own name) or row,
    the width shown, the dtype the engine reads (int8 fields shown as bool), the value of a new
    slot (a whole slot field; blind's ``buf`` its rules' rows)."""
    meta = {"record": record, "key": key, "width": width, "dtype": np.dtype(dtype), "fill": fill}
    return field(metadata=meta)


def _slot(width: Width, dtype=np.int64, fill: int = 0, key: str | None = None):
    return _field("slot", key, width, dtype, fill)


def _blind(width: Width, dtype=np.int64, fill: int = 0):
    return field(default=None, metadata=_field("blind", None, width, dtype, fill).metadata)


def _hand(row: int):
    return _field("hb", row, None, np.int64)


def _prev(row: int, fill: int):
    return _field("prev", row, None, np.int64, fill)


I64, U64 = np.int64, np.uint64


@dataclass(slots=True)
class SlotArrays:
    """Every game slot's state: ``records`` (``kernel.SLOT``, one per slot) and
    ``blind_records`` (``kernel.BSLOT``: one per slot in blind, one unused record else), and
    the views of their fields, row i slot i. The views are the records' memory: the core and
    Python read and write the same state. Blind's views are None under other rules."""

    records: np.ndarray
    blind_records: np.ndarray
    # fmt: off
    hands: np.ndarray = _slot("P", U64)
    vals: np.ndarray = _slot("NP", I64, -1)
    dbl: np.ndarray = _slot("NP", bool)
    alg: np.ndarray = _slot("NP", bool)
    armv: np.ndarray = _slot(4, I64, -1)
    armd: np.ndarray = _slot(4, bool)
    to_move: np.ndarray = _slot(None)
    leader: np.ndarray = _slot(None)
    lead_tile: np.ndarray = _slot(None, I64, -1)
    phase: np.ndarray = _slot(None, I64, kernel.DONE)
    scores: np.ndarray = _slot("NPOINTS")
    points: np.ndarray = _slot("NPOINTS")
    penalties: np.ndarray = _slot("P")
    voids: np.ndarray = _slot("P")
    end_pips: np.ndarray = _slot("S")
    end_values: np.ndarray = _slot("S")
    written: np.ndarray = _slot("S", I64, -1)
    pending: np.ndarray = _slot("S")
    pot: np.ndarray = _slot(None)
    eggs: np.ndarray = _slot(None)
    dry: np.ndarray = _slot(None, bool)
    losers: np.ndarray = _slot(None)
    active: np.ndarray = _slot(None, bool)
    match: np.ndarray = _slot(None)
    hand_idx: np.ndarray = _slot(None)
    skeys: np.ndarray = _slot("P", U64)
    stock: np.ndarray = _slot(28, np.int8)
    over: np.ndarray = _slot(None, bool)
    target_hit: np.ndarray = _slot(None, bool)
    prev_seat_pips: np.ndarray = _slot("P", key="prev_pips")
    # the per-hand block's rows (kernel.H_*; a new slot's values: hand_template)
    attempt: np.ndarray = _hand(kernel.H_ATTEMPT)
    sp: np.ndarray = _hand(kernel.H_SP)
    send: np.ndarray = _hand(kernel.H_SEND)
    spin: np.ndarray = _hand(kernel.H_SPIN)
    cov: np.ndarray = _hand(kernel.H_COV)
    ntable: np.ndarray = _hand(kernel.H_NTABLE)
    first: np.ndarray = _hand(kernel.H_FIRST)
    table: np.ndarray = _hand(kernel.H_TABLE)
    decision: np.ndarray = _hand(kernel.H_DECISION)
    last_placer: np.ndarray = _hand(kernel.H_LAST)
    hand_length: np.ndarray = _hand(kernel.H_LENGTH)
    turns: np.ndarray = _hand(kernel.H_TURNS)
    draws: np.ndarray = _hand(kernel.H_DRAWS)
    passes: np.ndarray = _hand(kernel.H_PASSES)
    end_reason: np.ndarray = _hand(kernel.H_REASON)
    fish: np.ndarray = _hand(kernel.H_FISH)
    winner: np.ndarray = _hand(kernel.H_WINNER)
    went_out: np.ndarray = _hand(kernel.H_OUT)
    # the previous hand's rows (kernel.P_*)
    prev_leader: np.ndarray = _prev(kernel.P_LEADER, 0)
    prev_winner: np.ndarray = _prev(kernel.P_WINNER, -1)
    prev_out: np.ndarray = _prev(kernel.P_OUT, -1)
    prev_fish: np.ndarray = _prev(kernel.P_FISH, -1)
    # blind's rows (§3.7): per seat its row's ring (buf, kernel.RB tiles), head, span, the
    # tiles it has seen, whether it is opened; the face-up tiles
    head: np.ndarray | None = _blind("P")
    span: np.ndarray | None = _blind("P")
    known: np.ndarray | None = _blind("P")
    opened: np.ndarray | None = _blind("P", bool)
    face_up: np.ndarray | None = _blind(None)
    buf: np.ndarray | None = _blind("P", np.int8, -1)
    # fmt: on

    @classmethod
    def new(cls, rules: Rules, slots: int) -> SlotArrays:
        """``slots`` new slots, each the rules' template record (:func:`_templates`), copied
        in as bytes (a strided copy per field cost a run a few milliseconds per chunk)."""
        blind = rules.draw_mode == "blind"
        st = np.empty(slots, dtype=kernel.SLOT)
        bst = np.empty(slots if blind else 1, dtype=kernel.BSLOT)
        for t, rec in zip(_templates(rules), (st, bst), strict=True):
            rec.view(np.uint8).reshape(len(rec), -1)[:] = t
        return cls.of(rules, st, bst)

    @classmethod
    def of(cls, rules: Rules, records: np.ndarray, blind_records: np.ndarray) -> SlotArrays:
        """The views of these records (``kernel.SLOT``, ``kernel.BSLOT``) under ``rules``."""
        width = _widths(rules)
        blind = rules.draw_mode == "blind"
        views = {}
        blocks = {"hb": records["hb"].T, "prev": records["prev"].T}
        for name, record, key, w, dtype, _ in _SPECS:
            if record == "slot":
                view = records[key]
            elif record == "blind":
                if not blind:
                    continue
                view = blind_records[key]
            else:  # (a row of the per-hand or previous-hand block)
                views[name] = blocks[record][key]
                continue
            if w is not None:
                view = view[:, : width.get(w, w)]
            if view.dtype != dtype:  # (int8 fields shown as bool)
                view = view.view(dtype)
            views[name] = view
        return cls(records, blind_records, **views)


# the declared views (every field but the two record arrays), each as (name, record, its field
# or row, width, dtype, a new slot's value)
_SPECS = tuple(
    (
        f.name,
        m["record"],
        f.name if m["key"] is None else m["key"],
        *map(m.get, ("width", "dtype", "fill")),
    )
    for f in dataclasses.fields(SlotArrays)[2:]
    for m in (f.metadata,)
)


#: the records' fields that are no view of :class:`SlotArrays`: the per-hand and previous-hand
#: blocks (their rows are), and the core's own, which the engine reads by name (the pending
#: decision, the queue index, blind's turn step)
NOT_VIEWS = {
    "slot": ("hb", "prev", "ask", "act", "qidx"),
    "blind": ("turn_phase", "dtile", "cflag"),
}


def check_views(slot: np.dtype = kernel.SLOT, blind: np.dtype = kernel.BSLOT) -> None:
    """Fail at import when the core's records (their fields made from its structs) do not hold
    the fields this module declares views of, each of its item size, and no field more: one
    message saying how to rebuild."""
    problems = []
    for record, dtype in (("slot", slot), ("blind", blind)):
        views = {key: dt for _, rec, key, _, dt, _ in _SPECS if rec == record}
        for key, dt in views.items():
            if key not in dtype.names or dtype.fields[key][0].base.itemsize != dt.itemsize:
                problems.append(f"{record} field {key} ({dt})")
        extra = set(dtype.names) - set(views) - set(NOT_VIEWS[record])
        problems += [f"{record} field {key} (not declared)" for key in sorted(extra)]
    if problems:
        raise ImportError(
            "dominosim's compiled core's records do not hold the fields "
            f"dominosim/engine/arrays.py declares ({'; '.join(problems)}); reinstall the "
            "package (pip install .)"
        )


def _widths(rules: Rules) -> dict[str, int]:
    nopen = 6 if rules.layout == "spinner" else 2
    return {"P": rules.players, "S": rules.sides, "NP": nopen, "NPOINTS": rules.score_columns}


@functools.lru_cache(maxsize=64)
def _templates(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """A new slot's record and blind record under ``rules``, as bytes (read only): the
    declared values, the per-hand block's (:func:`hand_template`)."""
    tmpl, btmpl = np.zeros(1, dtype=kernel.SLOT), np.zeros(1, dtype=kernel.BSLOT)
    for _, record, key, w, _, fill in _SPECS:
        if record == "slot" and fill:
            tmpl[key] = fill
        elif record == "prev":
            tmpl["prev"][0, key] = fill
        elif record == "blind" and fill and rules.draw_mode == "blind":
            btmpl[key][0, : _widths(rules)[w]] = fill
    tmpl["hb"][0] = hand_template(rules)
    out = (tmpl.view(np.uint8), btmpl.view(np.uint8))
    for t in out:
        t.flags.writeable = False
    return out


def hand_template(rules: Rules) -> np.ndarray:
    """The per-hand block's values at a deal, a row each (``kernel.H_COUNT``; the core resets
    a slot's block from it): the stock's next tile after the deal (seats x hand size), where
    drawing stops, and -1 for the spinner, the first tile, the last placer, the end's reason,
    the fish, the winner and the seat that went out; zeros else."""
    h0 = rules.players * rules.hand_size
    drawable = rules.stock_in_play and rules.draw_mode != "none"
    send0 = (28 - rules.reserve_k) if drawable else h0
    htmpl = np.zeros(kernel.H_COUNT, dtype=np.int64)
    htmpl[kernel.H_SP], htmpl[kernel.H_SEND] = h0, max(send0, h0)
    none = (kernel.H_SPIN, kernel.H_FIRST, kernel.H_LAST, kernel.H_REASON, kernel.H_FISH)
    htmpl[[*none, kernel.H_WINNER, kernel.H_OUT]] = -1
    return htmpl


# ---------------------------------------------------------------------------------------------
# advance's arrays: the core's contract
# ---------------------------------------------------------------------------------------------
def _arg(dtype, ndim: int, writable: bool = False, shape: str = ""):
    """An array advance reads: its dtype (``kernel.SLOT``, ``kernel.BSLOT``: any record of
    that size), dimensions, whether the core writes it, and its shape rule (the core checks
    it at each call against the rules, B slots and NQ queued match ids)."""
    meta = {"dtype": np.dtype(dtype), "ndim": ndim, "writable": writable, "shape": shape}
    return field(metadata=meta)


@dataclass(frozen=True, slots=True)
class AdvanceArrays:
    """The arrays ``kernel.advance(arrays, policy, start)`` reads from its first argument, by
    these attribute names; ``policy`` (:data:`POLICY`) is an argument of its own. The decisions
    of a round are two lists (0: placements, 1: leads), a row of ``cd`` each (columns
    ``kernel.CD_*``), a placement's values and slot masks in ``cvals``, ``cmasks``, the
    strategies' choices in ``chosen``, in list order; the records column by column (int32)."""

    # fmt: off
    R: np.ndarray = _arg(I64, 1, shape="the rule knobs (kernel.knobs)")
    sd: np.ndarray = _arg(U64, 1, shape="4: the deal and lot prefixes, the strategies' key")
    prio: np.ndarray = _arg(I64, 1, shape="tiles in lead priority (kernel.first_priority)")
    htmpl: np.ndarray = _arg(I64, 1, shape="H_COUNT (hand_template)")
    queue: np.ndarray = _arg(I64, 1, shape="NQ: the match ids to play")
    qpos: np.ndarray = _arg(I64, 1, True, "1: the next queue position")
    st: np.ndarray = _arg(kernel.SLOT, 1, True, "B: SlotArrays.records")
    bst: np.ndarray = _arg(kernel.BSLOT, 1, True, "B in blind, else 1: SlotArrays.blind_records")
    nd: np.ndarray = _arg(I64, 1, True, "2: the lists' lengths")
    cd: np.ndarray = _arg(I64, 3, True, "[2, B, CDW]")
    chosen: np.ndarray = _arg(I64, 2, True, "[2, B]")
    cvals: np.ndarray = _arg(I64, 2, True, "[B, NP]")
    cmasks: np.ndarray = _arg(I64, 2, True, "[B, NP]")
    hdir: np.ndarray = _arg(np.int32, 2, True, "[hand columns, NQ with unit hand, else 0]")
    hrec: np.ndarray = _arg(np.int32, 2, True, "[hand columns, 0 with unit hand, else rows]")
    mdir: np.ndarray = _arg(np.int32, 2, True, "[match columns, NQ]")
    nrec: np.ndarray = _arg(I64, 1, True, "2: hrec's rows written")
    hist: np.ndarray = _arg(np.uint16, 2, True, "[B, 1 + kernel.history_bound], or [1, 0]")
    # fmt: on


# advance's policy argument: the seats' policy table (kernel.policy_table)
POLICY = {"dtype": np.dtype(I64), "ndim": 1, "writable": False}


def _declared_advance() -> list[tuple]:
    """The declaration as the core's table spells it: (name, item size, kind, dimensions,
    writable, read by name), records of kind 'V'; in the core's order, ``policy`` included."""
    rows = {}
    for f in dataclasses.fields(AdvanceArrays):
        m = f.metadata
        rows[f.name] = (f.name, m["dtype"].itemsize, m["dtype"].kind, m["ndim"], m["writable"], 1)
    p = POLICY
    rows["policy"] = ("policy", p["dtype"].itemsize, p["dtype"].kind, p["ndim"], p["writable"], 0)
    order = [row[0] for row in kernel.ADVANCE_ARRAYS]
    return [rows[n] for n in order if n in rows] + [rows[n] for n in rows if n not in order]


def check_advance(table: tuple = kernel.ADVANCE_ARRAYS) -> None:
    """Fail at import when the core's table of advance's arrays (``table``) is not this
    module's declaration: one message naming the differences and how to rebuild."""
    theirs = [(n, size, kind, ndim, int(w), int(a)) for n, size, kind, ndim, w, a in table]
    mine = [(n, size, kind, ndim, int(w), a) for n, size, kind, ndim, w, a in _declared_advance()]
    if theirs != mine:
        diff = [f"C {t}, Python {m}" for t, m in zip(theirs, mine, strict=False) if t != m]
        if len(theirs) != len(mine):
            diff.append(f"C {len(theirs)} arrays, Python {len(mine)}")
        raise ImportError(
            "dominosim's compiled core does not read the arrays dominosim/engine/arrays.py "
            f"declares for advance ({'; '.join(diff)}); reinstall the package (pip install .)"
        )


check_views()
check_advance()
