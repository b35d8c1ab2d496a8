"""A run folder checked to the end in bounded memory (issue 45, points 5, 6): the merged
aggregates are checked against the chunks on every ``verify`` (sampled or not) and every
``--resume`` (a finished run's too, with the records cross-check); ``verify`` of a plan of
10^15 games lists only the chunks it has; ``load()`` of a damaged finished run raises.
docs/results.md, "What each check detects".
"""

from __future__ import annotations

import hashlib
import json
import tracemalloc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.base.errors import OutputError
from dominosim.cli import main
from dominosim.runner import Session, verify_run
from dominosim.storage import store

from runs import aggregates, refingerprint, strip

RUN = [
    *("run", "--variant", "fives", "--strategies", "random,heaviest", "--seed", "3"),
    *("--unit", "hand", "--workers", "1", "--games", "40", "--chunk-size", "10"),
]

pytestmark = pytest.mark.usefixtures("clean_registry")


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def finished(out: Path, *extra) -> Path:
    r = invoke([*RUN, "--out", str(out), "--json", "--no-plots", *extra])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def write_manifest(d: Path, m: dict) -> None:
    (d / "manifest.json").write_text(json.dumps(m))


def edit_agg(d: Path, name: str, edit) -> None:
    """Edit a chunk's aggregates file and recompute its checksum, as the project does."""
    p = d / "chunks" / name
    doc = json.loads(p.read_text())
    edit(doc)
    doc["checksum"] = store.checksum({k: v for k, v in doc.items() if k != "checksum"})
    p.write_text(json.dumps(doc, separators=(",", ":")))


def move_wins(doc: dict, n: int = 3) -> None:
    for row in doc["rows"]:
        if row[0] == "seat_hand_wins" and row[1] == 0:
            row[-1] += n if row[2] == 0 else -n


def report_of(d: Path):
    r = invoke(["report", str(d), "--json"])
    assert r.exit_code == 0, r.output
    return strip(json.loads(r.stdout)), aggregates(d).to_dict("list")


def forge_aggregates(d: Path) -> None:
    """aggregates.parquet edited (one count moved), its sha256 in the manifest recomputed."""
    p = d / "aggregates.parquet"
    table = pq.read_table(p)
    name = table.column_names[-1]
    values = table.column(name).to_pylist()
    values[0] += 7
    table = table.set_column(
        len(table.column_names) - 1, name, pa.array(values, table.schema[-1].type)
    )
    pq.write_table(table, p)
    m = manifest(d)
    m["outputs"]["aggregates.parquet"] = hashlib.sha256(p.read_bytes()).hexdigest()
    write_manifest(d, m)


def test_forged_aggregates_fail_a_sampled_verify_and_resume_writes_them_again(tmp_path):
    d = finished(tmp_path)
    expected = report_of(d)
    forge_aggregates(d)
    r = invoke(["verify", str(d), "--sample", "1", "--key", "5"])
    assert r.exit_code == 5, r.output
    assert "aggregates.parquet: not the merge of the run's chunks" in r.stdout
    assert "verified by replay: 1 of 4 chunks" in r.stdout
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "not the merge of the run's chunks" in r.output and "writing it again" in r.output
    assert report_of(d) == expected
    assert invoke(["verify", str(d), "--sample", "1", "--key", "5"]).exit_code == 0


def test_resume_of_a_finished_run_cross_checks_the_records(tmp_path):
    """A finished run whose chunk's aggregates were edited with the checksum recomputed:
    --resume finds it against the records and plays the chunk again."""
    d = finished(tmp_path)
    expected = report_of(d)
    edit_agg(d, "0-2.agg.json", move_wins)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "chunk 0-2: its aggregates disagree with its records (seat_hand_wins" in r.output
    assert report_of(d) == expected


def test_sampled_verify_names_an_unsampled_chunk_the_cheap_checks_find(tmp_path):
    d = finished(tmp_path)
    edit_agg(d, "0-2.agg.json", move_wins)
    r = invoke(["verify", str(d), "--sample", "1", "--key", "1"])
    assert r.exit_code == 5, r.output
    assert "chunk 0-2: its aggregates disagree with its records" in r.stdout


def test_load_of_a_damaged_finished_run_raises(tmp_path):
    d = finished(tmp_path)
    (d / "chunks" / "0-1.parquet").write_bytes(b"not the records")
    with pytest.raises(
        OutputError, match=r"chunk 0-1 of the finished run .*dominosim run --resume"
    ):
        dominosim.load(d)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert len(dominosim.load(d).records) == 40


def test_load_of_an_unfinished_run_reads_what_it_has(tmp_path):
    d = finished(tmp_path)
    m = manifest(d)
    m["status"] = "interrupted"
    write_manifest(d, m)
    for suffix in (".agg.json", ".parquet"):
        (d / "chunks" / f"0-1{suffix}").unlink()
    got = dominosim.load(d)
    assert len(got.records) == 30
    assert int(got.aggregates.query("metric == 'hands'")["value"].sum()) == 30


def test_verify_of_an_interrupted_plan_of_1e15_games_lists_only_its_chunks(tmp_path):
    """A manifest of 10^15 games with four finished chunks: verify replays the four and
    counts the rest as not played, its memory flat (no list of 10^14 chunks)."""
    d = finished(tmp_path)
    m = manifest(d)
    ids = 10**15 // len(m["rotations"])
    m.update(status="interrupted", games_requested=10**15, ids_per_rotation=ids)
    m.pop("chunks", None)
    m["chunk_count"] = -(-ids // m["ids_per_chunk"])
    m["games_per_group"] = ids * len(m["rotations"])
    m = refingerprint(m)
    write_manifest(d, m)
    (d / "aggregates.parquet").unlink()
    for c in range(4):
        edit_agg(d, f"0-{c}.agg.json", lambda doc: doc.update(run=m["fingerprint"]))
    verify_run(d, session=Session(workers=1))  # (the modules it imports, imported untraced)
    tracemalloc.start()
    try:
        found = verify_run(d, session=Session(workers=1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found.lines == [] and found.equal == 4
    assert found.chunks == 10**15 // 10 and found.missing == found.chunks - 4
    assert peak < 8 << 20, peak  # (1.1 MiB measured; a list of the chunks: 10^14 items)
