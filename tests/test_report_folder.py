"""A report is a function of its run folder (issue 41 point 5): which seated strategies play
with perfect information and which built-ins are heuristics are recorded in the manifest when
the run begins, and a report printed again keeps their marks. A received folder's recorded
classes are input: checked, one line when damaged, and never trusted to take a mark away
(issue 45: the report recomputes them from the strategy files, test_classes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim import strategy
from dominosim.cli import main


def invoke(*args):
    return CliRunner().invoke(main, list(args), prog_name="dominosim")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("classes")
    # fmt: off
    r = invoke("compare", "--variant", "fives", "--strategies", "oracle,greedy,random",
               "--games", "6", "--seed", "2", "--workers", "1", "--out", str(out), "--json")
    # fmt: on
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def test_the_classes_are_recorded_when_the_run_begins(run_dir):
    m = json.loads((run_dir / "manifest.json").read_text())
    assert m["classes"]["perfect_information"] == ["oracle"]
    assert {"greedy", "doubles-first"} <= set(m["classes"]["heuristics"])
    assert "random" not in m["classes"]["heuristics"]


def test_a_report_printed_again_after_the_classifiers_change_keeps_its_marks(run_dir, monkeypatch):
    """A mark the run recorded is never taken away (issue 45 recomputes the classes, and
    marks what either says)."""
    before = [invoke("report", str(run_dir), *j).output for j in ((), ("--json",))]
    assert "oracle [perfect information]" in before[0]
    monkeypatch.setattr(strategy, "plays_with_perfect_information", lambda cls: False)
    monkeypatch.setattr(strategy, "classification", lambda cls: "heuristic")
    after = [invoke("report", str(run_dir), *j).output for j in ((), ("--json",))]
    assert after == before


@pytest.mark.parametrize(
    "classes",
    [
        {"perfect_information": ["greedy", "mc"], "heuristics": []},  # mc is not seated
        {"perfect_information": "oracle", "heuristics": []},
        {"perfect_information": []},
        [],
    ],
)
def test_a_damaged_classes_field_is_one_line(run_dir, tmp_path, classes):
    import shutil

    d = tmp_path / "copy"
    shutil.copytree(run_dir, d)
    m = json.loads((d / "manifest.json").read_text())
    m["classes"] = classes
    (d / "manifest.json").write_text(json.dumps(m))
    r = invoke("report", str(d))
    assert r.exit_code == 5, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert lines == [
        "error: the manifest's classes field is damaged (not the run's strategy classes); "
        "take the folder again from its source, or start the run again"
    ], r.output
