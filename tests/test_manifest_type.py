"""The manifest as a type (issue 48, point 1): ``analysis.manifest.Manifest`` names every
field a run writes and docs/results.md documents, decodes a run's manifest to the values it
holds, the report reads it through the type (a dict and its decoded type give the same
report), no module but analysis/manifest.py reads a manifest by key (an ast scan), and the
manifest of every kind of run decodes and encodes back to itself, byte for byte."""

from __future__ import annotations

import ast
import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.analysis import report
from dominosim.analysis.manifest import Group, Manifest, Rotation
from dominosim.cli import main
from dominosim.storage.store import RunDir, write_json

from runs import aggregates

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "results.md"
PACKAGE = ROOT / "dominosim"
FIELDS = {f.name for f in dataclasses.fields(Manifest)} - {"raw"}

pytestmark = pytest.mark.usefixtures("clean_registry")


KINDS = {
    "run": ["run", "--variant", "fives", "--strategies", "random,heaviest", "--unit", "hand"]
    + ["--games", "8", "--chunk-size", "4"],
    "run-until-decided": ["run", "--variant", "fives", "--strategies", "random,greedy"]
    + ["--unit", "hand", "--games", "600", "--until-decided"],
    "compare": ["compare", "--variant", "fives", "--strategies", "random,greedy,heaviest"]
    + ["--games", "4"],
    "skill": ["skill", "--variant", "fives", "--players", "2", "--strategies", "random,greedy"]
    + ["--deals", "4"],
    "tune": ["tune", "--variant", "sniff", "--set", "sniff.us_sniff_counting=off,on"]
    + ["--strategies", "greedy,random", "--games", "4"],
    "tune-target": ["tune-target", "--variant", "muggins", "--players", "2"]
    + ["--strategies", "greedy,random", "--targets", "50,100", "--games", "4"],
}


@pytest.fixture(scope="module")
def kinds(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("kinds")
    folders = {}
    for kind, args in KINDS.items():
        more = ["--seed", "3", "--workers", "1", "--no-plots", "--json", "--out", str(out / kind)]
        r = CliRunner().invoke(main, [*args, *more], prog_name="dominosim")
        assert r.exit_code == 0, r.output
        folders[kind] = Path(json.loads(r.stdout)["run_dir"])
    return folders


@pytest.fixture(scope="module")
def folder(kinds) -> Path:
    return kinds["run"]


def test_the_type_names_every_documented_field():
    text = DOCS.read_text(encoding="utf-8").split("### manifest.json", 1)[1].split("\n### ")[0]
    documented = set()
    for row in re.findall(r"^\| (`[^|]+`) \|", text, flags=re.M):
        documented |= set(re.findall(r"`(\w+)`", row))
    assert documented and documented <= FIELDS, documented - FIELDS


def test_the_type_names_every_field_a_run_writes(folder):
    written = set(json.loads((folder / "manifest.json").read_text()))
    assert written <= FIELDS, written - FIELDS


def test_a_run_s_manifest_decodes_to_its_values(folder):
    raw = RunDir.open(folder).read_manifest()
    m = Manifest.decode(raw)
    assert m.encode() == raw and Manifest.decode(m) == m and Manifest.decode(m, strict=False) is m
    for name in FIELDS - {"groups", "rotations", "seats"}:
        assert getattr(m, name) == raw.get(name), name
    assert m.seats == tuple(raw["seats"])
    assert m.rotations == tuple(Rotation(r["offset"], tuple(r["seats"])) for r in raw["rotations"])
    assert [g.index for g in m.groups] == [g["index"] for g in raw["groups"]]
    assert all(isinstance(g, Group) and g.seats is None for g in m.groups)
    assert m.seats_of(m.groups[0]) == m.seats and m.rotations_of(m.groups[0]) == m.rotations
    assert m.has("timings") and not m.has("legs") and m.legs is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.status = "done"


def test_the_report_of_a_dict_is_the_report_of_its_type(folder):
    raw = RunDir.open(folder).read_manifest()
    frame = aggregates(folder)
    assert report.build(Manifest.decode(raw), frame) == report.build(raw, frame)


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda m: m.pop("groups"), KeyError),
        (lambda m: m["groups"][0].pop("index"), KeyError),
        (lambda m: m.update(players="x"), ValueError),
        (lambda m: m.update(seats=3), TypeError),
        (lambda m: m["groups"][0].update(rotations=None), TypeError),
    ],
)
def test_a_field_every_report_reads_is_required(folder, edit, error):
    raw = json.loads((folder / "manifest.json").read_text())
    edit(raw)
    with pytest.raises(error):
        Manifest.decode(raw)


def test_a_round_robin_s_groups_decode_with_their_own_seats(kinds):
    raw = RunDir.open(kinds["compare"]).read_manifest()
    m = Manifest.decode(raw)
    assert m.legs == raw["legs"] and m.analysis["kind"] == "compare"
    for g, gd in zip(m.groups, raw["groups"], strict=True):
        assert g.seats is not None and m.seats_of(g) == tuple(gd["seats"])
        assert [r.seats for r in m.rotations_of(g)] == [tuple(x["seats"]) for x in gd["rotations"]]
    assert m.group(raw["groups"][1]["index"]) is m.groups[1]


# ---------------------------------------------------------------------------------------------
# read only through the type: no module but analysis/manifest.py reads a manifest by key


def _manifest_like(node: ast.AST, names: set[str]) -> bool:
    """Whether ``node`` is a manifest: a name of one (``manifest``, ``m``, ``*manifest*``, or
    a name bound to what ``read_manifest()`` or ``.encode()`` returned), an attribute
    ``.manifest``, ``.raw``, or such a call itself."""
    if isinstance(node, ast.Name):
        return node.id in names or node.id == "m" or "manifest" in node.id.lower()
    if isinstance(node, ast.Attribute):
        return node.attr in ("manifest", "raw") or _manifest_like(node.value, names)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
        func = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        return func in ("read_manifest", "encode") and (
            not isinstance(node.func, ast.Attribute)
            or func == "read_manifest"
            or _manifest_like(node.func.value, names)
        )
    return False


def manifest_reads(source: str, where: str) -> list[str]:
    """Every read of a manifest by a field's name in ``source`` (``m["groups"]``,
    ``m.get("groups")``, ``"legs" in m``) and every use of its ``raw`` mapping."""
    nodes = list(ast.walk(ast.parse(source)))
    bound = {
        t.id
        for n in nodes
        if isinstance(n, ast.Assign)
        and isinstance(n.value, ast.Call)
        and _manifest_like(n.value, set())
        for t in n.targets
        if isinstance(t, ast.Name)
    }
    found = []
    for n in nodes:
        key = obj = None
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant):
            key, obj = n.slice.value, n.value
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.args:
            if n.func.attr in ("get", "pop", "setdefault", "update", "__getitem__"):
                key, obj = getattr(n.args[0], "value", None), n.func.value
        elif isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant):
            if isinstance(n.ops[0], ast.In | ast.NotIn):
                key, obj = n.left.value, n.comparators[0]
        elif isinstance(n, ast.Attribute) and n.attr == "raw":
            if _manifest_like(n.value, bound):
                found.append(f"{where}:{n.lineno}: .raw")
            continue
        if key in FIELDS and _manifest_like(obj, bound):
            found.append(f"{where}:{n.lineno}: {ast.unparse(n)}")
    return found


def test_no_module_reads_a_manifest_by_key():
    """Every module that names a manifest (one that never does holds none to read) but the
    type's own."""
    found, scanned = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if path != PACKAGE / "analysis" / "manifest.py" and "manifest" in text.lower():
            found += manifest_reads(text, str(path.relative_to(ROOT)))
            scanned += 1
    assert found == [] and scanned > 10


@pytest.mark.parametrize(
    "planted",
    [
        'manifest["groups"]',
        'm.get("status")',
        '"legs" in manifest',
        'rd.read_manifest()["seed"]',
        'x = rd.read_manifest()\n    x["unit"]',
        "manifest.raw",
        'manifest.encode()["analysis"]',
    ],
)
def test_the_scan_finds_a_planted_read(planted):
    source = (PACKAGE / "runner" / "results.py").read_text(encoding="utf-8")
    assert manifest_reads(source, "results.py") == []
    planted_source = source + f"\n\ndef _planted(rd, manifest, m):\n    {planted}\n"
    assert manifest_reads(planted_source, "results.py") != []


# ---------------------------------------------------------------------------------------------
# a round trip: the manifest of every kind of run decodes and encodes back to itself


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("strict", [True, False])
def test_every_kind_of_manifest_round_trips(kinds, kind, strict, tmp_path):
    data = (kinds[kind] / "manifest.json").read_bytes()
    m = Manifest.decode(json.loads(data), strict=strict)
    assert Manifest.decode(m.encode(), strict=strict) == m
    write_json(tmp_path / "manifest.json", m.encode())
    assert (tmp_path / "manifest.json").read_bytes() == data
    if kind == "run-until-decided":
        assert m.until_decided["stopped"] is not None  # (the run stopped early: written twice)


def test_a_field_set_keeps_its_place_and_a_new_one_comes_last(kinds):
    raw = json.loads((kinds["run"] / "manifest.json").read_bytes())
    m = Manifest.decode({k: v for k, v in raw.items() if k != "outputs"}, strict=False)
    m2 = m.with_(status="failed", outputs={"plots": False})
    assert list(m2.encode()) == [*(k for k in raw if k != "outputs"), "outputs"]
    assert m2.status == "failed" and m2.outputs == {"plots": False} and m.status == "done"
    with pytest.raises(TypeError, match="not fields of a manifest"):
        m.with_(stauts="done")


def test_an_unknown_key_is_kept_where_it_was(kinds):
    raw = json.loads((kinds["run"] / "manifest.json").read_bytes())
    raw = {"zz_later": [1, {"a": None}], **raw, "batch_size": 10_000}
    m = Manifest.decode(raw, strict=False)
    assert m.batch_size == 10_000 and m.has("batch_size") and "zz_later" in m.encode()
    with pytest.raises(TypeError, match="not fields of a manifest"):
        m.has("zz_later")
    assert list(m.with_(status="running").encode()) == list(raw)


@pytest.mark.parametrize("kind", ["run", "compare", "run-until-decided"])
def test_the_plan_writes_its_fields_as_the_type_as_the_file_holds_them(kinds, kind):
    from dominosim.runner import Plan

    raw = json.loads((kinds[kind] / "manifest.json").read_bytes())
    plan = Plan.from_manifest(Manifest.decode(raw, strict=False))
    built = Manifest.build(**plan.to_manifest()).encode()
    held = {k: raw[k] for k in built}
    assert json.dumps(built, indent=1) == json.dumps(held, indent=1)
    assert list(built) == [k for k in raw if k in built]
