"""The registry of analyses: one row per kind of run (a plain ``run``, ``compare``, ``skill``,
``tune``, ``tune-target``) with everything that tells them apart (docs/design.md, "Analyses").

A row holds the analysis's keywords (those of ``dominosim.<function>()``; the command line's
options are the same keywords), its ``setup`` (the keywords -> one :class:`Setup`), its
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

#: the metrics a compare ranks by and ``--until-decided`` decides on (docs/compare.md, "Which
#: metric"): hand wins, paired points per hand, match wins
METRICS = ("hands", "points", "matches")
#: those of a run whose games are hands (skill plays no matches)
HAND_METRICS = tuple(m for m in METRICS if m != "matches")


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
        keywords: the function's own keywords, listed before the experiment's.
        keywords_after: its own keywords listed after the experiment's.
        not_taken: the experiment's keywords it does not take (it sets them itself).
        setup: ``(rules_of, **keywords)`` -> :class:`Setup`, ``rules_of`` the entry point's
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
    keywords: tuple[str, ...]
    keywords_after: tuple[str, ...] = ()
    not_taken: tuple[str, ...] = ()
    setup: Callable[..., Setup] | None = None
    measurement: Callable[[Mapping], object | None] | None = None
    report: Callable[..., dict] | None = None
    render: Callable[..., Any] | None = None
    plots: Callable[..., list] | None = None
    verdict_pooled: bool = False
    group_warnings: bool = True
    games_total: bool = False

    def takes(self, experiment: Sequence[str]) -> tuple[str, ...]:
        """Every keyword of ``dominosim.FUNCTION()`` besides the session's (``resume``,
        ``executor``, ``scheduler``, ``progress``, ``echo``), given the experiment's."""
        kept = tuple(k for k in experiment if k not in self.not_taken)
        return (*self.keywords, *kept, *self.keywords_after)


# fmt: off
RUN = Analysis(
    name="run", function="run",
    keywords=("variants",), keywords_after=("plots", "until_decided", "metric"),
)
COMPARE = Analysis(
    name="compare", function="compare",
    keywords=("variant",), keywords_after=("plots", "until_decided", "metric", "equal_time"),
    not_taken=("rotate",),
    setup=Hook("tournament", "setup_compare"),
    report=Hook("report", "compare_analysis"),
    render=Hook("render", "compare_sections"),
    plots=Hook("plots", "compare_plots"),
    verdict_pooled=True, group_warnings=False, games_total=True,
)
SKILL = Analysis(
    name="skill", function="skill",
    keywords=("variant", "deals", "budget", "accuracy_deals", "round_robin"),
    keywords_after=("plots", "metric"), not_taken=("rotate", "games", "unit"),
    setup=Hook("tournament", "setup_skill"),
    measurement=Hook("tournament", "skill_measurement"),
    report=Hook("report", "skill_analysis"),
    render=Hook("render", "skill_sections"),
    plots=Hook("plots", "skill_plots"),
    group_warnings=False,
)
TUNE = Analysis(
    name="tune", function="tune",
    keywords=("variant",), keywords_after=("plots",),
    setup=Hook("tournament", "setup_tune"),
    report=Hook("sweeps", "tune_analysis"),
    render=Hook("render", "tune_sections"),
    plots=Hook("plots", "tune_plots"),
)
TUNE_TARGET = Analysis(
    name="tune-target", function="tune_target",
    keywords=("variant", "targets", "share"), keywords_after=("plots",), not_taken=("unit",),
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
