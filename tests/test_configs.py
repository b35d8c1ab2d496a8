"""Every experiment file in configs/ runs (with a tiny game count), in-process."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim.cli import main

CONFIGS = sorted((Path(__file__).resolve().parents[1] / "configs").glob("*.toml"))


def test_there_is_a_config_per_use_case():
    names = {p.stem for p in CONFIGS}
    variants = (
        "blind bergen fives threes sniff basic two-lane ladder muggins block classic kozel"
    ).split()
    assert {f"match-{v}" for v in variants} <= names
    assert any(n.startswith("compare") for n in names)
    assert any(n.startswith("sweep-target") for n in names)
    assert any(n.startswith("sweep-") and "target" not in n for n in names)
    assert "multi-variant" in names


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_config_runs(path, tmp_path):
    r = CliRunner().invoke(
        main, ["run", str(path), "--games", "4", "--workers", "1", "--out", str(tmp_path), "--json"]
    )
    assert r.exit_code == 0, r.output
    report = json.loads(r.stdout)
    assert report["groups"] and all(g["hands"] > 0 for g in report["groups"])


# the shipped examples (issue 41 point 8): the package carries configs/ as dominosim.configs


def test_dominosim_configs_lists_every_shipped_example_with_its_description():
    r = CliRunner().invoke(main, ["configs", "--files"])
    assert r.exit_code == 0, r.output
    rows = {line.split()[0]: line for line in r.output.splitlines()[2:] if line.strip()}
    for p in CONFIGS:
        first = p.read_text(encoding="utf-8").splitlines()[0].lstrip("#").strip()
        assert first in rows[p.stem] and str(p) in rows[p.stem]


def run_json(args, tmp_path):
    r = CliRunner().invoke(
        main, ["run", *args, "--games", "4", "--workers", "1", "--out", str(tmp_path), "--json"]
    )
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def plays(group: dict) -> dict:
    """A group's figures of play (not its timings)."""
    return {k: v for k, v in group.items() if not re.search("second|speed|per_s|cpu|wall", k)}


def test_a_shipped_example_runs_by_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an empty folder
    by_path = run_json([str(CONFIGS[0].parent / "classic-2p.toml")], tmp_path / "a")
    for name in ("classic-2p", "classic-2p.toml"):
        by_name = run_json([name], tmp_path / name)
        assert [plays(g) for g in by_name["groups"]] == [plays(g) for g in by_path["groups"]]


def test_a_file_in_the_folder_wins_over_the_example_of_its_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "classic-2p.toml").write_text(
        'variants = ["fives"]\nseats = ["random", "greedy"]\nseed = 4\n', encoding="utf-8"
    )
    report = run_json(["classic-2p.toml"], tmp_path / "out")
    assert {g["variant"] for g in report["groups"]} == {"fives"}


def test_a_path_with_a_folder_is_never_an_example_and_a_miss_says_how_to_list_them(tmp_path):
    for arg, hint in (("nope", True), ("sub/classic-2p.toml", False)):
        r = CliRunner().invoke(main, ["run", arg, "--out", str(tmp_path)])
        assert r.exit_code == 2, r.output
        assert f"experiment file not found: {arg}; check the path" in r.output
        assert ("dominosim configs lists them" in r.output) == hint
