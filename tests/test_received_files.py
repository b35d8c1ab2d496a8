"""What a received folder may hold instead of its files (issue 40, points 2-4): a FIFO, a
device, a sparse file of gigabytes, a manifest whose fields disagree with its plan. Only
regular files are read, each within a bound; anything else is one line naming it, and a chunk
is played again. Memory is measured in a subprocess (its peak RSS), never time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.cli import main

from helpers import BOT
from runs import refingerprint

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
    "4",
]
GIANT = 1_500_000_000  # bytes of a sparse file (almost nothing on disk)
# the commands themselves peak near 200 MB (Python, numpy, pandas, pyarrow, the core; 207 MB
# seen in CI); reading either giant file would take 1,500 MB more
MEMORY_MB = 400

pytestmark = [
    pytest.mark.usefixtures("clean_registry"),
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs"),
]


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


def fifo(p: Path) -> None:
    p.unlink(missing_ok=True)
    os.mkfifo(p)


def sparse(p: Path, size: int = GIANT) -> None:
    p.unlink(missing_ok=True)
    with open(p, "wb") as f:
        f.truncate(size)


# a subprocess runs the commands (a FIFO that hangs fails by the timeout, a traceback shows)
# and prints its own peak RSS in MB
PROBE = """
import json, resource, sys
from click.testing import CliRunner
import dominosim
from dominosim.cli import main
from dominosim.errors import DominosimError
out = []
for args in json.loads(sys.argv[1]):
    if args[0] == "load":
        try:
            dominosim.load(args[1])
            out.append([0, ""])
        except DominosimError as e:
            out.append([e.exit_code, "error: " + e.message])
        continue
    r = CliRunner().invoke(main, args, prog_name="dominosim")
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    out.append([r.exit_code, r.output])
# (VmHWM: this process's peak; ru_maxrss would carry the forking parent's peak over exec)
hwm = [x for x in open("/proc/self/status") if x.startswith("VmHWM:")]
peak = int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps([out, peak]))
"""


def probe(*commands: list[str]) -> tuple[list, float]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    r = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps([list(c) for c in commands])],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    out, rss = json.loads(r.stdout.strip().splitlines()[-1])
    return out, rss


def one_line(output: str, *words: str) -> str:
    lines = [x for x in output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1, output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# ---------------------------------------------------------------------------------------------
# point 2: only regular files


@pytest.mark.parametrize("name", ["0-1.agg.json", "0-1.parquet"])
def test_a_fifo_in_place_of_a_chunk_file_is_damage(tmp_path, name):
    d = finished(tmp_path)
    unfinish(d)
    fifo(d / "chunks" / name)
    out, _ = probe(["report", str(d)], ["load", str(d)], ["run", "--resume", str(d)])
    assert [code for code, _ in out] == [0, 0, 0], out
    what = "aggregates" if name.endswith(".json") else "records"
    assert f"chunk 0-1: its {what} file is a FIFO (named pipe), not a regular file" in out[2][1]
    assert "playing it again" in out[2][1]
    assert (d / "chunks" / name).is_file()  # (played again: a regular file now)


def test_a_fifo_manifest_or_merged_file_is_one_line(tmp_path):
    d = finished(tmp_path)
    fifo(d / "aggregates.parquet")
    out, _ = probe(["report", str(d)], ["load", str(d)])
    for code, text in out:
        assert code == 5
        one_line(text, "aggregates.parquet is not the file the run wrote")
    fifo(d / "manifest.json")
    out, _ = probe(["report", str(d)], ["run", "--resume", str(d)], ["verify", str(d)])
    for code, text in out:
        assert code == 5
        one_line(text, "manifest.json: it is a FIFO (named pipe), not a regular file")


def test_a_fifo_in_a_strategy_folder_is_one_line(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "good.py").write_text(BOT.format(name="good", body="return legal[0]"))
    fifo(bots / "a.py")
    out, _ = probe(
        ["strategies", "--strategy-path", str(bots)],
        ["check-strategy", str(bots), "--variant", "fives", "--check", "legal"],
        ["check-strategy", str(bots / "a.py")],
    )
    for code, text in out:
        assert code == 4, text
        one_line(text, "a.py is a FIFO (named pipe), not a regular file")


def test_a_device_as_strategy_path_is_named_what_it_is():
    r = invoke(["strategies", "--strategy-path", "/dev/zero"])
    assert r.exit_code == 4
    one_line(r.output, "strategy path /dev/zero is not a folder or a .py file")
    r = invoke([*RUN, "--strategy-path", "/dev/zero"])
    assert r.exit_code == 4
    one_line(r.output, "strategy path /dev/zero is not a folder or a .py file")


# ---------------------------------------------------------------------------------------------
# point 3: bounded reads


def test_sparse_giant_chunk_files_keep_memory_bounded(tmp_path):
    d = finished(tmp_path)
    unfinish(d)
    sparse(d / "chunks" / "0-1.agg.json")
    sparse(d / "chunks" / "0-2.parquet")
    out, rss = probe(["report", str(d)], ["load", str(d)], ["run", "--resume", str(d)])
    assert [code for code, _ in out] == [0, 0, 0], out
    assert "chunk 0-1: its aggregates file is 1,500,000,000 bytes, more than the" in out[2][1]
    assert "chunk 0-2: its records file is 1,500,000,000 bytes, more than the" in out[2][1]
    assert rss < MEMORY_MB, f"peak RSS {rss:.0f} MB"


def test_sparse_giant_run_files_keep_memory_bounded(tmp_path):
    d = finished(tmp_path)
    sparse(d / "aggregates.parquet")
    out, rss = probe(["report", str(d)], ["load", str(d)])
    for code, text in out:
        assert code == 5
        one_line(text, "aggregates.parquet is not the file the run wrote")
    sparse(d / "manifest.json")
    out, rss2 = probe(["report", str(d)], ["load", str(d)], ["run", "--resume", str(d)])
    for code, text in out:
        assert code == 5
        one_line(text, "manifest.json: it is 1,500,000,000 bytes, more than the")
    assert max(rss, rss2) < MEMORY_MB, f"peak RSS {max(rss, rss2):.0f} MB"


def test_a_giant_strategy_file_is_not_read(tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    sparse(bots / "huge.py")
    out, rss = probe(["strategies", "--strategy-path", str(bots)])
    assert out[0][0] == 4
    one_line(out[0][1], "huge.py is 1,500,000,000 bytes, more than the")
    assert rss < MEMORY_MB, f"peak RSS {rss:.0f} MB"


# ---------------------------------------------------------------------------------------------
# point 4: every manifest field the run depends on


def _set(path, value):
    def edit(m):
        at = m
        for k in path[:-1]:
            at = at[k]
        at[path[-1]] = value

    return edit


FIELD_EDITS = [
    ("rotations", _set(("rotations",), [])),
    ("rotations", _set(("rotations",), [{"offset": 0, "seats": ["random", "heaviest"]}])),
    ("rotations", _set(("rotations", 1, "seats"), ["random", "heaviest"])),
    ("rotate", _set(("experiment", "rotate"), False)),
    ("ids_per_rotation", _set(("ids_per_rotation",), 9)),
    ("games_per_group", _set(("games_per_group",), 18)),
    ("chunk_count", _set(("chunk_count",), 3)),
    ("'chunks' entry", _set(("chunks", 1, "games"), 5)),
    ("fingerprint", _set(("seed",), 4)),
    ("fingerprint", _set(("records",), False)),
    # (a plain run's group: a seat list or label of another type was a traceback in verify,
    # --resume and report)
    ("groups[0].seats", _set(("groups", 0, "seats"), None)),
    ("groups[0].seats", _set(("groups", 0, "seats"), 5)),
    ("groups[0].rotations", _set(("groups", 0, "rotations"), 5)),
    ("groups[0].label", _set(("groups", 0, "label"), ["fives"])),
    ("groups[0].label", _set(("groups", 0, "label"), {"a": 1})),
]


@pytest.mark.parametrize(("field", "edit"), FIELD_EDITS, ids=[f for f, _ in FIELD_EDITS])
def test_a_manifest_field_that_disagrees_is_one_line_naming_it(tmp_path, field, edit):
    """Issue 40, point 5: ``"rotations": []`` played on into a ZeroDivisionError."""
    d = finished(tmp_path)
    unfinish(d)
    m = json.loads((d / "manifest.json").read_text())
    edit(m)
    (d / "manifest.json").write_text(json.dumps(m))
    for args in (["run", "--resume", str(d)], ["report", str(d)], ["verify", str(d)]):
        r = invoke(args)
        assert r.exit_code == 5, r.output
        assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
        one_line(r.output, "the manifest is damaged", field)


def test_a_consistent_manifest_edit_plays_its_own_plan(tmp_path):
    """The fingerprint recomputed: the manifest is a plan of its own (another seed); its
    chunks are another run's and are played again, never merged."""
    d = finished(tmp_path)
    unfinish(d)
    m = json.loads((d / "manifest.json").read_text())
    m["seed"] = 4
    m["experiment"]["seed"] = 4
    (d / "manifest.json").write_text(json.dumps(refingerprint(m)))
    r = invoke(["run", "--resume", str(d)])
    assert r.exit_code == 0, r.output
    assert "its aggregates file is of another run" in r.output
    assert invoke(["verify", str(d)]).exit_code == 0
