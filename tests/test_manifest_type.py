"""The manifest as a type (issue 48, point 1): ``analysis.manifest.Manifest`` names every
field a run writes and docs/results.md documents, decodes a run's manifest to the values it
holds, and the report reads it through the type (a dict and its decoded type give the same
report)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.analysis import report
from dominosim.analysis.manifest import Group, Manifest, Rotation
from dominosim.cli import main
from dominosim.storage.store import RunDir

from runs import aggregates

DOCS = Path(__file__).resolve().parents[1] / "docs" / "results.md"
FIELDS = {f.name for f in dataclasses.fields(Manifest)} - {"raw"}

pytestmark = pytest.mark.usefixtures("clean_registry")


def _run(out: Path, *extra: str) -> Path:
    args = ["run", "--variant", "fives", "--strategies", "random,heaviest", "--unit", "hand"]
    args += ["--workers", "1", "--games", "8", "--chunk-size", "4", "--seed", "5", "--json"]
    r = CliRunner().invoke(main, [*args, "--out", str(out), *extra], prog_name="dominosim")
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return _run(tmp_path_factory.mktemp("manifest"))


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
    assert m.raw is raw and Manifest.decode(m) is m
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


def test_a_round_robin_s_groups_decode_with_their_own_seats(tmp_path):
    args = ["compare", "--variant", "fives", "--strategies", "random,greedy,heaviest"]
    args += ["--games", "4", "--seed", "2", "--workers", "1", "--out", str(tmp_path), "--json"]
    r = CliRunner().invoke(main, args, prog_name="dominosim")
    assert r.exit_code == 0, r.output
    raw = RunDir.open(json.loads(r.stdout)["run_dir"]).read_manifest()
    m = Manifest.decode(raw)
    assert m.legs == raw["legs"] and m.analysis["kind"] == "compare"
    for g, gd in zip(m.groups, raw["groups"], strict=True):
        assert g.seats is not None and m.seats_of(g) == tuple(gd["seats"])
        assert [r.seats for r in m.rotations_of(g)] == [tuple(x["seats"]) for x in gd["rotations"]]
    assert m.group(raw["groups"][1]["index"]) is m.groups[1]
