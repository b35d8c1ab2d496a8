"""The Python side of the compiled core (``dominosim/engine/_core.c``; docs/design.md, "The
batch engine").

The core is a C extension built by ``pip install``. It plays the rules one game slot at a
time on the batch engine's own state: :func:`advance` takes every active game from where it
stands (applying the action a strategy chose for it, if one is pending) through forced moves,
draws, passes, hand ends, settlement, match ends and new deals, up to its next decision with
two or more legal actions. A seat whose strategy has a compiled policy (:data:`POLICIES`) is
decided there and then; at a decision of any other seat it stops and leaves the legal actions
(per-slot masks, or the lead mask, and the draw / pass / stop flags) and the decision's
addressed random key; the engine then asks the strategies for the whole batch through the
public interface (``Strategy.choose(obs, legal, keys)``) and calls :func:`advance` again.

This module holds what Python and C share: the rule knobs (:func:`knobs`, names checked
against the core's), the records of one game slot (:data:`SLOT`, blind's rows :data:`BSLOT`;
their layout is checked against the C structs at import; the arrays advance reads by name,
:data:`ADVANCE_ARRAYS`, are checked against ``arrays.AdvanceArrays`` at its import), the codes of phases and decision
rows, and the record columns. The core plays every variant, layout and §15 option; the
reference engine (:mod:`dominosim.reference`) is the readable specification it is tested
against, decision by decision.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from types import ModuleType

import numpy as np

from dominosim.game import actions, seeding, tiles
from dominosim.game import rules as game_rules
from dominosim.game.rules import Rules
from dominosim.game.variants import OPTION_KNOBS

try:
    from dominosim.engine import _core
except ImportError as exc:  # pragma: no cover - a source tree that was never built
    raise ImportError(
        "dominosim's compiled core (dominosim/engine/_core.c) is not built: install the "
        "package with `pip install .` (it needs a C compiler)"
    ) from exc

# every code below comes from the core (SHARED_CODES in _core.h, its constants()); a name the
# core does not export fails this import, and so does a code it exports that this module
# neither reads nor checks (check_layout)
_CODES = _core.constants()
_READ: set[str] = set()  # the codes read by _codes


def _codes(names: str) -> tuple[int, ...]:
    """The core's values of the codes ``names`` (separated by spaces)."""
    missing = [n for n in names.split() if n not in _CODES]
    if missing:
        raise ImportError(
            f"dominosim's compiled core does not export the codes {', '.join(missing)}; "
            "reinstall the package (pip install .)"
        )
    _READ.update(names.split())
    return tuple(_CODES[n] for n in names.split())


# ---------------------------------------------------------------------------------------------
# compiled policies (_policy.h): the built-in strategies deciding inside the core
# ---------------------------------------------------------------------------------------------
# the core's POLICIES by code (its X-macro list, _core.h), as strategies name them; a built-in
# strategy class declares one with ``compiled = "<name>"`` (docs/strategies.md, "Compiled
# policies"; tests/test_policies.py: the built-ins' twins are these)
POLICIES = tuple(name.replace("_", "-") for name in _core.POLICIES)
(POL_PYTHON,) = _codes("POL_PYTHON")  # the seat's strategy is asked in Python
# the learned policy's weights per seat, and the whole table's length (policy_table)
LEARN_FEATURES, POLICY_TABLE = _codes("LEARN_FEATURES POLICY_TABLE")


def policies_enabled() -> bool:
    """True unless ``DOMINOSIM_POLICIES=0`` asks every strategy through ``Strategy.choose``
    (the same records, slower; for comparisons and bench/)."""
    return os.environ.get("DOMINOSIM_POLICIES", "1") != "0"


def policy_table(
    strategies: Sequence[object] = (), compiled: bool = True, rules=None
) -> np.ndarray:
    """The seats' policy table advance takes (``POLICY_TABLE`` entries): per seat (4) the code
    of the compiled policy that decides for its strategy, or ``POL_PYTHON`` (where
    ``compiled`` is False, or the strategy declares none); then per seat the weights of its
    learned policy (``LEARN_FEATURES`` integers, the strategy's ``compiled_weights(rules)``; zeros
    for the others)."""
    out = np.zeros(POLICY_TABLE, dtype=np.int64)
    out[:4] = POL_PYTHON
    if not compiled:
        return out
    for seat, strat in enumerate(strategies):
        name = strat.compiled_policy() if hasattr(strat, "compiled_policy") else None
        if name is None:
            continue
        if name not in POLICIES:
            raise ValueError(
                f"strategy {strat.name!r} declares an unknown compiled policy "
                f"{name!r}; the core has {', '.join(POLICIES)}"
            )
        out[seat] = POLICIES.index(name)
        if name == "learned":
            w = 4 + seat * LEARN_FEATURES
            out[w : w + LEARN_FEATURES] = strat.compiled_weights(rules)
    return out


def seat_codes(table: np.ndarray) -> np.ndarray:
    """The per-seat policy codes of a policy table (:func:`policy_table`)."""
    return table[:4]


# ---------------------------------------------------------------------------------------------
# codes shared with batch.py (their values: the core's)
# ---------------------------------------------------------------------------------------------
# phases of a game slot (START: to be dealt; BOFFER: the offer of bergen_voluntary)
LEAD, TURN, MAYDRAW, AFTERDRAW, DONE, START, BOFFER = _codes(
    "LEAD TURN MAYDRAW AFTERDRAW DONE START BOFFER"
)
DOMINO, BLOCKED, TARGET = _codes("DOMINO BLOCKED TARGET")  # how a hand ended
ASK_NONE, ASK_LEAD, ASK_PLAY = _codes("ASK_NONE ASK_LEAD ASK_PLAY")  # a pending decision
# blind (§3.7): where a turn stands (bw.turn_phase), the flags of a decision and its phase name
T_START, T_FRONT, T_BACK, T_BACK_DECLINED, T_DRAWQ, T_DRAWN, T_ODRAWQ, T_OPLAY, T_CONT = _codes(
    "T_START T_FRONT T_BACK T_BACK_DECLINED T_DRAWQ T_DRAWN T_ODRAWQ T_OPLAY T_CONT"
)
F_DRAW, F_PASS, F_STOP = _codes("F_DRAW F_PASS F_STOP")
PH_PLAY, PH_FRONT, PH_DRAWN, PH_CONT, PH_AFTER = _codes(
    "PH_PLAY PH_FRONT PH_DRAWN PH_CONT PH_AFTER"
)
# a decision's phase code -> its name (Observation.phase)
_PHASE_NAMES = {
    PH_PLAY: "play",
    PH_FRONT: "blind_front",
    PH_DRAWN: "blind_drawn",
    PH_CONT: "continue",
    PH_AFTER: "after_draw",
}
PHASES = tuple(_PHASE_NAMES[code] for code in range(len(_PHASE_NAMES)))
(RB,) = _codes("RB")  # blind's row ring size (BSLOT.buf)

# rows of the engine's per-hand block (arrays.SlotArrays names them)
# fmt: off
(H_ATTEMPT, H_SP, H_SEND, H_SPIN, H_COV, H_NTABLE, H_FIRST, H_TABLE, H_DECISION, H_LAST,
 H_LENGTH, H_TURNS, H_DRAWS, H_PASSES, H_REASON, H_FISH, H_WINNER, H_OUT, H_COUNT) = _codes(
    "H_ATTEMPT H_SP H_SEND H_SPIN H_COV H_NTABLE H_FIRST H_TABLE H_DECISION H_LAST H_LENGTH "
    "H_TURNS H_DRAWS H_PASSES H_REASON H_FISH H_WINNER H_OUT H_COUNT"
)
# fmt: on
# rows of the previous-hand block
P_LEADER, P_WINNER, P_OUT, P_FISH = _codes("P_LEADER P_WINNER P_OUT P_FISH")
# columns of a decision's row in the decision lists (advance's ``cd[list, j]``): the slot, the
# addressed random key (uint64 bits), the decision number, the seat, its packed hand, blind's
# flags and phase code, a lead's tile mask, and everyone's voids (CD_VOIDS to CD_VOIDS + 3)
CD_SLOT, CD_KEY, CD_DEC, CD_SEAT, CD_HAND, CD_FLAGS, CD_PHASE, CD_LEAD, CD_VOIDS, CDW = _codes(
    "CD_SLOT CD_KEY CD_DEC CD_SEAT CD_HAND CD_FLAGS CD_PHASE CD_LEAD CD_VOIDS CDW"
)

# rule knobs, as one int64 vector: the core's names, in its order (KNOBS in _core.h)
_KNOBS = tuple(_core.KNOBS)
# the knobs' values by the Rules field's value (the core's codes)
DRAW_MODES = dict(
    zip(
        game_rules.DRAW_MODES,
        _codes("DM_NONE DM_ONE DM_UNTIL_PLAYABLE DM_NONE"),
        strict=True,
    )
)
SCORINGS = dict(
    zip(
        game_rules.SCORINGS,
        _codes("SC_NONE SC_FIVES SC_THREES SC_MUGGINS SC_BERGEN"),
        strict=True,
    )
)
# lead_first: by lot (lot_any, ladder, blind_front), else by the priority list (doubles, kozel)
LF_LOT, LF_PRIORITY = _codes("LF_LOT LF_PRIORITY")
LEAD_LATER = dict(
    zip(
        game_rules.LEAD_LATER,
        _codes(
            "LL_AS_FIRST LL_NEXT LL_WINNER_ELSE_LOT LL_WINNER_ELSE_FIRST LL_WINNER_ELSE_NEXT "
            "LL_OUT_ELSE_LOT LL_OUT_ELSE_FISHMAKER LL_LOT"
        ),
        strict=True,
    )
)
SETTLEMENTS = dict(
    zip(
        game_rules.SETTLEMENTS,
        _codes("ST_PIPS ST_BERGEN ST_BOOK ST_SNIFF ST_MUGGINS ST_KOZEL ST_PENALTIES"),
        strict=True,
    )
)
MATCH_ENDS = dict(zip(game_rules.MATCH_ENDS, _codes("ME_RACE ME_ONE_HAND ME_KOZEL"), strict=True))


def knobs(rules: Rules, unit: str) -> np.ndarray:
    """The rule knobs the core reads, as an int64 vector (a Rules struct in C): the §15
    options' own knobs from their rows of ``variants.OPTIONS`` (``OPTION_KNOBS``), then the
    structural knobs derived from the preset's fields."""
    r = rules
    blind = r.draw_mode == "blind"
    v = {knob: int(getattr(r, field)) for field, knob in OPTION_KNOBS}
    # fmt: off
    v.update({
        "P": r.players,
        "S": r.sides,
        "hand_size": r.hand_size,
        "single_end": int(r.layout == "single_end"),
        "draw_mode": DRAW_MODES[r.draw_mode],
        "limit": 1 if r.draw_mode == "one" else (r.max_draws or 28),
        "scoring": SCORINGS[r.scoring],
        "failed_turn_penalty": r.failed_turn_penalty,
        "lead_first": LF_LOT if r.lead_first in ("lot_any", "ladder", "blind_front") else LF_PRIORITY,
        "lead_later": LEAD_LATER[r.lead_later],
        "settlement": SETTLEMENTS[r.settlement],
        "domino_bonus": r.domino_bonus,
        "partnership": int(r.partnership),  # (kozel's teams are structural)
        "target": r.target,  # (two-lane and ladder fix it; sniff's book endgame sets it)
        "match_end": MATCH_ENDS[r.match_end],
        "hands_per_match": r.hands_per_match,
        "unit_hand": int(unit == "hand"),
        "npoints": r.score_columns,
        "spinner": int(r.layout == "spinner"),
        "npos": 6 if r.layout == "spinner" else 2,
        "blind": int(blind),
        # a tile from the stock starts the layout: single_end (§10.6), and blind_deal=all_tiles
        # with 3 players (§15)
        "start_tile": int(
            r.layout == "single_end" or (blind and r.blind_deal == "all_tiles" and r.players == 3)
        ),
        # blind_draw_optional: a hand is blocked whatever the stock (§3.9a)
        "block_any": int(blind and r.blind_draw_optional),
    })
    # fmt: on
    return np.array([v[name] for name in _KNOBS], dtype=np.int64)


def first_priority(rules: Rules) -> np.ndarray:
    """The tiles in the order the first leader is looked for (§1.2, §4.4, §12.4, §14.4)."""
    doubles = [tiles.tile_index(v, v) for v in range(7)]
    nd = [t for t in range(28) if not tiles.is_double(t)]
    asc = sorted(nd, key=lambda t: (int(tiles.PIPS[t]), int(tiles.HIGH[t])))
    kind = rules.lead_first
    if kind == "lowest_double":
        prio = doubles + asc
    elif kind == "highest_double":
        prio = doubles[::-1] + asc[::-1]
    elif kind == "kozel":
        if rules.players == 4:
            prio = [tiles.tile_index(1, 1)]
        else:
            order = doubles if rules.kozel_zero_double_lowest else doubles[1:] + doubles[:1]
            prio = order + asc[::-1]  # no double dealt: the highest tile leads (§14.4a)
    else:
        prio = [-1]
    return np.array(prio, dtype=np.int64)


def seeds(seed: int, players: int) -> np.ndarray:
    """The hash prefixes of the deal and lot streams, and the strategies' SipHash key (k0,
    k1) (docs/design.md, "Randomness: addressed, never sequential")."""
    return np.array(
        [
            seeding.key(seed, seeding.DEAL, players),
            seeding.key(seed, seeding.LOT, players),
            *seeding.strategy_secret(seed),
        ],
        dtype=np.uint64,
    )


# One game slot's whole state on the core, as one record (``Slot`` in _core.h), and blind's
# per-slot state (``BSlot``: the turn's sub-phase and pending decision, the rows' ring
# buffers; one unused record for other rules): each made here from the core's own list of the
# struct's fields (``_core.layout()``: name, offset, item kind and size, shape), so the layout
# is written once, in C. The engine's state arrays are views of these fields
# (``arrays.SlotArrays``), and the core works on one slot's record at a time. Sizes are the
# largest any rules need (4 seats, 6 open positions); the views show the rules' own.


def _record(core: ModuleType, name: str) -> np.dtype:
    """The numpy record of the core's struct ``name`` ("slot", "bslot"), from its fields as the
    core lists them; an ImportError (reinstall) where they do not make one record."""
    size, fields = core.layout()[name]
    end, formats = 0, []
    for field, offset, kind, itemsize, rows, cols in fields:
        shape = tuple(n for n in (rows, cols) if n)
        if offset < end or kind not in "iu" or itemsize not in (1, 2, 4, 8):
            raise ImportError(
                f"dominosim's compiled core lists the {name} record's field {field} at "
                f"offset {offset} ({kind}{itemsize}), which is not one record; reinstall the "
                "package (pip install .)"
            )
        end = offset + itemsize * int(np.prod(shape, dtype=np.int64))
        formats.append((f"{kind}{itemsize}", shape) if shape else f"{kind}{itemsize}")
    if end > size:
        raise ImportError(
            f"dominosim's compiled core lists the {name} record's fields past its {size} "
            "bytes; reinstall the package (pip install .)"
        )
    names, offsets = [f[0] for f in fields], [f[1] for f in fields]
    spec = {"names": names, "formats": formats, "offsets": offsets, "itemsize": size}
    return np.dtype(spec, align=True)


SLOT = _record(_core, "slot")
BSLOT = _record(_core, "bslot")
# game slots per engine: the speed is flat around it and the slots' records stay in cache
# (docs/design.md, "The batch engine"; bench/README.md, "Slots per engine")
MAX_SLOTS = 4096
# hand record columns (int32), the core's names (HREC_COLUMNS in _core.h): these, then
# points[npoints], pips[S], penalties[P], values[S] (hand values: kozel's §14.12, else the pip
# totals again); the core writes the queue position in the match id columns (the engine maps
# it to the match id)
HREC = tuple(_core.HREC)
# match record columns (MREC_COLUMNS): these, then scores[npoints]
MREC = tuple(_core.MREC)
# the arrays advance reads, by name, as the core takes them: (name, item size, kind, dimensions,
# writable, read as an attribute of advance's first argument); arrays.AdvanceArrays declares
# them and is checked against this table when it is imported
ADVANCE_ARRAYS = tuple(_core.ADVANCE_ARRAYS)


# ---------------------------------------------------------------------------------------------
# the core's entry points (docstrings in _core_glue.c)
# ---------------------------------------------------------------------------------------------
advance = _core.advance
check_slots = _core.check_slots
uniform_slots = _core.uniform_slots
uniform_lead = _core.uniform_lead
legal_arrays = _core.legal_arrays
best = _core.best
seat_history = _core.seat_history  # Observation.history per decision (observe.py)
gather_fields = _core.gather_fields  # the batch Observation's public fields (observe.py)
# the batch Observation's source of its public fields and history, read on first access
# (observe.py); GF_*: the widths of gather_fields' fields (GF_COUNT: a packed hand's count)
seat_source = _core.seat_source
GF_INT8, GF_INT64, GF_COUNT = _codes("GF_INT8 GF_INT64 GF_COUNT")
# in-play points of placements (scoring.placement_points), from the open ends: LegalArrays.points
# of a batch (legal_points; SeatSource.points reads the ends from the engine's records), and the
# per-decision Observation's points table from its own row, one byte per placement code,
# PT_TABLE_NONE where the definition answers (points_row)
legal_points = _core.legal_points
points_row = _core.points_row
PT_KIND, PT_SPINNER, PT_ALONG, PT_SNIFF, PT_TABLE_NONE = _codes(
    "PT_KIND PT_SPINNER PT_ALONG PT_SNIFF PT_TABLE_NONE"
)


def points_how(rules) -> int:
    """The points functions' ``how``: the scoring's code, the spinner layout, doubles laid along
    counted once (``inline_double_counts_single``), sniff's counting (``us_sniff_counting``)."""
    how = SCORINGS[rules.scoring]
    how |= PT_SPINNER if rules.layout == "spinner" else 0
    how |= PT_ALONG if rules.inline_double_counts_single else 0
    return how | (PT_SNIFF if rules.us_sniff_counting else 0)


heaviest = _core.heaviest
sample_deals = _core.sample_deals  # mc's hidden deals (strategies/mc.py)
infer_logw = _core.infer_logw  # pimc's inference: each deal's log-likelihood (strategies/mc.py)
# an inference event's columns (infer_logw's events)
IE_SEAT, IE_TILE, IE_BACK, IE_FIT, IE_COLS = _codes("IE_SEAT IE_TILE IE_BACK IE_FIT IE_COLS")
decide = _core.decide
solve = _core.solve
solve_actions = _core.solve_actions  # every legal action's value (solver.solve_actions)
leaf_values = _core.leaf_values  # the solver's value of a hand over (solver.leaf_values)
deal = _core.deal
# columns of solve's output rows (SV_* in _core.h): the value (points difference), the win
# bit, the best first action (-1: none), solved, nodes searched, the root seat, whether the
# chosen action is optimal (1, 0; -1 not asked or not known)
SV_VALUE, SV_WIN, SV_ACTION, SV_SOLVED, SV_NODES, SV_SEAT, SV_OPTIMAL, SV_COLS = _codes(
    "SV_VALUE SV_WIN SV_ACTION SV_SOLVED SV_NODES SV_SEAT SV_OPTIMAL SV_COLS"
)
# solve_actions' row width: the most legal actions of a decision
(SV_ACTS,) = _codes("SV_ACTS")
# heaviest's tie-break score packing, compiled (_policy.h) and in strategies/heaviest.py
# (tests/test_codes.py holds the two equal)
HV_CTRL, HV_VOID = _codes("HV_CTRL HV_VOID")
# a hand's public history (Observation.history): per slot a row of 16-bit events, item 0 the
# number written; the kinds, the bit fields of an event, and the codes for "none"
EV_PLACE, EV_DRAW, EV_PASS, EV_LOOK, EV_TO_BACK, EV_OPEN, EV_STOP, EV_START = _codes(
    "EV_PLACE EV_DRAW EV_PASS EV_LOOK EV_TO_BACK EV_OPEN EV_STOP EV_START"
)
EV_TILE_SHIFT, EV_POS_SHIFT, EV_ALONG_SHIFT, EV_SEAT_SHIFT, EV_KIND_SHIFT = _codes(
    "EV_TILE_SHIFT EV_POS_SHIFT EV_ALONG_SHIFT EV_SEAT_SHIFT EV_KIND_SHIFT"
)
EV_NO_TILE, EV_NO_POS, EV_NO_SEAT, EV_OVERFLOW = _codes(
    "EV_NO_TILE EV_NO_POS EV_NO_SEAT EV_OVERFLOW"
)
#: the kinds' names, by code (observe.Event.kind)
EV_KINDS = ("place", "draw", "pass", "look", "to_back", "open", "stop", "start")


def history_bound(rules) -> int:
    """The most public events one hand of ``rules`` can have (a slot's history row holds
    this many). A hand has at most 28 placements and 28 draws (the progress events), a
    starting tile, an opened row per seat and a stop per placement (blind). Around them, a
    turn with a placement adds at most a look and a tile sent back (blind), a turn with a
    draw and no placement at most a look, two tiles sent back and a pass, and a turn with
    neither a pass (in blind also a look and a tile sent back). Turns with neither come at
    most ``players`` in a row outside blind (then nobody can play and nothing is drawable:
    a block, RULES §1.12); in blind a seat's row turns by one tile in each and the layout
    stays, so within ``players`` x 28 of them a fitting tile reaches a front and is placed,
    or the hand is blocked (§3.9a)."""
    blind = rules.draw_mode == "blind"
    progress = 28 + 28
    around = 28 * (2 + 4) if blind else 28
    idle_run = rules.players * (28 if blind else 1)  # turns with neither, in a row
    idle_events = 3 if blind else 1
    return progress + 1 + rules.players + 28 + around + idle_events * idle_run * (progress + 1)


BAD_STATE = "a game slot's state is out of range"


def check_layout(core: ModuleType = _core) -> None:
    """Fail at import when the C structs, knobs or codes do not match this module's (a core
    built from other sources): one message saying so and how to rebuild."""
    problems = []
    for name, dtype in (("slot", SLOT), ("bslot", BSLOT)):
        if _record(core, name) != dtype:  # (a record made of another core's list)
            problems.append(f"the {name} record (C: {core.layout()[name]}; numpy: {dtype})")
    # what Python defines elsewhere and the core also spells out
    mine = {
        "A_DRAW": actions.DRAW,
        "A_PASS": actions.PASS,
        "A_STOP": actions.STOP,
        "A_ALONG": actions.ALONG,
        "HREC_HEAD": len(HREC),
        "MREC_HEAD": len(MREC),
    }
    theirs = core.constants()
    problems += [
        f"the code {k} (C {theirs.get(k)}, Python {v})"
        for k, v in mine.items()
        if theirs.get(k) != v
    ]
    unread = sorted(set(theirs) - _READ - set(mine))
    if unread:
        problems.append(f"codes this module does not read ({', '.join(unread)})")
    if problems:
        raise ImportError(
            "dominosim's compiled core does not match dominosim/engine/kernel.py: "
            + "; ".join(problems)
            + "; reinstall the package (pip install .)"
        )


check_layout()
