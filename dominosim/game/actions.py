"""The action encoding shared by both engines, strategies, records and traces (RULES §1.6).

An action is an integer:

* placement of tile ``t`` (0..27) on position ``p`` (index into :data:`POSITIONS`):
  ``t * 6 + p``; the same placement of a double laid *along* under
  ``inline_double_counts_single`` adds :data:`ALONG` (168);
* the lead onto the empty table is the placement of the tile on position ``L``;
* :data:`DRAW` (336), :data:`PASS` (337), :data:`STOP` (338).
"""

from __future__ import annotations

from dominosim.game import tiles

POSITIONS = ("L", "R", "W", "E", "N", "S")
POS_INDEX = {p: i for i, p in enumerate(POSITIONS)}
NPOS = len(POSITIONS)
ALONG = tiles.T * NPOS  # 168
DRAW = 2 * ALONG  # 336
PASS = DRAW + 1
STOP = DRAW + 2
NUM_ACTIONS = STOP + 1
SPECIAL = {DRAW: "draw", PASS: "pass", STOP: "stop"}


def place(tile: int, pos: str, along: bool = False) -> int:
    return tile * NPOS + POS_INDEX[pos] + (ALONG if along else 0)


def is_placement(a: int) -> bool:
    return 0 <= a < DRAW


def tile_of(a: int) -> int:
    return (a % ALONG) // NPOS


def pos_of(a: int) -> str:
    return POSITIONS[a % NPOS]


def is_along(a: int) -> bool:
    return ALONG <= a < DRAW


def describe(a: int) -> str:
    """``6-5@R``, ``3-3@L/along``, ``draw``, ``pass`` or ``stop``."""
    if a in SPECIAL:
        return SPECIAL[a]
    s = f"{tiles.name(tile_of(a))}@{pos_of(a)}"
    return s + "/along" if is_along(a) else s


def parse(s: str) -> int:
    """Inverse of :func:`describe`."""
    s = s.strip()
    for code, word in SPECIAL.items():
        if s == word:
            return code
    along = s.endswith("/along")
    if along:
        s = s[: -len("/along")]
    t, p = s.split("@")
    return place(tiles.parse(t), p, along)


def action_type_message(name: str, value: object) -> str:
    """The message for a strategy returning something that is not an action code."""
    shown = " ".join(repr(value).split())
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return (
        f"strategy '{name}' returned {shown} ({type(value).__name__}), not an action; "
        "an action is an integer code of dominosim.actions; fix the strategy"
    )
