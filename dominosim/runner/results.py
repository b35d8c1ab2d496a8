"""The finished chunks of a run folder merged and checked against the plan; its report read back."""

from __future__ import annotations

import os
from pathlib import Path

from .. import report
from ..aggregates import (
    Merger,
    check_chunk_counts,
)
from ..errors import (
    OutputError,
)
from ..store import AGGREGATES, RunDir
from .plan import Plan, PlanItems, WorkItem

# ---------------------------------------------------------------------------------------------
# from a run folder


def load_report(run_dir: str | Path) -> dict:
    """The report of a run folder (finished or not: an unfinished run reports the chunks it
    has, and its ``status`` says so)."""
    rd = RunDir.open(run_dir)
    manifest = rd.read_manifest()
    plan = Plan.from_manifest(manifest)  # (a damaged manifest is one line here)
    if manifest.get("status") == "done" and os.path.lexists(rd.path / AGGREGATES):
        return checked_report(rd, manifest, len(plan.rules))
    merger, _ = merge_finished(rd, plan)
    manifest = dict(manifest)
    manifest["group_timings"] = [
        {"cpu_seconds": merger.cpu[g], "wall_seconds": merger.wall[g]}
        for g in range(len(plan.rules))
    ]
    manifest["games_played"] = merger.games
    manifest["hands_played"] = merger.hands
    return build_report(rd, manifest, merger.frame())


def checked_report(rd, manifest: dict, groups: int) -> dict:
    """The report of a finished run of ``groups`` option groups, from an aggregates.parquet
    that is the one it wrote (a regular file, within its bound, of the recorded sha256)."""
    outputs = manifest.get("outputs")
    want = outputs.get(AGGREGATES) if isinstance(outputs, dict) else None
    if want is not None and rd.aggregates_digest(groups) != want:
        raise OutputError(
            f"{rd.path / AGGREGATES} is not the file the run wrote (edited or damaged); "
            f"write it again from the chunks with: dominosim run --resume {rd.path}"
        )
    return build_report(rd, manifest, rd.read_aggregates(groups))


def build_report(rd: RunDir, manifest: dict, frame) -> dict:
    """The report of a run folder's manifest and aggregates; a manifest the report cannot be
    built from is one line (it is untrusted input)."""
    try:
        return report.build(manifest, frame, run_dir=rd.path)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        what = " ".join(str(e).split())[:200]
        raise OutputError(
            f"the manifest is damaged or from another version ({type(e).__name__}: {what}); "
            "resume with the version that started the run, or start it again"
        ) from None


def merge_finished(rd: RunDir, plan: Plan, bad: list | None = None) -> tuple[Merger, set]:
    """A Merger holding every finished chunk of a run folder that checks out against the plan
    (``store.RunDir.check_chunk``); the others are left out, and listed in ``bad`` as
    ``(group, chunk, reason)`` when it is given."""
    merger = Merger(len(plan.rules))
    done = set()
    planned = plan.items if isinstance(plan.items, PlanItems) else plan.make_items()
    run = plan.fingerprint()
    for g, c in sorted(rd.finished_chunks()):
        if not planned.has(g, c):
            continue
        it = plan.item(g, c)
        doc, reason = rd.check_chunk(g, c, chunk_expect(it, run), plan.records)
        if reason is None:
            reason = check_chunk_counts(doc, plan.players, it.rotations, it.games)
        if reason is not None:
            if bad is not None:
                bad.append((g, c, reason))
            continue
        merger.add(g, doc["rows"], doc.get("timing", {}), doc.get("games", 0), doc.get("hands", 0))
        done.add((g, c))
    if bad is not None:  # records without their aggregates: a chunk cut short, or damaged
        for g, c in sorted(rd.orphan_records() - rd.finished_chunks()):
            if planned.has(g, c):
                bad.append((g, c, "its aggregates file is missing"))
    return merger, done


def chunk_expect(it: WorkItem, run: str) -> dict:
    """What a chunk's aggregates file must say of itself: which chunk it is, and of which run
    (``run``: :meth:`Plan.fingerprint`)."""
    return {
        "run": run,
        "group": it.group,
        "chunk": it.chunk,
        "start": it.start,
        "stop": it.stop,
        "games": it.games,
    }
