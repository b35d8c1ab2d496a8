"""The public API checks its types as the command line does (issue 40, point 6): every keyword
of every public function, given a value of a wrong type, is one ConfigError naming that
keyword, before anything is played or written. The table covers every keyword (a keyword
added without a row fails here).
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest

import dominosim
from dominosim import api, check
from dominosim.analysis import analyses
from dominosim.base.errors import ConfigError


class _Bad:
    """A value of no type any keyword takes."""

    def __repr__(self) -> str:
        return "BAD"


BAD = _Bad()

BASE = {
    "run": {"variants": "fives", "games": 4, "seed": 1, "workers": 1},
    "compare": {"variant": "fives", "strategies": "random,greedy", "games": 4, "seed": 1},
    "skill": {"variant": "fives", "strategies": "random,greedy", "deals": 2, "seed": 1},
    "tune": {"variant": "fives", "sets": "fives.reserve_k=0,2", "games": 4, "seed": 1},
    "tune_target": {"variant": "fives", "targets": "50,100", "games": 4, "seed": 1},
}
FUNCTIONS = {
    "run": api.run,
    "compare": api.compare,
    "skill": api.skill,
    "tune": api.tune,
    "tune_target": api.tune_target,
}
SESSION = ("config", "resume", "executor", "scheduler", "progress", "echo")
# per keyword, bad values besides BAD (None is "not given" for most keywords)
EXTRA = {
    "games": [1.5],
    "deals": ["x", 0],
    "seed": ["x"],
    "progress": [5],
    "echo": [5],
    "rotate": ["yes"],
    "records": [1],
    "round_robin": ["no"],
    "targets": [[1.5]],
    "share": [True],
    "equal_time": [True, 0, "x", [5]],
    "sets": [5],
}


def keywords(name: str) -> list[str]:
    (row,) = [a for a in analyses.ANALYSES if a.function == name]  # (its registry row)
    takes = row.takes(api._EXPERIMENT)
    return [k for k in (*SESSION, *takes) if not (k == "config" and name != "run")]


CASES = [
    (name, key, value)
    for name in FUNCTIONS
    for key in keywords(name)
    for value in [BAD, *EXTRA.get(key, [])]
]


def _named(message: str, key: str) -> bool:
    return key in message or key.replace("_", "-") in message


@pytest.mark.parametrize(
    ("name", "key", "value"), CASES, ids=[f"{n}-{k}-{v!r}"[:60] for n, k, v in CASES]
)
def test_a_wrong_type_is_one_config_error_naming_the_keyword(tmp_path, name, key, value):
    kw = {**BASE[name], "out": str(tmp_path / "out"), key: value}
    with pytest.raises(ConfigError) as e:
        FUNCTIONS[name](**kw)
    assert _named(e.value.message, key), e.value.message
    assert "\n" not in e.value.message
    assert not (tmp_path / "out").exists()  # (nothing was played)


def test_tune_without_sets_names_sets(tmp_path):
    with pytest.raises(ConfigError, match=r"dominosim.tune\(\): sets must give a value list"):
        api.tune(variant="fives", sets=None, games=4, out=str(tmp_path))


@pytest.mark.parametrize("value", [5, None, BAD, 1.5])
def test_load_names_run_dir(value):
    with pytest.raises(ConfigError, match=r"dominosim.load\(\): run_dir must be a path"):
        dominosim.load(value)


CHECK_CASES = [
    ("target", BAD),
    ("target", None),
    ("deals", BAD),
    ("seed", BAD),
    ("paths", BAD),
    ("paths", [5]),
    ("variants", BAD),
    ("variants", "fives"),
    ("players", BAD),
    ("players", ["2"]),
    ("checks", BAD),
    ("checks", "legal"),
    ("timeout", BAD),
    ("timeout", -1),
    ("strategy_timeout", BAD),
    ("probe_seed", BAD),
    ("probe_seed", -1),
    ("progress", BAD),
]


def test_the_check_table_covers_every_keyword():
    fields = {f.name for f in dataclasses.fields(check.CheckOptions)}
    assert {"target", *fields} == {k for k, _ in CHECK_CASES}
    for name, fn in FUNCTIONS.items():
        sig = {k for k, p in inspect.signature(fn).parameters.items() if p.kind != p.VAR_KEYWORD}
        assert sig <= set(keywords(name)), (name, sig - set(keywords(name)))


@pytest.mark.parametrize(
    ("key", "value"), CHECK_CASES, ids=[f"{k}-{v!r}"[:40] for k, v in CHECK_CASES]
)
def test_check_strategy_names_the_keyword(key, value):
    kw = {"target": "greedy", "variants": ["fives"], "checks": ["legal"], "deals": 1, key: value}
    target = kw.pop("target")
    with pytest.raises(ConfigError) as e:
        check.check_strategy(target, **kw)
    assert _named(e.value.message, key), e.value.message


def test_make_rules_names_the_variant():
    with pytest.raises(ConfigError, match="variant must be a variant name"):
        dominosim.make_rules(Path("fives"), 2)
