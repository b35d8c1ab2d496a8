"""In-play points of a placement, computed from an Observation (for strategies).

:func:`placement_points` answers "how many points would this placement score now" with the
rules of §1.11 (end count), §4.8 (bergen headers), §5.8, §6.8, §7.8 and §11.8, without the
target cap. Strategies use it to look one move ahead; the engines score for themselves.
"""

from __future__ import annotations

from collections.abc import Iterable

from dominosim.game import actions, tiles
from dominosim.game.observe import Observation


def end_count_after(obs: Observation, action: int) -> int | None:
    """The end count c after ``action`` (None for a non-placement)."""
    if not actions.is_placement(action):
        return None
    lo, hi = tiles.halves(actions.tile_of(action))
    if not obs.positions and not obs.table:  # the lead: rule 1
        return lo + hi
    if obs.spinner is None:
        return _count_no_spinner(obs, action)
    return _count_spinner(obs, action)


def _open_ends(obs: Observation) -> dict:
    """Each open position's ``[value, double, laid along]``."""
    # fmt: off
    return {p: [v, obs.doubles[i] if obs.doubles else False,
                obs.along[i] if obs.along else False]
            for i, (p, v) in enumerate(obs.positions)}
    # fmt: on


def _end_value(v: int, double: bool, along: bool) -> int:
    """What an open end adds to the count: its value, twice for a double laid across."""
    return v * (2 if double and not along else 1)


def _count_no_spinner(obs: Observation, action: int) -> int:
    """The end count after ``action`` on a layout without a spinner yet (§1.11); on a spinner
    layout the first double becomes the spinner, W covered (§1.9)."""
    r, ends = obs.rules, _open_ends(obs)
    t, pid = actions.tile_of(action), actions.pos_of(action)
    lo, hi = tiles.halves(t)
    d = lo == hi
    v = ends[pid][0]
    if r.layout == "spinner" and d:
        other = ends["R" if pid == "L" else "L"]
        return _end_value(*other) + _spinner_share(r, v, 1)
    along = r.inline_double_counts_single and actions.is_along(action) and d
    ends[pid] = [tiles.other_half(t, v), d, along]
    return sum(_end_value(*e) for e in ends.values())


def _count_spinner(obs: Observation, action: int) -> int:
    """The end count after ``action`` around a spinner (§1.9, §1.11): the covered arms and
    the arm played on, and the spinner's share."""
    ends = _open_ends(obs)
    t, pid = actions.tile_of(action), actions.pos_of(action)
    lo, hi = tiles.halves(t)
    arms = {p: e for p, e in ends.items() if p in obs.covered}
    arms[pid] = [tiles.other_half(t, ends[pid][0]), lo == hi, False]
    count = sum(_end_value(v, d, False) for v, d, _ in arms.values())
    return count + _spinner_share(obs.rules, obs.spinner, len(arms))


def _spinner_share(r, v: int, k: int) -> int:
    if r.us_sniff_counting:
        return 2 * v if k <= 2 else (v if k == 3 else 0)
    return 2 * v if k <= 1 else 0


def placement_points(obs: Observation, action: int) -> int:
    """In-play points the placement would score for the placer's side (0 if none).

    An Observation of the batch engine (``dominosim run``'s) gets, on its first call, its
    decision's points of every placement, written by the core from its open ends
    (engine/batch_observation.py, ``points_table``); later calls look them up. Any other
    Observation (the reference engine's, one built with its fields), a code the table leaves
    open (a position not open, a tile that does not fit it) or an action not a plain ``int``
    is answered by :func:`points_by_definition`, which the table equals.
    """
    try:
        table = obs._pts
    except AttributeError:  # (an Observation built with its fields)
        table = b""
    if table is None:
        table = obs._how.points_table(obs)
    if table and type(action) is int and 0 <= action < actions.DRAW:
        points = table[action]
        if points != _NO_POINTS:
            return points
    return points_by_definition(obs, action)


_NO_POINTS = 255  # a code the table leaves to the definition (kernel.PT_TABLE_NONE)


def points_by_definition(obs: Observation, action: int) -> int:
    """:func:`placement_points` computed from the Observation's fields: §1.11's end count
    (:func:`end_count_after`), §4.8's bergen headers, §5.8, §6.8, §11.8's points."""
    r = obs.rules
    if not actions.is_placement(action) or r.scoring == "none":
        return 0
    if r.scoring == "bergen":
        t = actions.tile_of(action)
        if not obs.positions:
            return 2 if tiles.is_double(t) else 0
        ends = {p: [v, obs.doubles[i]] for i, (p, v) in enumerate(obs.positions)}
        pid = actions.pos_of(action)
        ends[pid] = [tiles.other_half(t, ends[pid][0]), tiles.is_double(t)]
        (v1, d1), (v2, d2) = ends["L"], ends["R"]
        return 0 if v1 != v2 else (3 if d1 or d2 else 2)
    return count_points(r, end_count_after(obs, action))


def count_points(r, c: int) -> int:
    """The in-play points of an end count ``c`` (§5.8, §6.8, §11.8: fives, threes, muggins)."""
    m = 3 if r.scoring == "threes" else 5
    if c <= 0 or c % m:
        return 0
    return c if r.scoring == "muggins" else c // m


def ends_after(obs: Observation, action: int) -> list[int]:
    """The open end values after the placement ``action`` (strategies' one-move lookahead).

    The lead opens both halves of its tile; a placement replaces the value of its position by
    the tile's other half. On a spinner the arms it would open later are not predicted (a
    double becoming the spinner shows its value on both sides). A non-placement leaves the
    ends as they are.
    """
    ends = [v for _, v in obs.positions]
    if not actions.is_placement(action):
        return ends
    t = actions.tile_of(action)
    lo, hi = tiles.halves(t)
    if not obs.positions:
        return [lo, hi]
    pid = actions.pos_of(action)
    for i, (p, v) in enumerate(obs.positions):
        if p == pid:
            ends[i] = tiles.other_half(t, v)
            if obs.rules.layout == "spinner" and obs.spinner is None and lo == hi:
                ends.append(v)  # the new spinner's far side
            break
    return ends


def suit_counts(hand: Iterable[int]) -> list[int]:
    """Per value 0..6, how many tiles of ``hand`` carry it (a double counts once)."""
    out = [0] * 7
    for t in hand:
        lo, hi = tiles.halves(t)
        out[lo] += 1
        if hi != lo:
            out[hi] += 1
    return out
