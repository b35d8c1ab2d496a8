"""One game, move by move: text a domino player can follow, or JSON Lines for tools.

``dominosim trace`` plays one hand (or, with ``--match``, a whole match) on the reference engine
and prints it. Both forms come from the same records: :func:`trace_records` turns the engine's
event lists (:attr:`dominosim.reference.HandRecord.events`) into JSON-ready dicts, one per line
of ``docs/trace.md``, adding what a reader needs to follow the game without replaying it
(running totals after every score event, the open positions and spinner after every placement,
blind rows as they change). :func:`render_text` prints those records for people;
:func:`to_jsonl` writes them as JSON Lines. ``tests/replay.py`` replays a JSON Lines trace
independently of this package.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dominosim import strategy
from dominosim.base.errors import ConfigError, StrategyError
from dominosim.game import actions, seeding, tiles
from dominosim.game.layout import Layout
from dominosim.game.reference import KozelBook, MatchRecord, play_match
from dominosim.game.rules import Rules
from dominosim.game.variants import make_rules, trace_facts
from dominosim.strategy.spec import RANDOM

FORMAT = "dominosim-trace"
VERSION = 1


# ---------------------------------------------------------------------------------------------
# labels


def seat_labels(rules: Rules) -> list[str]:
    """RULES §0.3: seats A, B, C, D; in partnership play A1, B1, A2, B2."""
    if rules.partnership:
        return ["A1", "B1", "A2", "B2"]
    return list("ABCD")[: rules.players]


def side_labels(rules: Rules) -> list[str]:
    return ["A", "B"] if rules.partnership else list("ABCD")[: rules.players]


def _tile(t: int) -> str:
    return tiles.name(t)


# ---------------------------------------------------------------------------------------------
# records


def _positions(layout: Layout) -> list[dict]:
    """The open positions as records: id, value, formed by a double, uncovered spinner side."""
    out = []
    for pid, v in layout.positions():
        side = layout.spinner is not None and pid not in layout.covered
        end = None if side else layout.ends.get(pid)
        out.append(
            {
                "id": pid,
                "value": v,
                "double": True if side else bool(end.double),
                "spinner_side": side,
            }
        )
    return out


def _zero_settlement(out: list[dict]) -> list[dict]:
    """A settlement that scores nothing is a record of its own: ``no_score`` right after the
    ``hand_end`` of a hand that did not end by target and whose settlement has no ``score``
    (and no kozel ``eggs``) record."""
    for i, o in enumerate(out):
        if o["type"] == "hand_end" and o["reason"] != "target":
            if not any(x["type"] in ("score", "eggs") for x in out[i + 1 :]):
                out.insert(i + 1, {"type": "no_score", "hand": o["hand"], "points": 0})
            break
    return out


class _Walker:
    """Follows the events of every hand of a match, keeping the state a reader needs."""

    def __init__(self, rules: Rules):
        self.rules = rules
        r = rules
        self.facts = trace_facts(r)
        self.kozel = KozelBook(r.sides) if self.facts.kozel_book else None
        self.totals = [0] * r.score_columns

    def _totals(self) -> list[int]:
        return self.kozel.totals() if self.kozel is not None else list(self.totals)

    def hand(self, rec, emit: bool) -> list[dict]:
        """The trace records of one hand's engine events (``emit`` False: followed, not
        kept), the hand's state checked against the engine's own as it goes."""
        r = self.rules
        self.rec = rec
        self.layout = Layout(r.layout, r.spinner_open_all_four_immediately, r.us_sniff_counting)
        self.blind = self.facts.rows
        self.rows: list[list[int]] = []
        self.ledger = [0] * r.players
        self.opened = [False] * r.players
        out: list[dict] = []
        for ev in rec.events:
            kind = ev["type"]
            handler = getattr(self, "_on_" + kind, None)
            if handler is None:  # pragma: no cover - a new engine event needs a line format first
                raise ValueError(f"trace: unknown engine event {kind!r}")
            o: dict = {"type": kind, "hand": rec.hand_index}
            handler(ev, o)
            if emit:
                out.append(o)
        return _zero_settlement(out)

    def _row(self, seat: int) -> list[str]:
        return [_tile(x) for x in self.rows[seat]]

    def _on_deal(self, ev: dict, o: dict) -> None:
        self.rows = [list(h) for h in ev["hands"]]
        o.update(
            hands=[[_tile(t) for t in h] for h in ev["hands"]],
            stock=[_tile(t) for t in ev["stock"]],
            redeals=ev["redeals"],
            leader=self.rec.leader,
            lot=self.rec.lot,
            scores=self._totals(),
        )
        if self.kozel is not None:
            b = self.kozel
            o["kozel"] = {
                "written": list(b.written),
                "pending": list(b.pending),
                "pot": b.pot,
                "egg_streak": b.egg_streak,
            }

    def _on_start_tile(self, ev: dict, o: dict) -> None:
        self.layout.start_with(ev["tile"])
        o.update(tile=_tile(ev["tile"]), tile_index=ev["tile"], positions=_positions(self.layout))

    def _on_place(self, ev: dict, o: dict) -> None:
        t, seat, layout = ev["tile"], ev["seat"], self.layout
        layout.place(
            t, None if ev["lead"] else ev["pos"], ev["along"], self.rules.layout == "spinner"
        )
        snap = {p["id"]: [p["value"], p["double"]] for p in _positions(layout)}
        if snap != ev["open"]:  # the engine's own snapshot
            raise RuntimeError(f"trace: layout {snap} != engine {ev['open']}")
        if t in self.rows[seat]:
            self.rows[seat].remove(t)
        spinner = (
            None
            if layout.spinner is None
            else {
                "value": layout.spinner,
                "covered": [s for s in ("W", "E", "N", "S") if s in layout.covered],
            }
        )
        o.update(
            seat=seat,
            tile=_tile(t),
            tile_index=t,
            pos=ev["pos"],
            along=ev["along"],
            lead=ev["lead"],
            positions=_positions(layout),
            spinner=spinner,
        )
        if self.rules.scoring in ("fives", "threes", "muggins"):
            o["count"] = layout.end_count()
        if self.blind:
            o["row"] = self._row(seat)

    def _on_draw(self, ev: dict, o: dict) -> None:
        t, seat = ev["tile"], ev["seat"]
        o.update(seat=seat, tile=_tile(t), tile_index=t)
        # in blind's blind phase a drawn tile joins the row only via to_back (§3.7a)
        if not self.blind or self.opened[seat]:
            self.rows[seat].append(t)
        if self.blind and self.opened[seat]:
            o["row"] = self._row(seat)

    def _on_pass(self, ev: dict, o: dict) -> None:
        o.update(seat=ev["seat"])

    _on_stop = _on_pass

    def _on_look(self, ev: dict, o: dict) -> None:
        o.update(seat=ev["seat"], tile=_tile(ev["tile"]), tile_index=ev["tile"])

    def _on_to_back(self, ev: dict, o: dict) -> None:
        t, seat = ev["tile"], ev["seat"]
        if t in self.rows[seat]:
            self.rows[seat].remove(t)
        self.rows[seat].append(t)
        face_up = self.rules.blind_unplayable_double_face_up and tiles.is_double(t)
        o.update(seat=seat, tile=_tile(t), tile_index=t, face_up=face_up, row=self._row(seat))

    def _on_open(self, ev: dict, o: dict) -> None:
        self.opened[ev["seat"]] = True
        o.update(seat=ev["seat"], row=self._row(ev["seat"]))

    def _on_score(self, ev: dict, o: dict) -> None:
        side, pts = ev["side"], ev["points"]
        o.update(side=side, points=pts, reason=ev["reason"])
        if self.kozel is not None:
            self.kozel.charge(side, pts)
            o.update(written=list(self.kozel.written), pending=list(self.kozel.pending))
        else:
            self.totals[side] += pts
        o["totals"] = self._totals()

    def _on_penalty(self, ev: dict, o: dict) -> None:
        self.ledger[ev["seat"]] += ev["points"]
        o.update(seat=ev["seat"], points=ev["points"], ledger=list(self.ledger))

    def _on_eggs(self, ev: dict, o: dict) -> None:
        self.kozel.pot, self.kozel.egg_streak = ev["pot"], ev["streak"]
        o.update(pot=ev["pot"], streak=ev["streak"])

    def _on_written(self, ev: dict, o: dict) -> None:
        self.kozel.pot, self.kozel.egg_streak = 0, 0
        if [self.kozel.written, self.kozel.pending] != [ev["written"], ev["pending"]]:
            raise RuntimeError(f"trace: kozel book {self.kozel.written} != engine {ev}")
        o.update(written=ev["written"], pending=ev["pending"])

    def _on_hand_end(self, ev: dict, o: dict) -> None:
        rec, rows = self.rec, self.rows
        hands_left = [sorted(h) if not self.blind else list(h) for h in rows]
        o.update(
            reason=ev["reason"],
            winner=rec.winner,
            went_out=ev["went_out"],
            fish_maker=ev["fish_maker"],
            pips=list(ev["pips"]),
            seat_pips=[tiles.hand_pips(h) for h in rows],
            hands=[[_tile(t) for t in h] for h in hands_left],
            hand_length=rec.hand_length,
            turns=rec.turns,
            points=list(rec.points),
        )
        if self.kozel is not None:
            o["values"] = list(rec.values)

    def _on_match_end(self, ev: dict, o: dict) -> None:
        o.update(winner=ev["winner"], scores=list(ev["scores"]), losers=ev["losers"], dry=ev["dry"])


def trace_records(
    rules: Rules, match: MatchRecord, *, seed: int, strategies: Sequence[str], hand: int | None = 0
) -> list[dict]:
    """The JSON Lines records of one played match: a header, then hand ``hand`` (or every
    hand when ``hand`` is None) with the match result if the match ended there."""
    header = {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "variant": rules.variant,
        "players": rules.players,
        "options": {k: v for k, v in rules.options},
        "seed": seed,
        "match_id": match.match_id,
        "scope": "match" if hand is None else "hand",
        "hand": hand,
        "strategies": list(strategies),
        "rules": rules.label,
        "partnership": rules.partnership,
        "seats": seat_labels(rules),
        "sides": side_labels(rules),
    }
    out = [header]
    walker = _Walker(rules)
    for rec in match.hands:
        emit = hand is None or rec.hand_index == hand
        out += walker.hand(rec, emit)
        if hand is not None and rec.hand_index >= hand:
            break
    return out


def to_jsonl(records: Sequence[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


# ---------------------------------------------------------------------------------------------
# playing a trace


def make_trace(
    rules: Rules,
    *,
    seed: int = 0,
    match_id: int = 0,
    hand: int | None = 0,
    strategies: Sequence[object] | None = None,
    labels: Sequence[str] | None = None,
) -> list[dict]:
    """Play match ``match_id`` on the reference engine and return its trace records.

    ``hand=K`` keeps hand K only (the hands before it are played, since they fix its leader and
    the scores); ``hand=None`` keeps the whole match. ``strategies``: one per seat (default
    random everywhere).
    """
    seed = seeding.check_seed(seed, "make_trace(): seed")
    if strategies is None:
        strategies = [strategy.get(RANDOM)] * rules.players
    if labels is None:
        labels = [getattr(s, "label", getattr(s, "name", type(s).__name__)) for s in strategies]
    # the whole match is played: under unit="hand" the engine closes the match after one hand
    m = play_match(rules, seed, match_id, strategies, unit="match")
    if hand is not None and hand >= m.length:
        raise ConfigError(
            f"--hand {hand}: match {match_id} ended after {m.length} hand"
            f"{'s' if m.length != 1 else ''}; use --hand 0..{m.length - 1}"
        )
    return trace_records(rules, m, seed=seed, strategies=labels, hand=hand)


class _Reached(BaseException):
    """``--decision``: the decision is reached (a BaseException: no strategy's handler and
    no engine's catches it on its way out of the match)."""

    def __init__(self, hand: Any, seat: int, obs: Any, legal: list[int]) -> None:
        super().__init__()
        self.hand, self.seat, self.obs, self.legal = hand, seat, obs, legal


def trace_to_decision(rules: Rules, at: tuple[int, int, int, int], strategies, labels) -> list:
    """The trace of hand ``k`` of match ``match_id`` up to its decision ``d`` (``at``: the
    seed, the match id, ``k`` and ``d``; the questions of the hand with two or more legal
    actions, counted from 0), then a ``decision`` record: the seat's position, its legal
    actions and what its strategy answers there (or raised: docs/trace.md)."""
    seed, match_id, k, d = at
    asked: list[int] = []

    def watch(hand, seat: int, obs, legal: list[int]) -> None:
        if obs.hand_index == k:
            asked.append(obs.decision)
            if obs.decision == d:
                raise _Reached(hand, seat, obs, legal)

    done: list = []
    try:
        m = play_match(rules, seed, match_id, strategies, on_hand=done.append, watch=watch)
    except _Reached as stop:
        m = MatchRecord(match_id, hands=[*done, stop.hand.record])
        out = trace_records(rules, m, seed=seed, strategies=labels, hand=k)
        return [*out, _decision(stop)]
    if k >= m.length:
        raise ConfigError(f"--hand {k}: match {match_id} ended after {m.length} hand(s)")
    raise ConfigError(
        f"--decision {d}: hand {k} of match {match_id} asked {len(asked)} decision(s) (a "
        f"decision is a question with two or more legal actions); use --decision 0.."
        f"{len(asked) - 1}"
        if asked
        else f"--decision {d}: hand {k} of match {match_id} asked no decision (every move "
        "was forced); trace it without --decision"
    )


def _decision(stop: _Reached) -> dict:
    """The ``decision`` record: the position, then the strategy asked as the engine asks it."""
    obs, hand = stop.obs, stop.hand
    rec = {
        "type": "decision",
        "hand": obs.hand_index,
        "decision": obs.decision,
        "seat": stop.seat,
        "phase": obs.phase,
        "tiles": [_tile(t) for t in obs.hand],
        "legal": [actions.describe(a) for a in stop.legal],
        "action": None,
        "error": None,
        "traceback": None,
    }
    hand.watch = None
    try:
        rec["action"] = actions.describe(hand.ask(stop.seat, list(stop.legal), obs.phase))
    except StrategyError as e:
        rec.update(error=e.message, traceback=getattr(e, "traceback", None))
    return rec


def raise_failed(records: Sequence[dict]) -> None:
    """The strategy's error where a ``decision`` record says it raised (after the trace up
    to it is printed): its line, and its own traceback for ``--debug``."""
    last = records[-1] if records else {}
    if last.get("type") == "decision" and last["error"]:
        err = StrategyError(last["error"])
        err.traceback = last["traceback"]
        raise err


@dataclass(frozen=True)
class TraceRequest:
    """The command line's settings of ``dominosim trace`` (docs/trace.md)."""

    players: int = 2
    seed: int = 0
    match_id: int = 0
    hand: int | None = None
    whole_match: bool = False
    strategies: str | None = None
    sets: Sequence[str] = ()
    strategy_path: Sequence[str] = ()
    decision: int | None = None
    isolate: bool = False


def trace_from_cli(variant: str, **request: Any) -> list[dict]:
    """Resolve command-line settings (``request``: the keywords of :class:`TraceRequest`) with
    :mod:`dominosim.config` and play the trace."""
    from dominosim import config

    r = TraceRequest(**request)
    _check_request(r)
    rules = config.rules_from_cli(variant, r.players, list(r.sets))
    if r.whole_match:
        from dominosim.game.variants import check_match_end

        check_match_end(rules, "match")
    exp, seats = _seated(variant, r)
    labels = [s.label for s in exp.seats]
    k = None if r.whole_match else (r.hand or 0)
    if r.decision is not None:
        return trace_to_decision(rules, (exp.seed, r.match_id, k, r.decision), seats, labels)
    return make_trace(
        rules, seed=exp.seed, match_id=r.match_id, hand=k, strategies=seats, labels=labels
    )


def _check_request(r: TraceRequest) -> None:
    """``--match``, ``--hand``, ``--decision``, ``--match-id`` agree, in range (a ConfigError)."""
    if r.whole_match and (r.hand is not None or r.decision is not None):
        what = "--hand" if r.hand is not None else "--decision"
        raise ConfigError(f"{what} and --match exclude each other; --match prints every hand")
    if r.decision is not None and r.decision < 0:
        raise ConfigError(f"--decision must be >= 0, not {r.decision}")
    seeding.check_in_range(r.match_id, "--match-id")
    if r.hand is not None and r.hand < 0:
        raise ConfigError(f"--hand must be >= 0, not {r.hand}")


def _seated(variant: str, r: TraceRequest) -> tuple[Any, list]:
    """The experiment and each seat's strategy: here, or in a process of its own (``--isolate``)."""
    from dominosim import config

    strategy_path = r.strategy_path
    isolate = r.isolate and bool(strategy_path)
    probed = _isolated_names(strategy_path) if isolate else {}
    known = set(probed) if isolate else strategy.discover(strategy_path)
    exp = config.experiment_from_cli(
        variants=[variant],
        players=r.players,
        strategies=r.strategies or RANDOM,
        seed=r.seed,
        known_strategies=known,
    )
    if isolate:
        from dominosim.runner.files import recorded_files, strategy_files

        labels = [s.label for s in exp.seats]
        files = recorded_files({"strategy_files": strategy_files(strategy_path, labels, probed)})
        return exp, _isolated_seats(files, labels)
    return exp, [strategy.get(s.name, strategy_path, **s.kwargs) for s in exp.seats]


def _isolated_names(paths: Sequence[str]) -> dict[str, str]:
    """The strategy names known with ``paths`` loaded in a fresh process, never here
    (``--isolate``), each with the file that defines it: the built-ins', the others'."""
    from dominosim.runner import isolated

    origins = isolated.probe(paths, [])["origins"]
    return {**origins, **{x: strategy.origin(x) for x in strategy.discover()}}


def _isolated_seats(files: Sequence[tuple[str, str, str]], labels: Sequence[str]) -> list:
    """Each seat's strategy: a built-in here, a user's in a fresh process of its own that
    loads the strategy ``files`` (``(kind, path, sha256)``; runner.isolated.IsolatedStrategy:
    one per label, asked one decision at a time)."""
    from dominosim.runner import isolated
    from dominosim.strategy.spec import parse_strategy

    made: dict[str, object] = {}
    for label in dict.fromkeys(labels):
        if isolated.is_builtin(label):
            spec = parse_strategy(label)
            made[label] = strategy.get(spec.name, **spec.kwargs)
        else:
            made[label] = isolated.IsolatedStrategy(label, files, 0.0)
    return [made[x] for x in labels]


def trace_from_run(
    run_dir: str | Path,
    hand_id: str,
    whole_match: bool = False,
    decision: int | None = None,
    isolate: bool = False,
    strategy_path: Sequence[str] = (),
) -> list[dict]:
    """Replay a hand recorded by ``dominosim run`` from its coordinates.

    ``hand_id`` is ``GROUP:ROTATION:MATCH:HAND`` (the record columns ``group``, ``rotation``,
    ``match_id``, ``hand_index``; docs/results.md), or ``MATCH:HAND`` for group 0, rotation 0.
    The reference engine plays it again from the run's seed, rules and seating: deals and
    strategy draws are addressed by these coordinates, so it is the recorded hand.
    ``isolate``: a user's strategy plays in a fresh process of its own (``--isolate``).
    """
    from dominosim import config, runner
    from dominosim.analysis.aggregates import seating
    from dominosim.storage.store import RunDir

    group, rotation, match_id, k = _hand_coordinates(hand_id)
    rd = RunDir.open(run_dir)
    m = rd.manifest()
    plan = runner.Plan.from_manifest(m)  # (a damaged manifest is one line here)
    if group >= len(plan.rules):
        raise ConfigError(f"run {rd.path} has no group {group}; groups: 0 to {len(plan.rules) - 1}")
    rots = plan.rotations_of_group(group)
    if rotation not in rots:
        raise ConfigError(f"run {rd.path} has no rotation {rotation}; rotations: {list(rots)}")
    if not match_id < plan.ids_per_rotation:  # (a hand the run never played)
        raise ConfigError(
            f"run {rd.path} played match ids 0 to {plan.ids_per_rotation - 1}, "
            f"not {match_id}; give a match id of its records"
        )
    if plan.unit == "hand" and k != 0:
        raise ConfigError(f"run {rd.path} plays single hands (unit hand): the hand index is 0")
    labels = list(seating(plan.seats_of(group), rotation))
    specs = [config.parse_strategy(label) for label in labels]
    seats = _run_strategies(rd, m, plan, specs, strategy_path, isolate)
    if decision is not None and not whole_match:
        return trace_to_decision(
            plan.rules[group], (plan.seed, match_id, k, decision), seats, labels
        )
    return make_trace(
        plan.rules[group],
        seed=plan.seed,
        match_id=match_id,
        hand=None if whole_match else k,
        strategies=seats,
        labels=labels,
    )


def _hand_coordinates(hand_id: str) -> list[int]:
    """``GROUP:ROTATION:MATCH:HAND`` (or ``MATCH:HAND``: group 0, rotation 0) as four ints."""
    try:
        parts = [int(x) for x in str(hand_id).split(":")]
    except ValueError:
        parts = []
    if len(parts) == 2:
        parts = [0, 0, *parts]
    if len(parts) != 4 or min(parts) < 0:
        raise ConfigError(
            f"bad hand id '{hand_id}'; write GROUP:ROTATION:MATCH:HAND (or MATCH:HAND), "
            "as in the records' group, rotation, match_id and hand_index columns"
        )
    return parts


def _run_strategies(
    rd, m: dict, plan, specs, strategy_path: Sequence[str], isolate: bool = False
) -> list:
    """The strategies of a recorded run, loaded as ``--resume`` loads them: refused when the
    engine or a strategy file changed since the run (its hand would not be the recorded one);
    the user's files named by the manifest imported only when the user names them
    (``strategy_path``: ``--strategy-path``) and their content is the recorded one (a
    manifest is untrusted input; runner.load_inputs)."""
    from dominosim import runner

    plan = runner.load_inputs(rd, m, plan, strategy_path, "trace --run", isolate=isolate)
    if isolate and any(kind == "path" for kind, _, _ in plan.load_files):
        return _isolated_seats(plan.load_files, [sp.label for sp in specs])
    return [strategy.get(sp.name, **sp.kwargs) for sp in specs]


# ---------------------------------------------------------------------------------------------
# text


def ends_text(positions: list[dict], spinner: dict | None = None) -> str:
    """Open positions as RULES.md writes them: ``[3 | 6x]`` on a line; with a spinner every
    position named, an uncovered playable spinner side in parentheses: ``[W 6 | E 0x | N (5)]``."""
    if (
        spinner is None
        and [p["id"] for p in positions] in (["L", "R"], ["R"])
        and not any(p["spinner_side"] for p in positions)
    ):
        return (
            "[" + " | ".join(f"{p['value']}{'x' if p['double'] else ''}" for p in positions) + "]"
        )
    parts = []
    for p in positions:
        if p["spinner_side"]:
            parts.append(f"{p['id']} ({p['value']})")
        else:
            parts.append(f"{p['id']} {p['value']}{'x' if p['double'] else ''}")
    return "[" + " | ".join(parts) + "]"


def _tiles_text(ts: Sequence[str]) -> str:
    return " ".join(ts) if ts else "-"


def _pips(ts: Sequence[str]) -> int:
    return sum(int(a) + int(b) for a, b in (t.split("-") for t in ts))


_REASONS = {
    "count": "end count",
    "header": "header",
    "domino": "domino",
    "block": "block",
    "failed_turn": "failed turn",
    "penalties": "penalty points of the others",
    "charge": "charge",
    "credit": "credit",
}


def render_text(records: Sequence[dict]) -> str:
    """The trace for people: the deal, then each turn (who, what, the open ends after it), every
    score event with its reason and the running totals, the hand end and the match result."""
    text = _TextTrace(records[0])
    for i in range(1, len(records)):
        text.event(records[i], records[i + 1 :])
    return "\n".join(text.lines) + "\n"


#: the events that are a seat's move: a new turn starts where the seat changes
_MOVES = ("place", "draw", "pass", "stop", "look", "to_back")


class _TextTrace:
    """The text of a trace as it is written, event by event: one method per event kind
    (``_deal``, ``_place``, ...; the kinds without one, ``written`` and ``no_score``, add no
    line: the charge lines and the hand end already say it)."""

    def __init__(self, head: dict) -> None:
        self.head = head
        self.seats: list[str] = head["seats"]
        self.sides: list[str] = head["sides"]
        self.variant = head["variant"]
        facts = trace_facts(make_rules(self.variant, head["players"], **head["options"]))
        self.facts = facts
        self.kozel = facts.kozel_book
        self.per_seat_totals = facts.totals_per_seat
        self.lines: list[str] = []
        self.turn, self.last_seat, self.prefix = 0, None, ""
        self.ladder_started = self.spinner_shown = False
        self.pad = " " * 11
        self.rest: Sequence[dict] = ()
        self.header_lines()

    def w(self, line: str) -> None:
        self.lines.append(line)

    def header_lines(self) -> None:
        head, seats = self.head, self.seats
        who = "teams A (A1, A2) and B (B1, B2)" if head["partnership"] else "individual play"
        where = f", hand {head['hand']}" if head["scope"] == "hand" else ", whole match"
        self.w(
            f"{head['rules']}, {head['players']} players ({who}); seed {head['seed']}, "
            f"match {head['match_id']}" + where
        )
        pairs = zip(seats, head["strategies"], strict=True)
        self.w("strategies: " + ", ".join(f"{s} {n}" for s, n in pairs))
        self.w("seats in play order: " + ", ".join(f"{s} (seat {i})" for i, s in enumerate(seats)))

    def totals_text(self, values) -> str:
        names = self.seats if self.per_seat_totals else self.sides
        return ", ".join(f"{n} {v}" for n, v in zip(names, values, strict=True))

    def written_text(self, written, pending) -> str:
        return ", ".join(
            f"{n} {'-' if x is None else x}" + (f" (pending {p})" if p else "")
            for n, x, p in zip(self.sides, written, pending, strict=True)
        )

    def event(self, o: dict, rest: Sequence[dict]) -> None:
        """Write the lines of event ``o`` (``rest``: the events after it)."""
        kind = o["type"]
        if kind in _MOVES:
            seat = o.get("seat")
            if seat != self.last_seat:
                self.turn += 1
                self.prefix = f"{self.turn:>5}  {self.seats[seat]:<3} "
            else:
                self.prefix = self.pad
            self.last_seat = seat
        handler = getattr(self, "_" + kind, None)
        if handler is not None:
            self.rest = rest
            handler(o)

    def _deal(self, o: dict) -> None:
        seats = self.seats
        self.turn, self.last_seat, self.ladder_started, self.pad = 0, None, False, " " * 11
        self.spinner_shown = False
        self.w("")
        self.w(f"== Hand {o['hand']} ==")
        if o["hand"] > 0 or any(o["scores"]):
            self.w("scores at start: " + self.totals_text(o["scores"]))
        if "kozel" in o:
            kz = o["kozel"]
            self.w(
                "written scores: "
                + self.written_text(kz["written"], kz["pending"])
                + (f"; egg pot {kz['pot']}" if kz["pot"] else "")
                + (f"; egg hands in a row {kz['egg_streak']}" if kz["egg_streak"] else "")
            )
        if o["redeals"]:
            self.w(f"redealt {o['redeals']} time(s) (kozel_redeal)")
        blind = self.facts.rows
        self.w("Deal" + (" (rows front to back):" if blind else ":"))
        for s, h in enumerate(o["hands"]):
            shown = h if blind else sorted(h, key=lambda x: (-_pips([x]), x))
            self.w(f"  {seats[s]:<3} {_tiles_text(shown)}   ({_pips(h)} pips)")
        if self.facts.stock_out_of_play:
            self.w(f"  out of play: {_tiles_text(o['stock'])}")
        else:
            self.w(f"  stock, in draw order: {_tiles_text(o['stock'])}")
        lot = " (by lot)" if o.get("lot") is not None else ""
        self.w(f"leader: {seats[o['leader']]}" + lot)
        self.w("")

    def _start_tile(self, o: dict) -> None:
        what = "starting tile" if self.facts.ladder else "turned-up tile"
        ends = " | ".join(
            f"{p['id']} {p['value']}{'x' if p['double'] else ''}" for p in o["positions"]
        )
        self.w(f"{self.pad}{what} {o['tile']} → ends [{ends}]")

    def _place(self, o: dict) -> None:
        what = f"leads {o['tile']}" if o["lead"] else f"plays {o['tile']} on {o['pos']}"
        if o["along"]:
            what += " (along)"
        line = f"{self.prefix}{what} → ends {ends_text(o['positions'], o['spinner'])}"
        sp = o["spinner"]
        if sp is not None and not self.spinner_shown:
            self.spinner_shown = True
            line += f"  (spinner {sp['value']}-{sp['value']})"
        if "count" in o:
            line += f"  c = {o['count']}"
        if self.facts.ladder and not self.ladder_started:
            self.ladder_started = True
            line += f"  (built on the {o['pos']} half: the layout grows from here only)"
        if "row" in o:
            line += f"; row {_tiles_text(o['row'])}"
        self.w(line)

    def _draw(self, o: dict) -> None:
        self.w(f"{self.prefix}draws {o['tile']}")

    def _pass(self, o: dict) -> None:
        self.w(f"{self.prefix}{'knocks (passes)' if self.kozel else 'passes'}")

    def _stop(self, o: dict) -> None:
        self.w(f"{self.prefix}stops")

    def _look(self, o: dict) -> None:
        self.w(f"{self.prefix}looks at the front tile: {o['tile']}")

    def _to_back(self, o: dict) -> None:
        up = " (face up)" if o["face_up"] else ""
        self.w(f"{self.prefix}{o['tile']} goes to the back{up}; row {_tiles_text(o['row'])}")

    def _open(self, o: dict) -> None:
        self.w(
            f"{self.pad}{self.seats[o['seat']]}'s row holds 3 tiles or fewer: turned up "
            f"({_tiles_text(o['row'])}); open phase from the next turn"
        )

    def _score(self, o: dict) -> None:
        pad = self.pad
        reason = _REASONS.get(o["reason"], o["reason"])
        if o["reason"] == "failed_turn":
            self.w(
                f"{pad}+{o['points']} penalty to {self.seats[o['side']]} (failed turn); "
                f"penalties {self.totals_text(o['totals'])}"
            )
        elif self.kozel:
            verb = "credited" if o["reason"] == "credit" else "charged"
            self.w(
                f"{pad}{self.sides[o['side']]} {verb} {o['points']} → written "
                f"{self.written_text(o['written'], o['pending'])}"
            )
        else:
            self.w(
                f"{pad}{self.sides[o['side']]} +{o['points']} ({reason}); "
                f"totals {self.totals_text(o['totals'])}"
            )

    def _penalty(self, o: dict) -> None:
        led = ", ".join(f"{n} {v}" for n, v in zip(self.seats, o["ledger"], strict=True))
        self.w(f"{self.pad}+{o['points']} penalty to {self.seats[o['seat']]}; penalty ledger {led}")

    def _eggs(self, o: dict) -> None:
        self.w(
            f"{self.pad}eggs: all sides tie; nobody is charged; egg pot {o['pot']}"
            + (f", egg hands in a row {o['streak']}" if o["streak"] else "")
        )

    def _hand_end(self, o: dict) -> None:
        seats, sides = self.seats, self.sides
        self.w("")
        self.w(f"Hand end: {self.end_text(o)}; hand winner {self.winner_text(o)}")
        self.w(
            "  left in hand: "
            + "; ".join(
                f"{seats[s]} {_tiles_text(h)} ({o['seat_pips'][s]})"
                for s, h in enumerate(o["hands"])
            )
        )
        if self.head["partnership"] or self.kozel:
            self.w(
                "  pip totals: "
                + ", ".join(f"{n} {v}" for n, v in zip(sides, o["pips"], strict=True))
            )
        if "values" in o and o["values"] != o["pips"]:
            self.w(
                "  hand values (§14.12): "
                + ", ".join(f"{n} {v}" for n, v in zip(sides, o["values"], strict=True))
            )
        self.w(f"  hand length {o['hand_length']}, turns {o['turns']}")
        self.pad = "  "
        if o["reason"] != "target":
            follow = []
            for nxt in self.rest:
                if nxt["type"] in ("deal", "match_end"):
                    break
                follow.append(nxt["type"])
            self.w("Settlement:" + ("" if {"score", "eggs"} & set(follow) else " nothing scored"))

    def end_text(self, o: dict) -> str:
        """How a hand ended, for its hand end line."""
        if o["reason"] == "domino":
            return f"domino: {self.seats[o['went_out']]} went out"
        if o["reason"] == "blocked":
            if o["fish_maker"] is None:
                return "blocked"
            return f"blocked (fish); fish-maker {self.seats[o['fish_maker']]}"
        return "target reached in play: the match ends at once"

    def winner_text(self, o: dict) -> str:
        if o["winner"] is None:
            return "none"
        team = "team " if self.head["partnership"] else ""
        return f"{team}{(self.seats if self.per_seat_totals else self.sides)[o['winner']]}"

    def _decision(self, o: dict) -> None:
        seat = o["seat"]
        self.w("")
        self.w(
            f">>> decision {o['decision']} of hand {o['hand']}: {self.seats[seat]} (seat {seat}, "
            f"strategy {self.head['strategies'][seat]}) to choose ({o['phase']})"
        )
        self.w(f"    its tiles: {_tiles_text(o['tiles'])}")
        self.w(f"    legal: {', '.join(o['legal'])}")
        self.w(f"    error: {o['error']}" if o["error"] else f"    it chose {o['action']}")

    def _match_end(self, o: dict) -> None:
        self.w("")
        names = self.seats if self.per_seat_totals else self.sides
        win = "none (tie)" if o["winner"] is None else names[o["winner"]]
        self.w(
            f"Match end after hand {o['hand']}: winner {win}; final "
            f"{'penalties' if self.per_seat_totals else 'scores'} "
            f"{self.totals_text(o['scores'])}"
        )
        if o["losers"]:
            self.w(
                "  goat: "
                + ", ".join(names[s] for s in o["losers"])
                + (" (dry)" if o["dry"] else "")
            )


__all__ = [
    "FORMAT",
    "VERSION",
    "ends_text",
    "make_trace",
    "render_text",
    "seat_labels",
    "side_labels",
    "to_jsonl",
    "trace_from_cli",
    "trace_records",
]
