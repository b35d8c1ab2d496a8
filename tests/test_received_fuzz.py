"""A damaged or hostile run folder, fuzzed (issue 27, point 7): whatever is done to a finished
or an interrupted run folder (fields deleted, wrong types, huge and negative numbers, NaN,
nested structures, links, another run's chunks, checksums recomputed), ``report``,
``run --resume``, ``trace --run`` and ``dominosim.load`` give a correct report or one line with
a documented exit code: never a traceback, never a file written outside the run folder, never a
file imported that the run does not own.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dominosim
from dominosim.base.errors import DominosimError
from dominosim.cli import main
from dominosim.storage import store

from runs import aggregates, strip

RUN = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--unit",
    "hand",
    "--workers",
    "1",
    "--games",
    "8",
    "--chunk-size",
    "2",
    "--json",
]
CODES = {0, 2, 3, 4, 5}  # what a damaged folder may give (docs/errors.md)
EVIL = "from pathlib import Path\nPath({marker!r}).write_text('imported')\n"

pytestmark = pytest.mark.usefixtures("clean_registry")


def invoke(args):
    return CliRunner().invoke(main, args, prog_name="dominosim")


def _play(out: Path, seed: str) -> Path:
    r = invoke([*RUN, "--seed", seed, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def _report(d: Path):
    r = invoke(["report", str(d), "--json"])
    assert r.exit_code == 0, r.output
    return strip(json.loads(r.stdout)), aggregates(d).to_dict("list")


@pytest.fixture(scope="module")
def templates(tmp_path_factory):
    """A finished run, the same run interrupted (two chunks gone), another run's chunks, and
    the finished run's report."""
    base = tmp_path_factory.mktemp("templates")
    done = _play(base / "a", "3")
    expected = _report(done)
    donor = _play(base / "b", "4")
    cut = base / "cut"
    shutil.copytree(done, cut)
    m = json.loads((cut / "manifest.json").read_text())
    m["status"] = "interrupted"
    (cut / "manifest.json").write_text(json.dumps(m))
    for name in ("0-0.agg.json", "0-0.parquet", "0-3.agg.json"):
        (cut / "chunks" / name).unlink()
    (cut / "aggregates.parquet").unlink()
    return {"done": done, "cut": cut, "donor": donor / "chunks", "expected": expected}


# ---------------------------------------------------------------------------------------------
# the damage


VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([-1, 0, 7, -(2**70), 2**70, 10**400]),
    st.sampled_from([math.nan, math.inf, -0.5, 1e308]),
    st.text(max_size=8),
    st.sampled_from([[], {}, [[[[]]]], {"a": {"b": []}}, ["x", 1, None], "../../x.py"]),
)


def _paths(doc, prefix=()):
    """Every path to a value inside a JSON document."""
    yield prefix
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*prefix, i))


def _edit_json(path: Path, data, recompute: bool) -> None:
    """Delete or replace one value of a JSON file (drawn from ``data``)."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return
    paths = [p for p in _paths(doc) if p]
    if not paths:
        return
    where = data.draw(st.sampled_from(paths), label="where")
    parent = doc
    for k in where[:-1]:
        parent = parent[k]
    if data.draw(st.booleans(), label="delete") and isinstance(parent, dict):
        del parent[where[-1]]
    else:
        parent[where[-1]] = data.draw(VALUES, label="value")
    if recompute and isinstance(doc, dict) and "checksum" in doc:
        body = {k: v for k, v in doc.items() if k != "checksum"}
        try:
            doc["checksum"] = store.checksum(body)
        except (ValueError, TypeError):
            pass
    try:
        text = json.dumps(doc)
    except (ValueError, TypeError):
        return
    path.write_text(text)


def _link(run: Path, outside: Path, name: str) -> None:
    target = outside / f"target-{name.replace('/', '-')}"
    p = run / name
    if p.is_dir() and not p.is_symlink():
        shutil.copytree(p, target, symlinks=True)
        shutil.rmtree(p)
    elif p.exists() or p.is_symlink():
        p.unlink()
    p.symlink_to(target)


def damage(data, run: Path, outside: Path, donor: Path, marker: Path) -> tuple[bool, bool]:
    """Apply a few drawn kinds of damage; (the manifest was touched, a chunk was edited
    consistently: its checksum recomputed)."""
    chunk_files = sorted(p.name for p in (run / "chunks").iterdir())
    manifest_touched = consistent = False
    evil_inside = run / "evil.py"
    evil_inside.write_text(EVIL.format(marker=str(marker)))
    for _ in range(data.draw(st.integers(1, 3), label="how many")):
        kind = data.draw(
            st.sampled_from(
                [
                    "manifest",
                    "group",
                    "chunk",
                    "chunk-recomputed",
                    "paths",
                    "files",
                    "link",
                    "foreign",
                    "delete",
                    "truncate",
                ]
            ),
            label="kind",
        )
        if kind == "manifest":
            _edit_json(run / "manifest.json", data, recompute=False)
            manifest_touched = True
        elif kind == "group":
            _edit_group(run / "manifest.json", data)
            manifest_touched = True
        elif kind in ("chunk", "chunk-recomputed"):
            name = data.draw(st.sampled_from([x for x in chunk_files if x.endswith(".json")]))
            _edit_json(run / "chunks" / name, data, recompute=kind == "chunk-recomputed")
            consistent |= kind == "chunk-recomputed"
        elif kind in ("paths", "files"):
            manifest_touched = True
            _hostile_paths(run, kind, evil_inside, marker, data)
        elif kind == "link":
            name = data.draw(
                st.sampled_from(
                    [
                        "chunks",
                        ".lock",
                        "aggregates.parquet",
                        "report.md",
                        "plots",
                        *(f"chunks/{x}" for x in chunk_files),
                    ]
                )
            )
            if (run / name).parent.is_dir() and not (run / name).parent.is_symlink():
                _link(run, outside, name)
        elif kind == "foreign":
            for name in data.draw(
                st.lists(st.sampled_from(sorted(os.listdir(donor))), min_size=1, max_size=4)
            ):
                if (run / "chunks").is_dir() and not (run / "chunks").is_symlink():
                    shutil.copy(donor / name, run / "chunks" / name)
        else:
            name = data.draw(
                st.sampled_from(
                    ["manifest.json", "aggregates.parquet", *(f"chunks/{x}" for x in chunk_files)]
                )
            )
            p = run / name
            if p.is_file() and not p.is_symlink():
                manifest_touched |= name == "manifest.json"
                if kind == "delete":
                    p.unlink()
                else:
                    p.write_bytes(p.read_bytes()[: data.draw(st.integers(0, 60))])
    return manifest_touched, consistent


def _edit_group(path: Path, data) -> None:
    """Set a group's ``label``, ``seats`` or ``rotations`` (a plain run's group holds none of
    the two last) to a drawn value of any type."""
    try:
        m = json.loads(path.read_text())
        group = m["groups"][0]
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return
    if isinstance(group, dict):
        name = data.draw(st.sampled_from(["label", "seats", "rotations"]), label="group field")
        group[name] = data.draw(VALUES, label="value")
        path.write_text(json.dumps(m))


def _hostile_paths(run: Path, kind: str, evil_inside: Path, marker: Path, data) -> None:
    """Point the manifest's strategy paths or files at code the run does not own."""
    import hashlib

    m_path = run / "manifest.json"
    try:
        m = json.loads(m_path.read_text())
    except (OSError, ValueError):
        return
    if not isinstance(m, dict):
        return
    outside = run.parent / "shipped-beside.py"
    outside.write_text(EVIL.format(marker=str(marker)))
    digest = hashlib.sha256(evil_inside.read_bytes()).hexdigest()
    if kind == "paths":
        m["strategy_paths"] = data.draw(
            st.lists(
                st.sampled_from(
                    [str(run), str(evil_inside), "evil.py", str(outside), str(run.parent)]
                ),
                min_size=1,
                max_size=3,
            )
        )
    else:
        entry = data.draw(
            st.sampled_from(
                [
                    {"path": str(evil_inside), "sha256": digest},
                    {"path": "evil.py", "sha256": digest},
                    {"path": str(outside), "sha256": "0" * 64},
                    {"builtin": "../evil.py", "sha256": digest},
                    {"builtin": "evil.py", "sha256": digest},
                ]
            )
        )
        inputs = m.get("inputs")
        if isinstance(inputs, dict) and isinstance(inputs.get("strategy_files"), list):
            inputs["strategy_files"].append(entry)
    m_path.write_text(json.dumps(m))


# ---------------------------------------------------------------------------------------------
# the commands


def _snapshot(root: Path, run: Path) -> dict:
    """Every file and link under ``root`` outside the run folder, with its content."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        if here == run or run in here.parents:
            continue
        for name in filenames + [d for d in dirnames if (here / d).is_symlink()]:
            p = here / name
            out[str(p)] = os.readlink(p) if p.is_symlink() else p.read_bytes()
    return out


def _check_cli(r) -> None:
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        import traceback

        raise AssertionError("".join(traceback.format_exception(*r.exc_info))[-3000:])
    assert r.exit_code in CODES, (r.exit_code, r.output, r.exception)
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert "Traceback" not in r.output
    if r.exit_code:
        errors = [x for x in r.output.splitlines() if x.startswith("error: ")]
        assert len(errors) == 1, r.output


@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "30")),
    suppress_health_check=[HealthCheck.too_slow],
)
@given(data=st.data(), which=st.sampled_from(["done", "cut"]))
def test_a_damaged_run_folder_gives_a_report_or_one_line(templates, data, which):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        run = root / "results" / "fives" / templates[which].name
        shutil.copytree(templates[which], run)
        outside = root / "outside"
        outside.mkdir()
        marker = root / "MARK"
        manifest_touched, consistent = damage(data, run, outside, templates["donor"], marker)
        before = _snapshot(root, run)
        for args in (
            ["report", str(run), "--json"],
            ["trace", "--run", str(run), "--hand", "0:1:2:0"],
        ):
            _check_cli(invoke(args))
        try:
            dominosim.load(run)
        except DominosimError:
            pass
        r = invoke(["run", "--resume", str(run), "--json"])
        _check_cli(r)
        if manifest_touched:  # (verify reads the manifest as the others do: one line)
            _check_cli(invoke(["verify", str(run)]))
        elif r.exit_code == 0:  # (chunks damaged: played again)
            v = invoke(["verify", str(run)])
            _check_cli(v)
            if not consistent:  # (damage: never merged)
                assert v.exit_code == 0, v.output
            if v.exit_code == 0:  # (a consistent edit: merged by --resume, found by verify)
                assert _report(run) == templates["expected"]
        assert _snapshot(root, run) == before
        assert not marker.exists()
