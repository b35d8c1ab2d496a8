"""The worker: strategies in workers (the timeout, the guard) and playing one work item."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from dominosim import strategy
from dominosim.analysis.aggregates import (
    add,
    aggregate_rotation,
    per_match_points,
    per_match_wins,
    seating,
)
from dominosim.analysis.chunk import ChunkResult, Row, Timing
from dominosim.base import debug, signals
from dominosim.base.errors import StrategyError
from dominosim.game.rules import Rules
from dominosim.runner import isolated
from dominosim.runner.files import changed_strategy_file, load_run_files
from dominosim.runner.plan import WorkItem
from dominosim.strategy import sandbox
from dominosim.strategy.spec import parse_strategy

if TYPE_CHECKING:
    import pyarrow as pa


class StrategyTimeout(BaseException):
    """Raised inside a strategy that overran ``--strategy-timeout`` (not an Exception, so the
    strategy's own ``except Exception`` does not swallow it)."""


def _on_alarm(signum, frame):
    raise StrategyTimeout


def _async_raise(tid: int, exc: type | None) -> None:
    """Raise ``exc`` in thread ``tid`` at its next Python instruction (None: cancel)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(tid), None if exc is None else ctypes.py_object(exc)
    )


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise StrategyTimeout in the block after ``seconds`` (0: no limit). In the main
    thread a SIGALRM timer (it also ends a blocking call such as ``time.sleep``); in any other
    thread (the Python API called from a thread, a Dask worker) a timer thread raises it in
    this one at its next Python instruction."""
    import threading

    if seconds <= 0:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return
    tid, lock, state = threading.get_ident(), threading.Lock(), {"on": True, "fired": False}

    def fire() -> None:
        with lock:
            if state["on"]:
                state["fired"] = True
                _async_raise(tid, StrategyTimeout)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["on"] = False
            timer.cancel()
            if state["fired"]:  # (raised already, or still pending: never later than here)
                _async_raise(tid, None)


#: The time limit of a block (:func:`_time_limit`), for check.py's strategies.
time_limit = _time_limit


@strategy.wrapper
class GuardedStrategy:
    """A seat's strategy as a worker plays it. ``choose`` runs under the item's time limit
    (``timeout`` seconds per decision batch; 0: none); its result, if not integers of the right
    shape, is refused with the message every path gives (strategy.check_actions); a
    KeyboardInterrupt or GeneratorExit the strategy raises itself is its error (a real Ctrl-C
    or SIGTERM, noted by dominosim.signals, stays an interruption). What the engine reads of a
    strategy besides ``choose`` (its label, its compiled policy and weights) the wrapper
    declares and asks the strategy for; nothing else is forwarded (no ``__getattr__``)."""

    def __init__(self, inner: strategy.Strategy, timeout: float = 0.0):
        self.inner = inner
        self.name = getattr(inner, "label", inner.name)
        self.timeout = float(timeout or 0.0)

    @property
    def label(self) -> str:
        """The seat label it plays under (the strategy's ``label``, else its ``name``)."""
        return self.name

    def compiled_policy(self) -> str | None:
        """The compiled policy that decides for the strategy (``Strategy.compiled_policy``;
        the engine's ``kernel.policy_table`` asks), or None: its Python decides."""
        ask = getattr(self.inner, "compiled_policy", None)
        return ask() if ask is not None else None

    def compiled_weights(self, rules) -> object:
        """The weights of the strategy's learned policy (``kernel.policy_table`` asks where
        :meth:`compiled_policy` is ``learned``)."""
        return self.inner.compiled_weights(rules)

    def choose(self, obs, legal, keys):
        name, limit = self.name, self.timeout
        try:
            with _time_limit(limit):
                out = self.inner.choose(obs, legal, keys)
        except StrategyTimeout:
            raise StrategyError(isolated.timeout_message(name, limit)) from None
        except BaseException as exc:  # (its own BaseException subclass too: its error)
            if isinstance(exc, Exception | SystemExit) or signals.is_interruption(exc):
                raise
            raise debug.raised(name, exc, debug.strategy_file(self.inner)) from None
        return strategy.check_actions(name, out, len(keys))


def make_strategy(
    label: str,
    files: Sequence[tuple[str, str, str]] = (),
    timeout: float = 0.0,
    isolate: bool = False,
) -> GuardedStrategy:
    """The strategy of a seat label (``name:key=value``), guarded with ``timeout`` seconds per
    decision batch (:class:`GuardedStrategy`), loading the run's strategy ``files`` first
    (:func:`load_run_files`). Instances are kept per label and file version (the registry's
    ``instances``); a strategy file changed since it was loaded is loaded again (a long-lived
    process plays the file as it is now). ``isolate``: a user's strategy is played in a fresh process of its own
    (:class:`~dominosim.runner.isolated.IsolatedStrategy`, which loads its files there, under
    the timeout) and no user's file is loaded here."""
    if isolate:
        if not isolated.is_builtin(label):
            key = ("isolated", label, tuple(files), timeout)
            made = strategy.REGISTRY.instances
            if key not in made:
                made[key] = isolated.IsolatedStrategy(label, files, timeout)
            return GuardedStrategy(made[key])
        files = ()
    load_run_files(files)
    spec = parse_strategy(label)
    key = (label, tuple(files), *strategy.loaded_version(spec.name))
    made = strategy.REGISTRY.instances
    if key not in made:
        made[key] = strategy.get(spec.name, **spec.kwargs)
    return GuardedStrategy(made[key], timeout)


# ---------------------------------------------------------------------------------------------
# the worker


def _play_batch(rules, seed, strategies, ids, unit):
    from dominosim.engine import BatchEngine

    eng = BatchEngine(rules, seed, strategies, ids, unit=unit)  # (its batch: kernel.MAX_SLOTS)
    return eng.run()


def play(
    rules: Rules,
    seed: int,
    strategies: Sequence[strategy.Strategy],
    ids: Sequence[int] | range,
    unit: str,
) -> tuple[dict, dict]:
    """Play match ids ``ids`` on the batch engine. Returns (hands, matches) dicts of arrays."""
    return _play_batch(rules, seed, strategies, ids, unit)


def _sorted(d: dict, keys: Sequence[str]) -> dict:
    """The records ordered by ``keys`` (the engines return them so: then only checked)."""
    if not d or not len(d[keys[0]]):
        return d
    first = d[keys[0]]
    step = first[1:] - first[:-1]
    ok = step > 0
    if len(keys) > 1:
        ok |= (step == 0) & (d[keys[1]][1:] > d[keys[1]][:-1])
    if ok.all():
        return d
    order = np.lexsort(tuple(d[k] for k in reversed(keys)))
    return {k: v[order] for k, v in d.items()}


@dataclass(frozen=True)
class ChunkPlayed:
    """What a worker gives back of a chunk: its result (the run's fingerprint left for the
    session that writes it, :meth:`ChunkResult.of_run`) and its records, dicts of column
    arrays (None: the run keeps none)."""

    result: ChunkResult
    records: dict | None
    match_records: dict | None


def play_item(item: WorkItem, tick: Callable[[int], None] | None = None) -> ChunkPlayed:
    """:func:`_play_item`, with a strategy's prints sent to stderr (on every executor: the
    report alone goes to stdout)."""
    import contextlib

    with contextlib.redirect_stdout(sys.stderr):
        return _play_item(item, tick)


def _play_item(item: WorkItem, tick=None) -> ChunkPlayed:
    """Play one work item (every rotation of its ids); the worker's whole job.

    ``tick`` (optional): called with the number of games played after each slice of ids
    (:func:`_slices`), for a progress bar that moves while a chunk is played.
    """
    started, cpu_started = time.perf_counter(), time.process_time()
    _check_unchanged(item)
    rules = item.rules
    ids = range(item.start, item.stop)
    agg: Counter = Counter()
    tally = PairTally(item.seats, len(ids))
    guarded = {
        x: make_strategy(x, item.strategy_files, item.strategy_timeout, item.isolate)
        for x in dict.fromkeys(item.seats)
    }  # (one object a label: one batch a label)
    parts, match_parts = [], []
    n_hands = 0
    for r in item.rotations:
        seat_labels = seating(item.seats, r)
        strategies = [guarded[x] for x in seat_labels]
        hands, matches = _play_sliced(rules, item, strategies, ids, tick)
        hands = _sorted(hands, ("match_id", "hand_index"))
        matches = _sorted(matches, ("match_id",))
        n_hands += len(hands["match_id"])
        aggregate_rotation(agg, rules, r, hands, matches)
        tally.add_rotation(rules, seat_labels, hands, matches, item.start)
        if item.records:
            parts.append(_record_columns(item, r, seat_labels, hands))
            match_parts.append(_match_columns(item, r, seat_labels, matches))
        if item.measure is not None:
            item.measure.rotation(agg, item, seat_labels, strategies)
    tally.add_pairs(agg)
    if item.measure is not None:
        item.measure.chunk(agg, item)
    _deals_decided(agg, item, tally)
    records, match_records = _joined(parts), _joined(match_parts)
    result = ChunkResult(
        run=None,
        group=item.group,
        chunk=item.chunk,
        start=item.start,
        stop=item.stop,
        games=item.games,
        hands=n_hands,
        timing=Timing(time.process_time() - cpu_started, time.perf_counter() - started),
        rows=tuple(sorted(Row(*key, v) for key, v in agg.items())),
    )
    return ChunkPlayed(result, records, match_records)


def _deals_decided(agg: Counter, item: WorkItem, tally: PairTally) -> None:
    """Where every seating of a deal was played: how many deals the deal decided (the same
    side won the hand in every seating)."""
    if len(item.rotations) > 1 and len(tally.winners) == len(item.rotations):
        winners = np.array(tally.winners)
        decided = (winners[0] >= 0) & (winners == winners[0]).all(axis=0)
        add(agg, "deals_seated", item.stop - item.start)
        add(agg, "deals_decided", decided.sum())


def _joined(parts: list[dict]) -> dict | None:
    """The rotations' record columns joined (None: no records kept)."""
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]} if parts else None


def _check_unchanged(item: WorkItem) -> None:
    """Refuse to play a chunk when a strategy file of the run changed since it began."""
    changed = changed_strategy_file(item.strategy_files)
    if changed is not None:
        raise StrategyError(
            f"strategy file {changed} changed while the run was playing; the run's chunks "
            "must all come from one version of it, so start a new run"
        )


class PairTally:
    """Per deal of a chunk and per strategy label, summed over the seatings and the deal's
    hands: hands won, matches won, points of its seats' sides (by seat where points are per
    seat); and hands played per deal. From them, each pair of labels'
    paired differences (``pair_*`` aggregates; a label seated twice counts by its seats)."""

    def __init__(self, seats: Sequence[str], n_deals: int):
        self.labels = list(dict.fromkeys(seats))
        self.seat_count = {x: seats.count(x) for x in self.labels}
        self.n_deals = n_deals
        zeros = lambda: {x: np.zeros(n_deals, dtype=np.int64) for x in self.labels}  # noqa: E731
        self.hand_wins, self.match_wins, self.points = zeros(), zeros(), zeros()
        self.hands_per_deal = np.zeros(n_deals, dtype=np.int64)
        self.winners: list[np.ndarray] = []  # per seating with one hand per deal: its winners

    def add_rotation(self, rules, seat_labels, hands: dict, matches: dict, start: int) -> None:
        hand_wins, match_wins, n_hands = per_match_wins(rules, hands, matches, start, self.n_deals)
        self.hands_per_deal += n_hands
        for s, x in enumerate(seat_labels):
            self.hand_wins[x] += hand_wins[s]
            self.match_wins[x] += match_wins[s]
        pts = per_match_points(rules, hands, start, self.n_deals)
        for s, x in enumerate(seat_labels):
            self.points[x] += pts[s]
        if len(hands["match_id"]) == self.n_deals:  # (sorted: one hand per match id)
            self.winners.append(hands["winner"])

    def add_pairs(self, agg: Counter) -> None:
        """Each pair's ``pair_*`` sums over the chunk's deals: of the per-deal differences of
        hand wins, match wins and points (Σd, Σd²), the hands per deal (Σn, Σn²) and, for the
        points per hand (a ratio over deals of unequal length), Σd·n."""
        count = self.seat_count
        n = self.hands_per_deal
        for i, a in enumerate(self.labels):
            for b in self.labels[i + 1 :]:
                pair = f"{a} vs {b}"
                hand_diff = self.hand_wins[a] * count[b] - self.hand_wins[b] * count[a]
                match_diff = self.match_wins[a] * count[b] - self.match_wins[b] * count[a]
                points_diff = self.points[a] * count[b] - self.points[b] * count[a]
                add(agg, "pair_deals", self.n_deals, pair=pair)
                add(agg, "pair_hands", n.sum(), pair=pair)
                add(agg, "pair_hands_sumsq", (n * n).sum(), pair=pair)
                add(agg, "pair_hand_sum", hand_diff.sum(), pair=pair)
                add(agg, "pair_hand_sumsq", (hand_diff * hand_diff).sum(), pair=pair)
                add(agg, "pair_match_sum", match_diff.sum(), pair=pair)
                add(agg, "pair_match_sumsq", (match_diff * match_diff).sum(), pair=pair)
                add(agg, "pair_points_sum", points_diff.sum(), pair=pair)
                add(agg, "pair_points_sumsq", (points_diff * points_diff).sum(), pair=pair)
                add(agg, "pair_points_hands", (points_diff * n).sum(), pair=pair)


#: Progress slices: the first plays this many match ids, later ones aim at this many seconds.
SLICE_FIRST_IDS = 256
SLICE_SECONDS = 0.5


def _slices(ids: range) -> Iterator[range]:
    """``ids`` cut into consecutive slices: the first of :data:`SLICE_FIRST_IDS` ids, then
    growing (at most four times the one before) while a slice takes less than
    :data:`SLICE_SECONDS`. Deals and strategy draws are addressed by match id,
    so playing slices gives the records of playing ``ids`` at once (any chunk size does)."""
    size, i = SLICE_FIRST_IDS, ids.start
    while i < ids.stop:
        t = time.perf_counter()
        s = range(i, min(ids.stop, i + size))
        yield s
        i = s.stop
        dt = max(time.perf_counter() - t, 1e-3)
        size = max(size, min(4 * size, int(size * SLICE_SECONDS / dt)))  # (never smaller:
        # every slice pays the engine's tail, the steps of its last few games)


def _play_sliced(rules, item: WorkItem, strategies, ids: range, tick):
    """:func:`play` of ``ids``; with ``tick``, slice by slice, calling ``tick(games)`` after
    each (without, in one call: the engine's fastest)."""
    if tick is None:
        return play(rules, item.seed, strategies, ids, item.unit)
    parts = []
    for s in _slices(ids):
        parts.append(play(rules, item.seed, strategies, s, item.unit))
        tick(len(s))
    if len(parts) == 1:
        return parts[0]
    return tuple({k: np.concatenate([p[j][k] for p in parts]) for k in parts[0][j]} for j in (0, 1))


def _record_columns(item: WorkItem, r: int, seat_labels, hands: dict) -> dict:
    n = len(hands["match_id"])
    cols = {
        "group": np.full(n, item.group, dtype=np.int32),
        "rotation": np.full(n, r, dtype=np.int16),
        "match_id": hands["match_id"].astype(np.int64),
        "hand_index": hands["hand_index"].astype(np.int32),
    }
    labels = list(dict.fromkeys(item.seats))
    for s, x in enumerate(seat_labels):  # codes into the item's labels; see records_table
        cols[f"strategy_{s}"] = np.full(n, labels.index(x), dtype=np.int8)
    cols["deal"] = deal_keys(
        item.seed, item.rules.players, hands["match_id"], hands["hand_index"], hands["redeals"]
    )
    for key in (
        "leader",
        "end_reason",
        "fish_maker",
        "winner",
        "went_out",
        "hand_length",
        "turns",
        "draws",
        "passes",
        "redeals",
    ):
        cols[key] = hands[key].astype(np.int16 if key != "turns" else np.int32)
    keys = ("points", "pips", "penalties") + (("values",) if item.rules.variant == "kozel" else ())
    for key in keys:
        a = hands[key].reshape(n, -1)
        for c in range(a.shape[1]):
            cols[f"{key}_{c}"] = a[:, c].astype(np.int32)
    return cols


def _match_columns(item: WorkItem, r: int, seat_labels, matches: dict) -> dict:
    """One row per match of one seating (docs/results.md, "Per-match records"): match id, the
    strategy of each seat, the winning side (-1: none), the hands played and the final score
    of each side (kozel: its written penalties, and who lost, the dry flag)."""
    n = len(matches["match_id"])
    cols = {
        "group": np.full(n, item.group, dtype=np.int32),
        "rotation": np.full(n, r, dtype=np.int16),
        "match_id": matches["match_id"].astype(np.int64),
    }
    labels = list(dict.fromkeys(item.seats))
    for s, x in enumerate(seat_labels):
        cols[f"strategy_{s}"] = np.full(n, labels.index(x), dtype=np.int8)
    cols["winner"] = matches["winner"].astype(np.int16)
    cols["hands"] = matches["hands"].astype(np.int32)
    scores = matches["scores"].reshape(n, -1)
    for c in range(scores.shape[1]):
        cols[f"score_{c}"] = scores[:, c].astype(np.int32)
    if item.rules.variant == "kozel":
        cols["losers"] = matches["losers"].astype(np.int16)
        cols["dry"] = matches["dry"].astype(bool)
    return cols


def deal_keys(
    seed: int, players: int, match_id: np.ndarray, hand_index: np.ndarray, redeals: np.ndarray
) -> np.ndarray:
    """The ``deal`` record column: the 64-bit key (as int64) the 28-tile shuffle of each hand
    is drawn from (``seeding``: seed, players, match id, hand index, redeal attempt), so two
    records with equal ``deal`` were dealt the same tiles."""
    from dominosim.game.seeding import DEAL, key_np

    m = np.asarray(match_id, dtype=np.int64)
    if not len(m):
        return np.zeros(0, dtype=np.int64)
    h = key_np(
        seed,
        DEAL,
        players,
        m,
        np.asarray(hand_index, dtype=np.int64),
        np.asarray(redeals, dtype=np.int64),
    )
    return np.broadcast_to(h, m.shape).astype(np.uint64).view(np.int64)


def records_table(records: dict, seats: Sequence[str]) -> pa.Table:
    """A pyarrow Table of a chunk's record columns; the ``strategy_<seat>`` codes become
    dictionary-encoded strings (the labels of ``seats``)."""
    import pyarrow as pa

    from dominosim.storage import arrow

    labels = arrow.strings(list(dict.fromkeys(seats)))
    arrays = {}
    for key, v in records.items():
        if key.startswith("strategy_"):
            arrays[key] = pa.DictionaryArray.from_arrays(arrow.column(v), labels)
        else:
            arrays[key] = arrow.column(v)
    return pa.table(arrays)


def ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def worker_main(conn, others=(), games=None, parent=None) -> None:
    """A pool worker: play the items the parent sends, one at a time, and send back
    ``("ok", result)``, ``("error", DominosimError)`` or ``("crash", text)``. ``others``: the
    parent's ends of earlier workers' pipes, inherited by the fork and closed here (so a
    worker sees the end of its pipe when the parent dies). ``games``: a shared counter of the
    games played, for a progress bar that moves while a chunk is played (or None).
    ``parent``: the parent's process id; the worker dies with it
    (:func:`dominosim.sandbox.die_with_parent`)."""
    ignore_sigint()
    if hasattr(os, "setpgid"):  # (a group of its own: what a strategy forks ends with the run)
        try:
            os.setpgid(0, 0)
        except OSError:
            pass
    if parent is not None:
        sandbox.die_with_parent(parent)
    for c in others:
        c.close()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the parent's handler raises Ctrl-C)
    from dominosim.storage import store

    store.close_locks_in_child()
    try:  # a strategy's prints go to stderr, never into the report on stdout
        sys.stdout.flush()
        os.dup2(2, 1)
    except (OSError, ValueError):
        pass
    sys.stdout = sys.stderr
    from dominosim.base.errors import DominosimError

    def tick(n: int) -> None:
        with games.get_lock():
            games.value += n

    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):
            return
        if item is None:
            return
        try:
            out = ("ok", play_item(item, tick if games is not None else None))
        except DominosimError as e:
            out = ("error", e)
        except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt in a strategy, ...
            out = ("crash", signals.raised(e))
        try:
            conn.send(out)
        except (OSError, ValueError):
            return
