"""Round robins and sweeps on common deals: ``compare``, ``tune`` and ``tune-target``
(docs/compare.md, docs/skill.md).

All of them are runs of :mod:`dominosim.runner` (same plan, executors, results folder,
resume); this module plans them: each ``setup_*`` returns one :class:`dominosim.analysis.analyses.Setup`
(their registry rows name them, with skill's measurement, :func:`skill_measurement`). Their own report section, ``analysis``, is computed like the rest of
the report from the manifest and the integer aggregates (:func:`dominosim.report.analysis`;
Bradley–Terry in :mod:`dominosim.stats`).

* ``compare``: one group per **leg** (a table of strategies), every leg on the same match ids:
  with 2 players every pairing ``a,b`` (both seatings); in partnership every pair of teams
  ``a,b,a,b`` (both seatings); with 3-4 players otherwise every subset of P strategies in every
  cyclic rotation. Pairwise wins give a win-rate matrix and Bradley–Terry ratings.
* ``tune``: option groups of one variant (``--set variants.OPT=a,b``) on the same deals, side by side.
* ``tune-target``: ``tune`` over the match target (``kozel_target`` for kozel).
* ``skill``: luck against skill (docs/skill.md): a ladder of strategies, each pair at one
  table (``a,b`` with 2 players, ``a,b,a,b`` with 4: A in seats 0 and 2, ``a,b,b`` with 3) on
  the same deals in every seating, one hand per deal.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dominosim.analysis.analyses import (
    COMPARE,
    METRICS,
    SHARE,
    SKILL,
    TUNE,
    TUNE_TARGET,
    CompareParams,
    Setup,
    SkillParams,
    TuneParams,
    TuneTargetParams,
)
from dominosim.base.errors import ConfigError
from dominosim.base.params import declared
from dominosim.game import variants
from dominosim.game.rules import Rules
from dominosim.game.variants import apply_sets
from dominosim.strategy.spec import parse_strategies

#: the declared parameters of skill and tune-target (their ranges: ``lo``)
_SKILL, _TARGETS = declared(SkillParams), declared(TuneTargetParams)["targets"]
_SHARE = declared(TuneTargetParams)["share"]

#: How a setup gets the Rules of a command's ``variant``, ``players`` and ``--set`` entries:
#: the entry point's own parser (``config.rules_from_cli``), so a mistake reads as in every
#: command, and the analyses parse nothing of the command line themselves.
RulesOf = Callable[[str, int | str, Sequence[str]], Rules]


def default_ladder() -> list[str]:
    """``dominosim skill``'s default ladder: every built-in strategy by classifier (random,
    the heuristics, the search, the perfect-information oracle: a cheating reference;
    docs/skill.md), then rank (dominosim.strategy.builtins)."""
    from dominosim import strategy

    return strategy.builtins()


def baseline() -> str:
    """The strategy skill measures every other against: the built-in classified random."""
    from dominosim import strategy

    (name,) = strategy.builtins("random")
    return name


# ---------------------------------------------------------------------------------------------
# planning


def compare_legs(strategies: Sequence[str], players: int, partnership: bool) -> list[tuple]:
    """The tables of a round robin: seat lists, each played in all its cyclic rotations.

    2 players: every pair ``(a, b)``; partnership (4 players, 2 teams): every pair of teams
    ``(a, b, a, b)``; 3-4 players otherwise: every subset of ``players`` strategies.
    """
    names = list(strategies)
    if players == 2 or partnership:
        return [(a, b) * (players // 2) for a, b in itertools.combinations(names, 2)]
    if len(names) < players:
        raise ConfigError(
            f"compare with {players} players seats {players} different strategies at a table, "
            f"but --strategies names {len(names)}; give at least {players} or use --players 2"
        )
    return list(itertools.combinations(names, players))


def _games(games, default: int = 1000, option: str = "--games", lo: int = 1) -> int:
    if games is None:
        return default
    try:
        n = int(str(games).strip())
    except ValueError:
        raise ConfigError(f"{option} must be an integer >= {lo}, not '{games}'") from None
    if n < lo:
        raise ConfigError(f"{option} must be an integer >= {lo}, not {n}")
    return n


def _strategy_labels(strategies) -> list[str]:
    if strategies is None:
        raise ConfigError("compare needs --strategies with at least two names, e.g. random,greedy")
    labels = [s.label for s in parse_strategies(strategies)]
    if len(labels) < 2:
        raise ConfigError(
            f"compare needs at least two strategies, not one ('{labels[0]}'); "
            "write e.g. --strategies random,greedy"
        )
    for x in labels:
        if labels.count(x) > 1:
            raise ConfigError(f"--strategies names '{x}' twice; compare plays each strategy once")
    return labels


def check_metric(metric: str | None, unit: str | None) -> str | None:
    """``--metric``: hands, points or matches (None: the metric that decides the game);
    matches needs ``--unit match`` (with unit hand a game is one hand)."""
    if metric is None:
        return None
    if metric not in METRICS:
        raise ConfigError(f"--metric must be one of {', '.join(METRICS)}, not '{metric}'")
    if metric == "matches" and (unit or "hand") != "match":
        raise ConfigError(
            "--metric matches ranks by match wins, but with --unit hand every game is one "
            "hand; add --unit match, or rank by hands or points"
        )
    return metric


def setup_compare(
    rules_of: RulesOf,
    params: CompareParams,
    *,
    players: int | str = 2,
    strategies: str | Sequence[str] | None = None,
    sets: Sequence[str] = (),
    games: int | str | None = None,
    **flags: Any,
) -> Setup:
    """The :class:`~dominosim.analysis.analyses.Setup` of ``dominosim compare``: one leg per table.

    ``games`` is the total over all legs and seatings; each leg gets ``ceil(games / legs)``;
    ``params.metric`` ranks by hands, points or matches instead of what decides the game;
    ``params.equal_time`` (milliseconds per decision): each search's budget knob calibrated
    to it first (:mod:`dominosim.analysis.equal_time`), the calibrated entries played and
    recorded.
    """
    variant = params.variant
    unit = flags.pop("unit", None)
    labels = _strategy_labels(strategies)
    metric = check_metric(params.metric, unit)
    from dominosim.analysis import equal_time as et

    ms = None if params.equal_time is None else et.parse_ms(params.equal_time)
    rules = rules_of(variant, players, sets)
    cal = None if ms is None else et.calibrate(rules, labels, ms, flags.get("strategy_path") or ())
    labels = cal.labels if cal else labels
    legs = compare_legs(labels, rules.players, rules.partnership)
    total = _games(games)
    per_leg = math.ceil(total / len(legs))
    name = flags.pop("name", None)
    exp_flags = dict(
        variants=[variant],
        players=players,
        sets=list(sets),
        strategies=",".join(legs[0]),
        games=per_leg,
        unit=unit or "hand",
        name=name or f"compare-{variant}",
        rotate=True,
        **flags,
    )
    analysis = {
        "kind": COMPARE.name,
        "strategies": labels,
        "games_requested": total,
        "legs": [list(x) for x in legs],
        **({"metric": metric} if metric else {}),
        **({"equal_time": cal.record} if cal else {}),
    }
    return Setup(exp_flags, analysis, legs, cal.notes if cal else ())


def setup_tune(
    rules_of: RulesOf,
    params: TuneParams,
    *,
    sets: Sequence[str] = (),
    name: str | None = None,
    unit: str | None = None,
    **flags: Any,
) -> Setup:
    """The :class:`~dominosim.analysis.analyses.Setup` of ``dominosim tune``: at least two option
    groups (no legs)."""
    variant = params.variant
    variants.check_variant(variant)
    swept = [
        opt for opt, vals in apply_sets(sets, [variant]).get(variant, {}).items() if len(vals) > 1
    ]
    if not swept:
        raise ConfigError(
            f"tune sweeps an option: give a value list, e.g. --set {variant}.OPTION=A,B "
            f"(options: dominosim variants {variant})"
        )
    exp_flags = dict(
        variants=[variant],
        sets=list(sets),
        unit=unit or "match",
        name=name or f"tune-{variant}",
        **flags,
    )
    return Setup(exp_flags, {"kind": TUNE.name, "variant": variant, "swept": swept})


def parse_targets(text: str | Sequence[int | str] | None) -> list[int]:
    """``"50,100,150"`` -> ``[50, 100, 150]`` (sorted); integers >= ``lo`` (1, declared),
    each once."""
    lo = _TARGETS.lo
    if isinstance(text, str):
        items = [x.strip() for x in text.split(",")]
    else:
        items = [str(x).strip() for x in (text or ())]
    out = []
    for x in items:
        try:
            t = int(x)
        except ValueError:
            t = lo - 1
        if t < lo or str(t) != x.lstrip("+"):
            raise ConfigError(
                f"--targets must be integers >= {lo} separated by commas (e.g. 50,100,150), "
                f"not '{x}' in '{text}'"
            )
        if t in out:
            raise ConfigError(f"--targets gives {t} twice; give each target once")
        out.append(t)
    if not out:
        raise ConfigError("--targets is empty; give e.g. --targets 50,100,150")
    return sorted(out)


def parse_share(share: float | str | None) -> float:
    try:
        x = float(SHARE if share is None else share)
    except (TypeError, ValueError):
        x = math.nan
    if not _SHARE.within(x):
        raise ConfigError(
            f"--share must be a number in {_SHARE.interval()}, e.g. {SHARE}, not '{share}'"
        )
    return x


def setup_tune_target(
    rules_of: RulesOf,
    params: TuneTargetParams,
    *,
    players: int | str = 2,
    sets: Sequence[str] = (),
    **flags: Any,
) -> Setup:
    """The :class:`~dominosim.analysis.analyses.Setup` of ``dominosim tune-target``: one group per
    target, matches (``unit = match``) on the same deals (no legs)."""
    variant = params.variant
    variants.check_variant(variant)
    if params.targets is None:
        raise ConfigError("tune-target needs --targets, e.g. --targets 50,100,150,200")
    ts = parse_targets(params.targets)
    frac = parse_share(params.share)
    base = rules_of(variant, players, sets)
    variants.with_target(base, ts[0])  # RulesError for the one-hand variants (two-lane, ladder)
    option = variants.target_option(variant)
    if option in apply_sets(sets, [variant]).get(variant, {}):
        raise ConfigError(
            f"tune-target sets {variant}.{option} itself (from --targets); drop that --set"
        )
    name = flags.pop("name", None)
    exp_flags = dict(
        variants=[variant],
        players=players,
        sets=list(sets),
        unit="match",
        option_values={variant: {option: ts}},
        name=name or f"tune-target-{variant}",
        **flags,
    )
    analysis = {
        "kind": TUNE_TARGET.name,
        "variant": variant,
        "option": option,
        "targets": ts,
        "share": frac,
    }
    return Setup(exp_flags, analysis)


def skill_legs(strategies: Sequence[str], players: int, round_robin: bool = True) -> list[tuple]:
    """The tables of ``dominosim skill``: every pair of the ladder (``round_robin`` False:
    only the pairs with random), A and B alternating round the table (``a,b,b`` with 3
    players), each played in all its cyclic rotations."""
    out = []
    for a, b in itertools.combinations(list(strategies), 2):
        if not round_robin and baseline() not in (a, b):
            continue
        out.append((a, b, b) if players == 3 else (a, b) * (players // 2))
    return out


def setup_skill(
    rules_of: RulesOf,
    params: SkillParams,
    *,
    players: int | str = 2,
    strategies: str | Sequence[str] | None = None,
    sets: Sequence[str] = (),
    **flags: Any,
) -> Setup:
    """The :class:`~dominosim.analysis.analyses.Setup` of ``dominosim skill``: ``params.deals``
    per table (default 1000), each in every seating, unit hand; the perfect-information value
    of each deal by the solver with ``params.budget`` nodes per deal (default
    ``solver.DEFAULT_BUDGET``; 0: not solved); the decisions of each strategy on its first
    ``params.accuracy_deals`` deals against random (default 200; 0: none) rated by the
    solver with the same budget; ``params.round_robin`` False: only the tables with random
    (the others' pairs are then not compared; None: the default, True); ``params.metric``
    ranks the ladder as compare's does (hands or points: skill plays single hands; None,
    recorded as such: what decides the game). ``flags`` are the experiment's."""
    variant, metric = params.variant, params.metric
    if metric == "matches":
        raise ConfigError(
            "--metric matches ranks by match wins, but skill plays single hands (unit hand); "
            "rank by hands or points"
        )
    metric = check_metric(metric, "hand")
    round_robin, solve, rated = _skill_options(params)
    labels = _strategy_labels(default_ladder() if strategies is None else strategies)
    if baseline() not in labels:
        raise ConfigError(
            "skill measures every strategy against random, so --strategies must name random "
            f"(it names {', '.join(labels)}); add random to the list"
        )
    rules = rules_of(variant, players, sets)
    legs = skill_legs(labels, rules.players, round_robin)
    n = _games(params.deals, option="--deals", lo=_SKILL["deals"].lo)
    seatings = len({legs[0][r:] + legs[0][:r] for r in range(rules.players)})  # (a,b,a,b): 2
    name = flags.pop("name", None)
    exp_flags = dict(
        variants=[variant],
        players=players,
        sets=list(sets),
        strategies=",".join(legs[0]),
        games=n * seatings,
        unit="hand",
        name=name or f"skill-{variant}",
        rotate=True,
        **flags,
    )
    # fmt: off
    analysis = {"kind": SKILL.name, "strategies": labels, "deals_requested": n,
                "legs": [list(x) for x in legs], "solve_budget": solve, "round_robin": round_robin,
                "accuracy_deals": min(rated, n) if solve else 0, "metric": metric}
    # fmt: on
    return Setup(exp_flags, analysis, legs)


def _skill_options(params: SkillParams) -> tuple[bool, int, int]:
    """skill's ``round_robin``, ``budget`` and ``accuracy_deals`` (with their defaults)."""
    from dominosim.engine.solver import DEFAULT_BUDGET

    budget = params.budget
    solve = _budget(DEFAULT_BUDGET if budget is None else budget)
    return bool(params.round_robin), solve, _accuracy_deals(params.accuracy_deals)


def _accuracy_deals(value) -> int:
    what = "deals per strategy whose decisions are rated; 0: none"
    return _count(value, "--accuracy-deals", what, _SKILL["accuracy_deals"].lo)


def _budget(budget) -> int:
    return _count(budget, "--budget", "solver nodes per deal; 0: no solving", _SKILL["budget"].lo)


def _count(value, option: str, meaning: str, lo: int) -> int:
    """``value`` as an integer >= ``lo``, or the option's one-line error."""
    try:
        n = int(str(value).strip())
    except ValueError:
        n = lo - 1
    if n < lo:
        raise ConfigError(f"{option} must be an integer >= {lo} ({meaning}), not '{value}'")
    return n


# ---------------------------------------------------------------------------------------------
# skill's per-chunk measurement: the runner's hook (docs/design.md, "The runner")


def skill_measurement(analysis: Mapping) -> SkillMeasurement:
    """skill's per-chunk measurement of a run with this ``analysis`` section (its registry
    row's hook: the runner calls it for a new run and for a manifest's analysis). Malformed
    values raise ValueError or TypeError (the runner reports a damaged manifest)."""
    return SkillMeasurement(
        int(analysis.get("solve_budget", 0)), int(analysis.get("accuracy_deals", 0))
    )


@dataclass(frozen=True)
class SkillMeasurement:
    """skill's measurements of a run: the perfect-information value of every deal (the solver,
    ``solve_budget`` nodes per deal; group 0's chunks solve them, the deals being every
    group's) and the decision accuracy of each strategy on its first ``accuracy_deals`` deals
    against random."""

    solve_budget: int
    accuracy_deals: int

    def fingerprint(self) -> list[int]:
        """What makes a chunk's measurements: part of the run's fingerprint."""
        return [self.solve_budget, self.accuracy_deals]

    def for_group(self, legs: Sequence[tuple], rules: Sequence, g: int) -> SkillChunk | None:
        """What the chunks of group ``g`` measure: every label of a table with random is rated
        at the first such table it sits at (random at the first)."""
        labels: tuple[str, ...] = ()
        base = baseline()
        if self.accuracy_deals and self.solve_budget and legs and base in legs[g]:
            done = {
                x for h in range(g) if rules[h] == rules[g] and base in legs[h] for x in legs[h]
            }
            labels = tuple(x for x in dict.fromkeys(legs[g]) if x not in done)
        solve = self.solve_budget if g == 0 else 0
        if not (solve or labels):
            return None
        return SkillChunk(
            solve_budget=solve,
            accuracy_labels=labels,
            accuracy_deals=self.accuracy_deals if labels else 0,
            accuracy_budget=self.solve_budget if labels else 0,
        )


@dataclass(frozen=True, kw_only=True)
class SkillChunk:
    """One chunk's share of skill's measurements (a work item carries it to its worker)."""

    #: the solver's node budget per deal for the value of this chunk's deals (0: none)
    solve_budget: int = 0
    #: the labels whose decisions this chunk rates with the solver, on its deals below
    #: ``accuracy_deals``, with ``accuracy_budget`` nodes per decision
    accuracy_labels: tuple[str, ...] = ()
    accuracy_deals: int = 0
    accuracy_budget: int = 0

    def rotation(self, agg, item, seat_labels, strategies) -> None:
        """After one seating of the chunk is played: rate the watched labels' decisions."""
        if self.accuracy_labels and item.start < self.accuracy_deals:
            self._rate_decisions(agg, item, seat_labels, strategies)

    def chunk(self, agg, item) -> None:
        """After the whole chunk: the perfect-information value of its deals."""
        if self.solve_budget:
            self._solve_deals(agg, item)

    def _solve_deals(self, agg, item) -> None:
        """The perfect-information value of the chunk's deals (dominosim.solver), for the
        leader's side: deals, solved, won by the leader's side, and Σ, Σ² of its points
        difference."""
        import numpy as np

        from dominosim.analysis.aggregates import add
        from dominosim.engine.solver import solve_deals

        sol = solve_deals(
            item.rules, item.seed, range(item.start, item.stop), budget=self.solve_budget
        )
        ok = sol.solved
        d = sol.value[ok].astype(np.int64)
        add(agg, "pi_deals", len(sol))
        add(agg, "pi_solved", ok.sum())
        add(agg, "pi_leader_wins", (sol.win & ok).sum())
        add(agg, "pi_value_sum", d.sum())
        add(agg, "pi_value_sumsq", (d * d).sum())
        add(agg, "pi_nodes", sol.nodes.sum())

    def _rate_decisions(self, agg, item, seat_labels, strategies) -> None:
        """The decision accuracy of the chunk's accuracy labels in one seating, on its deals
        below ``accuracy_deals`` (dominosim.solver.decision_accuracy, one play for all of
        them): per label, the decisions with a real choice, those rated (``acc_rated``; the
        rest ran out of budget), the optimal ones, and for an interval clustered by hand (the
        decisions of one hand are not independent) the hands and Σn², Σon, Σo² of each hand's
        rated n and optimal o."""
        import numpy as np

        from dominosim.analysis.aggregates import add
        from dominosim.engine.solver import decision_accuracy

        ids = range(item.start, min(item.stop, self.accuracy_deals))
        watched = [s for s, y in enumerate(seat_labels) if y in self.accuracy_labels]
        acc = decision_accuracy(
            item.rules, item.seed, strategies, ids, watched, budget=self.accuracy_budget
        )
        for x in self.accuracy_labels:
            mine = np.isin(acc.seat, [s for s, y in enumerate(seat_labels) if y == x])
            rated = mine & (acc.optimal >= 0)
            n = np.bincount(acc.match[rated] - ids.start, minlength=len(ids))
            o = np.bincount(acc.match[mine & (acc.optimal == 1)] - ids.start, minlength=len(ids))
            add(agg, "acc_decisions", mine.sum(), pair=x)
            add(agg, "acc_rated", rated.sum(), pair=x)
            add(agg, "acc_optimal", o.sum(), pair=x)
            add(agg, "acc_hands", len(ids), pair=x)
            add(agg, "acc_n2", (n * n).sum(), pair=x)
            add(agg, "acc_on", (o * n).sum(), pair=x)
            add(agg, "acc_o2", (o * o).sum(), pair=x)
