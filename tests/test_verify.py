"""A run folder checked to the end (issue 40, point 1): ``dominosim verify`` replays chunks and
finds what no cheap check can (a consistent edit, its checksum recomputed); ``--resume``
cross-checks a chunk's aggregates against its records. docs/results.md, "What each check
detects".
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from dominosim import make_rules
from dominosim.analysis.aggregates import RECORD_METRICS, from_records
from dominosim.cli import main
from dominosim.runner.verify import chosen
from dominosim.storage import store

from helpers import BOT
from runs import aggregates, strip

RUN = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--seed",
    "3",
    "--unit",
    "hand",
    "--workers",
    "1",
    "--games",
    "40",
    "--chunk-size",
    "10",
]

pytestmark = pytest.mark.usefixtures("clean_registry")


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def finished(out: Path, *extra) -> Path:
    r = invoke([*RUN, "--out", str(out), "--json", *extra])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def unfinish(d: Path) -> None:
    m = json.loads((d / "manifest.json").read_text())
    m["status"] = "interrupted"
    (d / "manifest.json").write_text(json.dumps(m))
    (d / "aggregates.parquet").unlink()


def edit_agg(d: Path, name: str, edit) -> None:
    """Edit a chunk's aggregates file and recompute its checksum, as the project does."""
    p = d / "chunks" / name
    doc = json.loads(p.read_text())
    edit(doc)
    doc["checksum"] = store.checksum({k: v for k, v in doc.items() if k != "checksum"})
    p.write_text(json.dumps(doc, separators=(",", ":")))


def move_wins(doc: dict, n: int = 3) -> None:
    """Seat 0 of rotation 0 gets ``n`` hand wins more, seat 1 ``n`` fewer (issue 40, point 1)."""
    for row in doc["rows"]:
        if row[0] == "seat_hand_wins" and row[1] == 0:
            row[-1] += n if row[2] == 0 else -n


def report_of(d: Path):
    r = invoke(["report", str(d), "--json"])
    assert r.exit_code == 0, r.output
    return strip(json.loads(r.stdout)), aggregates(d).to_dict("list")


def test_an_untouched_run_verifies(tmp_path):
    d = finished(tmp_path)
    r = invoke(["verify", str(d)])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip().splitlines() == ["verified by replay: 4 of 4 chunks"]


def test_a_user_strategy_run_verifies_in_a_worker(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "firstbot.py").write_text(BOT.format(name="firstbot", body="return legal[0]"))
    d = finished(tmp_path / "o", "--strategies", "firstbot,random", "--strategy-path", str(bots))
    r = invoke(["verify", str(d), "--strategy-path", str(bots)])
    assert r.exit_code == 0, r.output
    assert "verified by replay: 4 of 4 chunks" in r.stdout


def test_a_compare_run_verifies(tmp_path):
    r = invoke(
        [
            "compare",
            "--variant",
            "fives",
            "--strategies",
            "random,greedy,heaviest",
            "--games",
            "60",
            "--seed",
            "2",
            "--workers",
            "1",
            "--chunk-size",
            "10",
            "--out",
            str(tmp_path),
            "--json",
        ]
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)["run_dir"]
    r = invoke(["verify", d, "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert "verified by replay:" in r.stdout


def test_a_consistent_edit_is_found_by_verify_only_without_records(tmp_path):
    """Without records nothing cheap can tell a consistent edit: --resume merges it (as
    docs/results.md says), verify names the chunk and the aggregate and exits 5."""
    d = finished(tmp_path, "--records", "none")
    unfinish(d)
    edit_agg(d, "0-1.agg.json", move_wins)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "chunk 0-1" not in r.output  # (merged: the cheap checks cannot see it)
    r = invoke(["verify", str(d)])
    assert r.exit_code == 5, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("chunk 0-1: its aggregates differ from its replay (seat_hand_wins")
    assert "in the folder" in lines[0] and "replayed" in lines[0]
    assert lines[-1] == "verified by replay: 3 of 4 chunks"
    errors = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert len(errors) == 1 and "1 problem in" in errors[0]


def test_resume_cross_checks_the_aggregates_against_the_records(tmp_path):
    """Issue 40, point 1: +3 / -3 hand wins with the checksum recomputed, in a run with
    records: --resume finds it and plays the chunk again; the report is the untouched one."""
    d = finished(tmp_path)
    expected = report_of(d)
    unfinish(d)
    edit_agg(d, "0-2.agg.json", move_wins)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "chunk 0-2: its aggregates disagree with its records (seat_hand_wins" in r.output
    assert "playing it again" in r.output
    assert report_of(d) == expected
    assert invoke(["verify", str(d)]).exit_code == 0


def test_an_edit_of_records_and_aggregates_together_is_found_by_verify(tmp_path):
    """Both files edited alike (a hand's winner in the records, the wins in the aggregates,
    every checksum recomputed): only the replay tells; it names the records column."""
    d = finished(tmp_path)
    p = d / "chunks" / "0-0.parquet"
    rows = json.loads((d / "chunks" / "0-0.agg.json").read_text())["rows"]
    (tmp_path / "rows.json").write_text(json.dumps(rows))
    table = pq.read_table(p)
    winners = table.column("winner").to_pylist()
    rot = table.column("rotation").to_pylist()
    i = next(k for k, w in enumerate(winners) if w == 1 and rot[k] == 0)
    winners[i] = 0
    table = table.set_column(
        table.column_names.index("winner"), "winner", pa.array(winners, type=pa.int16())
    )
    sink = io.BytesIO()
    pq.write_table(table, sink)
    data = sink.getvalue()
    p.write_bytes(data)

    cols = {k: table.column(k).to_numpy() for k in table.column_names if "strategy" not in k}
    want = from_records(make_rules("fives", 2), cols)

    def edit(doc):  # (every aggregate the records determine: as the edited records give)
        doc["rows"] = sorted(
            [r for r in doc["rows"] if r[0] not in RECORD_METRICS]
            + [[*k, int(v)] for k, v in want.items()]
        )
        doc["parquet"] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    edit_agg(d, "0-0.agg.json", edit)
    unfinish(d)
    r = invoke(["run", "--resume", str(d)])  # (records and aggregates agree: merged)
    assert r.exit_code == 0 and "chunk 0-0" not in r.output, r.output
    r = invoke(["verify", str(d)])
    assert r.exit_code == 5, r.output
    assert r.stdout.splitlines()[0].startswith("chunk 0-0: its aggregates differ")
    # the aggregates as replayed, the records still edited: the records are named
    rows = json.loads((tmp_path / "rows.json").read_text())
    edit_agg(d, "0-0.agg.json", lambda doc: doc.update(rows=rows))
    r = invoke(["verify", str(d)])
    assert r.exit_code == 5, r.output
    assert f"chunk 0-0: its records differ from its replay (column winner at row {i})" in r.stdout


def test_a_sample_is_chosen_by_the_key_not_by_the_folder(tmp_path):
    assert chosen(10, 3, 7) == chosen(10, 3, 7)
    assert len(set(chosen(10, 3, 7))) == 3
    assert {tuple(chosen(1000, 3, k)) for k in range(20)} != {tuple(chosen(1000, 3, 0))}
    assert list(chosen(4, 9, 1)) == [0, 1, 2, 3]
    d = finished(tmp_path)
    picked = chosen(4, 2, 11)
    r = invoke(["verify", str(d), "--sample", "2", "--key", "11"])
    assert r.exit_code == 0, r.output
    assert r.stdout.strip() == (
        "verified by replay: 2 of 4 chunks (chosen by key 11; the same chunks again: "
        "--sample 2 --key 11)"
    )
    c = next(c for c in range(4) if c not in picked)
    edit_agg(d, f"0-{c}.agg.json", lambda doc: move_wins(doc, -1))  # (outside the sample: not
    r = invoke(["verify", str(d), "--sample", "2", "--key", "11"])  # replayed; the checks see it)
    assert r.exit_code == 5, r.output
    assert f"chunk 0-{c}: its aggregates disagree with its records" in r.stdout
    assert "aggregates.parquet: not the merge of the run's chunks" in r.stdout
    assert "verified by replay: 2 of 4 chunks (chosen by key 11" in r.stdout
    r = invoke(["verify", str(d), "--sample", "2"])  # (a drawn key is printed)
    assert "chosen by key " in r.stdout


def test_verify_of_a_damaged_chunk_and_of_an_unfinished_run(tmp_path):
    d = finished(tmp_path)
    (d / "chunks" / "0-3.parquet").write_bytes(b"PAR1")
    unfinish(d)
    (d / "chunks" / "0-1.agg.json").unlink()
    r = invoke(["verify", str(d)])
    assert r.exit_code == 5, r.output
    assert "chunk 0-3: its records file does not match its checksum" in r.stdout
    assert r.stdout.splitlines()[-1] == (
        "verified by replay: 2 of 4 chunks; 1 chosen chunks not played yet (an unfinished run)"
    )


def test_an_edited_merged_file_of_a_finished_run_is_found(tmp_path):
    """aggregates.parquet and the manifest's hash of it edited together."""
    d = finished(tmp_path)
    frame = aggregates(d)
    frame.loc[frame.index[0], "value"] += 1
    frame.to_parquet(d / "aggregates.parquet")
    m = json.loads((d / "manifest.json").read_text())
    m["outputs"]["aggregates.parquet"] = hashlib.sha256(
        (d / "aggregates.parquet").read_bytes()
    ).hexdigest()
    (d / "manifest.json").write_text(json.dumps(m))
    r = invoke(["verify", str(d)])
    assert r.exit_code == 5, r.output
    assert "aggregates.parquet: not the merge of the run's chunks" in r.stdout
