"""Every experiment file in configs/ runs (with a tiny game count), in-process."""

import json
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
