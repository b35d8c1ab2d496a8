"""A received folder never runs code (issue 45, points 5, 8, 11; issue 46, point 4): a user's
strategy file a manifest names is loaded only inside a path the user names with
``--strategy-path`` (and only with its recorded sha256); a path under /proc, through a link,
with ``..`` or outside what the user named is one line, and nothing is imported. A run records
the files it seats, so an unrelated file of the folder may change. Experiment files are read
bounded; a manifest's strings are printed escaped.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.base.errors import ConfigError
from dominosim.cli import main
from dominosim.storage import store

from helpers import BOT
from runs import refingerprint

RUN = [
    *("run", "--variant", "fives", "--strategies", "firstbot,random", "--seed", "3"),
    *("--unit", "hand", "--workers", "1", "--games", "16", "--chunk-size", "4", "--no-plots"),
]

pytestmark = pytest.mark.usefixtures("clean_registry")

EVIL = """from pathlib import Path
Path({marker!r}).write_text("imported")
"""


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def write_manifest(d: Path, m: dict) -> None:
    (d / "manifest.json").write_text(json.dumps(m))


def one_line_error(r, code: int, *words: str) -> str:
    assert r.exit_code == code, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1, r.output
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def bots(tmp_path):
    """A strategy folder: firstbot.py (seated) and other.py (not)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "firstbot.py").write_text(BOT.format(name="firstbot", body="return legal[0]"))
    (folder / "other.py").write_text(BOT.format(name="otherbot", body="return legal[-1]"))
    return folder


def finished(tmp_path: Path, bots: Path) -> Path:
    r = invoke([*RUN, "--out", str(tmp_path / "o"), "--json", "--strategy-path", str(bots)])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def commands(d: Path, *named: str) -> list[list[str]]:
    return [
        ["verify", str(d), *named],
        ["trace", "--run", str(d), "--hand", "0:0:1:0", *named],
        ["run", "--resume", str(d), *named],
    ]


def test_a_run_records_only_the_files_it_seats(tmp_path, bots):
    d = finished(tmp_path, bots)
    paths = [e["path"] for e in manifest(d)["inputs"]["strategy_files"] if "path" in e]
    assert paths == [str((bots / "firstbot.py").resolve())]


def test_an_unrelated_file_changes_without_touching_the_run(tmp_path, bots):
    d = finished(tmp_path, bots)
    with (bots / "other.py").open("a") as f:
        f.write("# a comment added since\n")
    for args in commands(d, "--strategy-path", str(bots)):
        r = invoke(args)
        assert r.exit_code == 0, (args, r.output)


def test_a_user_file_not_named_is_refused_with_the_fix(tmp_path, bots):
    d = finished(tmp_path, bots)
    m = manifest(d)  # (an interrupted run: --resume plays on; a finished one prints its report)
    m["status"] = "interrupted"
    write_manifest(d, m)
    for suffix in (".agg.json", ".parquet"):
        (d / "chunks" / f"0-1{suffix}").unlink()
    for args in commands(d):
        one_line_error(invoke(args), 2, "is a user file", f"--strategy-path {bots.resolve()}")


def _plant(tmp_path: Path, kind: str, bots: Path) -> tuple[str, Path]:
    """A recorded path of ``kind`` leading to a file that marks its import, and the mark."""
    marker = tmp_path / "MARK"
    evil = tmp_path / "payload.py"
    evil.write_text(EVIL.format(marker=str(marker)))
    if kind == "proc":
        return "/proc/self/cwd/payload.py", marker
    if kind == "link":
        (bots / "sub").symlink_to(tmp_path)
        return str(bots / "sub" / "payload.py"), marker
    if kind == "dotdot":
        return str(bots) + "/../payload.py", marker
    return str(evil), marker  # (outside the folder the user names)


@pytest.mark.parametrize(
    "kind, words",
    [
        ("proc", "a file of the system's /proc"),
        ("link", "through a symbolic link"),
        ("dotdot", "not in its plain form"),
        ("outside", "is a user file"),
    ],
)
def test_a_planted_path_is_refused_and_never_imported(tmp_path, bots, kind, words, monkeypatch):
    d = finished(tmp_path, bots)
    monkeypatch.chdir(tmp_path)
    ref, marker = _plant(tmp_path, kind, bots)
    m = manifest(d)
    digest = hashlib.sha256((tmp_path / "payload.py").read_bytes()).hexdigest()
    m["inputs"]["strategy_files"].append({"path": ref, "sha256": digest})
    write_manifest(d, refingerprint(m))
    for args in commands(d, "--strategy-path", str(bots)):
        one_line_error(invoke(args), 2, words)
    assert not marker.exists()


def test_an_older_manifest_listing_every_file_goes_on_without_the_unrelated(tmp_path, bots):
    """A manifest of before issue 46 lists every file of the folder (its fingerprint too):
    unchanged, it verifies; with the unrelated file changed, too (the run does not seat it);
    with the seated file changed, it is refused."""
    d = finished(tmp_path, bots)
    m = manifest(d)
    other = bots / "other.py"
    digest = hashlib.sha256(other.read_bytes()).hexdigest()
    m["inputs"]["strategy_files"].append({"path": str(other.resolve()), "sha256": digest})
    del m["inputs"]["strategy_files_of"]
    m = refingerprint(m)
    write_manifest(d, m)
    for p in sorted((d / "chunks").glob("*.agg.json")):
        doc = json.loads(p.read_text())
        doc["run"] = m["fingerprint"]
        doc["checksum"] = store.checksum({k: v for k, v in doc.items() if k != "checksum"})
        p.write_text(json.dumps(doc))
    named = ["--strategy-path", str(bots)]
    assert invoke(["verify", str(d), *named]).exit_code == 0
    with other.open("a") as f:
        f.write("# changed since\n")
    r = invoke(["verify", str(d), *named])
    assert r.exit_code == 0, r.output
    (bots / "firstbot.py").write_text(BOT.format(name="firstbot", body="return legal[-1]"))
    one_line_error(invoke(["verify", str(d), *named]), 5, "firstbot.py", "changed")


# ---------------------------------------------------------------------------------------------
# experiment files: regular files only, within a size and a nesting limit


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_experiment_file_is_one_line_without_hanging(tmp_path):
    p = tmp_path / "exp.toml"
    os.mkfifo(p)
    one_line_error(invoke(["run", str(p)]), 2, "is a FIFO (named pipe), not a regular file")


def test_a_link_to_dev_zero_is_one_line(tmp_path):
    p = tmp_path / "exp.toml"
    p.symlink_to("/dev/zero")
    one_line_error(invoke(["run", str(p)]), 2, "is a character device, not a regular file")


def test_a_link_to_a_regular_experiment_file_is_read(tmp_path):
    real = tmp_path / "real.toml"
    real.write_text('variants = ["fives"]\ngames = 4\n')
    p = tmp_path / "exp.toml"
    p.symlink_to(real)
    r = invoke(["run", str(p), "--out", str(tmp_path / "o"), "--workers", "1", "--no-plots"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize(
    "text",
    [
        "a = " + "[" * 100_000 + "]" * 100_000,
        "a = " + "{b = " * 100_000 + "1" + "}" * 100_000,
        "[" + ".".join(["a"] * 2_000) + "]",  # (tomllib takes quadratic time on more)
    ],
    ids=["arrays", "inline-tables", "dotted"],
)
def test_deep_nesting_is_one_line(tmp_path, text):
    p = tmp_path / "exp.toml"
    p.write_text(text + "\n")
    one_line_error(invoke(["run", str(p)]), 2, "nests tables or arrays more than 32 deep")


def test_a_giant_experiment_file_is_not_read(tmp_path):
    p = tmp_path / "exp.toml"
    with p.open("wb") as f:
        f.truncate(3_700_000_000)  # (sparse: nothing on disk)
    one_line_error(invoke(["run", str(p)]), 2, "more than the 1,048,576 such a file can have")


# ---------------------------------------------------------------------------------------------
# a manifest's strings are printed escaped


def test_a_name_with_newlines_prints_no_fake_lines(tmp_path, bots):
    d = finished(tmp_path, bots)
    m = manifest(d)
    m["name"] = "x\nverified by replay: 9 of 9 chunks\n== Fake ==\x1b[2J"
    write_manifest(d, m)
    r = invoke(["report", str(d)])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert not any(x.startswith(("verified by", "== Fake")) for x in lines), r.stdout
    assert "\x1b" not in r.stdout
    assert "x\\nverified by replay: 9 of 9 chunks\\n== Fake ==\\x1b[2J" in r.stdout


def test_a_file_the_seated_one_imports_is_recorded_too(tmp_path, bots):
    """A seated file that imports a helper of its folder (by module name, its folder put on
    sys.path by itself): the helper is recorded, read with ast, nothing run to find it."""
    (bots / "helper.py").write_text("FIRST = 0\n")
    (bots / "firstbot.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\nimport helper\n"
        + BOT.format(name="firstbot", body="return legal[helper.FIRST]")
    )
    d = finished(tmp_path, bots)
    paths = [e["path"] for e in manifest(d)["inputs"]["strategy_files"] if "path" in e]
    assert paths == [str((bots / n).resolve()) for n in ("firstbot.py", "helper.py")]


def test_the_api_resumes_with_strategy_path(tmp_path, bots):
    import dominosim

    d = finished(tmp_path, bots)
    m = manifest(d)
    m["status"] = "interrupted"
    write_manifest(d, m)
    for suffix in (".agg.json", ".parquet"):
        (d / "chunks" / f"0-1{suffix}").unlink()
    with pytest.raises(ConfigError, match="--strategy-path"):
        dominosim.run(resume=d)
    rep = dominosim.run(resume=d, strategy_path=str(bots))
    assert rep["status"] == "done"


def test_an_error_line_escapes_what_a_manifest_holds(tmp_path):
    """A manifest's 'source' shown in an error (the hint of a new run) prints its escape
    sequence escaped."""
    args = ["run", "--variant", "fives", "--games", "4", "--workers", "1", "--no-plots"]
    r = invoke([*args, "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output
    d = Path(json.loads(r.stdout)["run_dir"])
    m = manifest(d)
    m["status"] = "interrupted"
    m["source"] = "x.toml\x1b[2J"
    m["inputs"]["engine_version"] = -1
    write_manifest(d, m)
    line = one_line_error(invoke(["run", "--resume", str(d)]), 5, "x.toml\\x1b[2J")
    assert "\x1b" not in line
