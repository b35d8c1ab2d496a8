"""The registry of analyses: one row per kind of run (a plain ``run``, ``compare``, ``skill``,
``tune``, ``tune-target``) with everything that tells them apart (docs/design.md, "Analyses").

A row holds the analysis's keywords (those of ``dominosim.<function>()``; the command line's
options are the same keywords): its own declared once as its parameters' type (``params``, a
frozen dataclass: :class:`RunParams`, :class:`CompareParams`, :class:`SkillParams`,
:class:`TuneParams`, :class:`TuneTargetParams`, each field carrying its kind, how the API lists
and checks it and its option: :mod:`dominosim.base.params`), decoded once by the entry point
(:meth:`Analysis.decode`); its ``setup`` (the parameters and the experiment's keywords -> one
:class:`Setup`), its
per-chunk ``measurement`` (the runner's hook), its section of the report (``report``), how
that section is shown (``render``) and drawn (``plots``), and the few facts the shared code
asks of it. Nothing outside this module tells the analyses apart by their names: the report,
its rendering and plots, the runner and the API look up the row of a run's analysis section
(:func:`of_analysis`) and call its hooks.

The hooks name their function by module and name and import it when first called
(:class:`Hook`): the report, render and plots modules look rows up here, so the registry
imports none of them (no import cycle), and a plain run imports no tournament. The modules
are named relative to this one's package (they sit in the same layer, the analysis).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from dominosim.base.budget import SOLVER_BUDGET
from dominosim.base.params import Param, declared, param

#: the metrics a compare ranks by and ``--until-decided`` decides on (docs/compare.md, "Which
#: metric"): hand wins, paired points per hand, match wins
METRICS = ("hands", "points", "matches")
#: those of a run whose games are hands (skill plays no matches)
HAND_METRICS = tuple(m for m in METRICS if m != "matches")


# ---- each analysis's parameters: its own keywords, declared once (issue 48, point 1) --------
# (the API's type checks and the commands' options are made of them: base/params.py)
#: skill's deals per table and deals per strategy whose decisions are rated, tune-target's
#: share, where not given (each its field's default, and its help's)
SKILL_DEALS, ACCURACY_DEALS, SHARE = 1000, 200, 0.75
#: what the metrics' help says ranks when --metric is not given (each option's help once)
_DECIDES = "what decides the game"


def _variant() -> Any:
    """A tournament's one variant (its option is the experiment's --variant, cli.py)."""
    return param("string")


def _until_decided() -> Any:
    """``--until-decided`` (run's and compare's; its type error shows the value alone, after
    the other keywords' and the paths', as it always has)."""
    return param(
        "bool",
        False,
        shown=False,
        late=True,
        after=True,
        flag=("--until-decided", "until_decided"),
        is_flag=True,
        help="Play in rounds until every pair of strategies is told apart on the ranking "
        "metric (a sequential test that keeps its 5% error rate), at most --games.",
    )


def _metric(*, help: str, choices: tuple[str, ...] = METRICS) -> Any:
    """``--metric``: what a run ranks by and ``--until-decided`` decides on (its help and
    the metrics it takes are the analysis's)."""
    return param("any", after=True, flag=("--metric",), choices=choices, help=help)


@dataclass(frozen=True)
class RunParams:
    """A plain run's own keywords: ``until_decided``, and ``metric``, what it decides on."""

    until_decided: bool = _until_decided()
    metric: str | None = _metric(
        help="With --until-decided: the metric it decides on (hands, points, "
        f"matches; default {_DECIDES})."
    )


@dataclass(frozen=True)
class CompareParams:
    """compare's own keywords (docs/compare.md): its variant, ``--until-decided``, the
    ranking ``--metric`` and ``--equal-time MS``."""

    variant: str | None = _variant()
    until_decided: bool = _until_decided()
    metric: str | None = _metric(
        help=f"Rank by hand wins, paired points per hand or match wins (default: {_DECIDES}: "
        "matches with --unit match, else points in a race to a "
        "target, hands where a hand is the whole game)."
    )
    #: CPU milliseconds per decision: below ``lo`` no search is that fast (``mc:samples=1``
    #: costs more), above ``hi`` the calibration alone would take hours
    equal_time: float | int | str | None = param(
        "number",
        lo=0.05,
        hi=1000.0,
        after=True,
        flag=("--equal-time", "equal_time"),
        metavar="MS",
        help="Give each search the same time: first set mc's and pimc's samples so that each "
        "takes about MS CPU milliseconds per decision (measured on a fixed set of decisions), "
        "then play those entries; other strategies play as they are.",
    )


@dataclass(frozen=True)
class SkillParams:
    """skill's own keywords (docs/skill.md): its variant, the deals per table, the solver's
    budget, the deals rated, the round robin or against random only, and the ranking
    metric."""

    variant: str | None = _variant()
    deals: int | str = param(
        "int",
        SKILL_DEALS,
        lo=1,
        flag=("--deals",),
        metavar="N",
        help=f"Deals per pair of strategies, each played in every seating (default {SKILL_DEALS}).",
    )
    budget: int | str | None = param(
        "int",
        lo=0,
        flag=("--budget",),
        metavar="NODES",
        help="The solver's node budget per deal for the perfect-information value "
        f"and for each decision rated (default {SOLVER_BUDGET}; 0: no solving).",
    )
    accuracy_deals: int | str = param(
        "int",
        ACCURACY_DEALS,
        lo=0,
        flag=("--accuracy-deals",),
        metavar="N",
        help="Deals per strategy whose decisions the solver rates on the true deal, for "
        f"the decision accuracy (default {ACCURACY_DEALS}; 0: none).",
    )
    round_robin: bool = param(
        "bool",
        True,
        flag=("--round-robin/--against-random",),
        help="Every pair of the ladder at a table (default), or only each strategy "
        "against random (fewer tables: the costly strategies play once).",
    )
    metric: str | None = _metric(
        help=f"Rank by hand wins or paired points per hand (default: {_DECIDES}: points "
        "in a race to a target, else hands); skill plays no matches.",
        choices=HAND_METRICS,
    )


@dataclass(frozen=True)
class TuneParams:
    """tune's own keyword: its variant (the sweep is its ``--set`` value lists)."""

    variant: str | None = _variant()


@dataclass(frozen=True)
class TuneTargetParams:
    """tune-target's own keywords: its variant, the targets and the share that names one."""

    variant: str | None = _variant()
    targets: str | Sequence[int | str] | None = param(
        "ints",
        lo=1,
        takes="a string such as '50,100' or a list of integers",
        flag=("--targets",),
        metavar="T1,T2,...",
        help="Match targets to play, integers >= 1 (kozel: kozel_target).",
    )
    share: float | int | str = param(
        "number",
        SHARE,
        lo=0,
        hi=1,
        open_lo=True,
        flag=("--share",),
        metavar="X",
        help="Name the smallest target where the stronger strategy's Wilson lower bound "
        f"reaches X (default {SHARE}).",
    )


@dataclass(frozen=True)
class Setup:
    """What an analysis's ``setup`` makes of its keywords: the same value for every analysis.

    Attributes:
        flags: the keywords of :func:`dominosim.config.experiment_from_cli` for the run (its
            variant, players, strategies, games, unit, name, option values, ...), read-only.
        analysis: the analysis section the run's manifest stores, ``{"kind": NAME, ...}``
            (the report computes the analysis from it; :func:`of_analysis` finds its row),
            read-only.
        legs: a round robin's tables (compare, skill): one seat list per table, each table a
            group of its own played in every cyclic rotation; empty: the option groups of
            ``flags``, all with its seats (tune, tune-target).
        notes: lines the entry point prints before the run starts (compare's
            ``--equal-time``: each strategy's calibration).
    """

    flags: Mapping[str, Any]
    analysis: Mapping[str, Any]
    legs: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", MappingProxyType(dict(self.flags)))
        object.__setattr__(self, "analysis", MappingProxyType(dict(self.analysis)))
        object.__setattr__(self, "legs", tuple(tuple(x) for x in self.legs))
        object.__setattr__(self, "notes", tuple(self.notes))

    @property
    def metric(self) -> str | None:
        """The metric the analysis ranks by and ``--until-decided`` decides on (compare's
        ``--metric``), or None: what decides the game."""
        return self.analysis.get("metric")


@dataclass(frozen=True)
class Hook:
    """A function of the analysis layer named by its module (relative to this package) and
    name, imported when first called."""

    module: str
    name: str

    def resolve(self) -> Callable[..., Any]:
        """The function itself (an ImportError or AttributeError where there is none)."""
        return getattr(importlib.import_module(f".{self.module}", __package__), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)


@dataclass(frozen=True)
class Analysis:
    """One analysis: a row of :data:`ANALYSES`.

    Attributes:
        name: the command (``dominosim NAME``) and the ``kind`` of its analysis section.
        function: the API's function, ``dominosim.FUNCTION()``.
        params: the type of its own keywords (a frozen dataclass whose fields declare each,
            :mod:`dominosim.base.params`): the entry point decodes them into one value,
            ``setup``'s; :attr:`keywords` and :attr:`keywords_after` list them.
        first: the experiment's keywords it lists before its own (run: ``variants``).
        not_taken: the experiment's keywords it does not take (it sets them itself).
        setup: ``(rules_of, params, **keywords)`` -> :class:`Setup` (``params``: its own
            keywords decoded, :meth:`decode`; ``keywords`` the experiment's), ``rules_of`` the entry point's
            parser of a command's variant, players and ``--set`` (``config.rules_from_cli``,
            ``tournament.RulesOf``); None for a plain run (its experiment is the
            config file and flags themselves, with no analysis section).
        measurement: a manifest's analysis section -> the per-chunk measurement the runner
            calls after each seating and each chunk (``runner.plan.measurement_of``), or None.
        report: ``(manifest, aggregates, report data)`` -> the report's ``analysis`` object.
        render: ``(report data, its analysis)`` -> the ``(heading, lines, tables)`` of the
            analysis's sections of the text and Markdown report.
        plots: ``(pyplot, the report's analysis, folder)`` -> the figures it draws besides
            every run's (their paths).
        verdict_pooled: ``--until-decided`` decides on the analysis's pooled pairs and its
            verdict is shown in the analysis's section (compare), not on each group's pairs.
        group_warnings: each group's section warns where its pairs' metrics disagree (not
            where the analysis pools the pairs of a round robin's tables).
        games_total: ``games`` is the total over all tables (compare), not per group.
    """

    name: str
    function: str
    params: type
    first: tuple[str, ...] = ()
    not_taken: tuple[str, ...] = ()
    setup: Callable[..., Setup] | None = None
    measurement: Callable[[Mapping], object | None] | None = None
    report: Callable[..., dict] | None = None
    render: Callable[..., Any] | None = None
    plots: Callable[..., list] | None = None
    verdict_pooled: bool = False
    group_warnings: bool = True
    games_total: bool = False

    @property
    def keywords(self) -> tuple[str, ...]:
        """The function's keywords listed before the experiment's."""
        own = declared(self.params)
        return (*self.first, *(k for k, p in own.items() if not p.after))

    @property
    def keywords_after(self) -> tuple[str, ...]:
        """Its keywords listed after the experiment's: ``plots`` (every row takes it), then
        its own."""
        return (PLOTS, *(k for k, p in declared(self.params).items() if p.after))

    def declared(self) -> dict[str, Param]:
        """Its own keywords, each with its declaration, in the order of :attr:`params`."""
        return declared(self.params)

    def decode(self, keywords: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
        """``keywords`` (each of its type) split once: its own, one value of :attr:`params`
        (a keyword None or not given keeps its field's default), and the others (the
        experiment's), as they were."""
        own = declared(self.params)
        given = {k: v for k, v in keywords.items() if k in own and v is not None}
        return self.params(**given), {k: v for k, v in keywords.items() if k not in own}

    def takes(self, experiment: Sequence[str]) -> tuple[str, ...]:
        """Every keyword of ``dominosim.FUNCTION()`` besides the session's (``resume``,
        ``executor``, ``scheduler``, ``progress``, ``echo``), given the experiment's."""
        kept = tuple(k for k in experiment if k not in self.not_taken)
        return (*self.keywords, *kept, *self.keywords_after)


#: the experiment's keyword every row lists first after its own (every command that draws
#: takes --no-plots)
PLOTS = "plots"

# fmt: off
RUN = Analysis(name="run", function="run", params=RunParams, first=("variants",))
COMPARE = Analysis(
    name="compare", function="compare", params=CompareParams, not_taken=("rotate",),
    setup=Hook("tournament", "setup_compare"),
    report=Hook("report", "compare_analysis"),
    render=Hook("render", "compare_sections"),
    plots=Hook("plots", "compare_plots"),
    verdict_pooled=True, group_warnings=False, games_total=True,
)
SKILL = Analysis(
    name="skill", function="skill", params=SkillParams, not_taken=("rotate", "games", "unit"),
    setup=Hook("tournament", "setup_skill"),
    measurement=Hook("tournament", "skill_measurement"),
    report=Hook("report", "skill_analysis"),
    render=Hook("render", "skill_sections"),
    plots=Hook("plots", "skill_plots"),
    group_warnings=False,
)
TUNE = Analysis(
    name="tune", function="tune", params=TuneParams,
    setup=Hook("tournament", "setup_tune"),
    report=Hook("sweeps", "tune_analysis"),
    render=Hook("render", "tune_sections"),
    plots=Hook("plots", "tune_plots"),
)
TUNE_TARGET = Analysis(
    name="tune-target", function="tune_target", params=TuneTargetParams, not_taken=("unit",),
    setup=Hook("tournament", "setup_tune_target"),
    report=Hook("sweeps", "tune_target_analysis"),
    render=Hook("render", "tune_target_sections"),
    plots=Hook("plots", "tune_target_plots"),
)
# fmt: on

#: The fields of a row that are hooks (functions of the analysis layer, or None).
HOOKS = ("setup", "measurement", "report", "render", "plots")
#: Every analysis, the plain run first.
ANALYSES: tuple[Analysis, ...] = (RUN, COMPARE, SKILL, TUNE, TUNE_TARGET)
_BY_KIND = {a.name: a for a in ANALYSES if a.setup is not None}


def of_analysis(section: Mapping | None) -> Analysis:
    """The row of a run's analysis section (a manifest's ``analysis``, or a report's): the
    plain run's where there is none, or where its ``kind`` is none of the rows' (a damaged
    manifest: shown as a plain run's, with no analysis of its own)."""
    kind = (section or {}).get("kind")
    return _BY_KIND.get(kind, RUN) if isinstance(kind, str) else RUN


def command_of(section: Mapping | None) -> str:
    """The command that runs, and resumes, a run with this analysis section: its row's
    name, or a ``kind`` no row has as it is written (``run`` where there is none)."""
    return (section or {}).get("kind") or RUN.name
