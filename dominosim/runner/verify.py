"""``dominosim verify DIR``: a run folder checked by replay (docs/results.md, "What each check
detects").

A run is reproducible from its seed, its strategies and its plan, so the chunks of a folder
can be played again and compared with what the folder holds: the aggregates (every row, the
hands and games) and the records file, byte for byte. This is the one check a deliberate,
consistent edit of a chunk (its checksum recomputed) cannot pass; the cheap checks of
``report`` and ``--resume`` (:func:`.results.merge_finished`) detect damage.
"""

from __future__ import annotations

import hashlib
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field

from dominosim.analysis.chunk import ChunkResult
from dominosim.analysis.manifest import Manifest
from dominosim.analysis.report import strategy_classes
from dominosim.base.errors import ConfigError, OutputError
from dominosim.runner.executors import make_executor, user_strategies
from dominosim.runner.plan import Plan
from dominosim.runner.progress import Session
from dominosim.runner.results import DISAGREE, expected, merge_finished, merged_differs
from dominosim.runner.session import load_inputs
from dominosim.runner.worker import ChunkPlayed, records_table
from dominosim.storage.store import RunDir


@dataclass
class Verification:
    """What :func:`verify_run` found: ``lines`` (one per chunk that differs from its replay
    or does not check out), how many chunks were replayed and equal, of how many planned, and
    the key that chose them."""

    chunks: int
    key: int
    sample: int | None
    replayed: int = 0
    equal: int = 0
    missing: int = 0
    lines: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """``verified by replay: K of N chunks`` and how they were chosen."""
        how = (
            f" (chosen by key {self.key}; the same chunks again: --sample {self.sample} "
            f"--key {self.key})"
            if self.sample is not None
            else ""
        )
        text = f"verified by replay: {self.equal} of {self.chunks} chunks{how}"
        if self.missing:
            text += f"; {self.missing} chosen chunks not played yet (an unfinished run)"
        return text


def chosen(n: int, sample: int | None, key: int) -> Sequence[int]:
    """The indices of the chunks to replay: all ``n`` (a range: a plan of 10^15 games holds
    no list), or ``sample`` of them drawn by ``key`` (never by anything in the folder, so a
    folder cannot steer which chunks are checked)."""
    if sample is None or sample >= n:
        return range(n)
    return sorted(random.Random(key).sample(range(n), sample))


#: the chunks a finished run lacks that verify names one by one (the rest are counted)
MISSING_NAMED = 10


def verify_run(
    path, sample: int | None = None, key: int | None = None, session: Session | None = None
) -> Verification:
    """Replay the chunks of the run folder ``path`` (all, or ``sample`` chosen by ``key``;
    drawn when None) and compare them with the folder's; check every finished chunk's
    aggregates against its records, and a finished run's aggregates.parquet against the
    merge of its chunks (sampled or not); see :class:`Verification`. Only the finished
    chunks are listed, never every chunk of the plan: memory stays flat in the plan's size."""
    session = session or Session()
    if sample is not None and (
        isinstance(sample, bool) or not isinstance(sample, int) or sample < 1
    ):
        raise ConfigError(f"--sample must be an integer >= 1, not {sample!r}")
    if key is None:
        key = secrets.randbelow(2**63)
    rd = RunDir.open(path)
    manifest = rd.manifest()
    plan = Plan.from_manifest(manifest)
    plan = load_inputs(rd, manifest, plan, session.strategy_path, "verify")
    _check_classes(rd, manifest)
    out = Verification(chunks=len(plan.items), key=key, sample=sample)
    bad: list = []
    merger, _ = merge_finished(rd, plan, bad, cross_check=True)
    reasons = {(g, c): why for g, c, why in bad}
    finished = {at for at in rd.finished_chunks() if plan.items.has(*at)}
    done = manifest.status == "done"
    picked = _picked(plan, finished, out, done)
    items, docs = _to_replay(rd, plan, picked, finished, reasons, out)
    shown = set(picked)
    for (g, c), why in reasons.items():  # (the unsampled ones: the cheap checks found them)
        if (g, c) in finished and (g, c) not in shown:
            out.lines.append(f"chunk {g}-{c}: {why}")
    _replay(rd, plan, items, docs, out, session)
    if done:
        why = merged_differs(rd, plan, merger)
        if why is not None:
            out.lines.append(why)
    return out


def _picked(plan: Plan, finished: set, out: Verification, done: bool) -> list:
    """The chunks to check, ``(group, chunk)``: every finished one, or ``out.sample`` drawn by
    ``out.key``; counts the missing ones in ``out`` (a finished run's named, in its lines)."""
    n, sample = out.chunks, out.sample
    if sample is None or sample >= n:
        out.missing = n - len(finished)
        if done and out.missing:
            _name_missing(plan, finished, out)
        return sorted(finished)
    picked = [divmod(i, plan.items.per_group) for i in chosen(n, sample, out.key)]
    for at in picked:
        if at not in finished:  # (not played yet: an unfinished run)
            out.missing += 1
            if done:
                out.lines.append(f"chunk {at[0]}-{at[1]}: missing from a finished run")
    return picked


def _to_replay(
    rd: RunDir, plan: Plan, picked: list, finished: set, reasons: dict, out: Verification
) -> tuple[list, dict]:
    """The picked finished chunks to play again (their items, and their chunk documents by
    ``(group, chunk)``); a picked chunk the cheap checks found damaged (for a reason other
    than a disagreement of its counts) is one line of ``out`` instead."""
    items, docs = [], {}
    run = plan.fingerprint()
    for at in picked:
        if at not in finished:
            continue
        if at in reasons and not reasons[at].startswith(DISAGREE):
            out.lines.append(f"chunk {at[0]}-{at[1]}: {reasons[at]}")
        else:
            items.append(plan.item(*at))
            docs[at] = rd.read_chunk(expected(plan, items[-1], run))
    return items, docs


def _name_missing(plan: Plan, finished: set, out: Verification) -> None:
    """The first :data:`MISSING_NAMED` chunks a finished run lacks, one line each (the plan
    walked lazily, up to the last of them), and how many more."""
    named = 0
    for it in plan.items:
        if (it.group, it.chunk) in finished:
            continue
        if named == MISSING_NAMED:
            out.lines.append(f"... and {out.missing - named} more chunks missing")
            return
        out.lines.append(f"chunk {it.group}-{it.chunk}: missing from a finished run")
        named += 1


def _check_classes(rd: RunDir, manifest: Manifest) -> None:
    """The manifest's recorded ``classes`` are its strategies' own (issue 45): recomputed from
    the strategies loaded to replay (their classes as registered); one line where not."""
    recorded = manifest.classes
    if recorded is None:  # (a folder written before classes were recorded)
        return
    now = _seated_heuristics(strategy_classes(manifest), manifest)
    recorded = _seated_heuristics(recorded, manifest)
    if recorded != now:
        key = next(
            (k for k in now if not isinstance(recorded, dict) or recorded.get(k) != now[k]), ""
        )
        held = recorded.get(key) if isinstance(recorded, dict) else recorded
        raise OutputError(
            f"{rd.path / 'manifest.json'}: its classes field is not what its strategies say "
            f"({key}: {held!r} in the folder, {now.get(key)!r} by the strategies); the folder "
            "was edited: do not use its numbers, play the run again"
        )


def _seated_heuristics(classes: object, manifest: Manifest) -> object:
    """``classes`` with its ``heuristics`` (every built-in heuristic of the install that wrote
    it) cut to the strategies the run seats, the ones a report reads: a built-in added since
    (``learned``) leaves an older folder's classes its own."""
    if not isinstance(classes, dict) or not isinstance(classes.get("heuristics"), list):
        return classes
    from dominosim.analysis.classes import seated_labels

    names = {x.split(":")[0] for x in seated_labels(manifest)}
    return {**classes, "heuristics": [x for x in classes["heuristics"] if x in names]}


def _replay(rd: RunDir, plan: Plan, items, docs: dict, out: Verification, session) -> None:
    """Play ``items`` again and compare each with the folder's chunk (``docs``)."""
    if not items:
        return
    workers = session.workers or 1
    ex = make_executor(
        iter(items), len(items), workers, "local", None, isolate=user_strategies(plan)
    )
    run = plan.fingerprint()
    try:
        for res in ex.results():
            g, c = res.result.group, res.result.chunk
            out.replayed += 1
            why = _difference(rd, plan, run, docs[(g, c)], res)
            if why is None:
                out.equal += 1
            else:
                out.lines.append(f"chunk {g}-{c}: {why}")
    finally:
        ex.stop()


def _played(r: ChunkResult) -> tuple:
    """What a chunk's games make of it: which chunk of which run, its hands and rows."""
    return (r.run, r.group, r.chunk, r.start, r.stop, r.games, r.hands, r.rows)


def _difference(
    rd: RunDir, plan: Plan, run: str, held: ChunkResult, res: ChunkPlayed
) -> str | None:
    """How the folder's chunk ``held`` differs from its replay ``res`` (None: equal on its
    aggregates and its records, byte for byte)."""
    it = plan.item(res.result.group, res.result.chunk)
    replayed = res.result.of_run(run)
    if _played(held) != _played(replayed):
        return "its aggregates differ from its replay (" + _first_row(held, replayed) + ")"
    if res.records is None:
        return None
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = records_table(res.records, plan.seats_of(it.group))
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    data = sink.getvalue().to_pybytes()
    if held.parquet is not None and hashlib.sha256(data).hexdigest() == held.parquet.sha256:
        return None
    return "its records differ from its replay (" + _first_column(rd, held, table) + ")"


def _first_row(held: ChunkResult, replayed: ChunkResult) -> str:
    """The first aggregate that differs, in words."""
    for k, a, b in (
        ("hands", held.hands, replayed.hands),
        ("games", held.games, replayed.games),
        ("start", held.start, replayed.start),
        ("stop", held.stop, replayed.stop),
    ):
        if a != b:
            return f"{k}: {a!r} in the folder, {b!r} replayed"
    mine = {r[:-1]: r.value for r in held.rows}
    theirs = {r[:-1]: r.value for r in replayed.rows}
    for k in sorted(set(mine) | set(theirs), key=repr):
        if mine.get(k) != theirs.get(k):
            metric, rot, seat, b, pair = (list(k) + [None] * 5)[:5]
            where = ", ".join(
                f"{n} {v}"
                for n, v in (("rotation", rot), ("seat", seat), ("bin", b), ("pair", pair))
                if v not in (None, -1, "")
            )
            return (
                f"{metric}{' (' + where + ')' if where else ''}: {mine.get(k)} in the folder, "
                f"{theirs.get(k)} replayed"
            )
    return "their order or layout"


def _first_column(rd: RunDir, result: ChunkResult, table) -> str:
    """The first records column that differs from the replay's, in words."""
    import io

    import pyarrow.parquet as pq

    try:
        held = pq.read_table(io.BytesIO(rd.read_records(result)))
    except (OutputError, OSError, ValueError):
        return "the records file cannot be read"
    for name in table.column_names:
        if name not in held.column_names:
            return f"column {name} is missing"
        a, b = held.column(name).to_pylist(), table.column(name).to_pylist()
        if a != b:
            row = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            at = f" at row {row}" if row is not None else f": {len(a)} rows, {len(b)} replayed"
            return f"column {name}{at}"
    return "the file's bytes"
