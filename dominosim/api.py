"""The Python API of runs: ``dominosim.run`` and ``dominosim.load``.

::

    import dominosim

    report = dominosim.run(variants=["fives"], players=2, strategies="random,greedy",
                           games=2000, seed=1, out="results")
    report["groups"][0]["strategies"]          # win rates with Wilson intervals
    data = dominosim.load(report["run_dir"])
    data.records                                # per-hand records (pandas DataFrame)
    data.aggregates                             # integer aggregates (pandas DataFrame)
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from dominosim.analysis import analyses
from dominosim.base import signals
from dominosim.base.errors import ConfigError, OutputError, did_you_mean
from dominosim.base.params import Param
from dominosim.base.session import CHECKED_FIRST, LISTED, SESSION, timeout_seconds
from dominosim.config import FIELDS, Experiment, experiment_from_cli, read_toml, rules_from_cli
from dominosim.config import KEYWORDS as FIELDS_BY_KEYWORD
from dominosim.game import seeding
from dominosim.game.rules import UNITS


def prepare(config: str | Path | None = None, **flags: Any) -> tuple[Experiment, int, bool]:
    """The Experiment of a config file and/or flags, its seed, and whether it was drawn.

    When neither the flags nor the file give a seed, one is drawn at random (and recorded in
    the manifest, so the run can be repeated with ``seed=...``). The file is read once.
    """
    settings = read_toml(config) if config is not None else {}
    exp = experiment_from_cli(config, settings=settings, **flags)
    if flags.get("seed") is not None or "seed" in settings:
        return exp, exp.seed, False
    return exp, seeding.draw_seed(), True


def run(
    config: str | Path | None = None,
    *,
    resume: str | Path | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = False,
    echo: Callable[[str], None] | None = None,
    **flags: Any,
) -> dict:
    """Run an experiment (or finish one with ``resume=RUN_DIR``) and return its report.

    Args:
        config: an experiment file (TOML), or None.
        resume: a run folder to finish instead of starting a new run.
        executor: ``"local"`` (process pool; in-process with ``workers=1`` and built-ins only),
            ``"dask"`` (needs ``scheduler="tcp://HOST:PORT"``) or ``"dask-local"``.
        scheduler: the Dask scheduler address.
        progress: show the progress bar.
        echo: a callable receiving status lines (default: stderr).
        **flags: the keyword arguments of :func:`dominosim.config.experiment_from_cli`
            (``variants``, ``players``, ``sets``, ``strategies``, ``games``, ``unit``,
            ``seed``, ``chunk_size``, ``workers``, ``out``, ``rotate``, ``records``,
            ``plots``, ``strategy_path``, ``name``), and ``until_decided`` (play in rounds until every
            pair of strategies is decided, at most ``games``; docs/compare.md) with
            ``metric`` (what it decides on; default what decides the game);
            ``strategy_timeout`` (seconds per decision batch) and ``isolate`` (True: each
            strategy of ``strategy_path`` in a fresh process of its own; docs/strategies.md,
            "Isolation").

    Returns:
        The report as a dict (docs/results.md, "Report JSON").
    """
    from dominosim import runner

    _session_keywords("run", executor=executor, scheduler=scheduler, progress=progress, echo=echo)
    flags = _keywords(analyses.RUN, flags)
    config, resume = _path("run", "config", config), _path("run", "resume", resume)
    params, flags = _params(analyses.RUN, flags)
    until, metric = params.until_decided, _run_metric(params)
    session = _session(flags, resume, executor, scheduler, progress, echo)
    # a strategy's prints never reach stdout; Ctrl-C is told from a strategy's KeyboardInterrupt
    with contextlib.redirect_stdout(sys.stderr), signals.handled():
        if resume is not None:
            _, report = runner.resume_run(resume, session)
        else:
            exp, seed, drawn = prepare(config, **flags)
            if until:
                from dominosim.analysis.tournament import check_metric

                check_metric(metric, exp.unit)
            _, report = runner.start_run(
                exp, seed, seed_drawn=drawn, session=session, until_decided=until, metric=metric
            )
        return report


def _session(flags: dict, resume, executor, scheduler, progress, echo):
    """The session of a run (``strategy_timeout`` and ``isolate`` taken out of ``flags``); resuming, the
    recorded workers unless ``workers`` is given, and the user's ``strategy_path``: where a
    run folder's user strategy files may be loaded from (docs/results.md)."""
    from dominosim import runner

    timeout = timeout_seconds(flags.pop("strategy_timeout", None))
    return runner.Session(
        workers=flags.get("workers") if resume is not None else None,
        executor=executor,
        scheduler=scheduler,
        progress=progress,
        echo=echo,
        strategy_timeout=timeout,
        isolate=bool(flags.pop("isolate", None)),
        strategy_path=tuple(flags.get("strategy_path") or ()) if resume is not None else (),
    )


def _params(row: analyses.Analysis, flags: dict) -> tuple[Any, dict]:
    """The analysis ``row``'s own keywords of ``flags`` (each checked for its type by
    :func:`_keywords`, the ``late`` ones here) decoded once into its parameters' type
    (``row.params``), and the other keywords."""
    for key, p in row.declared().items():
        if p.late:
            _check(row.function, key, flags.get(key), p)
    return row.decode(flags)


def _run_metric(params: analyses.RunParams) -> str | None:
    """A plain run's ``metric``: the metric ``--until-decided`` decides on, so given only
    with it."""
    metric = params.metric
    if metric is not None and not params.until_decided:
        raise ConfigError(
            "--metric in run chooses the metric --until-decided decides on; give "
            "--until-decided too (dominosim compare ranks by it)"
        )
    return metric


#: The keywords of an experiment (:data:`dominosim.config.FIELDS`) that every function takes:
#: all but ``variants`` and ``plots`` (run's own), ``name`` listed last, then the session's
#: listed ones (``strategy_timeout``, ``isolate``: dominosim.base.session).
_EXPERIMENT = (
    *(k for k in FIELDS_BY_KEYWORD if k not in ("variants", "plots", "name")),
    "name",
    *LISTED,
)
#: Keyword -> what it takes, for a list keyword: a string is one item (or the CLI's comma
#: grammar).
_LISTS = {f.keyword: f.takes for f in FIELDS if f.takes}
#: The kind of an experiment field's keyword as its type is checked (base/params.py); the
#: others' kinds have checks of their own (:func:`_keywords`).
_FIELD_KINDS = {"int": "int", "bool": "bool", "name": "string", "choice": "string"}
_FIELD_KINDS["path"] = "path"
#: the kinds of a keyword taking a string (``out``, a path, takes a pathlib.Path too)
_STRINGS = ("string", "path")


def _is_int(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | str)


def _is_ints(value) -> bool:
    items = value.split(",") if isinstance(value, str) else value
    return isinstance(items, list | tuple) and all(_is_int(x) for x in items)


#: Each kind of keyword (dominosim.base.params.KINDS): whether a value (not None) is of it,
#: and what an error says it must be. An int kind takes a string of one, as the command line
#: gives it (the config, or the analysis, checks it, naming --KEY); a number's too.
KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "int": (_is_int, "an integer"),
    "bool": (lambda v: isinstance(v, bool), "True or False"),
    "number": (lambda v: not isinstance(v, bool) and isinstance(v, int | float | str), "a number"),
    "ints": (_is_ints, "a list of integers"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "path": (lambda v: isinstance(v, str | os.PathLike), "a path (a string or pathlib.Path)"),
    "callable": (callable, "a callable"),
    "any": (lambda v: True, ""),
}


def _check(name: str, key: str, value, p: Param) -> None:
    """``value`` of the declared keyword ``key`` checked for its kind: a ConfigError naming
    the keyword and what it takes otherwise. None is "not given" unless ``p`` is not
    nullable."""
    if value is None and p.nullable:
        return
    ok, what = KINDS[p.kind]
    if value is None or not ok(value):
        shown = _shown(value) if p.shown else repr(value)
        raise ConfigError(f"dominosim.{name}(): {key} must be {p.takes or what}, not {shown}")


def _typed(name: str, key: str, value, p: Param | None):
    """``value`` of keyword ``key`` checked for its type (its range is the config's, or the
    analysis's): a ConfigError naming the keyword otherwise. None is "not given" (the
    default). ``p``: the keyword's declaration (an analysis's or the session's), else an
    experiment field's."""
    if p is not None:
        if not p.late and p.kind != "string":  # (a string's, a Path one too: _keywords')
            _check(name, key, value, p)
        return value
    f = FIELDS_BY_KEYWORD.get(key)
    kind = _FIELD_KINDS.get(f.kind) if f is not None else None
    if value is None or kind not in ("int", "bool"):
        return value
    if kind == "bool" and value in f.flag_values and isinstance(value, str):
        return value == f.flag_values[0]  # (what the flag takes: 'all', 'none')
    ok, what = KINDS[kind]
    if not ok(value):
        what += "".join(f" or '{v}'" for v in f.flag_values)
        raise ConfigError(f"dominosim.{name}(): {key} must be {what}, not {_shown(value)}")
    return value


def _session_keywords(name: str, **given: Any) -> None:
    """The keywords of a session (not of the experiment) checked before the others
    (:data:`dominosim.base.session.CHECKED_FIRST`): their types, one ConfigError naming the
    keyword."""
    for key in CHECKED_FIRST:
        _check(name, key, given[key], SESSION[key])


def _keywords(row: analyses.Analysis, flags: Mapping[str, Any]) -> dict:
    """``flags`` checked against the keywords of the analysis ``row``'s function (besides
    ``resume``, ``executor``, ``scheduler``, ``progress`` and ``echo``; the tournaments set
    the others themselves): an unknown keyword or a value of the wrong type is one
    ConfigError naming the keyword and what it takes; a string is one item of a list keyword
    (``sets="fives.reserve_k=2"``, ``strategy_path="./dir"``) and a ``pathlib.Path`` is a
    path."""
    name, takes = row.function, row.takes(_EXPERIMENT)
    declared = {**row.declared(), **SESSION}
    out = {}
    for key, value in flags.items():
        if key not in takes:
            raise ConfigError(
                f"dominosim.{name}() has no keyword '{key}'{did_you_mean(key, takes)}; "
                f"its keywords are: {', '.join(takes)}"
            )
        value = _typed(name, key, value, declared.get(key))
        if value is None:
            out[key] = [] if key == "sets" else None
        elif key in _LISTS:
            single = (str, os.PathLike) if _kind(key) == "paths" else (str,)
            items = [value] if isinstance(value, single) else value
            if not isinstance(items, list | tuple) or not all(isinstance(x, single) for x in items):
                raise ConfigError(
                    f"dominosim.{name}(): {key} must be {_LISTS[key]}, not {_shown(value)}"
                )
            if _kind(key) in ("options", "paths"):  # (repeatable: never the comma grammar)
                out[key] = [os.fspath(x) for x in items]
            else:  # (the CLI's comma grammar)
                out[key] = value if isinstance(value, str) else list(items)
        elif _string(key, declared):
            out[key] = os.fspath(value) if isinstance(value, os.PathLike) else value
            if not isinstance(out[key], str):
                what = KINDS[_FIELD_KINDS.get(_kind(key)) or "string"][1]
                raise ConfigError(f"dominosim.{name}(): {key} must be {what}, not {_shown(value)}")
        else:
            out[key] = value
    return out


def kind_of(key: str, row: analyses.Analysis | None = None) -> str | None:
    """The kind (dominosim.base.params.KINDS) by which keyword ``key`` of ``row``'s function
    is checked for its type: its declaration's (the row's own parameters, the session's),
    else its experiment field's; None: a check of its own (a list, the rules' grammar)."""
    p = {**(row.declared() if row is not None else {}), **SESSION}.get(key)
    return p.kind if p is not None else _FIELD_KINDS.get(_kind(key))


def _string(key: str, declared: Mapping[str, Param]) -> bool:
    """Whether keyword ``key`` takes a string (a pathlib.Path is one too): an experiment
    field's name, choice or path, or a declared keyword of kind string."""
    p = declared.get(key)
    return p.kind == "string" if p is not None else _FIELD_KINDS.get(_kind(key)) in _STRINGS


def _kind(key: str) -> str | None:
    """The kind of an experiment keyword in :data:`dominosim.config.FIELDS` (None: a keyword
    of a function's own)."""
    f = FIELDS_BY_KEYWORD.get(key)
    return f.kind if f is not None else None


def _path(fn: str, key: str, value):
    """``config`` or ``resume``: None, a string or a pathlib.Path (as a string)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise ConfigError(f"dominosim.{fn}(): {key} must be {KINDS['path'][1]}, not {_shown(value)}")


def _shown(value) -> str:
    return f"{value!r} ({type(value).__name__})"


class RunData(NamedTuple):
    """What :func:`load` returns."""

    #: pandas DataFrame of the per-hand records, or with ``level="match"`` the per-match
    #: records (empty when records were off)
    records: object
    aggregates: object  # pandas DataFrame of aggregates.parquet
    manifest: dict
    report: dict


def load(run_dir: str | Path, level: str = "hand") -> RunData:
    """Read a run folder: per-hand records (``level="match"``: per-match records, one row
    per match and seating; docs/results.md), integer aggregates, manifest and report.

    The records are read from the records file of every planned chunk that checks out
    (``store.RunDir.check_chunk``: its ``.agg.json`` names the file's size and sha256), never
    from a stray or copied file of ``chunks/``; this holds them all in memory (for large runs
    read those files with pyarrow datasets instead). A chunk that does not check out is left
    out of an unfinished run (its aggregates are then the merge of the chunks read, so the
    two agree; ``--resume`` plays it again); in a finished run, a chunk that does not check
    out or is missing, or an aggregates.parquet that is not the merge of its chunks, is an
    OutputError naming it and the fix (``dominosim run --resume``), never a part of the run
    read as the whole.
    """
    import pandas as pd

    from dominosim import runner
    from dominosim.storage.store import RunDir

    if level not in UNITS:
        levels = " or ".join(map(repr, UNITS))
        raise ConfigError(f"dominosim.load(): level must be {levels}, not {level!r}")
    run_dir = _path("load", "run_dir", run_dir)
    if run_dir is None:
        raise ConfigError(f"dominosim.load(): run_dir must be {KINDS['path'][1]}, not None")

    rd = RunDir.open(run_dir)
    manifest = rd.manifest()
    plan = runner.Plan.from_manifest(manifest)
    bad: list = []
    merger, done = runner.merge_finished(rd, plan, bad)
    rep = runner.load_report(rd.path)
    status = manifest.status
    merged = status == "done" and os.path.lexists(rd.path / "aggregates.parquet")
    if status == "done":
        _check_whole(rd, plan, merger, done, bad, merged)
    if not plan.records:
        records = pd.DataFrame()
    elif level == "match":
        records = _match_records(rd, plan, done)
    else:
        records = _records(rd, plan, done)
    if merged:
        aggregates = rd.read_aggregates(len(plan.rules))
    else:  # an unfinished run: the merge of the chunks it has
        aggregates = merger.frame()
    return RunData(records, aggregates, manifest.encode(), rep)


def _check_whole(rd, plan, merger, done: set, bad: list, merged: bool) -> None:
    """A finished run read by :func:`load` is whole: every chunk there and checked out, and
    aggregates.parquet the merge of them (else one OutputError naming the fix)."""
    from dominosim import runner

    fix = f"play it again with: dominosim run --resume {rd.path}"
    if bad:
        g, c, why = bad[0]
        raise OutputError(f"chunk {g}-{c} of the finished run {rd.path}: {why}; {fix}")
    if len(done) != len(plan.items):
        raise OutputError(
            f"the finished run {rd.path} lacks {len(plan.items) - len(done)} of its "
            f"{len(plan.items)} chunks; {fix}"
        )
    why = runner.merged_differs(rd, plan, merger) if merged else None
    if why is not None:
        raise OutputError(why)


def _match_files(rd, plan, done) -> list[Path]:
    """The per-match records files of the chunks ``done``; a folder written before they
    existed has none, which is one error."""
    from dominosim import runner
    from dominosim.storage.store import MATCHES_SUFFIX

    for result in runner.read_chunks(rd, plan, done):
        if result.match_parquet is None:
            g, c = result.group, result.chunk
            raise OutputError(
                f"chunk {g}-{c} of {rd.path} has no per-match records (written by an older "
                "dominosim); read level='hand' (matches are its hands grouped by match_id), "
                "or run the experiment again"
            )
    return rd.record_files(done, MATCHES_SUFFIX)


def _match_records(rd, plan, done):
    """The per-match records of the chunks ``done`` as one DataFrame."""
    import pandas as pd

    files = _match_files(rd, plan, done)
    try:
        frames = [pd.read_parquet(f) for f in files]
    except (OSError, ValueError) as e:
        raise OutputError(f"cannot read the records of {rd.path}: {e}") from None
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _records(rd, plan, done):
    """The records of the chunks ``done`` (each checked out), as one DataFrame: each file read
    within its bound and checked against its sha256 again (store.RunDir.read_records)."""
    import io

    import pandas as pd

    from dominosim import runner

    frames = []
    for result in runner.read_chunks(rd, plan, done):
        data = rd.read_records(result)
        try:
            frames.append(pd.read_parquet(io.BytesIO(data)))
        except (OSError, ValueError) as e:
            raise OutputError(f"cannot read the records of {rd.path}: {e}") from None
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# ---------------------------------------------------------------------------------------------
# round robins and sweeps (dominosim/analysis/tournament.py, docs/compare.md)


def _tournament(
    row: analyses.Analysis,
    *,
    resume=None,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool = False,
    echo=None,
    **flags,
) -> dict:

    _session_keywords(
        row.function, executor=executor, scheduler=scheduler, progress=progress, echo=echo
    )
    flags = _keywords(row, flags)
    resume = _path(row.function, "resume", resume)
    params, flags = _params(row, flags)
    session = _session(flags, resume, executor, scheduler, progress, echo)
    with contextlib.redirect_stdout(sys.stderr), signals.handled():  # (as in run)
        return _tournament_run(row, resume, session, params, flags)


def _tournament_run(row: analyses.Analysis, resume, session, params, flags) -> dict:
    """Resume the run folder ``resume`` (a run of ``row``'s), or set up and start a new run."""
    from dominosim import runner
    from dominosim.runner import progress as progress_
    from dominosim.storage.store import RunDir

    if resume is not None:
        found = RunDir.open(resume).manifest().analysis
        if analyses.of_analysis(found) is not row:
            how = f"dominosim {analyses.command_of(found)} --resume"
            raise ConfigError(f"{resume} is not a {row.name} run; finish it with {how}")
        _, report = runner.resume_run(resume, session)
    else:
        setup = row.setup(rules_from_cli, params, **flags)
        exp, seed, drawn = prepare(None, **setup.flags)
        for line in setup.notes:  # (compare --equal-time: what it calibrated)
            progress_.echo(session, line)
        _, report = runner.start_run(
            exp,
            seed,
            seed_drawn=drawn,
            session=session,
            legs=setup.legs or None,
            analysis=setup.analysis,
            until_decided=getattr(params, "until_decided", False),  # (compare's: --until-decided)
            metric=setup.metric,
        )
    return report


def compare(**kwargs: Any) -> dict:
    """A round robin on duplicate deals (``dominosim compare``); returns the report, whose
    ``analysis`` holds the win-rate matrix, paired differences and Bradley–Terry ratings.

    Keywords: ``variant``, ``players``, ``strategies`` (at least two), ``sets``, ``games``
    (total over all tables and seatings), ``unit`` (default ``"hand"``), ``seed``,
    ``chunk_size``, ``workers``, ``out``, ``name``, ``records``, ``strategy_path``,
    ``plots`` (False: no figures), ``metric`` (``"hands"``, ``"points"`` or ``"matches"``: rank by it instead of what
    decides the game), ``until_decided`` (play in rounds until every pair is decided, at most
    ``games``), ``equal_time`` (milliseconds per decision: each search's budget knob, mc's
    and pimc's ``samples``, calibrated to it first; docs/compare.md, "Equal time"); or
    ``resume=RUN_DIR``; and ``executor``, ``scheduler``, ``progress``, ``echo`` as in
    :func:`run`.
    """
    return _tournament(analyses.COMPARE, **kwargs)


def skill(**kwargs: Any) -> dict:
    """Luck against skill (``dominosim skill``, docs/skill.md): a ladder of strategies on
    duplicate deals, every pair in every seating; returns the report, whose ``analysis``
    holds each strategy's results against random, the share of deals decided by the deal and
    the Bradley–Terry ratings of the ladder.

    Keywords: ``variant``, ``players``, ``strategies`` (default: random, every built-in
    heuristic, mc, pimc, oracle), ``deals`` (per table, default 1000), ``sets``, ``seed``, ``chunk_size``,
    ``workers``, ``out``, ``name``, ``records``, ``strategy_path``, ``plots`` (False: no
    figures), ``metric`` (``"hands"`` or ``"points"``: rank by it instead of what decides the
    game, as :func:`compare`); or ``resume=RUN_DIR``; and
    ``executor``, ``scheduler``, ``progress``, ``echo`` as in :func:`run`.
    """
    return _tournament(analyses.SKILL, **kwargs)


def tune(**kwargs: Any) -> dict:
    """An option sweep on the same deals (``dominosim tune``): the keywords of :func:`run`
    for one ``variant`` with at least one value list in ``sets`` (``plots`` among them);
    ``unit`` default match."""
    if kwargs.get("resume") is None and kwargs.get("sets", None) is None:
        raise ConfigError(
            "dominosim.tune(): sets must give a value list to sweep, e.g. "
            "sets='fives.reserve_k=0,2', not " + _shown(kwargs.get("sets"))
        )
    return _tournament(analyses.TUNE, **kwargs)


def tune_target(**kwargs: Any) -> dict:
    """A target sweep on the same deals (``dominosim tune-target``): ``variant``,
    ``targets`` (``"50,100"`` or a list), ``share`` (default 0.75), ``games`` (matches per
    target) and the other keywords of :func:`run` (``plots`` among them)."""
    return _tournament(analyses.TUNE_TARGET, **kwargs)
