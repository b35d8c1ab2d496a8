"""The finished chunks of a run folder merged and checked against the plan; its report read back."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from dominosim.analysis import report
from dominosim.analysis.aggregates import RECORD_METRICS, Merger, from_records
from dominosim.analysis.chunk import ChunkResult, Expected
from dominosim.analysis.manifest import Manifest
from dominosim.base.errors import OutputError
from dominosim.runner.plan import Plan, WorkItem
from dominosim.storage.store import AGGREGATES, RunDir

# ---------------------------------------------------------------------------------------------
# from a run folder


def load_report(run_dir: str | Path) -> dict:
    """The report of a run folder (finished or not: an unfinished run reports the chunks it
    has, and its ``status`` says so)."""
    rd = RunDir.open(run_dir)
    manifest = rd.manifest()
    plan = Plan.from_manifest(manifest)  # (a damaged manifest is one line here)
    if manifest.status == "done" and os.path.lexists(rd.path / AGGREGATES):
        return checked_report(rd, manifest, len(plan.rules))
    merger, _ = merge_finished(rd, plan)
    manifest = manifest.with_(**merged_totals(merger, len(plan.rules)))
    return build_report(rd, manifest, merger.rows())


def merged_totals(merger: Merger, groups: int) -> dict:
    """The manifest's fields of what the merged chunks took and played: ``group_timings``
    (of ``groups`` groups), ``games_played``, ``hands_played``."""
    timings = [
        {"cpu_seconds": merger.cpu[g], "wall_seconds": merger.wall[g]} for g in range(groups)
    ]
    return {"group_timings": timings, "games_played": merger.games, "hands_played": merger.hands}


def checked_report(rd, manifest: Manifest, groups: int) -> dict:
    """The report of a finished run of ``groups`` option groups, from an aggregates.parquet
    that is the one it wrote (a regular file, within its bound, of the recorded sha256)."""
    outputs = manifest.outputs
    want = outputs.get(AGGREGATES) if isinstance(outputs, dict) else None
    if want is not None and rd.aggregates_digest(groups) != want:
        raise OutputError(
            f"{rd.path / AGGREGATES} is not the file the run wrote (edited or damaged); "
            f"write it again from the chunks with: dominosim run --resume {rd.path}"
        )
    return build_report(rd, manifest, rd.read_aggregates(groups))


def build_report(rd: RunDir, manifest: Manifest, frame) -> dict:
    """The report of a run folder's manifest and aggregates, decoded here once into its type
    (:class:`~dominosim.analysis.manifest.Manifest`, after :meth:`Plan.from_manifest` checked
    its plan); a manifest the report cannot be built from is one line (it is untrusted input)."""
    try:
        return report.build(Manifest.decode(manifest), frame, run_dir=rd.path)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        what = " ".join(str(e).split())[:200]
        raise OutputError(
            f"the manifest is damaged or from another version ({type(e).__name__}: {what}); "
            "resume with the version that started the run, or start it again"
        ) from None


def merge_finished(
    rd: RunDir,
    plan: Plan,
    bad: list | None = None,
    below: int | None = None,
    cross_check: bool = False,
) -> tuple[Merger, set]:
    """A Merger holding every finished chunk of a run folder that checks out against the plan
    (``store.RunDir.check_chunk``); the others are left out, and listed in ``bad`` as
    ``(group, chunk, reason)`` when it is given. ``below``: only the chunks that end at that
    match id or before (an ``--until-decided`` look). With ``cross_check`` (``--resume``), a
    chunk's aggregates are also checked against its records, where it has them
    (:func:`records_disagree`)."""
    merger = Merger(len(plan.rules))
    done = set()
    planned = plan.items
    run = plan.fingerprint()
    for g, c in sorted(rd.finished_chunks()):
        if not planned.has(g, c):
            continue
        it = plan.item(g, c)
        if below is not None and it.stop > below:
            continue
        result, reason = rd.check_chunk(expected(plan, it, run))
        if result is not None and cross_check and plan.records:
            reason = records_disagree(rd, plan, result)
        if result is None or reason is not None:
            if bad is not None:
                bad.append((g, c, reason))
            continue
        merger.add(result)
        done.add((g, c))
    if bad is not None:  # records without their aggregates: a chunk cut short, or damaged
        for g, c in sorted(rd.orphan_records() - rd.finished_chunks()):
            if planned.has(g, c):
                bad.append((g, c, "its aggregates file is missing"))
    return merger, done


def merged_differs(rd: RunDir, plan: Plan, merger: Merger) -> str | None:
    """Why a finished run's aggregates.parquet is not the merge of its chunks that check out
    (``merger``: :func:`merge_finished`), in one line naming the fix (None: it is)."""
    from dominosim.analysis.aggregates import AGG_COLUMNS

    try:
        frame = rd.read_aggregates(len(plan.rules))
    except OutputError as e:
        return str(e.message)
    held = sorted(zip(*(frame[c].tolist() for c in AGG_COLUMNS), strict=True))
    if held == sorted(merger.rows()):
        return None
    return (
        f"{rd.path / AGGREGATES}: not the merge of the run's chunks (edited, or a chunk is "
        f"damaged or missing); write it again from the chunks with: dominosim run --resume "
        f"{rd.path}"
    )


#: how :func:`records_disagree` begins (verify replays a sampled chunk that says so: the replay
#: names what differs more closely)
DISAGREE = "its aggregates disagree with its records"


def records_disagree(rd: RunDir, plan: Plan, result: ChunkResult) -> str | None:
    """Why a chunk's aggregates are not those of its records file (None: they are):
    every aggregate the records determine (``aggregates.RECORD_METRICS``) is compared. An
    edit of the aggregates alone is found here; one of both files together only by replay
    (``dominosim verify``)."""
    import io

    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(rd.read_records(result)))
        cols = {name: table.column(name).to_numpy() for name in table.column_names}
        cols = {k: v for k, v in cols.items() if not k.startswith("strategy_")}
        want = from_records(plan.rules[result.group], cols)
    except (OutputError, OSError, ValueError, KeyError, TypeError, IndexError) as e:
        return f"its records file cannot be read ({type(e).__name__})"
    held = {r[:-1]: r.value for r in result.rows if r.metric in RECORD_METRICS and r.value != 0}
    for key in sorted(set(held) | set(want), key=repr):
        if held.get(key, 0) != want.get(key, 0):
            return (
                f"{DISAGREE} ({key[0]}: {held.get(key, 0)} in "
                f"the aggregates, {want.get(key, 0)} in the records; edited or damaged)"
            )
    return None


def expected(plan: Plan, it: WorkItem, run: str) -> Expected:
    """What the plan says of chunk ``it``: which chunk it is and of which run (``run``:
    :meth:`Plan.fingerprint`), what its rows may name, whether it has records."""
    return Expected(
        run=run,
        group=it.group,
        chunk=it.chunk,
        start=it.start,
        stop=it.stop,
        games=it.games,
        players=plan.players,
        rotations=tuple(it.rotations),
        records=plan.records,
    )


def read_chunks(rd: RunDir, plan: Plan, chunks) -> Iterator[ChunkResult]:
    """The results of ``chunks``, ``(group, chunk)`` pairs that checked out, read again in
    order (``store.RunDir.read_chunk``)."""
    run = plan.fingerprint()
    for g, c in sorted(chunks):
        yield rd.read_chunk(expected(plan, plan.item(g, c), run))
