"""A run's session: start, resume, execute, finish."""

from __future__ import annotations

import math
import os
import platform
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from dominosim import strategy
from dominosim.analysis import analyses, render
from dominosim.analysis.aggregates import Merger
from dominosim.analysis.chunk import ChunkResult
from dominosim.analysis.manifest import Manifest
from dominosim.analysis.report import strategy_classes
from dominosim.base import signals
from dominosim.base.errors import ConfigError, Interrupted, OutputError, WorkerError
from dominosim.base.version import __version__
from dominosim.game import seeding
from dominosim.runner import isolated
from dominosim.runner.executors import check_executor, make_executor, user_strategies
from dominosim.runner.files import (
    SEATED,
    changed_strategy_file,
    check_seated,
    load_run_files,
    permitted_files,
    probe_strategies,
    recorded_files,
    strategy_files,
)
from dominosim.runner.plan import (
    MANIFEST_FORMAT,
    Plan,
    check_plan_match_end,
    games_note,
    int_in,
    measurement_of,
    strategy_paths_of,
)
from dominosim.runner.progress import Progress, Session, echo
from dominosim.runner.results import (
    build_report,
    checked_report,
    merge_finished,
    merged_differs,
    merged_totals,
)
from dominosim.runner.worker import ChunkPlayed, records_table
from dominosim.storage.store import RunDir
from dominosim.strategy.spec import parse_strategy

if TYPE_CHECKING:  # (the config builds what the runner takes; the runner never imports it)
    from dominosim.config import Experiment

# ---------------------------------------------------------------------------------------------
# the parent


def versions() -> dict:
    """Versions of dominosim, Python and the packages a run depends on."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in (
        "dominosim",
        "numpy",
        "pandas",
        "pyarrow",
        "multiprocess",
        "tqdm",
        "click",
        "matplotlib",
        "dask",
        "distributed",
    ):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            if pkg == "dominosim":
                out[pkg] = __version__
    return out


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _check_workers(session: Session) -> None:
    """Warn once when more local workers are asked for than the machine has cores."""
    cores = os.cpu_count() or 1
    if session.executor == "local" and session.workers and session.workers > cores:
        echo(
            session,
            f"warning: --workers {session.workers} is more than the {cores} cores "
            "of this machine; the run is not faster for it",
        )


def start_run(
    exp: Experiment,
    seed: int,
    *,
    seed_drawn: bool = False,
    session: Session | None = None,
    legs: Sequence[Sequence[str]] | None = None,
    analysis: dict | None = None,
    until_decided: bool = False,
    metric: str | None = None,
) -> tuple[RunDir, dict]:
    """Create the run folder for ``exp`` and play it; returns the finished run folder and
    its report.

    ``legs`` (a round robin: one seat list per leg) and ``analysis`` (the command's own report
    section, ``{"kind": ...}``, stored in the manifest) serve compare / tune / tune-target.
    ``until_decided`` plays in rounds until every pair is decided on ``metric`` (None: what
    decides the game; compare's own metric for a compare) or the planned games are played
    (plan.Sequential).
    Every check that can fail runs before the folder is made; a run that fails before any
    chunk is finished leaves no folder behind.
    """
    session = session or Session()
    if session.workers is None:
        session = replace(session, workers=exp.workers)
    check_executor(session.executor, session.scheduler)
    seeding.check_in_range(int(seed), "--seed")
    origins, seers = _check_strategies(exp, legs, session)
    labels = [*(s.label for s in exp.seats), *(x for leg in legs or () for x in leg)]
    files = strategy_files(strategy_paths_of(exp.strategy_path), labels, origins)
    plan = Plan.from_experiment(
        exp,
        seed,
        legs=legs,
        measurement=measurement_of(analysis or {}),
        strategy_files=recorded_files({"strategy_files": files}),
        workers=session.workers or os.cpu_count() or 1,
        until_decided=until_decided,
        metric=metric,
    )
    _check_plan(plan, session)
    rd = RunDir.create(exp.out, exp.name)
    manifest = _new_manifest(rd, exp, plan, files, analysis, seed_drawn, seers)
    try:
        with rd.locked():
            rd.write_manifest(manifest.encode())
            if seed_drawn:
                echo(session, f"seed: {plan.seed} (drawn; repeat this run with --seed {plan.seed})")
            note = games_note(plan, analysis)
            if note:
                echo(session, note)
            data = execute(rd, plan, manifest, session)
    except Interrupted:
        raise
    except BaseException:
        if not rd.finished_chunks():  # nothing to keep: no empty 'failed' folder
            rd.remove()
        raise
    return rd, data


def _check_plan(plan: Plan, session: Session) -> None:
    """The checks of a new run's plan that can fail (after the warning of too many workers)."""
    _check_workers(session)
    check_plan_match_end(plan)
    if plan.sequential is not None and len(plan.labels()) < 2:
        raise ConfigError(
            "--until-decided stops when every pair of strategies is told apart, but the run "
            "seats one strategy; give two or more with --strategies"
        )


def _new_manifest(
    rd: RunDir,
    exp: Experiment,
    plan: Plan,
    files,
    analysis: dict | None,
    seed_drawn: bool,
    seers: Iterable[str] = (),
) -> Manifest:
    """The manifest of a new run (``files``: its strategy files, :func:`strategy_files`;
    ``seers``: the users' perfect-information strategies, as the child that loaded them
    found)."""
    from dominosim.base.version import ENGINE_VERSION

    exp_dict = exp.to_dict()
    exp_dict["seed"] = plan.seed
    manifest = Manifest.build(
        format=MANIFEST_FORMAT,
        run_id=rd.run_id,
        name=plan.name,
        status="running",
        created=_now(),
        source=exp.source,
        experiment=exp_dict,
        seed_drawn=seed_drawn,
        **plan.to_manifest(),
        fingerprint=plan.fingerprint(),
        inputs={"engine_version": ENGINE_VERSION, "strategy_files": files, SEATED[0]: SEATED[1]},
        versions=versions(),
        timings={"wall_seconds": 0.0, "sessions": []},
        **({"analysis": dict(analysis)} if analysis else {}),
    )
    # (the report reads them here)
    return manifest.with_(classes=strategy_classes(manifest, seers))


def _check_strategies(
    exp: Experiment, legs, session: Session
) -> tuple[dict[str, str] | None, list[str]]:
    """Load the run's strategy files and make every seat's strategy once, in the parent:
    unknown names and bad parameters fail before the folder is made; a copied built-in that
    keeps ``compiled`` says, once, that it plays its Python (strategy.twin_note). Under
    A user's file is never imported here (a file that ends its process when imported a
    second time, or later from a timer, cannot end this one): it is loaded in a forked child
    (under ``--isolate`` a fresh process), which returns the file defining each strategy
    name it knows (None without ``--strategy-path``: the registry here knows), and the names
    whose class plays with perfect information there (the manifest records them)."""
    labels = [*(s.label for s in exp.seats), *(x for leg in legs or () for x in leg)]
    timeout = float(session.strategy_timeout or 0.0)
    origins, seers = None, []
    if session.isolate and exp.strategy_path:  # (no user's file is ever imported here)
        probed = isolated.probe(exp.strategy_path, labels, timeout=timeout)
        notes, origins, seers = probed["notes"], probed["origins"], probed["perfect_information"]
        labels = [x for x in labels if isolated.is_builtin(x)]
    elif exp.strategy_path:  # (loaded in a child, never here: pool workers play them)
        probed = probe_strategies(exp.strategy_path, labels, timeout=timeout)
        notes, origins, seers = probed["notes"], probed["origins"], probed["perfect_information"]
        labels = [x for x in labels if isolated.is_builtin(x)]
    else:
        notes = []
    for label in dict.fromkeys(labels):
        spec = parse_strategy(label)
        strategy.get(spec.name, **spec.kwargs)
    names = [parse_strategy(x).name for x in labels]
    for note in dict.fromkeys([*notes, *(strategy.twin_note(n) for n in names)]):
        if note is not None:
            echo(session, note)
    return origins, seers


def check_inputs(
    rd: RunDir,
    manifest: Manifest | dict,
    named: Sequence[str] = (),
    command: str = "run --resume",
) -> tuple[tuple[tuple[str, str, str], ...], list[str], list[str]]:
    """Refuse to resume a run whose engine or strategy files changed since it began, or
    whose user strategy files the user does not name (``named``: ``--strategy-path``;
    :func:`.files.permitted_files`). Returns the recorded files to load, and of an older
    manifest (every file of its folders listed) the user's files left out because they are
    not named or changed (:func:`.files.check_seated` tells whether the run needs them)."""
    from dominosim.base.version import ENGINE_VERSION

    manifest = Manifest.decode(manifest, strict=False)
    inputs = manifest.inputs
    if not isinstance(inputs, dict):
        raise OutputError(
            f"the manifest of {rd.path} records no engine version or strategy files (made by "
            "an older dominosim); resume with the version that started the run, or start a "
            "new run"
        )
    new = _new_run_hint(manifest)
    if inputs.get("engine_version") != ENGINE_VERSION:
        raise OutputError(
            f"the engine changed since the run {rd.path} began (engine version "
            f"{inputs.get('engine_version')}, now {ENGINE_VERSION}), so its chunks would mix "
            f"two engines; start a new run ({new}) or resume with the version that began it"
        )
    files = recorded_files(inputs)  # (checked by Plan.from_manifest before this)
    inside = next(
        (ref for kind, ref, _ in files if kind == "path" and _is_within(Path(ref), rd.path)), None
    )
    if inside is not None:
        raise OutputError(
            f"the manifest of {rd.path} names a strategy file inside the run folder ({inside}); "
            "a run folder is data and none of its files is ever run: use your own copy of "
            "the strategy and start a new run"
        )
    strict = inputs.get(SEATED[0]) == SEATED[1]
    keep, left = permitted_files(files, named, command, strict)
    changed = []
    for kind, ref, digest in keep:
        where = changed_strategy_file([(kind, ref, digest)])
        if where is None:
            continue
        if kind != "path" or strict:
            raise OutputError(
                f"strategy file {where} changed since the run {rd.path} began (or is "
                f"missing), so its games would mix two versions of it; start a new run "
                f"({new}) or restore the file"
            )
        changed.append(ref)
    return tuple(f for f in keep if f[1] not in changed), left, changed


def load_inputs(
    rd: RunDir,
    manifest: Manifest | dict,
    plan: Plan,
    named: Sequence[str],
    command: str,
    timeout: float = 0.0,
    isolate: bool = False,
) -> Plan:
    """The strategy files of a run folder checked (:func:`check_inputs`) and loaded, those
    the user named only (each checked against its sha256 before it is run; in a child first,
    under ``timeout`` seconds when given; with ``isolate`` in a fresh one, and then never
    here): the plan whose work items load the same files."""
    keep, left, changed = check_inputs(rd, manifest, named, command)
    names = None
    if isolate and any(kind == "path" for kind, _, _ in keep):
        names = set(isolated.probe([], [], keep, timeout)["names"])
        load_run_files([f for f in keep if f[0] != "path"])
    else:
        if any(kind == "path" for kind, _, _ in keep):
            probe_strategies([], [], keep, timeout)
        load_run_files(keep)
    check_seated(plan.labels(), keep, left, changed, command, names)
    return replace(plan, load_files=keep)


def _is_within(path: Path, folder: Path) -> bool:
    """``path`` lies inside ``folder`` (links resolved on both)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _new_run_hint(manifest: Manifest) -> str:
    src = manifest.source
    kind = analyses.command_of(manifest.analysis)
    if isinstance(src, str) and src != "command line":
        return f"dominosim {kind} {src}"
    return f"dominosim {kind} with the settings of its manifest.json 'experiment'"


def outputs_complete(rd: RunDir, manifest: Manifest, groups: int) -> bool:
    """The merged outputs of a finished run are all there and match the manifest."""
    from dominosim.storage.store import AGGREGATES, REPORT, SUMMARY

    want = (manifest.outputs or {}) if isinstance(manifest.outputs, dict) else {}
    if not all((rd.path / f).is_file() for f in (AGGREGATES, SUMMARY, REPORT)):
        return False
    if want.get("plots") and not (rd.path / "plots").is_dir():
        return False
    digest = want.get(AGGREGATES)
    return digest is None or digest == rd.aggregates_digest(groups)


def resume_run(path: str | Path, session: Session | None = None) -> tuple[RunDir, dict]:
    """Finish the missing chunks of a run folder (a finished run is left as it is, unless a
    chunk or an output is missing or damaged: those are played or written again); returns the
    run folder and its report."""
    session = session or Session()
    rd = RunDir.open(path)
    with rd.locked():
        manifest = rd.manifest()
        plan = Plan.from_manifest(manifest)
        if session.workers is None:
            session = replace(session, workers=_recorded_workers(manifest))
        check_executor(session.executor, session.scheduler)
        if manifest.status == "done" and outputs_complete(rd, manifest, len(plan.rules)):
            bad: list = []  # (the records cross-check too: docs/results.md)
            merger, done = merge_finished(rd, plan, bad, cross_check=True)
            if not bad and len(done) == len(plan.items):
                why = merged_differs(rd, plan, merger)
                if why is None:
                    return rd, checked_report(rd, manifest, len(plan.rules))
                echo(session, f"{why.partition(';')[0]}; writing it again from the chunks")
        timeout = float(session.strategy_timeout or 0.0)
        plan = load_inputs(
            rd, manifest, plan, session.strategy_path, "--resume", timeout, session.isolate
        )
        _check_workers(session)
        rd.check_writable()
        return rd, execute(rd, plan, manifest, session)


def _recorded_workers(manifest: Manifest) -> int | None:
    """The worker count the run was started with (None: the default, when the manifest has
    none that is a count)."""
    exp = manifest.experiment
    workers = exp.get("workers") if isinstance(exp, dict) else None
    return workers if int_in(workers, 1, 10_000) else None


class Written:
    """The manifest a session writes (:attr:`m`): the type, set anew as the run goes
    (:meth:`set`, a field it holds keeping its place) and written (:meth:`write`)."""

    def __init__(self, rd: RunDir, manifest: Manifest) -> None:
        self.rd, self.m = rd, manifest

    def set(self, **values: object) -> None:
        self.m = self.m.with_(**values)

    def write(self) -> None:
        self.rd.write_manifest(self.m.encode())


def execute(rd: RunDir, plan: Plan, manifest: Manifest, session: Session) -> dict:
    """Play the chunks of ``plan`` not yet in ``rd``, then write the merged outputs; returns
    the report (built once, by :func:`finish`)."""
    manifest = Written(rd, manifest)
    bad: list = []
    merger, done = merge_finished(rd, plan, bad, cross_check=True)
    for g, c, reason in bad:
        echo(session, f"chunk {g}-{c}: {reason}; playing it again")
        rd.remove_chunk(g, c)
    clock = _SessionClock(manifest)
    played = Played()
    bar = Progress(session, plan.total_games, merger.games, rd.path)
    rounds = _Rounds(rd, plan, merger, done, bar, played, session)
    signals.reset()
    old_handlers = signals.install()  # Ctrl-C and SIGTERM: interrupted, the resume command
    try:
        plan = rounds.play(manifest)  # (a run decided early plays a plan that stops there)
        data = finish(
            rd,
            plan,
            manifest,
            merger,
            lambda: clock.end(played.written, "done"),
            phase=bar.phase,
            warn=lambda text: echo(session, text),
        )  # (the bar closes in finally)
    except KeyboardInterrupt:
        with signals.deferred():  # (a second signal cannot cut the cleanup short)
            rounds.stop()
            # a chunk whose file was written just before the signal is finished too
            played.written = max(played.written, len(rd.finished_chunks() - set(done)))
            bar.close()
            clock.end(played.written, "interrupted")
            manifest.write()
        raise Interrupted(
            f"interrupted: {len(done) + played.written} of {len(rounds.plan.items)} chunks kept in "
            f"{rd.path}; finish with: {_resume_command(manifest, rd)}"
        ) from None
    except BaseException as e:
        rounds.stop()
        bar.close()
        instead = _failed(e, rd, manifest, clock, played.written, kept=len(done) + played.written)
        if instead is None:
            raise
        raise instead from None
    finally:
        rounds.stop()  # closes a Dask client and its cluster; a finished pool is already joined
        bar.close()
        signals.restore(old_handlers)
    wall = clock.end(played.written, "done")  # (playing and merging)
    rate = played.games / wall if wall > 0 else 0.0
    took = time.monotonic() - session.started  # (the command's: loading, planning, the report)
    echo(
        session,
        f"played {played.games} games ({played.hands} hands) in {took:.1f} s ({wall:.1f} s "
        f"playing, {rate:,.0f} games/s); results in {rd.path}",
    )
    return data


class _Rounds:
    """The chunks a session plays: all pending ones at once, or with ``--until-decided`` in
    rounds, one per look (plan.Sequential), each followed by the verdict of the chunks up to
    that look (report.until_decided); a decided run's plan ends at that look
    (:meth:`Plan.stopped_at`: :attr:`plan` is then that plan)."""

    def __init__(self, rd, plan, merger, done, bar, played, session):
        self.rd, self.plan, self.merger, self.done = rd, plan, merger, set(done)
        self.bar, self.played, self.session = bar, played, session
        self.run = plan.fingerprint()  # (a plan stopped at a look keeps it)
        self.workers = session.workers or os.cpu_count() or 1
        self.ex = None

    def play(self, manifest: Written) -> Plan:
        """Play the rounds; the plan the run played (stopped at the look that decided it)."""
        seq = self.plan.sequential
        if seq is None or seq.stopped is not None:
            self._play_up_to(None)
            return self.plan
        for look in seq.looks:
            self._play_up_to(look)
            if look == seq.looks[-1] or self._decided(manifest.m, look):
                if look != seq.looks[-1]:
                    self.plan = self.plan.stopped_at(look)
                    manifest.set(**self.plan.to_manifest())
                echo(self.session, f"until decided: stopped at {look} deals per table")
                return self.plan
        return self.plan

    def _play_up_to(self, look: int | None) -> None:
        """Play the pending chunks that end at ``look`` or before (None: all); the chunks are
        made on the fly (a plan of 10^15 games holds no list)."""
        plan, s = self.plan, self.session
        per_group = -(-plan.ids_played // plan.ids_per_chunk)
        if look is not None:
            per_group = min(per_group, -(-look // plan.ids_per_chunk))
        n = len(plan.rules) * per_group - sum(1 for _, c in self.done if c < per_group)
        if n <= 0:
            return
        timeout = float(s.strategy_timeout or 0.0)
        items = (
            plan.item(g, c, timeout, s.isolate)
            for g in range(len(plan.rules))
            for c in range(per_group)
            if (g, c) not in self.done
        )
        self.bar.phase(f"starting {min(self.workers, n)} worker(s)")
        if s.isolate:  # (the children's working folders: made here, removed at the end)
            isolated.base_folder()
        isolate = user_strategies(plan)
        self.ex = make_executor(items, n, self.workers, s.executor, s.scheduler, isolate=isolate)
        self.bar.phase("playing")
        for res in self.ex.results(self.bar.tick if self.bar.show else None):
            _write_chunk(self.rd, plan, self.run, self.merger, res)
            self.done.add((res.result.group, res.result.chunk))
            self.played.add(res.result)
            self.bar.chunk(res.result.games)
        self.stop()

    def _decided(self, manifest: Manifest, look: int) -> bool:
        """Whether every pair is decided on the chunks up to ``look`` (those alone, so a
        resumed run reaches the same verdict)."""
        from dominosim.analysis import report

        merger, _ = merge_finished(self.rd, self.plan, below=look)
        return report.decided(manifest, merger.rows(), look)

    def stop(self) -> None:
        _stop(self.ex)
        self.ex = None


@dataclass
class Played:
    """What this session played: games, hands, chunk files written."""

    games: int = 0
    hands: int = 0
    written: int = 0

    def add(self, result: ChunkResult) -> None:
        self.games += result.games
        self.hands += result.hands
        self.written += 1


def _write_chunk(rd: RunDir, plan: Plan, run: str, merger, res: ChunkPlayed) -> None:
    """Write one finished chunk (its result, bound to the run ``run``, the plan's
    fingerprint, and its records) and merge its aggregates."""
    recs, mrecs = res.records, res.match_records
    seats = plan.seats_of(res.result.group)
    table = records_table(recs, seats) if recs is not None else None
    matches = records_table(mrecs, seats) if mrecs is not None else None
    result = res.result.of_run(run)
    rd.write_chunk(result, table, matches)
    merger.add(result)


def _failed(e: BaseException, rd: RunDir, manifest: Written, clock, written: int, kept: int):
    """After a failed session: the manifest says so; the error to raise instead of ``e``
    (what happened, and how to finish the run), or None to raise ``e`` itself."""
    try:
        clock.end(written, "failed")
        manifest.write()
    except OutputError:
        pass
    if kept:
        again = f"; finished chunks are kept, finish with: {_resume_command(manifest, rd)}"
    else:
        again = "; no chunk was finished"
    if isinstance(e, OSError):
        reason = e.strerror or str(e)
        return OutputError(f"cannot write the run folder {rd.path}: {reason}{again}")
    if isinstance(e, OutputError | WorkerError):  # a full disk, a dead worker: go on how
        return type(e)(e.message + again)
    return None


def _resume_command(manifest: Written, rd: RunDir) -> str:
    """The command that finishes this run (compare / tune runs resume with their command)."""
    return f"dominosim {analyses.command_of(manifest.m.analysis)} --resume {rd.path}"


def _stop(ex) -> None:
    if ex is not None:
        try:
            ex.stop()
        except Exception:  # noqa: BLE001 - stopping is best effort
            pass


class _SessionClock:
    """This session's entry in the manifest's ``timings``: its wall time and chunks are fixed
    by the first :meth:`end` (when the play and the merge are over, before the report is built,
    so the report carries the run's whole wall time); a later call (writing the outputs
    failed, or was interrupted) changes only its status. The caller writes the manifest."""

    def __init__(self, manifest: Written) -> None:
        self.manifest = manifest
        self.started = _now()
        self.t0 = time.perf_counter()
        self.entry: dict | None = None

    def end(self, chunks: int, status: str) -> float:
        """End the session (once) with ``status``; its wall seconds."""
        timings = self.manifest.m.timings
        if not _timings_ok(timings):  # (damaged: the earlier sessions' times are dropped)
            timings = {"wall_seconds": 0.0, "sessions": []}
        sessions = list(timings["sessions"])
        if self.entry is None:
            # fmt: off
            self.entry = {"started": self.started, "ended": _now(),
                          "wall_seconds": time.perf_counter() - self.t0, "chunks": chunks,
                          "status": status}
            # fmt: on
            sessions.append(self.entry)
        else:  # (this session's entry is the last)
            self.entry = sessions[-1] = {**self.entry, "status": status}
        wall = sum(s["wall_seconds"] for s in sessions)
        timings = {**timings, "sessions": sessions, "wall_seconds": wall}
        self.manifest.set(timings=timings, status=status)
        return self.entry["wall_seconds"]


def _timings_ok(timings: object) -> bool:
    """A manifest's ``timings`` is a list of sessions with finite wall times."""
    if not isinstance(timings, dict) or not isinstance(timings.get("sessions"), list):
        return False
    for x in timings["sessions"]:
        w = x.get("wall_seconds") if isinstance(x, dict) else None
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w):
            return False
    return True


def _wants_plots(manifest: Manifest) -> bool:
    """Whether the run draws plots/ (its experiment's ``plots``; runs from before the setting
    existed, and the tournaments, do)."""
    exp = manifest.experiment
    return not isinstance(exp, dict) or exp.get("plots") is not False


def _draw_plots(rd: RunDir, data: dict, rows, phase, warn) -> bool:
    """Draw ``plots/`` of a finished run; whether they were drawn. A figure that fails (a
    plotting error, a folder that cannot be written) is one warning line (``warn``, default
    stderr) and no plots: the run, its results and report stand. Without matplotlib the
    report stands without figures, silently."""
    try:
        from dominosim.analysis import plots

        phase("drawing the plots")
        with rd.staged_plots() as folder:
            plots.write_plots(data, rows, folder)
    except ImportError:  # matplotlib missing: the report stands without figures
        return False
    except Exception as e:  # (a figure is never worth the run: the report is written)
        why = " ".join(f"{type(e).__name__}: {e}".split())
        line = (
            f"warning: the plots of {rd.path} were not drawn ({why}); the results and the "
            "report are written (--no-plots leaves the plots out)"
        )
        (warn or (lambda text: print(text, file=sys.stderr)))(line)
        return False
    return True


def finish(
    rd: RunDir,
    plan: Plan,
    manifest: Written,
    merger: Merger,
    end_session: Callable[[], object],
    phase: Callable[[str], None] | None = None,
    warn: Callable[[str], None] | None = None,
) -> dict:
    """Write aggregates.parquet, then end the session (``end_session``: the manifest's
    timings and status ``done``), build the report once from the manifest and the merged
    aggregates, write report.md, summary.csv and plots (each atomically) and last the
    manifest, ``done`` with the outputs' hashes: a run stopped in between is not done, and
    ``--resume`` writes what is missing. The results and the report are written before any
    figure, and a figure that fails is a warning, never the run's end (:func:`_draw_plots`).
    ``phase``: optional callable told what is being done (the progress bar); ``warn``: told
    the warning line (default: stderr). Returns the report (what :func:`load_report` reads
    back)."""
    phase = phase or (lambda text: None)
    phase("merging the aggregates")
    digest = rd.write_aggregates(merger.rows())
    manifest.set(**merged_totals(merger, len(plan.rules)))
    end_session()
    phase("writing the report")
    rows = merger.rows()  # (no pandas: a run's report and plots read the rows)
    data = build_report(rd, manifest.m, rows)
    rd.write_outputs(
        render.render_markdown(data), render.summary_csv(data), render.paired_csv(data)
    )
    plotted = _wants_plots(manifest.m) and _draw_plots(rd, data, rows, phase, warn)
    manifest.set(outputs={"aggregates.parquet": digest, "plots": plotted}, status="done")
    manifest.write()
    return data
