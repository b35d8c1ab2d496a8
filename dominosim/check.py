"""Conformance checks for a strategy: the checks the test suite runs on the built-ins, for any
strategy file (``dominosim check-strategy PATH``, docs/strategies.md "Checking your strategy").

:func:`check_strategy` plays a strategy in every variant and player count (and the §15 options
that add decision kinds) and returns one :class:`Failure` per problem found, each naming the
check, the rule set and a position that shows it:

* ``legal``: every answer is one of the legal actions, an integer code, and nothing raises;
* ``batch``: ``choose`` on a batch (the batch engine) answers as ``choose_one`` row by row
  (the default ``Strategy.choose``);
* ``deterministic``: two fresh instances give the same answers for the same keys, and a
  position asked again (in another order) gets the same answer;
* ``spawn``: a spawned worker process that loads the file by path plays the same games;
* ``inputs``: the strategy leaves the Observation, the legal actions and the keys it is given
  unchanged (``choose_one``'s list, ``choose``'s arrays);
* ``information``: at decisions drawn at random (a probe seed from ``secrets``, never the
  keys), a fresh instance in a process forked before the strategy was asked anything is
  asked the same Observation and key with the hidden part re-dealt in the engine (the other
  hands and the stock, consistent with the Observation: ``mc``'s sampler), and must answer as
  the strategy does on the true deal in this process (:mod:`dominosim.check_information`):
  one that reads hidden state through the engine, or any channel it can reach, fails. It does
  not pass where it probed nothing, nor for a perfect-information strategy (the oracle), which
  sees the hidden tiles by design; blind's rows are not re-dealt (its decisions not probed).

A run of a rule set stops at its first failure, and each check reports at most one failure per
rule set (the one-by-one run checks ``legal`` and ``inputs`` of ``choose_one``, the batch run
``batch``, ``legal`` and ``inputs`` of ``choose``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dominosim import check_information, strategy
from dominosim.base import debug
from dominosim.base.errors import ConfigError, DominosimError, StrategyError, did_you_mean
from dominosim.base.signals import FAULTS, is_interruption, raised
from dominosim.game import seeding
from dominosim.game.rules import PLAYERS, PLAYERS_TEXT, Rules
from dominosim.game.variants import VARIANTS, check_variant, make_rules, options_of
from dominosim.strategy import sandbox
from dominosim.strategy.conformance import Failure, Report, rules_label, show_action, show_position
from dominosim.strategy.spec import RANDOM

CHECKS = ("legal", "batch", "deterministic", "spawn", "inputs", "information")
DEALS = 8  # hands per rule set and check (the command's --deals)
# §15 options that add decision kinds: voluntary draws and plays, a second decision after a draw,
# a double laid along
DECISION_OPTIONS = (
    ("blind", 2, {"blind_draw_optional": True, "blind_play_optional": True}),
    ("bergen", 2, {"bergen_voluntary": True}),
    ("muggins", 2, {"may_draw_when_able": True}),
    ("fives", 2, {"inline_double_counts_single": True}),
)
REASK = 30  # positions asked again by a fresh instance (deterministic)
SPAWN_RULE_SETS = 2  # rule sets played in the spawned worker


def rule_sets(
    variants: Iterable[str] | None = None, players: Iterable[int] | None = None
) -> list[Rules]:
    """The rule sets the checks play: every variant at every player count, partnership play at
    4 players where §15 allows it, and the options of :data:`DECISION_OPTIONS`."""
    variants = list(VARIANTS if variants is None else variants)
    players = tuple(PLAYERS if players is None else players)
    for v in variants:
        check_variant(v)
    for p in players:
        if isinstance(p, bool) or p not in PLAYERS:
            raise ConfigError(f"players must be {PLAYERS_TEXT}, not {p!r}")
    out = []
    for v in variants:
        out += [make_rules(v, p) for p in players]
        if 4 in players and "partnership" in options_of(v):
            out.append(make_rules(v, 4, partnership=True))
    for v, p, opts in DECISION_OPTIONS:
        if v in variants and p in players:
            out.append(make_rules(v, p, **opts))
    return out


# ---------------------------------------------------------------------------------------------
# what the checker plays


class _Found(Exception):
    """A rule set's first failure (ends that rule set's run)."""


class _Recorder:
    """The failures of one strategy; ``report`` keeps the first of each check and rule set
    and (``stop``) ends the rule set's run."""

    def __init__(self, label: str, seed: int):
        self.label = label
        self.seed = seed
        self.failures: list[Failure] = []
        self.found: set[tuple[str, str]] = set()
        self.decisions = 0  # decisions checked
        self.probed = 0  # decisions probed (information)

    def report(self, check, rules, message, obs=None, legal=(), *, stop=True, shown=""):
        where = rules if isinstance(rules, str) else rules_label(rules)
        if (check, where) not in self.found:
            self.found.add((check, where))
            pos = show_position(obs, legal, self.seed) if obs is not None else shown
            tb = getattr(message, "traceback", "")  # (a strategy that raised: _raised)
            self.failures.append(Failure(check, self.label, where, message, pos, tb))
        if stop:
            raise _Found


class _Said(str):
    """A failure's message, with the strategy's own traceback (``--debug``)."""

    traceback = ""


def _raised(where: str, exc: BaseException) -> str:
    at = debug.where(exc)
    said = _Said(f"{where} raised {raised(exc)}{' at ' + at if at else ''}")
    said.traceback = debug.traceback_text(exc)
    return said


class _Watch(strategy.Strategy):
    """One by one (reference engine): checks each answer of ``inner.choose_one`` and keeps the
    decisions, in order, as ``(obs, legal, key, action)``."""

    name = "check"
    params = {}

    def __init__(self, inner, rules: Rules, rec: _Recorder):
        super().__init__()
        self.inner, self.rules, self.rec = inner, rules, rec
        self.seen: list[tuple] = []
        self.stopped = False

    @property
    def label(self) -> str:  # (the engines' errors name the strategy under test)
        return getattr(self.inner, "label", "?")

    def choose_one(self, obs, legal, key):
        if self.stopped:
            return legal[0]
        shown, before = list(legal), dataclasses.replace(obs)
        try:
            a = self._ask(obs, legal, key, shown, before)
        except _Found:
            self.stopped = True
            return shown[0]
        self.seen.append((obs, tuple(shown), key, a))
        self.rec.decisions += 1
        return a

    def _ask(self, obs, legal, key, shown, before):
        rep, r = self.rec.report, self.rules
        try:
            a = self.inner.choose_one(obs, legal, key)
        except FAULTS as exc:
            if is_interruption(exc):
                raise
            rep("legal", r, _raised("choose_one", exc), before, shown)
        if list(legal) != shown:
            rep(
                "inputs",
                r,
                "choose_one changed the list of legal actions it was given",
                before,
                shown,
            )
        if obs != before:
            rep("inputs", r, "choose_one changed the Observation it was given", before, shown)
        if isinstance(a, bool) or not hasattr(a, "__index__"):
            rep(
                "legal",
                r,
                f"choose_one returned {show_action(a)} ({type(a).__name__}), not an "
                "action; an action is an integer code of dominosim.actions",
                before,
                shown,
            )
        if a not in shown:
            rep(
                "legal", r, f"choose_one returned an illegal action {show_action(a)}", before, shown
            )
        return int(a)


def _play(rules: Rules, strat, seed: int, deals: int, rec: _Recorder) -> _Watch:
    """``deals`` hands on the reference engine: the strategy at every seat in odd deals, at
    seat 0 against ``random`` in even ones."""
    from dominosim.game.reference import play_match

    w = _Watch(strat, rules, rec)
    other = strategy.get(RANDOM)
    for m in range(deals):
        seats = [w] * rules.players if m % 2 else [w] + [other] * (rules.players - 1)
        try:
            play_match(rules, seed, m, seats, unit="hand")
        except StrategyError as exc:  # (the engine's own refusal; _Watch answers legally)
            rec.report("legal", rules, exc.message, stop=False)
            w.stopped = True
        if w.stopped:
            break
    return w


def _sequence(w: _Watch) -> list[tuple]:
    return [(o.match_id, o.hand_index, o.decision, o.seat, a) for o, _, _, a in w.seen]


def _first_difference(a: list, b: list) -> int | None:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


# fmt: off
_BATCH_ARRAYS = ("seat", "hand", "hand_mask", "values", "table", "counts", "voids",
                 "stock_size", "drawable", "scores", "penalties", "leader", "match_id",
                 "hand_index", "decision", "doubles", "along", "table_count")
# fmt: on


def _snapshot(obs, legal, keys) -> dict:
    """Copies of every array a batch decision gives the strategy."""
    for name in _BATCH_ARRAYS:  # (read now: the fields are read lazily)
        try:
            getattr(obs, name)
        except Exception:  # noqa: BLE001 - a field this engine does not give is not compared
            pass
    snap = {f"obs.{k}": np.array(v) for k, v in vars(obs).items() if isinstance(v, np.ndarray)}
    for f in dataclasses.fields(legal):
        v = getattr(legal, f.name)
        if isinstance(v, np.ndarray):
            snap[f"legal.{f.name}"] = np.array(v)
    snap["keys"] = np.array(keys)
    return snap


def _changed(snap: dict, obs, legal, keys) -> list[str]:
    now = {k: v for k, v in vars(obs).items() if isinstance(v, np.ndarray)}
    out = []
    for name, old in snap.items():
        kind, _, field = name.partition(".")
        cur = (
            keys
            if kind == "keys"
            else now.get(field)
            if kind == "obs"
            else getattr(legal, field, None)
        )
        if cur is None or np.shape(cur) != old.shape or not np.array_equal(cur, old):
            out.append(name)
    return out


class _Compare(strategy.Strategy):
    """For the batch engine: answers with ``inner.choose`` and checks each row against
    ``inner.choose_one`` on that row (computed first, on inputs nothing has touched)."""

    name = "check"
    params = {}

    def __init__(self, inner, rules: Rules, rec: _Recorder):
        super().__init__()
        self.inner, self.rules, self.rec = inner, rules, rec
        self.stopped = False

    @property
    def label(self) -> str:  # (the engines' errors name the strategy under test)
        return getattr(self.inner, "label", "?")

    def choose(self, obs, legal, keys):
        if self.stopped:
            return legal.uniform(keys)
        try:
            return self._check(obs, legal, keys)
        except _Found:
            self.stopped = True
            return legal.uniform(keys)

    def _check(self, obs, legal, keys):
        rep, r, n = self.rec.report, self.rules, len(keys)
        if n == 0:
            return self.inner.choose(obs, legal, keys)
        snap = _snapshot(obs, legal, keys)
        rows = [(obs.row(i), legal.row_list(i), int(keys[i])) for i in range(n)]
        one = self._one_by_one(rows)
        try:
            out = self.inner.choose(obs, legal, keys)
        except FAULTS as exc:
            if is_interruption(exc):
                raise
            rep("batch", r, _raised(f"choose on a batch of {n}", exc), *rows[0][:2])
        moved = _changed(snap, obs, legal, keys)
        if moved:
            rep(
                "inputs",
                r,
                f"choose changed the arrays it was given: {', '.join(moved)}",
                *rows[0][:2],
            )
        try:
            out = strategy.check_actions(self.inner.label, out, n)
        except StrategyError as exc:
            rep("legal", r, f"choose: {exc.message}", *rows[0][:2])
        if out.shape != (n,):
            rep(
                "batch",
                r,
                f"choose returned an array of shape {out.shape} for a batch of {n}",
                *rows[0][:2],
            )
        self._same_answers(rows, out, one)
        self.rec.decisions += n
        return np.asarray(one, dtype=np.int64)

    def _one_by_one(self, rows: list) -> list[int]:
        """``choose_one``'s answer at each row, each checked legal."""
        rep, r, one = self.rec.report, self.rules, []
        for o, lg, k in rows:
            try:
                a = self.inner.choose_one(o, list(lg), k)
            except FAULTS as exc:
                if is_interruption(exc):
                    raise
                rep("legal", r, _raised("choose_one", exc), o, lg)
            if isinstance(a, bool) or not hasattr(a, "__index__") or a not in lg:
                rep("legal", r, f"choose_one returned {show_action(a)}, not a legal action", o, lg)
            one.append(int(a))
        return one

    def _same_answers(self, rows: list, out: np.ndarray, one: list[int]) -> None:
        """``choose``'s answers ``out`` legal and equal to ``choose_one``'s, row by row."""
        rep, r, n = self.rec.report, self.rules, len(rows)
        for i, (o, lg, _) in enumerate(rows):
            if int(out[i]) not in lg:
                rep(
                    "legal",
                    r,
                    f"choose returned an illegal action {show_action(int(out[i]))} "
                    f"(row {i} of {n})",
                    o,
                    lg,
                )
            if int(out[i]) != one[i]:
                rep(
                    "batch",
                    r,
                    f"choose answered {show_action(int(out[i]))} (row {i} of {n}) "
                    f"where choose_one answers {show_action(one[i])}",
                    o,
                    lg,
                )


# ---------------------------------------------------------------------------------------------
# the checks


def _check_legal(make, sets, seed, deals, rec, runs) -> None:
    for rules in sets:
        runs[rules] = _play(rules, make(), seed, deals, rec)


def _check_deterministic(make, sets, seed, deals, rec, runs) -> None:
    for rules in sets:
        first = runs.get(rules) or _play(rules, make(), seed, deals, rec)
        if first.stopped:
            continue  # (its failure is reported)
        second = _play(rules, make(), seed, deals, _Recorder(rec.label, seed))
        a, b = _sequence(first), _sequence(second)
        i = _first_difference(a, b)
        try:
            if i is not None:
                o, lg, _, x = first.seen[min(i, len(first.seen) - 1)]
                y = show_action(b[i][-1]) if i < len(b) else "nothing (it stopped)"
                rec.report(
                    "deterministic",
                    rules,
                    f"two fresh instances answered differently: {show_action(x)}, then {y}",
                    o,
                    lg,
                )
            again = make()
            for o, lg, k, x in reversed(first.seen[:REASK]):
                y = again.choose_one(o, list(lg), k)
                if y != x:
                    rec.report(
                        "deterministic",
                        rules,
                        f"asked again (a fresh instance, in "
                        f"another order) it answered {show_action(y)}, first "
                        f"{show_action(x)}",
                        o,
                        lg,
                    )
        except _Found:
            continue
        except FAULTS as exc:
            if is_interruption(exc):
                raise
            rec.report("deterministic", rules, _raised("choose_one", exc), stop=False)


def _check_batch(make, sets, seed, deals, rec) -> None:
    from dominosim.engine.batch import BatchEngine

    for rules in sets:
        cmp = _Compare(make(), rules, rec)
        try:
            BatchEngine(
                rules, seed, [cmp] * rules.players, range(deals), unit="hand", batch_size=deals
            ).run()
        except StrategyError as exc:
            if not cmp.stopped:
                rec.report("batch", rules, f"the batch engine stopped: {exc.message}", stop=False)


def _rules_args(rules: Rules) -> tuple:
    return rules.variant, rules.players, dict(rules.options)


def _spawn_worker(conn, job) -> None:
    """In a spawned process: load the strategy as ``job`` says and play its rule sets."""
    try:
        load, name, params, sets, seed, deals = job
        kind, where, paths = load
        if kind == "file":
            strategy.load_file(Path(where)) if Path(where).is_file() else strategy.load_folder(
                where
            )
        rec = _Recorder(name, seed)
        out = []
        for args in sets:
            rules = make_rules(args[0], args[1], **args[2])
            out.append(
                _sequence(_play(rules, strategy.get(name, paths, **params), seed, deals, rec))
            )
        conn.send(("ok", out, rec.failures))
    except BaseException as exc:  # noqa: BLE001 - whatever fails there is the finding
        conn.send(("error", _raised("loading and playing", exc), []))
    finally:
        conn.close()


def _spawned(work: tuple, timeout: float) -> tuple:
    """``_spawn_worker``'s answer to ``work`` in a spawned process (None: none within
    ``timeout`` seconds), and the process's exit code."""
    import multiprocess as mp

    ctx = mp.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_spawn_worker, args=(send, work))  # (it may start processes)
    proc.start()
    send.close()
    try:
        got = recv.recv() if recv.poll(timeout) else None
    except (EOFError, OSError):
        got = None
    proc.join(5)
    if proc.is_alive():
        proc.terminate()
        proc.join(5)
    recv.close()
    return got, proc.exitcode


def _check_spawn(which: tuple, job: _Job, rec: _Recorder, runs: dict) -> None:
    """The check in a spawned worker: ``which`` is (make, load, name, params) of the
    strategy, ``runs`` the games this process played of it already."""
    sets = [r for r in job.sets if r.players == 2][:SPAWN_RULE_SETS] or list(job.sets)[:1]
    if not sets:
        return
    timeout = job.timeout
    make, seed, deals = which[0], job.seed, job.deals
    work = (*which[1:], [_rules_args(r) for r in sets], seed, deals)
    got, exitcode = _spawned(work, timeout)
    first = sets[0]
    if got is None:
        why = (
            f"did not answer within {timeout:g} s"
            if exitcode in (None, -15)
            else f"died (exit code {exitcode}) before answering"
        )
        rec.report("spawn", first, f"the spawned worker {why}", stop=False)
        return
    status, seqs, failures = got
    if status != "ok":
        rec.report("spawn", first, f"in a spawned worker: {seqs}", stop=False)
        return
    for f in failures:  # (those this process found too are reported already)
        if (f.check, f.rules) not in rec.found:
            rec.found.add(("spawn", f.rules))
            rec.failures.append(
                dataclasses.replace(f, check="spawn", message=f"in a spawned worker: {f.message}")
            )
    rec.decisions += sum(len(x) for x in seqs)
    bad = {f.rules for f in failures}
    for rules, theirs in zip(sets, seqs, strict=True):
        if rules_label(rules) in bad:
            continue
        here = runs.get(rules) or _play(rules, make(), seed, deals, _Recorder(rec.label, seed))
        ours = _sequence(here)
        i = _first_difference(ours, theirs)
        if i is not None and not here.stopped:
            o, lg, _, x = here.seen[min(i, len(here.seen) - 1)]
            y = show_action(theirs[i][-1]) if i < len(theirs) else "nothing"
            rec.report(
                "spawn",
                rules,
                f"a spawned worker answered {y} where this process answered {show_action(x)}",
                o,
                lg,
                stop=False,
            )


def _targets(target, paths) -> tuple[list[tuple[str, dict]], tuple]:
    """The strategies to check, ``[(name, params)]``, and how a worker loads them."""
    from dominosim.strategy.spec import expand_home, parse_strategy

    text = str(target)
    path = Path(expand_home(text, "check-strategy PATH"))
    head = text.split(":", 1)[0]  # (NAME:KEY=VALUE, a value may be a path: learned:model=FILE)
    as_path = (
        text.endswith(".py")
        or (
            ("/" in text or "\\" in text) and not (":" in text and head in strategy.discover(paths))
        )
        or (path.is_dir() and text not in strategy.discover(paths))
    )
    if as_path:
        if not path.exists():
            raise StrategyError(f"strategy file {path} does not exist; check the path")
        if path.is_dir():
            files = sorted(p for p in path.glob("*.py") if not p.name.startswith("_"))
            strategy.load_folder(path)
        elif path.suffix == ".py":
            files = [path]
            strategy.load_file(path)
        else:
            raise StrategyError(
                f"strategy path {path} is not a folder or a .py file; give a strategy file"
            )
        strategy.discover(paths)
        mine = {str(f.resolve()) for f in files}
        names = sorted(n for n in strategy.discover(paths) if strategy.origin(n) in mine)
        if not names:
            kind = "folder" if path.is_dir() else "file"
            raise StrategyError(
                f"strategy {kind} {path} registers no strategy; decorate a Strategy subclass "
                "with @register (docs/strategies.md)"
            )
        return [(n, {}) for n in names], ("file", str(path.resolve()), tuple(paths))
    spec = parse_strategy(text, where="check-strategy")
    strategy.get(spec.name, paths, **spec.kwargs)  # (an unknown name or parameter: its error now)
    return [(spec.name, spec.kwargs)], ("label", text, tuple(paths))


@dataclass(frozen=True)
class CheckOptions:
    """The keywords of :func:`check_strategy`, with their defaults."""

    deals: int = DEALS
    seed: int = 0
    paths: Sequence[str] = ()
    variants: Iterable[str] | None = None
    players: Iterable[int] | None = None
    checks: Iterable[str] = CHECKS
    timeout: float = 300.0
    strategy_timeout: float | None = None
    probe_seed: int | None = None
    progress: bool = False


@dataclass(frozen=True)
class _Job:
    """What the child process of a check is given: the checked keywords, resolved."""

    target: str | Path
    paths: list[str]
    sets: list[Rules]
    seed: int
    deals: int
    checks: tuple[str, ...]
    timeout: float
    limit: float
    probe_seed: int
    progress: bool


def check_strategy(target: str | Path, **options: object) -> Report:
    """Check the strategies of a file (every strategy it registers) or one registered strategy.

    ``target`` is a strategy file (``.py``), a folder of them, or a strategy label
    ``NAME[:KEY=VALUE...]`` (a built-in, or one of ``paths``). ``deals`` hands are played per
    rule set and check, from ``seed``; ``variants`` and ``players`` narrow the rule sets
    (default: all, see :func:`rule_sets`), ``checks`` the checks (:data:`CHECKS`);
    ``timeout`` bounds the spawned worker, in seconds; ``strategy_timeout`` (seconds, None
    or 0: no limit) bounds each decision, and the loading and start of each strategy
    (``--strategy-timeout``). Returns the failures (a :class:`Report`, empty when the
    strategy passes). A path that does not exist, a file that fails to load or registers no
    strategy, an unknown name or parameter is a StrategyError.

    The strategies are loaded and played in a child process (:func:`dominosim.sandbox.call`),
    as ``run`` plays them: a strategy that ends its process (``os._exit``, a crash, a kill),
    or takes longer than ``strategy_timeout``, is a StrategyError naming it, and never ends
    the caller.
    """
    known = [f.name for f in dataclasses.fields(CheckOptions)]
    bad = next((k for k in options if k not in known), None)
    if bad is not None:
        raise ConfigError(
            f"check_strategy(): unknown keyword '{bad}'{did_you_mean(bad, known)}; its "
            f"keywords are: {', '.join(known)}"
        )
    o = CheckOptions(**options)
    if isinstance(o.deals, bool) or not isinstance(o.deals, int) or o.deals < 1:
        raise ConfigError(f"deals must be an integer >= 1, not {o.deals!r}")
    seeding.check_seed(o.seed, "check_strategy(): seed")
    _check_types(target, o)
    checks = tuple(o.checks)
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ConfigError(
            f"unknown check '{unknown[0]}'{did_you_mean(unknown[0], CHECKS)}; the checks are: "
            f"{', '.join(CHECKS)}"
        )
    sets = rule_sets(o.variants, o.players)
    limit = _strategy_timeout(o.strategy_timeout)
    key = check_information.probe_seed() if o.probe_seed is None else o.probe_seed
    job = _Job(
        target, list(o.paths), sets, o.seed, o.deals, checks, o.timeout, limit, key, o.progress
    )
    strategy.load_builtins()  # (the package's own code, here: the child inherits it)
    try:
        return sandbox.call(_in_child, job, died=_died)
    finally:
        if o.progress:
            _say("")


def _check_types(target, o: CheckOptions) -> None:
    """The keywords of :func:`check_strategy` of the right types: one ConfigError naming the
    keyword otherwise (a string is not a list of names here: ``variants=["fives"]``)."""

    def names(x, key, kind=str) -> None:
        ok = isinstance(x, list | tuple) and all(
            isinstance(v, kind) and not isinstance(v, bool) for v in x
        )
        if not ok:
            raise ConfigError(
                f"check_strategy(): {key} must be a list of {kind.__name__}s, not {x!r}"
            )

    if not isinstance(target, str | Path):
        raise ConfigError(
            f"check_strategy(): target must be a strategy file, folder or name (a string or "
            f"pathlib.Path), not {target!r}"
        )
    paths, timeout = o.paths, o.timeout
    names(
        [str(p) if isinstance(p, Path) else p for p in paths]
        if isinstance(paths, list | tuple)
        else paths,
        "paths",
    )
    names(o.checks if not isinstance(o.checks, str) else None, "checks")
    if o.variants is not None:
        names(o.variants, "variants")
    if o.players is not None:
        names(o.players, "players", int)
    key = o.probe_seed
    if key is not None and (
        isinstance(key, bool) or not isinstance(key, int) or not 0 <= key < 2**63
    ):
        raise ConfigError(
            f"check_strategy(): probe_seed must be an integer in [0, 2**63), not {key!r}"
        )
    if not isinstance(o.progress, bool):
        raise ConfigError(f"check_strategy(): progress must be True or False, not {o.progress!r}")
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= 86400
    ):
        raise ConfigError(
            f"check_strategy(): timeout must be a number of seconds in (0, 86400], not {timeout!r}"
        )


def _strategy_timeout(value) -> float:
    """``--strategy-timeout``: seconds, 0 or None (no limit); a ConfigError otherwise."""
    if value is None:
        return 0.0
    from dominosim.base.session import timeout_seconds

    return timeout_seconds(value) or 0.0


def _in_child(progress, job: _Job) -> Report:
    """:func:`check_strategy`'s work, in its child process (``progress``: what it is doing,
    for :func:`_died`)."""
    from dominosim.runner.worker import StrategyTimeout, time_limit

    target, limit = job.target, job.limit
    progress(f"path {target}")
    try:
        with time_limit(limit):
            todo, load = _targets(target, job.paths)
        report = Report(checks=job.checks, rule_sets=len(job.sets))
        report.probe_seed = job.probe_seed if "information" in job.checks else None
        for name, params in todo:
            progress(f"check {name}")
            rec = _named(name, _check_one, name, params, load, job)
            report += rec.failures
            report.strategies.append(rec.label)
            report.decisions += rec.decisions
            report.probed += rec.probed
            note = strategy.twin_note(name)
            if note is not None and note not in report.notes:
                report.notes.append(note)
    except StrategyTimeout as e:  # (named by where it struck: _limited)
        raise _timed_out(e, job) from None
    return report


def _named(name: str, fn, *args):
    """``fn(*args)``; a BaseException subclass of the strategy's own that the checks let
    through (they catch what a strategy may raise, :data:`FAULTS`) names the strategy and
    says what it is."""
    from dominosim.runner.worker import StrategyTimeout

    try:
        return fn(*args)
    except BaseException as e:
        if isinstance(e, (*FAULTS, StrategyTimeout, DominosimError)) or is_interruption(e):
            raise
        raise StrategyError(f"strategy '{name}' raised {raised(e)}; fix the strategy") from None


def _limited(what: str, limit: float, fn, *args):
    """``fn(*args)`` under the time limit; a StrategyTimeout names ``what`` it waited on."""
    from dominosim.runner.worker import StrategyTimeout, time_limit

    try:
        with time_limit(limit):
            return fn(*args)
    except StrategyTimeout:
        raise StrategyTimeout(what) from None


def _died(how: str, last: str | None) -> str:
    """The line of a check whose child process ended without answering."""
    kind, _, what = (last or "path ?").partition(" ")
    if kind == "check":
        return (
            f"strategy '{what}' ended the check's process ({how}: os._exit or a kill in the "
            "strategy, or a crash); fix the strategy"
        )
    return (
        f"strategy path {what} ended its process while loading ({how}: os._exit at import, "
        "or a crash); fix it"
    )


@strategy.wrapper
class _Limited:
    """A strategy whose every decision runs under the check's ``--strategy-timeout``."""

    def __init__(self, inner, limit: float):
        self.inner, self.limit = inner, limit

    def __getattr__(self, attr: str):
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def _timed(self, method, *args):
        what = f"strategy '{getattr(self.inner, 'label', '?')}'"
        return _limited(what, self.limit, method, *args)

    def choose_one(self, obs, legal, key):
        return self._timed(self.inner.choose_one, obs, legal, key)

    def choose(self, obs, legal, keys):
        return self._timed(self.inner.choose, obs, legal, keys)


def _check_one(name, params, load, job: _Job) -> _Recorder:
    paths, limit = load[2], job.limit
    seed, deals = job.seed, job.deals

    def make():
        if not limit:
            return strategy.get(name, paths, **params)
        what = f"strategy '{name}' (its __init__)"
        made = _limited(what, limit, lambda: strategy.get(name, paths, **params))
        return _Limited(made, limit)

    def sets(check):  # (the rule sets, each shown on a terminal as it is checked)
        return _ticking(job, make().label, check, job.sets)

    rec = _Recorder(make().label, seed)
    # (the oracle reads the true deal by design: its registered class says so)
    exempt = strategy.plays_with_perfect_information(strategy.discover(paths)[name])
    informed = "information" in job.checks and not exempt
    probed = _redealt(make, job, sets) if informed else None  # (before anything is asked here)
    runs: dict = {}
    steps: dict[str, Callable[[], None]] = {
        "legal": lambda: _check_legal(make, sets("legal"), seed, deals, rec, runs),
        "deterministic": lambda: _check_deterministic(
            make, sets("deterministic"), seed, deals, rec, runs
        ),
        "batch": lambda: _check_batch(make, sets("batch"), seed, deals, rec),
        "spawn": lambda: _check_spawn((make, load, name, params), job, rec, runs),
        "information": lambda: check_information.compare(
            make, enumerate(sets("information")), seed, deals, rec, probed
        ),
    }
    for check in ("legal", "deterministic", "batch", "spawn", "information"):
        if check in job.checks and (check != "information" or informed):
            steps[check]()
    if "information" in job.checks:
        check_information.verdict(rec, len(job.sets), exempt)
    if "inputs" in job.checks and not {"legal", "batch"} & set(job.checks):
        _check_legal(make, sets("inputs"), seed, deals, rec, runs)  # (the inputs are checked there)
    return rec


def _redealt(make, job: _Job, sets) -> tuple:
    """The information check's re-dealt answers, from a process forked now, before this one
    has asked the strategy anything (check_information.redealt_answers); its errors read as
    this process's."""
    from dominosim.runner.worker import StrategyTimeout

    todo = enumerate(sets("information, re-dealt"))  # (each shown as the child reaches it)

    def work(progress):
        label = make().label
        progress(f"check {label}")
        try:
            return _named(
                label,
                check_information.redealt_answers,
                *(make, todo, job.seed, job.deals, job.probe_seed),
            )
        except StrategyTimeout as e:
            raise _timed_out(e, job) from None

    return sandbox.call(work, died=_died)


def _timed_out(e, job: _Job) -> StrategyError:
    """The error of a strategy slower than ``--strategy-timeout`` (named by where it struck:
    _limited)."""
    what = e.args[0] if e.args else f"strategy file {job.target} (loading it)"
    return StrategyError(
        f"{what} did not return within {job.limit:g} s (--strategy-timeout); fix the "
        "strategy or raise the limit"
    )


def _say(text: str) -> None:
    """One progress line on the terminal (stderr), written over the last."""
    import sys

    sys.stderr.write("\r\x1b[K" + text[:160])
    sys.stderr.flush()


def _ticking(job: _Job, label: str, check: str, sets):
    """``sets``, each rule set shown as it is reached where ``job.progress`` (a terminal)."""
    for i, rules in enumerate(sets):
        if job.progress:
            _say(
                f"check-strategy {label}: {check}, rule set {i + 1}/{len(sets)}: {rules_label(rules)}"
            )
        yield rules
