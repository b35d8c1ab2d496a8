"""A results folder is data (issue 27, points 2-4): a folder received from someone else runs
no code but the strategy files its manifest lists with their hashes, writes nothing outside
itself, and merges no chunk that is not its own with counts a chunk can have. The messages
are rows of docs/errors.md (test_errors.py); here: what is imported, written and merged.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import dominosim
from dominosim.base.errors import OutputError
from dominosim.cli import main
from dominosim.storage import store

from helpers import BOT
from runs import aggregates, refingerprint, strip

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
    "16",
    "--chunk-size",
    "2",
]

pytestmark = pytest.mark.usefixtures("clean_registry")

# a strategy file that leaves a mark when it is imported: nothing the tests below give a run
# folder may import it
EVIL = """from pathlib import Path
Path({marker!r}).write_text("imported")
""" + BOT.format(name="evil", body="return legal[0]").split("\n", 1)[1]


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def finished(out: Path, *extra) -> Path:
    r = invoke([*RUN, "--out", str(out), "--json", *extra])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def write_manifest(d: Path, m: dict) -> None:
    (d / "manifest.json").write_text(json.dumps(m))


def unfinish(d: Path, drop: int = 2) -> None:
    """Make a finished run an interrupted one: its status, and its first ``drop`` chunks gone."""
    m = manifest(d)
    m["status"] = "interrupted"
    write_manifest(d, m)
    for c in range(drop):
        for suffix in (".agg.json", ".parquet"):
            (d / "chunks" / f"0-{c}{suffix}").unlink()
    (d / "aggregates.parquet").unlink()


def report_of(d: Path) -> dict:
    r = invoke(["report", str(d), "--json"])
    assert r.exit_code == 0, r.output
    return strip(json.loads(r.stdout)), aggregates(d).to_dict("list")


def one_line_error(r, code: int, *words: str) -> str:
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1, r.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def evil(tmp_path):
    """(folder, file, marker) of a strategy file that marks its import."""
    folder = tmp_path / "received-bots"
    folder.mkdir()
    marker = tmp_path / "MARK"
    f = folder / "evil.py"
    f.write_text(EVIL.format(marker=str(marker)))
    return folder, f, marker


# ---------------------------------------------------------------------------------------------
# point 2: nothing a manifest names is imported unless listed with its hash, and matching


def test_strategy_paths_of_a_manifest_are_never_imported(tmp_path, evil):
    folder, f, marker = evil
    d = finished(tmp_path / "o")
    expected = report_of(d)
    unfinish(d)
    shutil.copy(f, d / "evil.py")  # a .py shipped inside the folder too
    m = manifest(d)
    m["strategy_paths"] = [str(folder), str(f), "evil.py", str(d), str(d / "evil.py")]
    write_manifest(d, m)
    r = invoke(["trace", "--run", str(d), "--hand", "0:0:3:0"])
    assert r.exit_code == 0, r.output
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert report_of(d) == expected
    r = invoke(["trace", "--run", str(d), "--hand", "0:1:3:0"])
    assert r.exit_code == 0, r.output
    dominosim.load(d)
    assert not marker.exists()


@pytest.mark.parametrize("where", ["wrong hash", "inside the folder", "relative", "a folder"])
def test_a_listed_file_is_imported_only_when_its_content_is_the_recorded_one(tmp_path, evil, where):
    folder, f, marker = evil
    d = finished(tmp_path / "o")
    unfinish(d)
    digest = hashlib.sha256(f.read_bytes()).hexdigest()
    inside = d / "evil.py"
    shutil.copy(f, inside)
    entry = {
        "wrong hash": {"path": str(f), "sha256": "0" * 64},
        "inside the folder": {"path": str(inside), "sha256": digest},
        "relative": {"path": "evil.py", "sha256": digest},
        "a folder": {"path": str(folder), "sha256": digest},
    }[where]
    m = manifest(d)
    m["inputs"]["strategy_files"].append(entry)
    write_manifest(d, m)
    for args in (["run", "--resume", str(d)], ["trace", "--run", str(d), "--hand", "0:0:3:0"]):
        one_line_error(invoke(args), 5)
    assert not marker.exists()


def test_a_listed_file_with_its_hash_is_what_plays(tmp_path):
    """The documented case: a received run of someone's own strategy resumes with that very
    file (here at the path the manifest names, its folder named with --strategy-path) and
    nothing else."""
    bots = tmp_path / "bots"
    bots.mkdir()
    f = bots / "firstbot.py"
    f.write_text(BOT.format(name="firstbot", body="return legal[0]"))
    d = finished(tmp_path / "o", "--strategies", "firstbot,random", "--strategy-path", str(bots))
    expected = report_of(d)
    unfinish(d)
    (bots / "other.py").write_text("raise SystemExit('a file added since must not run')")
    r = invoke(["run", "--resume", str(d), "--strategy-path", str(bots)])
    assert r.exit_code == 0, r.output
    assert report_of(d) == expected


def test_report_and_load_run_no_code(tmp_path, evil):
    folder, f, marker = evil
    d = finished(tmp_path / "o")
    m = manifest(d)
    digest = hashlib.sha256(f.read_bytes()).hexdigest()
    m["inputs"]["strategy_files"].append({"path": str(f), "sha256": digest})
    m["strategy_paths"] = [str(folder)]
    write_manifest(d, m)
    r = invoke(["report", str(d)])  # (the files are not the fingerprint's: one line, no code)
    one_line_error(r, 5, "'fingerprint' is not the one of the manifest's plan")
    del m["fingerprint"]  # (a manifest of an older version has none: read, and no code runs)
    write_manifest(d, m)
    assert invoke(["report", str(d)]).exit_code == 0
    with pytest.raises(OutputError, match="of another run"):  # (its chunks are not its plan's)
        dominosim.load(d)
    assert not marker.exists()


# ---------------------------------------------------------------------------------------------
# point 2: links inside a run folder are not followed for writing


def test_a_lock_link_creates_nothing_outside_the_folder(tmp_path):
    d = finished(tmp_path / "o")
    unfinish(d)
    target = tmp_path / "elsewhere" / "created"
    target.parent.mkdir()
    (d / ".lock").unlink(missing_ok=True)
    (d / ".lock").symlink_to(target)
    one_line_error(invoke(["run", "--resume", str(d)]), 5, "symbolic link")
    assert not target.exists()


def test_a_chunks_link_never_deletes_another_runs_chunks(tmp_path):
    other = finished(tmp_path / "a")
    before = sorted((p.name, p.read_bytes()) for p in (other / "chunks").iterdir())
    d = finished(tmp_path / "b", "--seed", "4")
    unfinish(d)
    shutil.rmtree(d / "chunks")
    (d / "chunks").symlink_to(other / "chunks")
    one_line_error(invoke(["run", "--resume", str(d)]), 5, "symbolic link")
    assert sorted((p.name, p.read_bytes()) for p in (other / "chunks").iterdir()) == before


def test_linked_chunk_files_are_not_the_runs_own(tmp_path):
    other = finished(tmp_path / "a")
    d = finished(tmp_path / "b")
    expected = report_of(d)
    unfinish(d, drop=0)
    (d / "chunks" / "0-1.agg.json").unlink()
    (d / "chunks" / "0-1.agg.json").symlink_to(other / "chunks" / "0-1.agg.json")
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "chunk 0-1: its aggregates file is a symbolic link, not a regular file" in r.output
    assert not (d / "chunks" / "0-1.agg.json").is_symlink()
    assert report_of(d) == expected


# ---------------------------------------------------------------------------------------------
# point 3: a chunk belongs to its run, and its counts are checked


@pytest.mark.parametrize("other", [["--seed", "4"], ["--strategies", "random,greedy"]])
def test_chunks_copied_from_another_run_with_the_same_plan_are_played_again(tmp_path, other):
    d = finished(tmp_path / "a")
    expected = report_of(d)
    donor = finished(tmp_path / "b", *other)
    unfinish(d, drop=0)
    for p in (donor / "chunks").iterdir():
        shutil.copy(p, d / "chunks" / p.name)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert r.output.count("is of another run") == 8, r.output
    assert report_of(d) == expected


def _recount(p: Path, change) -> None:
    """Change a chunk's aggregates document and recompute its checksum (damage that a
    checksum alone does not catch)."""
    doc = json.loads(p.read_text())
    doc.pop("checksum")
    change(doc)
    doc["checksum"] = store.checksum(doc) if _jsonable(doc) else "x"
    p.write_text(json.dumps(doc))


def _jsonable(doc) -> bool:
    try:
        json.dumps(doc, allow_nan=False)
    except ValueError:
        return False
    return True


def _value(metric: str, value):
    def change(doc):
        for row in doc["rows"]:
            if row[0] == metric:
                row[5] = value
                return
        raise AssertionError(metric)

    return change


# fmt: off
COUNTS = {
    "negative": _value("seat_hands", -2),
    "oversized": _value("turns_sum", 10**30),
    "a string": _value("hands", "2"),
    "a float": _value("domino", 1.0),
    "NaN": _value("hand_length_sum", float("nan")),
    "wins above hands": _value("seat_hand_wins", 99),
    "a nested value": _value("leader_hands", [[1]]),
    "an unknown metric": lambda doc: doc["rows"].append(["bogus", -1, -1, -1, "", 1]),
    "a row twice": lambda doc: doc["rows"].append(list(doc["rows"][0])),
    "hands not a number": lambda doc: doc.update(hands="lots"),
    "rows not a list": lambda doc: doc.update(rows={"hands": 2}),
    "timing infinite": lambda doc: doc.update(timing={"cpu_seconds": float("inf")}),
    "a seat out of range": lambda doc: doc["rows"].append(["seat_hands", 0, 9, -1, "", 1]),
}
# fmt: on


@pytest.fixture(scope="module")
def finished_once(tmp_path_factory):
    """(a finished run, its report): played once, copied by each damage case below."""
    d = finished(tmp_path_factory.mktemp("finished") / "a")
    return d, report_of(d)


@pytest.mark.parametrize("damage", list(COUNTS))
def test_impossible_counts_are_played_again_never_merged(tmp_path, damage, finished_once):
    template, expected = finished_once
    d = tmp_path / "a" / template.parent.name / template.name
    shutil.copytree(template, d)
    _recount(d / "chunks" / "0-3.agg.json", COUNTS[damage])
    r = invoke(["report", str(d), "--json"])  # (a finished run reports its merged file)
    assert r.exit_code == 0, r.output
    unfinish(d, drop=0)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert r.exception is None
    assert "chunk 0-3: its aggregates" in r.output, r.output
    assert "playing it again" in r.output
    assert report_of(d) == expected


def test_a_moved_run_folder_resumes(tmp_path):
    d = finished(tmp_path / "a")
    expected = report_of(d)
    unfinish(d)
    moved = tmp_path / "elsewhere" / d.name
    shutil.copytree(d, moved)
    r = invoke(["run", "--resume", str(moved)])
    assert r.exit_code == 0, r.output
    assert report_of(moved) == expected


def test_a_format_1_manifest_of_another_install_resumes(tmp_path):
    """Format 1 listed files by absolute path: the built-in ones of another install (a path
    that is not here, with a built-in's name and content) are that built-in."""
    d = finished(tmp_path / "a")
    expected = report_of(d)
    unfinish(d)
    m = manifest(d)
    m["format"] = 1
    m["inputs"]["strategy_files"] = {
        f"/old/venv/site-packages/dominosim/strategies/{e['builtin']}": e["sha256"]
        for e in m["inputs"]["strategy_files"]
    }
    write_manifest(d, m)
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert report_of(d) == expected


def test_a_changed_builtin_file_is_refused_by_name(tmp_path):
    d = finished(tmp_path / "a")
    unfinish(d)
    m = manifest(d)
    entry = next(e for e in m["inputs"]["strategy_files"] if e.get("builtin") == "heaviest.py")
    entry["sha256"] = "1" * 64
    write_manifest(d, refingerprint(m))
    one_line_error(invoke(["run", "--resume", str(d)]), 5, "heaviest.py", "changed")


# ---------------------------------------------------------------------------------------------
# point 4: trace --run refuses what --resume refuses


def test_trace_run_refuses_a_strategy_file_changed_since_the_run(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    f = bots / "firstbot.py"
    f.write_text(BOT.format(name="firstbot", body="return legal[0]"))
    d = finished(tmp_path / "o", "--strategies", "firstbot,random", "--strategy-path", str(f))
    named = ["--strategy-path", str(f)]
    assert invoke(["trace", "--run", str(d), "--hand", "0:0:1:0", *named]).exit_code == 0
    f.write_text(BOT.format(name="firstbot", body="return legal[-1]"))
    one_line_error(
        invoke(["trace", "--run", str(d), "--hand", "0:0:1:0", *named]),
        5,
        str(f.resolve()),
        "changed",
    )
    unfinish(d)  # (as --resume refuses to play on with it)
    one_line_error(invoke(["run", "--resume", str(d), *named]), 5, "changed")
