"""The batch engine: a driver of the compiled core (:mod:`.kernel`, ``_core.c``; docs/design.md,
"The batch engine").

B game slots play in lockstep. The core takes every active slot through forced moves, draws,
passes, placements, scoring, settlement, match ends and new deals up to its next decision with
two or more legal actions; this driver asks the strategies for the whole list of decisions
through the public interface (``Strategy.choose(obs, legal, keys)``), hands their choices back
to the core and collects the hand and match records. A finished hand's slot is re-dealt in
place (the next hand of the match, or the next match id), so the batch stays full.

It plays the same games as :mod:`dominosim.reference`, the readable specification: the same
addressed deals and lots, the same canonical order of legal actions, the same decision
numbering, so that with the same strategies both engines produce identical records and ask
identical questions (tests/test_engine_equality.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from dominosim.base import debug
from dominosim.base.errors import StrategyError
from dominosim.engine import kernel, tables
from dominosim.engine import positions as positions_
from dominosim.engine.arrays import AdvanceArrays, SlotArrays, hand_template
from dominosim.engine.batch_observation import BatchObservation, fields_plan
from dominosim.engine.legal import Legal
from dominosim.engine.positions import PositionArrays
from dominosim.engine.positions import pending_state as pending_state  # (callers import it here)
from dominosim.game import actions, seeding
from dominosim.game.rules import MAX_HANDS_PER_MATCH, Rules
from dominosim.game.variants import match_too_long
from dominosim.strategy import sees_hidden

# phases of a game slot (the core's codes, kernel.py)
LEAD, TURN, DONE = kernel.LEAD, kernel.TURN, kernel.DONE
U64 = np.uint64


def _gather(records: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``records[rows]`` of a record array, copied as bytes (numpy copies a record array's
    rows field by field, ten times slower)."""
    raw = records.view(np.uint8).reshape(len(records), records.dtype.itemsize)
    return raw[rows].view(records.dtype).reshape(len(rows))


_HAND_ROW = kernel.HREC.index("hand_index")  # (a hand record's index in the match)


def _groups(strategies: list) -> list[tuple]:
    """The seats of each distinct strategy object: (strategy, [seats]), in seat order."""
    groups: dict[int, tuple] = {}
    for seat, st in enumerate(strategies):
        groups.setdefault(id(st), (st, []))[1].append(seat)
    return list(groups.values())


def _advance_arrays(e: BatchEngine, qpos: int) -> AdvanceArrays:
    """The arrays of an engine's calls of ``kernel.advance`` (:class:`AdvanceArrays`: the
    rules' knobs, hash prefixes, lead priority and per-hand template, the queue and its
    position, the slots' records, the decision lists and the records, column by column:
    ``hdir`` by queue position with unit "hand", else blocks of ``hrec``; ``mdir`` matches by
    queue position; int32: half the memory to touch, the match id column holding the queue
    position)."""
    B, P, S, npts = e.B, e.P, e.S, e.npoints
    nq = len(e.queue)
    hcols = len(kernel.HREC) + npts + S + P + S
    direct = e.unit == "hand"
    return AdvanceArrays(
        R=kernel.knobs(e.r, e.unit),
        sd=kernel.seeds(e.seed, P),
        prio=kernel.first_priority(e.r),
        htmpl=e._htmpl,
        queue=e.queue,
        qpos=np.array([qpos], dtype=np.int64),
        st=e.state.records,
        bst=e.state.blind_records,
        nd=np.zeros(2, dtype=np.int64),
        cd=np.zeros((2, B, kernel.CDW), dtype=np.int64),
        chosen=np.zeros((2, B), dtype=np.int64),
        cvals=np.zeros((B, e.NP), dtype=np.int64),
        cmasks=np.zeros((B, e.NP), dtype=np.int64),
        hdir=np.zeros((hcols, nq if direct else 0), dtype=np.int32),
        hrec=np.zeros((hcols, 0 if direct else e._record_rows), dtype=np.int32),
        mdir=np.zeros((len(kernel.MREC) + npts, nq), dtype=np.int32),
        nrec=np.zeros(2, dtype=np.int64),
        hist=e._history_buffer(),
    )


class BatchEngine:
    """Play the matches (or single hands) of a range of match ids on one batch.

    Args:
        rules: the variant.
        seed: the experiment seed (deals, lots and strategy draws are addressed by it).
        strategies: one strategy per seat.
        match_ids: the match ids this engine plays, in order.
        unit: ``"match"`` (whole matches) or ``"hand"`` (each game is hand 0 of its match).
        batch_size: the number of game slots stepped together (at most ``kernel.MAX_SLOTS``,
            so that the per-game state stays in the core's cache).
        compiled: let strategies with a compiled policy decide inside the core (``None``:
            unless ``DOMINOSIM_POLICIES=0``); ``False`` asks every strategy through
            ``Strategy.choose`` (the same records: tests and bench/).
    """

    def __init__(
        self,
        rules: Rules,
        seed: int,
        strategies: Sequence,
        match_ids: Iterable[int],
        *,
        unit: str = "match",
        batch_size: int = 10_000,
        compiled: bool | None = None,
        _positions: bool | tuple = False,
    ) -> None:
        """(``_positions``, private: True for an engine of positions, :meth:`from_arrays`, its
        batch not capped at ``kernel.MAX_SLOTS``; or such an engine's slot records and blind
        records, a pair, as :meth:`spread` copies them.)"""
        if len(strategies) != rules.players:
            raise ValueError(f"{rules.players} strategies needed, got {len(strategies)}")
        self._record_rows = 2 * batch_size + 64  # kernel record buffer rows (flushed when full)
        self._kblocks: list = []  # kernel hand records of unit "match", column by column
        self.r = rules
        self.seed = seeding.check_seed(seed, "BatchEngine(): seed")
        self.strategies = list(strategies)
        self._strategy_groups = _groups(self.strategies)
        # which strategy objects see the true state: decided once, by each one's registered
        # class (strategy.sees_hidden), never by what an object says of itself
        self._sight = {id(s) for s in self.strategies if sees_hidden(s)}
        self._one_strategy = self.strategies[0] if len(self._strategy_groups) == 1 else None
        if compiled is None:
            compiled = kernel.policies_enabled()
        self._compiled = compiled
        self._checked = False  # the slots' state checked (kernel.check_slots)
        self._policy = kernel.policy_table(self.strategies, compiled, rules)
        self._hist = (
            None  # the hands' public histories (_advance_arrays: where a seat is in Python)
        )
        if isinstance(match_ids, range):  # (no list of Python ints for a chunk's ids)
            self.queue = np.arange(match_ids.start, match_ids.stop, match_ids.step, dtype=np.int64)
        else:
            self.queue = np.asarray(list(match_ids), dtype=np.int64)
        self._qmatch = None  # from_positions: the match id of each queue position
        self._first = None  # from_positions: a first action per slot (-1 none)
        self._dealt = _positions is False  # (its games are deals a trace plays again)
        self.next_q = 0
        self.unit = unit
        P = rules.players
        self.P = P
        self.S = rules.sides
        self.NP = 6 if rules.layout == "spinner" else 2
        self.kozel = rules.match_end == "kozel"
        self.npoints = rules.score_columns
        if not _positions:  # the state stays in the core's cache at this size
            batch_size = min(batch_size, kernel.MAX_SLOTS)
        self.B = max(1, min(batch_size, len(self.queue)))
        self._htmpl = hand_template(rules)
        self._flags = rules.may_draw_when_able or rules.bergen_voluntary
        self.blind = rules.draw_mode == "blind"
        self._bind_slots(None if isinstance(_positions, bool) else _positions)
        self._fields_plan = None  # (observe_plan)
        self.hand_rows: list[dict] = []
        self.match_rows: list[dict] = []

    def _bind_slots(self, records: tuple | None = None) -> None:
        """The slots' state (:class:`SlotArrays`): new slots, each one template record, or
        views of the given ``records`` (:meth:`spread`)."""
        if records is None:
            self.state = SlotArrays.new(self.r, self.B)
        else:
            self.state = SlotArrays.of(self.r, *records)

    # ------------------------------------------------------------------------------------------
    # running
    # ------------------------------------------------------------------------------------------
    def run(self) -> tuple[dict, dict]:
        """Play every match id; return (hand records, match records) as dicts of arrays,
        ordered by match id and hand index."""
        return self._run_kernel()

    @classmethod
    def from_positions(
        cls,
        rules: Rules,
        seed: int,
        strategies: Sequence,
        positions: Sequence[dict],
        *,
        compiled: bool | None = None,
    ) -> BatchEngine:
        """An engine whose slots hold positions built elsewhere (a search's sampled hands, a
        test's position), to be played on to the end of the hand with :meth:`run`.

        Each position is a dict with ``hands`` (P lists of tiles), ``stock`` (draw order),
        ``ends`` (a dict ``{"L": v, "R": v}`` of open values, or ``{}`` for an empty table;
        LINE and SINGLE_END layouts, optional ``doubles`` dict of ends formed by a double),
        ``to_move``, and optionally ``scores``, ``leader``, ``match_id`` and ``hand_index``
        (which address the strategies' random draws), and ``first``: a placement the seat to
        move makes as its first decision (a search's tested action; the core plays it as that
        seat's answer to decision 0, so the strategies, compiled policies included, decide the
        rest; not where a turn may start with a voluntary draw: ``may_draw_when_able``,
        ``bergen_voluntary``).
        """
        arrays = positions_.arrays_of(rules, positions)  # (Python lists, converted once)
        return cls.from_arrays(rules, seed, strategies, compiled=compiled, **arrays)

    @classmethod
    def from_arrays(cls, rules: Rules, seed: int, strategies: Sequence, **arrays) -> BatchEngine:
        """:meth:`from_positions` from arrays, one row per position: ``arrays`` the fields of
        :class:`PositionArrays` (their meaning is written there). A search builds its positions
        as arrays: no Python loop per position."""
        return positions_.build(cls, rules, seed, strategies, PositionArrays(**arrays))

    def true_records(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Copies of the true slot records of slots ``g`` (every hand, the stock) and, in
        blind, their blind records (None else): for the perfect-information readers only, the
        oracle and the solver's watcher (docs/design.md, "The solver")."""
        g = np.asarray(g)
        return self.state.records[g].copy(), self.state.blind_records[
            g
        ].copy() if self.blind else None

    def _check_slots(self, R: np.ndarray) -> None:
        """The state a caller built, refused where out of range (kernel.check_slots)."""
        bad = kernel.check_slots(R, self.state.records, self.state.blind_records, len(self.queue))
        if bad >= 0:
            raise ValueError(f"{kernel.BAD_STATE}: slot {bad}")

    def spread(
        self, rows: np.ndarray, match_ids: np.ndarray, first: np.ndarray | None = None
    ) -> BatchEngine:
        """An engine whose slot i starts as a copy of this engine's position ``rows[i]`` (built
        by :meth:`from_arrays`, not yet run), with its own match id (which addresses its
        strategies' random draws) and ``first`` action: a search plays each sampled deal once
        per candidate action without building the deal's position again."""
        if not self._checked:  # the deals, once (their copies differ in match ids only)
            self.state.records["qidx"] = 0
            self._check_slots(kernel.knobs(self.r, "hand"))
            self._checked = True
        rows = np.asarray(rows, dtype=np.int64)
        n = len(rows)
        recs = (
            _gather(self.state.records, rows),
            _gather(self.state.blind_records, rows) if self.blind else self.state.blind_records,
        )
        e = BatchEngine(
            self.r,
            self.seed,
            self.strategies,
            range(n),
            unit="hand",
            batch_size=n,
            compiled=self._compiled,
            _positions=recs,
        )
        e.next_q = n
        e._checked = True
        e.state.match[:] = match_ids
        e._qmatch = e.state.match.copy()
        e.state.skeys[:] = 0  # (the copies' keys: from their own match ids, in the core)
        if first is not None and (np.asarray(first) >= 0).any():
            e._first = np.asarray(first, dtype=np.int64).copy()
        return e

    def slot_records(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the slot records (``kernel.SLOT``, blind's rows ``kernel.BSLOT``) of the
        positions built by :meth:`from_arrays` (not yet run), checked as a run checks them
        (a ValueError where out of range), each waiting on the decision it stands at (its
        ``ask`` set as a run with a ``first`` action poses it: blind's pending step, a
        voluntary draw, a lead): the solver's input (``solver.solve_actions``)."""
        if not self._checked:
            self.state.records["qidx"] = 0
            self._check_slots(kernel.knobs(self.r, "hand"))
            self._checked = True
        st = self.state.records.copy()
        st["ask"] = np.where(self.state.phase == LEAD, kernel.ASK_LEAD, kernel.ASK_PLAY)
        return st, self.state.blind_records.copy()

    # ------------------------------------------------------------------------------------------
    # slot records for the solver (dominosim.solver): deals, and positions after given play
    # ------------------------------------------------------------------------------------------
    def first_deals(self) -> tuple[np.ndarray, np.ndarray]:
        """Each slot's match id dealt its first hand as the core deals it (the addressed
        shuffle, kozel's redeals, the leader), stopped before the hand's first turn: copies of
        the slot records (``kernel.SLOT``, blind's rows ``kernel.BSLOT``), slot i holding match
        id ``match_ids[i]`` (one slot per match id: build the engine with ``batch_size`` at
        least their number)."""
        if self.B != len(self.queue):
            raise ValueError("first_deals: one slot per match id (batch_size too small)")
        self.state.match[:] = self.queue
        self.state.active[:] = True
        R = kernel.knobs(self.r, self.unit)
        kernel.deal(
            R,
            kernel.seeds(self.seed, self.P),
            kernel.first_priority(self.r),
            self._htmpl,
            self.state.records,
            self.state.blind_records,
        )
        return self.state.records.copy(), self.state.blind_records.copy()

    def play_prefixes(self, scripts: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Play each slot's first hand from its deal, answering its decisions (those with two
        or more legal actions, in order) with the actions of its script, and stop it at the
        decision after its script's last action: copies of the slot records (as
        :meth:`first_deals`), each waiting on that decision (``ask``: its kind). Raises
        ValueError when a scripted action is illegal or a hand ends within its script."""
        B = self.B
        if B != len(self.queue) or len(scripts) != B:
            raise ValueError("play_prefixes: one slot and one script per match id")
        st, bst = self.state.records, self.state.blind_records
        self.state.active[:] = True
        self.state.phase[:] = kernel.START
        st["ask"] = kernel.ASK_NONE
        bad = self._play_scripted(_advance_arrays(self, 0), scripts, np.zeros(B, dtype=np.int64))
        if bad >= 0:
            raise ValueError(
                f"play_prefixes: the scripted action {int(st['act'][bad])} "
                f"of match id {int(self.queue[bad])} is illegal"
            )
        ended = np.flatnonzero(self.state.phase == DONE)
        if len(ended):
            raise ValueError(
                f"play_prefixes: the hand of match id {int(self.queue[ended[0]])} "
                "ended within its script"
            )
        return st.copy(), bst.copy()

    def play_scripts(
        self, scripts: Sequence[Sequence[int]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play each position built by :meth:`from_arrays` (not yet run) on, answering its
        decisions (those with two or more legal actions), from the one it stands at, with the
        actions of its script (one at least), and stop it at the decision after its script's
        last action, or where its hand ends: copies of the slot records and blind records (as
        :meth:`play_prefixes`), and per slot whether its hand ended. Not where a decision
        carries flags (blind, voluntary draws). Raises ValueError when a scripted action is
        illegal or a hand ends within its script (a search's tree of replies: pimc's
        ``alphamu``)."""
        B = self.B
        if len(scripts) != B or self.blind or self._flags or min(map(len, scripts)) < 1:
            raise ValueError("play_scripts: one script of one action or more per position")
        if not self._checked:
            self.state.records["qidx"] = 0
            self._check_slots(kernel.knobs(self.r, "hand"))
            self._checked = True
        st = self.state.records
        st["ask"] = kernel.ASK_NONE
        self.state.active[:] = True
        self._first = np.array([s[0] for s in scripts], dtype=np.int64)
        self._answer_first(st["ask"], st["act"])
        st["qidx"] = np.arange(B, dtype=np.int64)
        taken = np.ones(B, dtype=np.int64)
        bad = self._play_scripted(_advance_arrays(self, self.next_q), scripts, taken)
        if bad >= 0:
            raise ValueError(f"play_scripts: the scripted action of slot {bad} is illegal")
        done = self.state.phase == DONE
        if (done & (taken < np.array([len(x) for x in scripts]))).any():
            raise ValueError("play_scripts: a hand ended within its script")
        return st.copy(), self.state.blind_records.copy(), done.copy()

    def _play_scripted(self, adv, scripts, taken: np.ndarray) -> int:
        """Answer each decision the core poses (every decision is posed) with the next action
        of its slot's script (``taken``: how many each slot has played, updated), a slot whose
        script is played waiting there, until none is answered: -1, or the slot whose scripted
        action is illegal (:meth:`play_prefixes`, :meth:`play_scripts`)."""
        nd, cd, chosen = adv.nd, adv.cd, adv.chosen
        policy = kernel.policy_table()
        while True:
            res = kernel.advance(adv, policy, 0)
            adv.nrec[0] = 0
            if res <= -2:
                return -2 - res
            answered = 0
            for li in (0, 1):
                for j in range(int(nd[li])):
                    i = int(cd[li, j, kernel.CD_SLOT])
                    if taken[i] < len(scripts[i]):
                        chosen[li, j] = scripts[i][taken[i]]
                        taken[i] += 1
                        answered += 1
                    else:  # its script is played: it waits here
                        self.state.active[i] = False
            if not answered:
                return -1

    def legal_lists(self, g: np.ndarray) -> list[list[int]]:
        """The legal placements (engine codes, canonical order) of the seat to move at slots
        ``g``, each waiting on a placement decision (:meth:`play_scripts`)."""
        g = np.asarray(g, dtype=np.int64)
        legal = self._legal(g, self.state.to_move[g])
        return [legal.row_list(i) for i in range(len(g))]

    # ------------------------------------------------------------------------------------------
    # decisions: the strategies' choices through the public interface
    # ------------------------------------------------------------------------------------------
    def _masks(self, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """[n, K] 7-bit masks of the seat's tiles fitting each open slot (a closed slot, -1,
        reads byte 7 of the hand, always empty)."""
        vals = np.take(self.state.vals, g, axis=0)
        h = self.state.hands[g, seats]
        return ((h[:, None] >> np.take(tables.SHIFT_OF, vals)) & _7F).astype(np.int64)

    def _drawable(self, g: np.ndarray) -> np.ndarray:
        return self.state.send[g] - self.state.sp[g]

    def _ask(self, ga, sa, sub: Legal, keys, dec, phase_name: str, check: bool = True, pre=None):
        """The strategies' choices for decisions in slots ``ga`` by seats ``sa`` (2+ legal
        actions each).

        ``check=False``: the caller checks that the actions are legal (the core does).
        ``pre``: Observation fields the caller already has (the core's decision lists)."""
        # (each batch Observation is closed when its strategy's choose returns: the fields it
        # reads on first access are read from this engine's state now, never a later one)
        obs = BatchObservation(self, ga, sa, phase_name, dec, pre)
        try:
            if self._one_strategy is not None:
                strat = self._one_strategy
                obs = self._shown(strat, obs, ga)
                return self._call(strat, obs, sub, keys.copy(), check)
            chosen = np.empty(len(ga), dtype=np.int64)
            for strat, seat_list in self._strategy_groups:
                sel = np.flatnonzero(np.isin(sa, seat_list))
                if len(sel):
                    shown = self._shown(strat, obs.take(sel), ga[sel])
                    try:
                        chosen[sel] = self._call(strat, shown, sub.take(sel), keys[sel], check)
                    finally:
                        shown._close()
            return chosen
        finally:
            obs._close()

    def _shown(self, strat, obs: BatchObservation, g: np.ndarray) -> BatchObservation:
        """The batch Observation as ``strat`` receives it: a strategy whose registered class is
        classified ``perfect_information`` (a cheating reference such as the oracle; decided
        when the engine was made, ``_sight``) gets the engine (``obs._e``) and its slots
        (``obs._g``) besides; no other does."""
        if id(strat) in self._sight:
            obs.__dict__["_e"], obs.__dict__["_g"] = self, g
        return obs

    def _history_buffer(self) -> np.ndarray:
        """``[B, 1 + kernel.history_bound]`` rows the core writes each slot's hand history
        into (RULES §1.3, Observation.history), where a seat's strategy is asked in Python;
        else an empty ``[1, 0]``: the compiled policies never read one."""
        if not (kernel.seat_codes(self._policy) == kernel.POL_PYTHON).any():
            return np.zeros((1, 0), dtype=np.uint16)
        if self._hist is None:
            self._hist = np.zeros((self.B, 1 + kernel.history_bound(self.r)), dtype=np.uint16)
        return self._hist

    def observe_plan(self):
        """Where the batch Observation's public fields lie in the slot records
        (``batch_observation.fields_plan``), made once."""
        if self._fields_plan is None:
            self._fields_plan = fields_plan(self.state, self.kozel)
        return self._fields_plan

    def history_buffer(self) -> np.ndarray | None:
        """Every slot's hand history row (kernel.EV_*; item 0 the count; the engine's own, not
        a copy: observe.py reads it for the Observation), or None where none is kept (no
        seat asked in Python)."""
        return self._hist

    @staticmethod
    def _name(strat) -> str:
        return getattr(strat, "label", getattr(strat, "name", type(strat).__name__))

    def _illegal(self, strat, legal: Legal, i: int, action) -> StrategyError:
        """The error for strategy ``strat`` choosing ``action`` at decision ``i`` of ``legal``."""
        return StrategyError(
            f"strategy '{self._name(strat)}' returned an illegal action {action!r}; "
            f"legal were {[actions.describe(x) for x in legal.row_list(i)]}; fix the strategy"
        )

    def _call(self, strat, obs, legal: Legal, keys, check: bool = True):
        try:
            a = np.asarray(strat.choose(obs, legal, keys), dtype=np.int64)
        except StrategyError as err:
            if getattr(err, "traceback", None) is None and debug.frames(err):
                # (raised in the strategy's own code: action_values, a closed batch Observation)
                raise self._at(
                    debug.raised(self._name(strat), err, debug.strategy_file(strat)), obs
                ) from err
            raise self._at(err, obs)  # noqa: B904 - (the same error, its decision added)
        except (Exception, SystemExit) as exc:  # SystemExit would kill a pool worker
            err = debug.raised(self._name(strat), exc, debug.strategy_file(strat))
            raise self._at(err, obs) from exc
        if a.shape != (len(legal),):
            raise self._illegal(strat, legal, 0, _one_line(repr(a.tolist())))
        if check and not legal.contains(a).all():
            i = int(np.flatnonzero(~legal.contains(a))[0])
            raise self._illegal(strat, legal, i, int(a[i]))
        return a

    def _at(self, err: StrategyError, obs: BatchObservation) -> StrategyError:
        """``err`` with the decision of ``obs`` it was raised at (docs/strategies.md,
        "Debugging a strategy"): the one its ``choose_one`` was answering, or the last row a
        batch strategy read (``BatchObservation.asked``)."""
        if getattr(err, "traceback", None) is None or not self._dealt:  # (a refusal of ours,
            return err  # or a position built by hand: no decision a trace plays again)
        try:
            i = obs.asked
            at = (obs.match_id[i], obs.hand_index[i], obs.decision[i], obs.seat[i])
            m, h, d, seat = (int(x) for x in at)
        except Exception:  # noqa: BLE001 - never hide the strategy's error behind ours
            return err
        return debug.attach(err, debug.Decision(self.r, self.seed, m, h, d, seat, self.strategies))

    def _legal(self, g, seats, draw=None, pass_=None) -> Legal:
        """The placements of the seats' tiles on the open positions, plus draw / pass flags."""
        f = np.zeros(len(g), dtype=bool)
        return Legal(
            np.take(self.state.vals, g, axis=0),
            self._masks(g, seats),
            self.r.inline_double_counts_single,
            None,
            f if draw is None else draw,
            f if pass_ is None else pass_,
            f,
        )

    def _single_legal(self, g, tiles_, draw=None, pass_=None) -> Legal:
        """Legal placements of one tile per game (blind's front or drawn tile), plus flags."""
        f = np.zeros(len(g), dtype=bool)
        vals = self.state.vals[g]
        shift = (np.maximum(vals, 0) * 8).astype(np.uint64)
        m = ((tables.PACK[tiles_][:, None] >> shift) & _7F).astype(np.int64)
        m = np.where(vals >= 0, m, 0)
        return Legal(
            vals, m, False, None, f if draw is None else draw, f if pass_ is None else pass_, f
        )

    def _flags_legal(self, g, draw, pass_) -> Legal:
        """Only flags (blind's draw or pass without a placement)."""
        z = np.zeros((len(g), self.NP), dtype=np.int64)
        return Legal(self.state.vals[g], z, False, None, draw, pass_, np.zeros(len(g), dtype=bool))

    # ------------------------------------------------------------------------------------------
    # the compiled path (kernel.py): the kernel plays up to each decision with a choice
    # ------------------------------------------------------------------------------------------
    def _run_kernel(self):
        if not self.state.active.any():
            self.state.active[:] = True
            self.state.phase[:] = kernel.START
        adv = _advance_arrays(self, self.next_q)
        st = self.state.records
        st["ask"] = kernel.ASK_NONE
        ask, act = st["ask"], st["act"]
        if self._first is not None:  # from_positions: the seat's first decision, answered
            self._answer_first(ask, act)
        # slot -> queue position (from_positions fills slot i with queue entry i)
        st["qidx"] = np.arange(self.B, dtype=np.int64)
        if not self._checked:  # (spread's copies: their deals were checked once)
            self._check_slots(adv.R)
        # decisions with flags (blind's turn, voluntary draws) are asked by phase name
        flagged = self.blind or self._flags
        along = self.r.inline_double_counts_single
        while True:
            self._advance(adv, ask, act)
            n_play, n_lead = int(adv.nd[0]), int(adv.nd[1])
            if not n_play + n_lead:
                break
            if flagged:  # placements and flags, by phase name
                self._kernel_flag_round(
                    n_play,
                    adv.cd,
                    adv.cvals,
                    adv.cmasks,
                    adv.chosen,
                    along,
                )
                n_play = 0
            self._kernel_lists(adv, n_play, n_lead)
        self.next_q = int(adv.qpos[0])
        self._kernel_fields(adv.hdir if self.unit == "hand" else None, adv.mdir)
        return self._collect()

    def _answer_first(self, ask, act) -> None:
        """from_positions: each slot's first action (``_first``, -1 none) posed and answered
        as the seat's decision 0."""
        sel = self._first >= 0
        ask[sel] = np.where(self.state.phase[sel] == LEAD, kernel.ASK_LEAD, kernel.ASK_PLAY)
        act[sel] = self._first[sel]
        begun = self.state.phase == kernel.AFTERDRAW  # (the turn began before the position)
        if self.blind:
            tp = self.state.blind_records["turn_phase"]
            begun = np.isin(tp, (kernel.T_DRAWQ, kernel.T_DRAWN, kernel.T_CONT))
        self.state.turns[sel & ~begun] += 1  # (its turn began, and decision 0 was asked)
        self.state.decision[sel] += 1
        self._first = None

    def _advance(self, adv: AdvanceArrays, ask, act) -> None:
        """Every slot advanced by the core up to its next decision with a choice (or the end
        of its queue), the hand records it wrote kept (unit "match")."""
        nrec, hrec = adv.nrec, adv.hrec
        start = 0
        while start >= 0:
            start = kernel.advance(adv, self._policy, start)
            if nrec[0]:
                self._kblocks.append(hrec[:, : nrec[0]].copy())
                nrec[0] = 0
                if self._kblocks[-1][_HAND_ROW].max() >= MAX_HANDS_PER_MATCH:
                    raise match_too_long(self.r)  # (an endless match: its records grow)
            if start <= -2:
                raise self._kernel_illegal(-2 - start, ask, act)

    def _kernel_lists(self, adv: AdvanceArrays, n_play: int, n_lead: int) -> None:
        """The strategies' choices for the round's placements (list 0, without flags) and
        leads (list 1), into ``adv.chosen``."""
        along = self.r.inline_double_counts_single
        for kind, n in ((0, n_play), (1, n_lead)):
            if not n:
                continue
            c = adv.cd[kind, :n]
            # (copies: a strategy's writes into its arrays change nothing here)
            if kind == 0:
                vals, masks, lead = adv.cvals[:n].copy(), adv.cmasks[:n].copy(), None
            else:
                vals = np.full((n, self.NP), -1, dtype=np.int64)
                masks = np.zeros((n, self.NP), dtype=np.int64)
                lead = c[:, kernel.CD_LEAD].copy()
            legal = Legal.without_flags(vals, masks, along, lead)
            pre = {
                "voids": c[:, kernel.CD_VOIDS : kernel.CD_VOIDS + self.P],
                "values": legal.values,
            }
            if not self.blind:  # (in blind the owner sees only the row tiles he looked at)
                pre["hand"] = c[:, kernel.CD_HAND].view(U64)
            adv.chosen[kind, :n] = self._ask_rows(c, legal, "play", pre)

    def _kernel_flag_round(self, n, cd, cvals, cmasks, chosen, along):
        """A round of placement decisions that may carry flags (blind's turn, §3.7; voluntary
        draws, §11.7 and §15): one ask per phase name."""
        if not n:
            return
        ph = cd[0, :n, kernel.CD_PHASE]
        for code in np.unique(ph):
            sel = np.flatnonzero(ph == code)
            c = cd[0, sel]
            flags = _kernel_flags(c[:, kernel.CD_FLAGS])
            legal = Legal(cvals[sel], cmasks[sel], along, None, *flags)
            chosen[0, sel] = self._ask_rows(c, legal, kernel.PHASES[code])

    def _ask_rows(self, c, legal: Legal, phase_name: str, pre=None):
        """The strategies' choices for the kernel's decision rows ``c`` (columns kernel.CD_*);
        the kernel checks that they are legal."""
        return self._ask(
            c[:, kernel.CD_SLOT],
            c[:, kernel.CD_SEAT],
            legal,
            c[:, kernel.CD_KEY].view(U64),
            c[:, kernel.CD_DEC],
            phase_name,
            check=False,
            pre=pre,
        )

    def _kernel_illegal(self, i: int, ask, act) -> StrategyError:
        """The error for the illegal action the core refused at slot ``i``."""
        g = np.array([i])
        seat = self.state.to_move[g]
        no = np.zeros(1, dtype=bool)
        if self.blind and ask[i] == kernel.ASK_PLAY:  # the blind turn's pending decision
            bw = self.state.blind_records[i]
            draw, pass_, stop = _kernel_flags(np.array([int(bw["cflag"])]))
            turn_phase = int(bw["turn_phase"])
            if turn_phase in (kernel.T_FRONT, kernel.T_DRAWN):
                legal = self._single_legal(g, np.array([int(bw["dtile"])]), draw=draw, pass_=pass_)
            elif turn_phase in (kernel.T_OPLAY, kernel.T_CONT):
                legal = Legal(self.state.vals[g], self._masks(g, seat), False, None, no, no, stop)
            else:
                legal = self._flags_legal(g, draw, pass_)
        elif ask[i] == kernel.ASK_LEAD:
            t = int(self.state.lead_tile[i])
            lead = np.array([1 << t]) if t >= 0 else tables.mask28_of(self.state.hands[g, seat])
            legal = Legal(
                self.state.vals[g],
                np.zeros((1, self.NP), dtype=np.int64),
                self.r.inline_double_counts_single,
                lead,
                no,
                no,
                no,
            )
        else:  # (voluntary draws: the flags follow from the turn's phase)
            ph = int(self.state.phase[i])
            draw = ph == kernel.BOFFER or (ph == kernel.MAYDRAW and int(self._drawable(g)[0]) > 0)
            legal = self._legal(
                g, seat, draw=np.array([draw]), pass_=np.array([ph == kernel.AFTERDRAW])
            )
        return self._illegal(self.strategies[int(seat[0])], legal, 0, int(act[i]))

    def _kernel_fields(self, hdir, mdir) -> None:
        """The kernel's records as record dicts (fields of _HAND_KEYS and _MATCH_KEYS), in
        (match id, hand index) order."""
        if hdir is None:
            h = np.concatenate(self._kblocks, axis=1) if self._kblocks else hdir
            self._kblocks = []
        else:
            h = hdir
        # queue position -> match id
        qmatch = self.queue if self._qmatch is None else self._qmatch
        if h is not None and h.shape[1]:
            mid = qmatch[h[0]]
            if hdir is None or not np.all(mid[1:] > mid[:-1]):
                o = np.lexsort((h[1], mid))
                h, mid = h[:, o], mid[o]
            col = {name: h[j] for j, name in enumerate(kernel.HREC)}
            col["match_id"] = mid
            c = len(kernel.HREC)
            for name, w in (
                ("points", self.npoints),
                ("pips", self.S),
                ("penalties", self.P),
                ("values", self.S),
            ):
                col[name] = h[c : c + w].T
                c += w
            self.hand_rows.append({name: col[name] for name in _HAND_KEYS})
        m = mdir[:, : self.next_q]
        if m.shape[1]:
            mid = qmatch[m[0]]
            if not np.all(mid[1:] > mid[:-1]):
                o = np.argsort(mid, kind="stable")
                m, mid = m[:, o], mid[o]
            col = {name: m[j] for j, name in enumerate(kernel.MREC)}
            col["match_id"] = mid
            col["dry"] = col["dry"].astype(bool)
            col["scores"] = m[len(kernel.MREC) :].T
            self.match_rows.append({name: col[name] for name in _MATCH_KEYS})

    def _collect(self):
        def cat(rows, key):
            if len(rows) == 1:
                return rows[0][key]
            return np.concatenate([row[key] for row in rows]) if rows else np.zeros(0)

        ordered = len(self.hand_rows) <= 1 and len(self.match_rows) <= 1

        hands = {k: cat(self.hand_rows, k) for k in (self.hand_rows[0] if self.hand_rows else {})}
        matches = {
            k: cat(self.match_rows, k) for k in (self.match_rows[0] if self.match_rows else {})
        }
        # one canonical order (match id, hand index) whatever the path or the batch size
        if ordered:  # _kernel_fields sorted them
            return hands, matches
        if hands and len(hands["match_id"]) > 1:
            o = np.lexsort((hands["hand_index"], hands["match_id"]))
            hands = {k: v[o] for k, v in hands.items()}
        if matches and len(matches["match_id"]) > 1:
            o = np.argsort(matches["match_id"], kind="stable")
            matches = {k: v[o] for k, v in matches.items()}
        return hands, matches


_7F = U64(0x7F)
# record fields, in the order of _record_hands / _record_matches
# fmt: off
_HAND_KEYS = ("match_id", "hand_index", "leader", "end_reason", "fish_maker", "winner",
              "went_out", "hand_length", "turns", "draws", "passes", "points", "pips",
              "penalties", "redeals", "values")
# fmt: on
_MATCH_KEYS = ("match_id", "winner", "hands", "scores", "dry", "losers")


def _kernel_flags(f: np.ndarray) -> tuple:
    """A blind decision's flag bits (kernel.F_*) as Legal's draw, pass and stop arrays."""
    return (f & kernel.F_DRAW) != 0, (f & kernel.F_PASS) != 0, (f & kernel.F_STOP) != 0


def strategy_raised(name: str, exc: BaseException, strat: object = None) -> StrategyError:
    """The error of strategy ``name`` raising ``exc`` in its ``choose`` (the engine's, and an
    isolated strategy's process's: runner.isolated): one line naming the line of the
    strategy's file (``strat``'s class) where it raised, its traceback on ``traceback``."""
    return debug.raised(name, exc, debug.strategy_file(strat) if strat is not None else None)


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, shortened to ``limit`` characters (for error messages)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
