"""The integer aggregates of a run (docs/results.md, "Aggregates"): their schema (metrics,
keys, histogram bins), one rotation's aggregation of a chunk's records, the merge of chunks,
and the lookup the report and the figures read.

Data flows one way: ``runner`` plays chunks and aggregates them here; ``report`` builds the
report from the manifest and the merged aggregates; ``plots`` draws figures from (report,
aggregates). This module imports none of them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from dominosim.game.rules import Rules

if TYPE_CHECKING:
    import pandas as pd

#: the key columns of an aggregate row, and the columns of aggregates.parquet
AGG_KEYS = ("metric", "rotation", "seat", "bin", "pair")
AGG_COLUMNS = ("group", *AGG_KEYS, "value")
END_CODES = {"domino": 0, "blocked": 1, "target": 2}
HAND_LEN_BINS = 29  # 0..28
TURN_BINS = 256  # 0..255, clipped
MATCH_LEN_MAX = 500  # 1..500, clipped


def seating(seats: Sequence[str], r: int) -> tuple[str, ...]:
    """The seat labels of rotation ``r``: seat ``s`` plays ``seats[(s - r) % P]``."""
    P = len(seats)
    return tuple(seats[(s - r) % P] for s in range(P))


def add(
    agg: Counter,
    metric: str,
    value: int,
    rotation: int = -1,
    seat: int = -1,
    bin: int = -1,
    pair: str = "",
) -> None:
    v = int(value)
    if v:
        agg[(metric, int(rotation), int(seat), int(bin), pair)] += v


def counts(values: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """How many of ``values`` equal lo, lo + 1, ..., hi (values beyond count at the ends)."""
    return np.bincount(np.clip(values, lo, hi) - lo, minlength=hi - lo + 1)


def add_hist(agg: Counter, metric: str, values: np.ndarray, lo: int, hi: int) -> None:
    n = counts(values, lo, hi)
    for i in np.flatnonzero(n):
        add(agg, metric, n[i], bin=i + lo)


def aggregate_rotation(agg: Counter, rules: Rules, r: int, hands: dict, matches: dict) -> None:
    """Add one rotation's records to the integer aggregates (docs/results.md). (Counts by one
    bincount each, the masks only where a hand ended by target: a chunk's aggregation stays a
    few percent of its time.)"""
    side_of = np.array([rules.side_of(s) for s in range(rules.players)], dtype=np.int64)
    wins = _hand_aggregates(agg, r, hands, side_of)
    mwins = _match_aggregates(agg, hands, matches, side_of)
    _seat_aggregates(agg, rules, r, (hands, matches), (wins, mwins))


def _hand_aggregates(agg: Counter, r: int, hands: dict, side_of: np.ndarray) -> np.ndarray:
    """The hands' counts, lengths, leads and points; returns the hands' wins by side
    (no winner first)."""
    n = len(hands["match_id"])
    er = hands["end_reason"]
    win = hands["winner"]
    ends = counts(er, 0, 2)  # domino, blocked, target
    wins = counts(win, -1, 3)  # no winner, side 0, 1, 2, 3
    hl, tu = hands["hand_length"], hands["turns"]
    if ends[2]:  # lengths count scored hands only (domino, blocked)
        scored = er <= 1
        hl, tu = hl[scored], tu[scored]
    add(agg, "hands", n)
    add(agg, "domino", ends[0])
    add(agg, "blocked", ends[1])
    add(agg, "target", ends[2])
    add(agg, "hand_ties", wins[0])
    add(agg, "hand_length_sum", hl.sum())
    add(agg, "turns_sum", tu.sum())
    add(agg, "draws_sum", hands["draws"].sum())
    add(agg, "passes_sum", hands["passes"].sum())
    add(agg, "redeals_sum", hands["redeals"].sum())
    add_hist(agg, "hand_length_hist", hl, 0, HAND_LEN_BINS - 1)
    add_hist(agg, "turns_hist", tu, 0, TURN_BINS - 1)
    lead = hands["leader"]
    ok = lead >= 0
    add(agg, "leader_hands", ok.sum())
    add(agg, "leader_wins", (ok & (win >= 0) & (side_of[np.where(ok, lead, 0)] == win)).sum())
    pts = hands["points"].reshape(n, -1)
    for c in range(pts.shape[1]):
        add(agg, "points_sum", pts[:, c].sum(), rotation=r, bin=c)
    return wins


def _match_aggregates(agg: Counter, hands: dict, matches: dict, side_of: np.ndarray):
    """The matches' counts and lengths and the first leader's match wins; returns the
    matches' wins by side (no winner first)."""
    n = len(hands["match_id"])
    nm = len(matches["match_id"])
    mwin = matches["winner"]
    mwins = counts(mwin, -1, 3)
    add(agg, "matches", nm)
    add(agg, "match_ties", mwins[0])
    add_hist(agg, "match_length_hist", matches["hands"], 1, MATCH_LEN_MAX)
    h0 = hands["hand_index"] == 0  # the side that led a match's first hand, and the result
    if nm and h0.any():
        if nm == n and h0.all():  # (unit hand: hand k is match k's)
            at = np.arange(n)
        else:
            at = np.searchsorted(matches["match_id"], hands["match_id"][h0])
        lead0 = hands["leader"][h0]
        ok0 = (lead0 >= 0) & (at < nm)
        mw0 = mwin[np.minimum(at, nm - 1)]
        add(agg, "first_leader_matches", ok0.sum())
        add(
            agg,
            "first_leader_match_wins",
            (ok0 & (mw0 >= 0) & (side_of[np.where(ok0, lead0, 0)] == mw0)).sum(),
        )
    return mwins


def _seat_aggregates(agg: Counter, rules: Rules, r: int, records: tuple, wins: tuple) -> None:
    """Each seat's hands, matches and points in rotation ``r``: ``records`` is (hands,
    matches), ``wins`` the wins by side of each."""
    hands, matches = records
    hand_wins, match_wins = wins
    n, nm = len(hands["match_id"]), len(matches["match_id"])
    pts = hands["points"].reshape(n, -1)
    losers = matches["losers"]
    for s in range(rules.players):
        side = rules.side_of(s)
        add(agg, "seat_hands", n, r, s)
        add(agg, "seat_hand_wins", hand_wins[side + 1], r, s)
        add(agg, "seat_hand_ties", hand_wins[0], r, s)
        add(agg, "seat_matches", nm, r, s)
        add(agg, "seat_match_wins", match_wins[side + 1], r, s)
        add(agg, "seat_match_ties", match_wins[0], r, s)
        if losers.any():
            add(agg, "seat_match_losses", ((losers >> side) & 1).sum(), r, s)
        col = rules.score_column(s)
        if col < pts.shape[1]:
            add(agg, "seat_points", pts[:, col].sum(), r, s)


def per_match_wins(rules: Rules, hands: dict, matches: dict, start: int, n_ids: int) -> tuple:
    """``[P, n_ids]`` hand wins and match wins of each seat per match id, hands per match."""
    P = rules.players
    mid = hands["match_id"] - start
    hw = np.zeros((P, n_ids), dtype=np.int64)
    mw = np.zeros((P, n_ids), dtype=np.int64)
    mm = matches["match_id"] - start
    if len(mid) == n_ids == len(mm) and n_ids and mid[-1] == n_ids - 1 and mm[-1] == n_ids - 1:
        # one hand per match id, sorted (unit hand): the counts are the comparisons themselves
        for s in range(P):
            side = rules.side_of(s)
            hw[s] = hands["winner"] == side
            mw[s] = matches["winner"] == side
        return hw, mw, np.ones(n_ids, dtype=np.int64)
    for s in range(P):
        side = rules.side_of(s)
        hw[s] = np.bincount(mid, weights=(hands["winner"] == side), minlength=n_ids)
        mw[s] = np.bincount(mm, weights=(matches["winner"] == side), minlength=n_ids)
    nh = np.bincount(mid, minlength=n_ids).astype(np.int64)
    return hw, mw, nh


def per_match_points(rules: Rules, hands: dict, start: int, n_ids: int) -> np.ndarray:
    """``[P, n_ids]``: the points of each seat's side (of the seat itself where points are
    per seat: two-lane, ladder) summed over each match id's hands."""
    P = rules.players
    n = len(hands["match_id"])
    pts = hands["points"].reshape(n, -1).astype(np.int64)
    cols = [rules.score_column(s) for s in range(P)]  # (as aggregate_rotation)
    if n == n_ids and (not n or hands["match_id"][-1] - start == n_ids - 1):
        return np.stack([pts[:, c] for c in cols]) if P else np.zeros((0, n_ids), np.int64)
    mid = hands["match_id"] - start
    out = np.zeros((P, n_ids), dtype=np.int64)
    for s, c in enumerate(cols):
        out[s] = np.bincount(mid, weights=pts[:, c], minlength=n_ids).astype(np.int64)
    return out


#: Every metric a chunk's aggregates may hold (docs/results.md, "Aggregates").
METRICS = frozenset(
    """
    hands domino blocked target hand_ties hand_length_sum turns_sum draws_sum passes_sum
    redeals_sum hand_length_hist turns_hist leader_hands leader_wins points_sum matches
    match_ties match_length_hist first_leader_matches first_leader_match_wins seat_hands
    seat_hand_wins seat_hand_ties seat_matches seat_match_wins seat_match_ties
    seat_match_losses seat_points pair_deals pair_hands pair_hand_sum pair_hand_sumsq
    pair_match_sum pair_match_sumsq pair_points_sum pair_points_sumsq pair_hands_sumsq
    pair_points_hands deals_seated
    deals_decided pi_deals pi_solved pi_leader_wins pi_value_sum pi_value_sumsq pi_nodes
    acc_decisions acc_rated acc_optimal acc_hands acc_n2 acc_on acc_o2
""".split()
)
#: The metrics a chunk's records file (one row a hand: docs/results.md) determines: a chunk
#: whose records exist has these aggregates equal to those of its records (the cross-check of
#: ``--resume``, :func:`from_records`).
RECORD_METRICS = frozenset(
    """
    hands domino blocked target hand_ties hand_length_sum turns_sum draws_sum passes_sum
    redeals_sum hand_length_hist turns_hist leader_hands leader_wins points_sum seat_hands
    seat_hand_wins seat_hand_ties seat_points
""".split()
)


_HAND_COLUMNS = ("match_id", "hand_index", "end_reason", "winner", "hand_length", "turns")
_HAND_COLUMNS += ("draws", "passes", "redeals", "leader")


def from_records(rules: Rules, cols: Mapping[str, np.ndarray]) -> Counter:
    """The :data:`RECORD_METRICS` aggregates of a chunk's records (column arrays as the
    records file holds them: ``rotation``, ``match_id``, ``hand_index``, ``end_reason``, ...,
    ``points_0`` ...)."""
    agg: Counter = Counter()
    empty = np.zeros(0, dtype=np.int64)
    matches = {"match_id": empty, "winner": empty, "hands": empty, "losers": empty}
    n_points = sum(1 for k in cols if k.startswith("points_"))
    rot = np.asarray(cols["rotation"])
    for r in np.unique(rot):
        at = rot == r
        hands = {k: np.asarray(cols[k])[at].astype(np.int64) for k in _HAND_COLUMNS}
        points = [np.asarray(cols[f"points_{c}"])[at].astype(np.int64) for c in range(n_points)]
        n = int(at.sum())
        hands["points"] = np.stack(points, axis=1) if points else np.zeros((n, 0), np.int64)
        aggregate_rotation(agg, rules, int(r), hands, matches)
    return Counter({k: v for k, v in agg.items() if k[0] in RECORD_METRICS and v})


#: The metrics whose values may be negative (sums of points or of differences); every other
#: value is a count.
SIGNED = frozenset(
    {
        "points_sum",
        "seat_points",
        "pair_hand_sum",
        "pair_match_sum",
        "pair_points_sum",
        "pair_points_hands",
        "pi_value_sum",
    }
)
#: No value of one chunk reaches this (a chunk plays far fewer games); a larger one is damage.
VALUE_LIMIT = 2**53
#: (smaller, larger): in every chunk, the first metric's value is at most the second's
#: (by key: the same rotation, seat and pair).
# fmt: off
AT_MOST = (("hand_ties", "hands"), ("leader_hands", "hands"), ("leader_wins", "leader_hands"),
           ("match_ties", "matches"), ("first_leader_matches", "matches"),
           ("first_leader_match_wins", "first_leader_matches"),
           ("seat_hand_wins", "seat_hands"), ("seat_hand_ties", "seat_hands"),
           ("seat_match_wins", "seat_matches"), ("seat_match_ties", "seat_matches"),
           ("seat_match_losses", "seat_matches"), ("deals_decided", "deals_seated"),
           ("pi_solved", "pi_deals"), ("pi_leader_wins", "pi_solved"),
           ("acc_rated", "acc_decisions"), ("acc_optimal", "acc_rated"))
# fmt: on


class Merger:
    """Integer aggregates merged incrementally, keyed by (group, metric, rotation, seat, bin,
    pair); per-group timings kept beside them (floats, not aggregates)."""

    def __init__(self, n_groups: int):
        self.agg: Counter = Counter()
        self.cpu = [0.0] * n_groups
        self.wall = [0.0] * n_groups
        self.games = 0
        self.hands = 0

    def add(self, result) -> None:
        """Merge one chunk's result (a :class:`~dominosim.analysis.chunk.ChunkResult`, which
        imports this module: not imported here)."""
        group = result.group
        for metric, rotation, seat, bin_, pair, value in result.rows:
            self.agg[(group, metric, rotation, seat, bin_, pair)] += int(value)
        self.cpu[group] += float(result.timing.cpu_seconds)
        self.wall[group] += float(result.timing.wall_seconds)
        self.games += int(result.games)
        self.hands += int(result.hands)

    def rows(self) -> list[tuple]:
        return sorted((*k, v) for k, v in self.agg.items() if v)

    def frame(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(AGG_COLUMNS))


class Aggregates:
    """Lookup of one group's aggregate rows: ``(metric, rotation, seat, bin, pair) -> value``
    (``frame``: that group's rows as a DataFrame; None: none yet)."""

    def __init__(self, frame: pd.DataFrame | None = None) -> None:
        self.d: dict[tuple, int] = {}
        if frame is not None:
            cols = (*AGG_KEYS, "value")
            for metric, r, s, b, pair, v in zip(*(frame[c].tolist() for c in cols), strict=True):
                self.d[(metric, int(r), int(s), int(b), pair)] = int(v)

    @classmethod
    def by_group(cls, aggregates: pd.DataFrame | Iterable[Sequence]) -> dict[int, Aggregates]:
        """Each group's lookup, from the aggregates as a DataFrame (the columns of
        ``aggregates.parquet``) or as ``(group, metric, rotation, seat, bin, pair, value)`` rows
        (:meth:`Merger.rows`, which a run uses: it needs no pandas)."""
        if hasattr(aggregates, "columns"):
            aggregates = zip(*(aggregates[c].tolist() for c in AGG_COLUMNS), strict=True)
        out: dict[int, Aggregates] = {}
        for g, metric, r, s, b, pair, v in aggregates:
            out.setdefault(int(g), cls()).d[(metric, int(r), int(s), int(b), pair)] = int(v)
        return out

    def get(
        self, metric: str, rotation: int = -1, seat: int = -1, bin: int = -1, pair: str = ""
    ) -> int:
        return self.d.get((metric, rotation, seat, bin, pair), 0)

    def hist(self, metric: str, lo: int, hi: int) -> list[int]:
        return [self.get(metric, bin=i) for i in range(lo, hi + 1)]
