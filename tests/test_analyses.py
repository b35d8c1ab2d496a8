"""The registry of analyses (dominosim/analysis/analyses.py; docs/design.md, "Analyses"): one complete
row per analysis (run, compare, skill, tune, tune-target), every command and API function
resolved to its row, ``setup`` returning one frozen value, and no module but the registry
telling the analyses apart by their names."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest
from click.testing import CliRunner

import dominosim
from dominosim import api, config
from dominosim.analysis import analyses
from dominosim.analysis.analyses import ANALYSES, HOOKS, RUN, Setup
from dominosim.cli import main
from dominosim.errors import ConfigError
from dominosim.tournament import SkillMeasurement

ROOT = Path(dominosim.__file__).resolve().parent
#: the module constant of each row (what the API and the runner look up)
CONSTANTS = {"run": "RUN", "compare": "COMPARE", "skill": "SKILL", "tune": "TUNE"}
CONSTANTS["tune-target"] = "TUNE_TARGET"
#: small keywords each analysis's setup takes
SETUP_KEYWORDS = {
    "compare": {"variant": "fives", "strategies": "random,greedy", "metric": "hands"},
    "skill": {"variant": "fives", "strategies": "random,greedy", "budget": 100, "deals": 50},
    "tune": {"variant": "fives", "sets": ["fives.target=50,100"]},
    "tune-target": {"variant": "fives", "targets": "100,50"},
}


def test_the_registry_lists_each_analysis_once_by_its_command_and_function():
    assert [a.name for a in ANALYSES] == ["run", "compare", "skill", "tune", "tune-target"]
    assert [a.function for a in ANALYSES] == ["run", "compare", "skill", "tune", "tune_target"]
    for a in ANALYSES:
        assert getattr(analyses, CONSTANTS[a.name]) is a


@pytest.mark.parametrize("row", ANALYSES, ids=lambda a: a.name)
def test_every_row_is_complete(row):
    """A row with an analysis section has every hook but (skill's alone) the measurement, and
    each names a function that exists; the plain run has none (its report is every run's)."""
    for key in (*row.keywords, *row.keywords_after, *row.not_taken):
        assert isinstance(key, str) and key.isidentifier(), key
    takes = row.takes(("players", "games", "unit", "rotate"))
    assert len(set(takes)) == len(takes)
    assert not set(row.not_taken) & set(takes)
    if row is RUN:
        assert all(getattr(row, h) is None for h in HOOKS)
        return
    optional = {"measurement"}
    for hook in HOOKS:
        fn = getattr(row, hook)
        if fn is None:
            assert hook in optional, (row.name, hook)
            continue
        assert callable(fn.resolve()), (row.name, hook)
    assert analyses.of_analysis({"kind": row.name}) is row
    assert analyses.command_of({"kind": row.name}) == row.name


def test_a_run_without_an_analysis_or_with_an_unknown_kind_is_shown_as_a_plain_run():
    assert analyses.of_analysis(None) is RUN and analyses.of_analysis({}) is RUN
    assert analyses.of_analysis({"kind": "sweep-of-the-future"}) is RUN
    assert analyses.of_analysis({"kind": ["compare"]}) is RUN
    assert analyses.command_of(None) == "run"
    assert analyses.command_of({"kind": "sweep-of-the-future"}) == "sweep-of-the-future"


def test_only_skill_measures_per_chunk_and_the_round_robins_pool_their_pairs():
    """The facts the shared code asks of a row (docs/compare.md, docs/skill.md)."""
    assert [a.name for a in ANALYSES if a.measurement] == ["skill"]
    assert [a.name for a in ANALYSES if a.verdict_pooled] == ["compare"]
    assert [a.name for a in ANALYSES if a.games_total] == ["compare"]
    assert [a.name for a in ANALYSES if not a.group_warnings] == ["compare", "skill"]


@pytest.mark.parametrize("name", list(SETUP_KEYWORDS))
def test_setup_returns_one_frozen_value_that_resolves_to_its_row(name):
    row = next(a for a in ANALYSES if a.name == name)
    params, flags = row.decode(SETUP_KEYWORDS[name])
    assert type(params) is row.params and params.variant == "fives"
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.variant = "sevens"
    setup = row.setup(config.rules_from_cli, params, **flags)
    assert type(setup) is Setup
    assert setup.analysis["kind"] == name and analyses.of_analysis(setup.analysis) is row
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.legs = ()
    with pytest.raises(TypeError):
        setup.flags["games"] = 1
    with pytest.raises(TypeError):
        setup.analysis["kind"] = "run"
    assert setup.flags["variants"] == ["fives"]
    if name in ("compare", "skill"):  # a round robin: one table per leg
        assert setup.legs == (("random", "greedy"),)
        assert setup.flags["strategies"] == "random,greedy"
    else:
        assert setup.legs == ()
    assert setup.metric == ("hands" if name == "compare" else None)
    measured = row.measurement(setup.analysis) if row.measurement else None
    if name == "skill":
        assert measured == SkillMeasurement(solve_budget=100, accuracy_deals=50)
    else:
        assert measured is None


class _Reached(Exception):
    pass


@pytest.mark.parametrize("name", list(SETUP_KEYWORDS))
def test_each_api_function_runs_its_rows_setup(monkeypatch, name):
    """``dominosim.compare()`` etc. set up their run through their row's hook (a stand-in
    setup is the one called) and check their keywords against the row's."""
    row = next(a for a in ANALYSES if a.name == name)
    seen = {}

    def stand_in(rules_of, params, **flags):
        assert rules_of is config.rules_from_cli  # (the entry point parses the command line)
        assert type(params) is row.params  # (its own keywords, decoded once)
        seen.update(flags)
        given = {k: getattr(params, k) for k in row.declared()}
        seen.update({k: v for k, v in given.items() if v != row.declared()[k].default})
        raise _Reached

    monkeypatch.setattr(analyses, CONSTANTS[name], dataclasses.replace(row, setup=stand_in))
    with pytest.raises(_Reached):
        getattr(api, row.function)(**SETUP_KEYWORDS[name])
    assert {k for k, v in seen.items() if v not in (None, [])} == set(SETUP_KEYWORDS[name])


@pytest.mark.parametrize("row", ANALYSES, ids=lambda a: a.name)
def test_each_api_function_takes_its_rows_keywords(row):
    with pytest.raises(ConfigError) as e:
        getattr(api, row.function)(sets=["fives.target=50,100"], bogus=1)
    text = str(e.value)
    assert text.startswith(f"dominosim.{row.function}() has no keyword 'bogus'")
    listed = text.split("its keywords are: ")[1].split(", ")
    assert listed[: len(row.keywords)] == list(row.keywords)
    assert listed[len(listed) - len(row.keywords_after) :] == list(row.keywords_after)
    assert not set(row.not_taken) & set(listed)


def test_each_command_is_its_rows_and_resumes_only_its_own_runs(tmp_path):
    """``dominosim NAME`` for each row; a tournament's ``--resume`` of another kind's folder
    names the command that finishes it (the folder's row)."""
    assert {a.name for a in ANALYSES} <= set(main.commands)
    run = ["--variant", "fives", "--strategies", "random,greedy", "--games", "4", "--seed", "1"]
    r = CliRunner().invoke(main, ["compare", *run, "--workers", "1", "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    (folder,) = (tmp_path / "compare-fives").iterdir()
    for row in ANALYSES[2:]:
        r = CliRunner().invoke(main, [row.name, "--resume", str(folder)])
        assert r.exit_code == 2
        assert f"is not a {row.name} run; finish it with dominosim compare --resume" in r.output


# --- no string dispatch outside the registry -----------------------------------------------

#: the analyses' names ("run", the plain run's, is also a chunk's field: a run is the row
#: of no analysis section, looked up as any other)
NAMES = {a.name for a in ANALYSES if a is not RUN} | {a.function for a in ANALYSES if a is not RUN}


def _is_name(node) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_is_name(x) for x in node.elts)
    return False


def dispatches(source: str) -> list[int]:
    """The lines of ``source`` that tell analyses apart by name: a comparison with an analysis
    name (``kind == "compare"``, ``kind in ("tune", "tune-target")``; not a key looked up
    by that name, ``"run" in doc``) or a dict with several of them as keys."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            key_lookup = isinstance(node.ops[0], ast.In | ast.NotIn) and not _is_name(
                node.comparators[0]
            )
            if not key_lookup and any(_is_name(x) for x in (node.left, *node.comparators)):
                out.append(node.lineno)
        elif isinstance(node, ast.Dict):
            if sum(_is_name(k) for k in node.keys if k is not None) > 1:
                out.append(node.lineno)
    return out


def test_the_dispatch_finder_finds_one():
    src = 'if a["kind"] == "skill":\n    pass\nb = kind in ("tune", "x")\nc = {"compare": 1, "tune": 2}\n'
    assert dispatches(src) == [1, 3, 4]
    assert dispatches('if "skill" in doc and doc.get("run") != x:\n    pass\n') == []


def test_no_module_but_the_registry_dispatches_on_an_analysis_name():
    found = [
        f"{path.relative_to(ROOT.parent)}:{line}"
        for path in sorted(ROOT.rglob("*.py"))
        if path.name != "analyses.py"
        for line in dispatches(path.read_text(encoding="utf-8"))
    ]
    assert found == []
