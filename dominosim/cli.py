"""The ``dominosim`` command line: a thin layer of click commands over the library.

No game logic lives here. Every :class:`~dominosim.errors.DominosimError` raised by a command is
printed as one line, ``error: <message>``, on stderr, and the process exits with the error's
``exit_code`` (``docs/errors.md``); Ctrl-C prints one line and exits with 130.

Adding a command: define it below with ``@main.command()`` (see the marked section); the error
handling of :class:`DominosimGroup` covers it automatically.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from dominosim import config
from dominosim.analysis import analyses
from dominosim.base import signals
from dominosim.base.errors import ConfigError, OutputError
from dominosim.base.session import SESSION
from dominosim.game import seeding, variants
from dominosim.game.rules import PLAYERS
from dominosim.shell import (
    DominosimGroup,
    one_line,
    print_version,
    stdout_aside,
)
from dominosim.strategy.spec import RANDOM

F = TypeVar("F", bound=Callable[..., Any])
COMMANDLINE = ParameterSource.COMMANDLINE


def entry() -> None:
    """The ``dominosim`` program (its console script and ``python -m dominosim``): the
    command, then the process's end, where a late Ctrl-C or SIGTERM only is noted (never a
    traceback, never a death by the signal: the status is the command's, 130 when it was
    interrupted)."""
    from dominosim.base import session

    session.COMMAND_START.append(session.process_start())
    signals.install()
    try:
        main(prog_name="dominosim")
        code: Any = 0
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:  # (between click's end and here)
        click.echo("error: interrupted; finished work is kept", err=True)
        code = 130
    signals.note_only()
    sys.exit(code)


@click.group(
    cls=DominosimGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    help=f"Simulate the {variants.COUNT} domino variants of RULES.md: rules, bots, "
    "tournaments, statistics.\n\nRun 'dominosim COMMAND --help' for the options of a command; "
    "docs/config.md describes the experiment files and the --set / --strategies grammar "
    "shared by every command.",
)
@click.option(
    "--version",
    "-V",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    help="Show the version and exit.",
    callback=lambda ctx, _param, value: print_version(ctx, value),
)
def main() -> None:
    """The ``dominosim`` group (its help, above, names the variants by their count)."""


# ---------------------------------------------------------------------------------------------
# shared options: the grammar of docs/config.md, so every command spells its flags the same way.
# The values are parsed by dominosim.config (rules_from_cli / experiment_from_cli), never here.


def _field_option(f: config.Field) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The click declaration of an experiment field's flag (dominosim.config.FIELDS): its
    spelling and destination (the API keyword), metavar, help; None when not given, so the
    file's value or the default stands."""
    settings: dict[str, Any] = dict(default=None, help=f.help)
    if f.metavar is not None:
        settings["metavar"] = f.metavar
    if f.repeat:
        settings["multiple"] = True
    if f.flag_int:
        settings["type"] = int
    choices = f.flag_values or (f.choices if f.kind == "choice" else ())
    if choices:
        settings["type"] = click.Choice(list(choices))
    return f.flag, settings


def _declared_option(p) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The click declaration of a declared keyword's option (dominosim.base.params.Param: an
    analysis's parameter or a session's setting): its spelling, default, metavar, choices,
    help; a path option names a folder. An option not given is None (the keyword not given:
    its field's default stands) but a flag's and one whose default --help shows."""
    default = p.default if p.is_flag or p.show_default else None
    settings: dict[str, Any] = dict(default=default, help=p.help)
    if p.metavar is not None:
        settings["metavar"] = p.metavar
    if p.choices:
        settings["type"] = click.Choice(list(p.choices))
    if p.kind == "path":
        settings["type"] = click.Path(file_okay=False)
    if p.is_flag:
        settings["is_flag"] = True
    if p.show_default:
        settings["show_default"] = True
    return p.flag, settings


def _dest(key: str, decls: tuple[str, ...]) -> str:
    """An option's destination: its declarations' name, else ``key``."""
    return decls[-1] if not decls[-1].startswith("-") else key


#: The options several commands take, declared once: (flag and destination, click settings),
#: by destination: every experiment field's flag (dominosim.config.FIELDS), then the options of
#: a session (dominosim.base.session). :func:`option` gives one (a command may change a setting,
#: e.g. its help), :func:`options` several in the order given.
SHARED_OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    **{f.keyword: _field_option(f) for f in config.FIELDS if f.flag and f.keyword},
    **{key: _declared_option(p) for key, p in SESSION.items() if p.flag},
}
SHARED_OPTIONS["debug"][1].update(
    expose_value=False,  # (stored in click's shared ctx.meta: docs/design.md, "Errors")
    callback=lambda ctx, _p, v: ctx.meta.update({"dominosim.debug": True} if v else {}),
)

#: The options --resume takes (by destination): how, not what, a run plays; it refuses every
#: other option given (:func:`_refuse_with_resume`): a session's (dominosim.base.session) and the
#: experiment's fields marked ``session`` in dominosim.config.FIELDS.
SESSION_OPTIONS = frozenset(
    {_dest(key, p.flag) for key, p in SESSION.items() if p.flag}
    | {f.keyword for f in config.FIELDS if f.session}
)
#: the flags of :data:`SESSION_OPTIONS` (--resume's own aside), in --help's order, as
#: --resume's error names them
SESSION_FLAGS = tuple(
    decls[0]
    for key, (decls, _) in SHARED_OPTIONS.items()
    if _dest(key, decls) in SESSION_OPTIONS and key != "resume"
)
#: the session's settings a command hands the API as they were given (dominosim.base.session)
SESSION_KEYWORDS = tuple(k for k, p in SESSION.items() if p.api and p.flag and k != "resume")

#: the phrases of help several of this module's options share, each written once (the
#: experiment's: dominosim.config, HELP_*)
HELP_VARIANT = "Variant slug, e.g. fives"
HELP_DRAWN = "drawn, and printed"

#: what run, compare, tune and tune-target share after their own options
RUN_OPTIONS = (
    "records",
    "executor",
    "scheduler",
    "resume",
    "json",
    "strategy_path",
    "strategy_timeout",
    "debug",
    "isolate",
)


def option(name: str, dest: str | None = None, **changes: Any) -> Callable[[F], F]:
    """The shared option ``name`` of :data:`SHARED_OPTIONS`, with ``changes`` to its
    settings (``dest``: another destination)."""
    decls, settings = SHARED_OPTIONS[name]
    if dest is not None:
        decls = (*(d for d in decls if d.startswith("-")), dest)
    return click.option(*decls, **{**settings, **changes})


def analysis_options(row: analyses.Analysis, *names: str) -> Callable[[F], F]:
    """The options of the analysis ``row``'s own parameters (its ``params``, declared once)
    ``names`` (default: every one with a flag, as declared), shown in ``--help`` in that
    order."""
    own = row.declared()
    names = names or tuple(k for k, p in own.items() if p.flag)

    def decorate(f: F) -> F:
        for name in reversed(names):
            decls, settings = _declared_option(own[name])
            f = click.option(*decls, **settings)(f)
        return f

    return decorate


def options(*names: str) -> Callable[[F], F]:
    """The shared options ``names``, shown in ``--help`` in that order."""

    def decorate(f: F) -> F:
        for name in reversed(names):
            f = option(name)(f)
        return f

    return decorate


def rules_options(f: F, variant_required: bool = True) -> F:
    """``--variant`` (one), ``--players`` (default 2) and repeatable ``--set
    VARIANT.OPTION=VALUE``, as commands that play one rule set take them (trace)."""
    f = option(
        "sets",
        metavar="VARIANT.OPTION=VALUE",
        help=f"{config.HELP_SET}; a bare OPTION=VALUE when only one variant "
        "has it. See 'dominosim variants VARIANT'.",
    )(f)
    players = click.IntRange(PLAYERS[0], PLAYERS[-1])
    f = option("players", type=players, default=2, show_default=True)(f)
    return option(
        "variants",
        "variant",
        multiple=False,
        required=variant_required,
        help=f"{HELP_VARIANT} (list: dominosim variants).",
    )(f)


def strategies_option(f: F) -> F:
    """``--strategies name:key=value,...`` (one entry per seat, or one for every seat)."""
    return option(
        "strategies",
        default=RANDOM,
        show_default=True,
        help="Strategies by seat, comma-separated, each NAME[:KEY=VALUE...]; "
        "one name means every seat.",
    )(f)


def seed_option(f: F) -> F:
    """``--seed`` (an integer, the root of every random stream)."""
    return option(
        "seed",
        type=int,
        default=0,
        show_default=True,
        metavar=None,
        help="Seed: the root of every random stream (same seed, same games).",
    )(f)


def _refuse_with_resume(ctx: click.Context, params: Iterable[click.Parameter]) -> None:
    """The error of an option given with ``--resume`` (which continues a run as it was
    planned): the first of ``params`` given on the command line that is not a session's
    (:data:`SESSION_OPTIONS`)."""
    for p in params:
        if p.name in SESSION_OPTIONS or ctx.get_parameter_source(p.name) != COMMANDLINE:
            continue
        flag = p.opts[0] if isinstance(p, click.Option) else p.human_readable_name
        raise ConfigError(
            f"--resume continues a run as it was planned, so {flag} cannot be given "
            f"with it; only {', '.join(SESSION_FLAGS[:-1])} and {SESSION_FLAGS[-1]}"
        )


def _api_flags(kw: dict[str, Any]) -> dict[str, Any]:
    """The command's experiment options as the Python API takes them: a repeatable flag's
    values a list (None: not given), ``--records all|none`` true or false."""
    out = {}
    for key, value in kw.items():
        f = config.KEYWORDS.get(key)
        if f is not None and f.repeat and not isinstance(value, str):
            value = list(value) or None
        elif f is not None and f.flag_values and value is not None:
            value = value == f.flag_values[0]
        out[key] = value
    return out


# ---------------------------------------------------------------------------------------------
# variants


@main.command(
    "variants",
    help=f"List the {variants.COUNT} variants, or the RULES §15 options of one VARIANT.\n\n"
    "Without VARIANT: one row per variant "
    f"({', '.join(d for _, d in variants.LISTING_COLUMNS)}). With VARIANT: each option with "
    "its default, allowed values, RULES sections and meaning; set one with "
    "--set VARIANT.OPTION=VALUE.",
)
@click.argument("variant", required=False)
def variants_cmd(variant: str | None) -> None:
    """``dominosim variants [VARIANT]`` (its help, above, is made of the listing's columns)."""
    click.echo(variants.listing() if variant is None else variants.describe(variant))


# ---------------------------------------------------------------------------------------------
# The commands, each an ``@main.command()``; the error handling of DominosimGroup covers
# them. Load settings with dominosim.config (experiment_from_cli / load_experiment), never
# parse options here.
# ---------------------------------------------------------------------------------------------


@main.command("trace")
@functools.partial(rules_options, variant_required=False)
@strategies_option
@seed_option
@click.option(
    "--match-id",
    type=int,
    default=0,
    show_default=True,
    help=f"Which match of the seed to play ({seeding.SEED_SPAN}).",
)
@click.option(
    "--hand",
    "hand",
    default=None,
    metavar="K|ID",
    help="Which hand of the match to print (default 0; earlier hands are played). "
    "With --run: a recorded hand's id GROUP:ROTATION:MATCH:HAND.",
)
@click.option(
    "--run",
    "run_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Replay a hand recorded by 'dominosim run' in RUN_DIR (with --hand ID).",
)
@click.option(
    "--match", "whole_match", is_flag=True, help="Print every hand of the match and its result."
)
@click.option(
    "--decision", type=int, metavar="D", help="Stop at decision D of the hand (docs/trace.md)."
)
@option("json", help="Print JSON Lines, one object per event (docs/trace.md).")
@options("strategy_path", "debug", "isolate")
def trace_cmd(**kw: Any) -> None:
    """Play one hand (or with --match one match) move by move and print it.

    Shows the deal, every turn (lead, placement and position, draws, passes), the open ends
    after each placement, every score event with its reason and running totals, the hand end
    and the settlement. --json prints the same as JSON Lines, described in docs/trace.md.
    """
    from dominosim import trace

    hand, whole_match = kw["hand"], kw["whole_match"]
    if kw["run_dir"] is not None:
        if hand is None:
            raise ConfigError("--run needs --hand GROUP:ROTATION:MATCH:HAND (a record's id)")
        records = trace.trace_from_run(
            kw["run_dir"],
            hand,
            whole_match,
            kw["decision"],
            isolate=kw["isolate"],
            strategy_path=kw["strategy_path"],
        )
    else:
        records = _trace_played(kw)
    click.echo(trace.to_jsonl(records) if kw["as_json"] else trace.render_text(records), nl=False)
    trace.raise_failed(records)  # (--decision: the strategy raised there)


def _trace_played(kw: dict[str, Any]) -> list[dict]:
    """The trace of a game played from the options ``kw`` of ``dominosim trace``."""
    from dominosim import trace

    variant, hand, seed, strategy_path = kw["variant"], kw["hand"], kw["seed"], kw["strategy_path"]
    if variant is None:
        raise ConfigError("trace needs --variant, e.g. --variant fives (list: dominosim variants)")
    if hand is not None and not str(hand).isdigit():
        raise ConfigError(f"--hand must be a hand index >= 0, not '{hand}'")
    seeding.check_seed(seed, "--seed")

    request = {
        k: kw[k] for k in ("players", "seed", "match_id", "whole_match", "decision", "isolate")
    }
    request.update(strategies=kw["strategies"], sets=kw["sets"], strategy_path=strategy_path)
    request["hand"] = None if hand is None else int(hand)

    def play(progress=None):
        return trace.trace_from_cli(variant, **request)

    with stdout_aside():
        if not strategy_path or kw["isolate"]:  # (--isolate: each in a process of its own)
            return play()
        from dominosim.strategy import sandbox  # (a user's strategy plays in its own process)

        return sandbox.call(
            play,
            died=lambda how, last: (
                f"a strategy of --strategy-path ended the trace's process ({how}: os._exit "
                "in a strategy, or a crash); fix the strategy"
            ),
        )


# ---------------------------------------------------------------------------------------------
# run and report (dominosim/runner/, dominosim/analysis/report.py; docs/results.md)


@main.command("run")
@click.argument("config", required=False, type=click.Path())
@options("variants", "players", "strategies", "sets", "games", "unit")
@options("seed", "chunk_size", "workers", "out", "name", "rotate", "plots")
@options(*RUN_OPTIONS)
@analysis_options(analyses.RUN)
@click.pass_context
def run_cmd(ctx: click.Context, config: str | None, **kw: Any) -> None:
    """Run an experiment: every option group x seat rotation, chunked over workers.

    CONFIG is an experiment file (docs/config.md); flags override it. Results go to
    OUT/NAME/RUN-ID/ (manifest.json, chunks/, aggregates.parquet, summary.csv, report.md,
    plots/; docs/results.md) and the report is printed. Ctrl-C keeps finished chunks;
    --resume RUN_DIR finishes them with the same numbers.
    """
    from dominosim import api
    from dominosim.analysis import render

    as_json, resume = kw.pop("as_json"), kw.pop("resume")
    common = {k: kw.pop(k) for k in SESSION_KEYWORDS}
    if resume is not None:
        _refuse_with_resume(ctx, ctx.command.params)
        workers = _int_flag(kw["workers"], "--workers")
        common["strategy_path"] = list(kw["strategy_path"])
        with stdout_aside():
            data = api.run(resume=resume, workers=workers, progress=None, **common)
    else:
        until, metric = kw.pop("until_decided"), kw.pop("metric")
        with stdout_aside():
            data = api.run(
                config,
                **_api_flags(kw),
                progress=None,
                **common,
                **({"until_decided": True} if until else {}),
                **({"metric": metric} if metric else {}),
            )
    click.echo(render.to_json(data) if as_json else render.render_text(data), nl=not not as_json)


def _int_flag(value, flag: str):
    if value is None:
        return None
    try:
        n = int(value)
    except ValueError:
        raise ConfigError(f"{flag} must be an integer >= 1, not '{value}'") from None
    if n < 1:
        raise ConfigError(f"{flag} must be an integer >= 1, not {n}")
    return n


@main.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False))
@option("json")
def report_cmd(run_dir: str, as_json: bool) -> None:
    """Print the report of a finished run.

    RUN_DIR is the run folder, results/NAME/RUN-ID; docs/results.md describes the report.
    """
    from dominosim import runner
    from dominosim.analysis import render

    data = runner.load_report(run_dir)
    click.echo(render.to_json(data) if as_json else render.render_text(data), nl=not not as_json)


@main.command("verify")
@click.argument("run_dir", type=click.Path(file_okay=False))
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    default=None,
    metavar="K",
    help="Replay K chunks chosen by --key (default: every chunk).",
)
@click.option(
    "--key",
    type=click.IntRange(min=0, max=2**63 - 1),
    default=None,
    metavar="N",
    help=f"The key that chooses the --sample chunks (default: {HELP_DRAWN}).",
)
@option("workers")
@option("strategy_path", help="Your own strategy file or folder the run plays (repeatable).")
def verify_cmd(run_dir: str, sample, key, workers, strategy_path: tuple[str, ...]) -> None:
    """Check a run folder by replay: play the chunks of RUN_DIR again (or --sample K of them,
    chosen by a key, not by the folder) and compare them with the folder's, byte for byte on
    the aggregates and the records.

    Prints one line per chunk that differs and 'verified by replay: K of N chunks'; exits 5
    when any chunk differs (docs/results.md, "What each check detects").
    """
    from dominosim import runner

    n = _int_flag(workers, "--workers")
    with stdout_aside():
        session = runner.Session(workers=n, strategy_path=tuple(strategy_path))
        found = runner.verify_run(run_dir, sample, key, session)
    for line in found.lines:
        click.echo(one_line(line))
    click.echo(found.summary())
    if found.lines:
        n_bad = len(found.lines)
        raise OutputError(
            f"{n_bad} problem{'s' * (n_bad != 1)} in {run_dir}: it is not what its seed, "
            "strategies and plan give (a chunk edited, damaged or of another run); do not "
            "use its numbers, play the run again"
        )


# ---------------------------------------------------------------------------------------------
# compare, tune, tune-target (dominosim/analysis/tournament.py; docs/compare.md): runs with their own
# report section; the same results folder, executors and --resume as run.


def tournament_options(f: F) -> F:
    """The options compare, skill, tune and tune-target share with run (--no-plots too)."""
    f = options("seed", "chunk_size", "workers", "out", "name", "plots", *RUN_OPTIONS)(f)
    f = option("sets", metavar="VARIANT.OPTION=VALUE", help=f"{config.HELP_SET}.")(f)
    f = option("players", help=f"{config.HELP_PLAYERS} (default 2).")(f)
    return option(
        "variants",
        "variant",
        multiple=False,
        help=f"{HELP_VARIANT} (required unless --resume).",
    )(f)


def _run_tournament(kind: str, fn, kw: dict[str, Any]) -> None:
    """A tournament command: ``fn`` (dominosim.compare, ...) with the command's options
    ``kw``; with --resume, only the options of a session."""
    from dominosim.analysis import render

    ctx = click.get_current_context()
    as_json, resume, variant = kw.pop("as_json"), kw.pop("resume"), kw.pop("variant")
    common = {k: kw.pop(k) for k in SESSION_KEYWORDS}
    if resume is not None:
        params = {p.name: p for p in ctx.command.params}  # (--variant, then as they were given)
        _refuse_with_resume(ctx, [params[n] for n in dict.fromkeys(["variant", *ctx.params])])
        workers = _int_flag(kw["workers"], "--workers")
        common["strategy_path"] = list(kw["strategy_path"])
        with stdout_aside():
            data = fn(resume=resume, progress=None, workers=workers, **common)
    else:
        if variant is None:
            raise ConfigError(f"{kind} needs --variant, e.g. --variant fives")
        flags = _api_flags(kw)
        flags["players"] = 2 if kw["players"] is None else kw["players"]
        flags["sets"] = list(kw["sets"])
        with stdout_aside():
            data = fn(variant=variant, **flags, progress=None, **common)
    click.echo(render.to_json(data) if as_json else render.render_text(data), nl=not not as_json)


@main.command("compare")
@tournament_options
@option(
    "strategies",
    help="The strategies of the round robin (at least two), comma-separated.",
)
@option(
    "games",
    help="Total games over all tables and seatings (default 1000).",
)
@option(
    "unit",
    help=f"{config.HELP_UNIT} (default hand).",
)
@analysis_options(analyses.COMPARE, "metric", "until_decided", "equal_time")
def compare_cmd(**kw: Any) -> None:
    """A round robin of strategies on duplicate deals: win-rate matrix, paired differences,
    Bradley–Terry ratings.

    2 players: every pairing, each deal in both seatings; partnership: every pair of teams in
    both seatings; 3-4 players: every subset of P strategies in every cyclic rotation.
    Results go to OUT/NAME/RUN-ID/ like run, with plots/win_matrix.png (docs/compare.md).
    """
    from dominosim import api

    _run_tournament("compare", api.compare, kw)


@main.command("skill")
@tournament_options
@option(
    "strategies",
    help="The ladder, comma-separated, random among them (default: random, every "
    "built-in heuristic, mc, pimc, oracle).",
)
@analysis_options(analyses.SKILL)
def skill_cmd(**kw: Any) -> None:
    """Luck against skill on duplicate deals: each strategy against random and against each
    other in every seating.

    Reports each strategy's hand win rate and points per hand against random (95%
    intervals), the share of deals decided by the deal, the perfect-information value of the
    deals (the solver: the leader side's win rate under perfect play), each strategy's
    decision accuracy (the share of its decisions the solver rates optimal on the true deal)
    and Bradley–Terry ratings of the ladder. Results go to OUT/NAME/RUN-ID/ like run, with plots/ladder.png (docs/skill.md).
    """
    from dominosim import api

    _run_tournament("skill", api.skill, kw)


@main.command("tune")
@tournament_options
@option("strategies")
@option(
    "games",
    help="Games per value, over all seat rotations (default 1000).",
)
@option(
    "unit",
    help=f"{config.HELP_UNIT} (default match).",
)
def tune_cmd(**kw: Any) -> None:
    """Sweep variant options (--set V.OPTION=A,B) on the same deals, side by side.

    Per value: each strategy's match win rate (Wilson 95%), the stronger strategy, the leading
    side's match advantage, match length (mean, median, p90). docs/compare.md.
    """
    from dominosim import api

    _run_tournament("tune", api.tune, kw)


@main.command("tune-target")
@tournament_options
@option("strategies")
@analysis_options(analyses.TUNE_TARGET)
@option(
    "games",
    help="Matches at each target, over all seat rotations (default 1000).",
)
def tune_target_cmd(**kw: Any) -> None:
    """Play the same matches at several targets: win rates and match length vs target.

    Every (match, hand) has the same deal at every target. Two-lane and ladder have no target.
    Plots: plots/sweep_win_rate.png, plots/sweep_match_length.png (docs/compare.md).
    """
    from dominosim import api

    _run_tournament("tune-target", api.tune_target, kw)


# ---------------------------------------------------------------------------------------------
# configs: the shipped example experiments (configs/, docs/config.md)


@main.command("train")
@rules_options
@seed_option
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False),
    help='The model file to write (JSON; docs/strategies.md, "learned").',
)
@click.option(
    "--generations",
    type=int,
    default=30,
    show_default=True,
    help="Generations of the cross-entropy search.",
)
@click.option(
    "--population",
    type=int,
    default=24,
    show_default=True,
    help="Candidate weight vectors per generation.",
)
@click.option(
    "--deals",
    type=int,
    default=400,
    show_default=True,
    help="Deals per candidate, opponent and seating in each generation.",
)
@click.option(
    "--opponents",
    default=None,
    metavar="NAME,...",
    help="Compiled heuristics to train against (default: all of them).",
)
def train_cmd(**kw: Any) -> None:
    """Train a model for the built-in strategy learned from the engine's own games.

    Searches the model's weights with the cross-entropy method on paired deals against the
    compiled heuristics, and writes the model file, which learned:model=FILE plays
    (docs/strategies.md, "learned"). The same seed writes the same model.
    """
    from dominosim.analysis import training

    seeding.check_seed(kw["seed"], "--seed")
    rules = config.rules_from_cli(kw["variant"], kw["players"], list(kw["sets"]))
    budget = training.Budget(kw["generations"], kw["population"], kw["deals"])
    opponents = training.check_opponents(kw["opponents"])
    out = training.check_out(kw["out"])
    with stdout_aside(), training.progress_bar(budget.generations) as progress:
        model = training.train(rules, kw["seed"], budget, opponents, progress)
    out.write_text(model.to_json(), encoding="utf-8")
    click.echo(f"wrote {out}: learned:model={out} (weights {list(model.weights)})")


@main.command("configs")
@click.option("--files", "show_files", is_flag=True, help="Also show the file of each example.")
def configs_cmd(show_files: bool) -> None:
    """List the example experiment files shipped with dominosim.

    Run one by name from any folder (dominosim run classic-2p); a file of that name in the
    current folder is run instead. Copy one (--files shows where it is) to start your own.
    """
    from dominosim.config import describe_config, shipped_configs

    header = ["config", "description"] + (["file"] if show_files else [])
    rows = [
        [name, describe_config(p)] + ([str(p)] if show_files else [])
        for name, p in shipped_configs().items()
    ]
    click.echo(variants.text_table(header, rows))
    click.echo("\nRun one: dominosim run NAME (docs/config.md)")


# ---------------------------------------------------------------------------------------------
# strategies (dominosim/strategy.py, docs/strategies.md)


@main.command("strategies")
@option("strategy_path")
@click.option("--files", "show_files", is_flag=True, help="Also show the file of each strategy.")
def strategies_cmd(strategy_path: tuple[str, ...], show_files: bool) -> None:
    """List every strategy with its parameters (defaults) and one-line description.

    Built-in strategies live in strategies/; --strategy-path adds files or folders of your own
    (docs/strategies.md). Set parameters with --strategies NAME:KEY=VALUE.
    """
    from dominosim import strategy
    from dominosim.strategy import sandbox

    header = ["strategy", "parameters", "description"] + (["file"] if show_files else [])
    with stdout_aside():  # (the files are loaded in a child: os._exit there is one line)
        rows = sandbox.call(strategy.listing_rows, list(strategy_path), show_files, died=_load_died)
    click.echo(variants.text_table(header, rows))
    click.echo("\nParameters: --strategies NAME:KEY=VALUE (docs/strategies.md)")


def _load_died(how: str, last: str | None) -> str:
    what = (last or "path ?").partition(" ")[2]
    return (
        f"strategy path {what} ended its process while loading ({how}: os._exit at import, "
        "or a crash); fix it"
    )


@main.command("check-strategy")
@click.argument("target", metavar="PATH")
@click.option(
    "--deals",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Hands per rule set and check (default 8).",
)
@option("seed", type=int, default=0, show_default=True, metavar=None, help="Seed of the deals.")
@option(
    "variants",
    "variant_names",
    metavar="NAME",
    help=f"Check only this variant (repeatable; default: all {variants.COUNT}).",
)
@click.option(
    "--check",
    "checks",
    multiple=True,
    metavar="NAME",
    help="Run only this check (repeatable): legal, batch, deterministic, spawn, inputs, information.",
)
@option("strategy_path", help=f"{config.HELP_STRATEGY_PATH}, for a NAME.")
@option(
    "strategy_timeout",
    help="Fail when a strategy takes longer for one decision, its start or its file's "
    "loading (default: no limit).",
)
@option("debug")
@click.option(
    "--probe-seed",
    type=click.IntRange(min=0, max=2**63 - 1),
    default=None,
    metavar="N",
    expose_value=False,
    callback=lambda ctx, _, value: ctx.meta.__setitem__("probe_seed", value),
    help="The seed that chooses the decisions the information check probes (default: "
    f"{HELP_DRAWN}; give it to probe the same decisions again).",
)
@click.pass_context
def check_strategy_cmd(
    ctx: click.Context,
    target: str,
    deals: int | None,
    seed: int,
    variant_names: tuple[str, ...],
    checks: tuple[str, ...],
    strategy_path: tuple[str, ...],
    strategy_timeout: str | None,
) -> None:
    """Run the suite's conformance checks on a strategy: PATH is a strategy file (every
    strategy it registers), a folder of them, or a strategy NAME[:KEY=VALUE...].

    Six checks, in every variant and player count: only legal actions (legal); batch answers
    (choose) equal one-by-one answers (choose_one) (batch); the same answers for the same keys
    (deterministic); the same games in a spawned worker (spawn); the Observation, legal actions
    and keys left unchanged (inputs); the same answer where the hidden tiles are dealt again
    (information), at decisions drawn at random. Prints one line
    per failure (the check, the rule set, a position that shows it) and exits 1 when any
    failed (docs/strategies.md, "Checking your strategy"); on a terminal, the rule set it is
    at.
    """
    import sys

    from dominosim import check

    seeding.check_seed(seed, "--seed")  # (refused as run refuses it)
    kw = {"deals": deals} if deals is not None else {}
    with stdout_aside():
        result = check.check_strategy(
            target,
            seed=seed,
            paths=list(strategy_path),
            variants=list(variant_names) or None,
            checks=checks or check.CHECKS,
            strategy_timeout=strategy_timeout,
            probe_seed=ctx.meta.get("probe_seed"),
            progress=sys.stderr.isatty(),
            **kw,
        )
    for text, err in result.lines(debug=bool(ctx.meta.get("dominosim.debug"))):
        click.echo(text.rstrip("\n") if "\n" in text else one_line(text), err=err)
    if result:
        ctx.exit(1)


if __name__ == "__main__":  # pragma: no cover
    entry()
