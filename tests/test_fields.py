"""One table of the experiment's settings (``config.FIELDS``, issue 41 point 2) and every place
made from it: the experiment file's keys and defaults, their checks, ``Experiment`` and its
``to_dict``, ``experiment_from_cli``'s flags, the Python API's keywords and their type checks,
the command line's options and what ``--resume`` refuses. Each test fails when a place and
the table disagree (a row added, renamed or reworded in one place only). And the plan a run
plays is one frozen value, made once, beside the session's settings (point 4)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import dominosim
from dominosim import api, config
from dominosim.analysis import analyses, equal_time, tournament
from dominosim.base import session as settings
from dominosim.base.params import Param
from dominosim.cli import SESSION_OPTIONS, main
from dominosim.config import FIELDS, build_experiment, experiment_from_cli
from dominosim.errors import ConfigError

FLAGGED = [f for f in FIELDS if f.flag]
OWN = [f for f in FIELDS if not f.into]  # the rows that are Experiment attributes
# a value of each row's flag as the command line writes it (the flag pairs: their "no" side)
ARGV = {
    "name": ["--name", "x"],
    "variants": ["--variant", "fives"],
    "players": ["--players", "3"],
    "sets": ["--set", "fives.reserve_k=2"],
    "strategies": ["--strategies", "greedy"],
    "games": ["--games", "8"],
    "unit": ["--unit", "match"],
    "seed": ["--seed", "4"],
    "chunk_size": ["--chunk-size", "4"],
    "workers": ["--workers", "1"],
    "out": ["--out", "o"],
    "rotate": ["--no-rotate"],
    "records": ["--records", "none"],
    "plots": ["--no-plots"],
    "strategy_path": ["--strategy-path", "p"],
}


# values beyond the range a row's own check holds
BEYOND = {"seed": [-1, 2**64], "chunk_size": [config.MAX_CHUNK_SIZE + 1]}


def invoke(args):
    return CliRunner().invoke(main, args)


def test_every_flag_of_the_table_has_a_value_here():
    assert set(ARGV) == {f.keyword for f in FLAGGED}
    assert set(BEYOND) == {f.key for f in FIELDS if f.check}


# ---------------------------------------------------------------------------------------------
# the experiment file and Experiment


def test_the_file_keys_are_the_table_rows_in_order():
    assert config.TOP_KEYS == tuple(f.key for f in FIELDS)
    r = invoke(["run", "--variant", "fives", "--games", "x"])  # (any run: the table is loaded)
    assert r.exit_code == 2
    with pytest.raises(ConfigError, match="allowed keys: " + re.escape(", ".join(config.TOP_KEYS))):
        build_experiment({"variants": ["fives"], "nosuchkey": 1})


def test_experiment_attributes_and_to_dict_follow_the_table():
    names = [f.name for f in dataclasses.fields(config.Experiment)]
    assert names == [*(f.key for f in OWN), "rule_sets", "source"]
    exp = experiment_from_cli(variants=["fives"])
    assert list(exp.to_dict()) == [f.key for f in OWN]
    assert {f.into for f in FIELDS if f.into} <= {f.key for f in OWN}


def test_a_key_left_out_gets_the_table_default():
    exp = build_experiment({"variants": ["fives"]}, source="exp.toml")
    for f in OWN:
        got = exp.to_dict()[f.key]
        if f.key == "seats":
            assert got == list(f.default) * exp.players
        elif f.key == "chunk_size":  # (None: the unit's default chunk)
            assert f.default is None and got == config.CHUNK_GAMES[exp.unit]
        elif f.default is not None:
            assert got == (list(f.default) if isinstance(f.default, tuple) else f.default), f.key
    assert exp.workers is None and exp.name == "exp"


@pytest.mark.parametrize("f", [f for f in FIELDS if f.kind == "int"], ids=lambda f: f.key)
def test_an_integer_row_is_checked_against_its_range(f):
    base = {"variants": ["fives"]}
    for ok in (f.lo, f.hi):
        if ok is not None:
            assert getattr(build_experiment({**base, f.key: ok}), f.key) == ok
    bad = [f.lo - 1] if f.lo is not None else []
    bad += [f.hi + 1] if f.hi is not None else []
    bad += BEYOND.get(f.key, [])  # (the range its check holds)
    for x in [*bad, "3", 1.5, True]:
        with pytest.raises(ConfigError, match=rf"^'{f.key}' in exp\.toml must be "):
            build_experiment({**base, f.key: x}, source="exp.toml")
    for x in [*bad, "x", 1.5, True]:  # (a flag's string is the command line's: "3" is 3)
        with pytest.raises(ConfigError, match=rf"^{f.flag_name} must be "):
            experiment_from_cli(variants=["fives"], **{f.keyword: x})


@pytest.mark.parametrize("f", [f for f in FIELDS if f.kind == "bool"], ids=lambda f: f.key)
def test_a_boolean_row_takes_true_or_false(f):
    assert getattr(build_experiment({"variants": ["fives"], f.key: False}), f.key) is False
    with pytest.raises(ConfigError, match=rf"^{f.flag_name} must be true or false, not 1$"):
        experiment_from_cli(variants=["fives"], **{f.keyword: 1})


def test_a_choice_row_takes_its_choices():
    for f in (f for f in FIELDS if f.kind == "choice"):
        for c in f.choices:
            assert getattr(build_experiment({"variants": ["fives"], f.key: c}), f.key) == c
        with pytest.raises(ConfigError, match=rf"^{f.flag_name} must be .*'{f.choices[-1]}'"):
            experiment_from_cli(variants=["fives"], **{f.keyword: "nosuch"})


def test_experiment_from_cli_takes_the_table_keywords_only():
    assert set(config.KEYWORDS) == {f.keyword for f in FIELDS if f.keyword}
    with pytest.raises(TypeError, match="unexpected keyword argument 'game'"):
        experiment_from_cli(variants=["fives"], game=3)


# ---------------------------------------------------------------------------------------------
# the Python API


def test_every_keyword_row_is_a_keyword_of_run_checked_by_its_kind(tmp_path):
    for f in FIELDS:
        if f.keyword is None:
            assert f.into, f.key  # (a key only files have is folded into another)
            continue
        assert f.keyword in analyses.RUN.takes(api._EXPERIMENT), f.keyword
        kinds = {"int": "int", "bool": "bool", "choice": "string", "name": "string"}
        if f.kind in kinds:
            assert api.kind_of(f.keyword) == kinds[f.kind]
        if f.takes:
            with pytest.raises(ConfigError, match=re.escape(f"{f.keyword} must be {f.takes}")):
                kw = {"variants": "fives", "out": str(tmp_path), f.keyword: 5}
                dominosim.run(**kw)
    assert not tmp_path.joinpath("fives").exists()
    with pytest.raises(ConfigError, match="its keywords are: variants, players, sets, "):
        dominosim.run(variants="fives", gmes=3)


# ---------------------------------------------------------------------------------------------
# the command line


def _options(command: str) -> dict[str, click.Option]:
    return {p.name: p for p in main.commands[command].params if isinstance(p, click.Option)}


@pytest.mark.parametrize("f", FLAGGED, ids=lambda f: f.key)
def test_every_flag_row_is_an_option_of_run_with_its_help(f):
    opt = _options("run")[f.keyword]
    assert opt.opts[0] == f.flag_name and opt.help == f.help
    assert opt.multiple == f.repeat and opt.default is None
    shown = "".join(invoke(["run", "--help"]).stdout.split())  # (wrapped at spaces or hyphens)
    assert "".join(f.help.split()) in shown


@pytest.mark.parametrize("command", ["compare", "skill", "tune", "tune-target", "trace"])
def test_other_commands_spell_the_table_flags_as_run_does(command):
    run = _options("run")
    for name, opt in _options(command).items():
        if name in run and name not in ("variant",):
            assert opt.opts == run[name].opts, name
    if command != "trace":
        assert _options(command)["variant"].opts == run["variants"].opts


@pytest.mark.parametrize("command", ["run", "compare"])
def test_resume_refuses_exactly_the_rows_not_marked_session(command, tmp_path):
    """Each flag of the table given with --resume: refused (exit 2, named) unless its row is
    a session's; the session's options go on to the folder (here: not a run, exit 5)."""
    opts = _options(command)
    for f in FLAGGED:
        if f.keyword not in opts:
            continue
        r = invoke([command, "--resume", str(tmp_path / "none"), *ARGV[f.keyword]])
        refused = f"so {f.flag_name} cannot be given with it" in r.stderr
        assert refused == (not f.session), (f.key, r.stderr)
        assert r.exit_code == (5 if f.session else 2), (f.key, r.stderr)
    assert SESSION_OPTIONS == {
        "executor",
        "scheduler",
        "resume",
        "as_json",
        "strategy_timeout",
        "debug",
        "isolate",
        *(f.keyword for f in FIELDS if f.session),
    }


# ---------------------------------------------------------------------------------------------
# each analysis's parameters and the session's settings, declared once (issue 48, point 1):
# the command line's options and the API's type checks are made of the declarations


def _dest(key: str, p) -> str:
    return p.flag[-1] if not p.flag[-1].startswith("-") else key


def _is_option_of(opt: click.Option, key: str, p) -> None:
    """``opt`` is what the declaration ``p`` of keyword ``key`` says."""
    assert opt.name == _dest(key, p) and opt.opts[0] == p.flag[0].split("/")[0], key
    assert opt.help == p.help and opt.metavar == p.metavar, key
    assert opt.is_flag == (p.is_flag or "/" in p.flag[0])
    assert bool(opt.show_default) == p.show_default, key
    if p.is_flag or p.show_default:  # (else None: not given, the field's default stands)
        assert opt.default == p.default or (p.default is None and opt.default is False), key
    else:
        assert opt.default is None, key
    assert tuple(getattr(opt.type, "choices", p.choices)) == p.choices, key


@pytest.mark.parametrize("row", analyses.ANALYSES, ids=lambda a: a.name)
def test_each_analysis_option_is_its_parameters_declaration(row):
    """Every option of a command is an experiment field's, a session's or one of its
    analysis's declared parameters (the tournaments' --variant: the field's flag, one)."""
    opts = _options(row.name)
    own = row.declared()
    assert own and all(isinstance(p, Param) for p in own.values())
    for key, p in own.items():
        if p.flag:
            _is_option_of(opts[key], key, p)
    fields = {f.keyword for f in FLAGGED}
    others = set(opts) - fields - SESSION_OPTIONS - {k for k, p in own.items() if p.flag}
    assert others == ({"variant"} & set(own)), others
    # the API lists its own keywords where they are declared (before or after the experiment's)
    takes = row.takes(api._EXPERIMENT)
    for key, p in own.items():
        assert key in (row.keywords_after if p.after else row.keywords), key
        assert key in takes


def test_the_session_options_are_its_declaration():
    """base.session.SESSION (runner.Session and CommandSettings) makes the session's options (cli.SHARED_OPTIONS), what
    --resume takes (SESSION_OPTIONS, with the fields marked session) and the settings a
    command hands the API (SESSION_KEYWORDS)."""
    from dominosim import cli

    run = _options("run")
    flagged = {k: p for k, p in settings.SESSION.items() if p.flag}
    for key, p in flagged.items():
        assert cli.SHARED_OPTIONS[key][0] == p.flag
        _is_option_of(run[_dest(key, p)], key, p)
    assert SESSION_OPTIONS == {_dest(k, p) for k, p in flagged.items()} | {
        f.keyword for f in FIELDS if f.session
    }
    assert set(cli.SESSION_KEYWORDS) == {k for k, p in flagged.items() if p.api} - {"resume"}
    assert set(settings.SESSION) - set(flagged) == {"progress", "echo"}  # (the API's alone)
    assert [k for k, p in settings.SESSION.items() if p.listed] == list(settings.LISTED)
    assert api._EXPERIMENT[-len(settings.LISTED) :] == settings.LISTED


#: a value of the wrong type for each kind (``any``: the analysis checks the value itself)
WRONG = {"int": 1.5, "bool": 3, "number": [1], "ints": 1.5, "string": 3, "callable": 3}
WRONG["path"] = 3


def _declared_keywords():
    for row in analyses.ANALYSES:
        for key, p in {**row.declared(), **settings.SESSION}.items():
            if p.api and p.kind in WRONG:
                yield pytest.param(row, key, p, id=f"{row.function}-{key}")


@pytest.mark.parametrize("row, key, p", list(_declared_keywords()))
def test_each_declared_keyword_is_checked_by_its_kind(row, key, p):
    """The API's type error of a declared keyword is its declaration's: the kind's words (or
    its own ``takes``), the value with its type unless ``shown`` is False."""
    bad = WRONG[p.kind]
    base = {"sets": "fives.reserve_k=0,2"} if row.name == "tune" else {}
    with pytest.raises(ConfigError) as e:
        getattr(api, row.function)(**base, **{key: bad})
    what = p.takes or api.KINDS[p.kind][1]
    shown = f"{bad!r} ({type(bad).__name__})" if p.shown else repr(bad)
    assert str(e.value) == f"dominosim.{row.function}(): {key} must be {what}, not {shown}"
    assert api.kind_of(key, row) == p.kind


def _ranged():
    for row in analyses.ANALYSES:
        for key, p in row.declared().items():
            if p.lo is not None and p.kind in ("int", "ints"):
                yield pytest.param(row, key, p, id=f"{row.function}-{key}")


@pytest.mark.parametrize("row, key, p", list(_ranged()))
def test_a_declared_range_is_the_one_checked(row, key, p):
    """An integer parameter's least value is its declaration's (``lo``): one below it is
    refused, naming the flag and that bound."""
    with pytest.raises(ConfigError) as e:
        getattr(api, row.function)(variant="fives", **{key: str(p.lo - 1)})
    assert re.match(rf"{p.flag[0]} must be (an integer|integers) >= {p.lo}\b", str(e.value))


def _number_ranges():
    for row in analyses.ANALYSES:
        for key, p in row.declared().items():
            if p.kind == "number" and p.lo is not None:
                yield pytest.param(row, key, p, id=f"{row.function}-{key}")


#: the parser of each ranged number keyword (where its range is checked)
PARSERS = {"share": tournament.parse_share, "equal_time": equal_time.parse_ms}


@pytest.mark.parametrize("row, key, p", list(_number_ranges()))
def test_a_declared_number_range_is_the_one_checked(row, key, p):
    """A number's range is its declaration's (``lo``, excluded where ``open_lo``, to
    ``hi``): its parser takes the bounds it includes and refuses a value past each, and the
    API's error names the flag and the declared bounds."""
    parse, step = PARSERS[key], max(abs(p.lo), 1) * 1e-3
    assert parse(p.hi) == parse(str(p.hi)) == p.hi
    below = p.lo if p.open_lo else p.lo - step
    if not p.open_lo:
        assert parse(p.lo) == p.lo
    for bad in (below, p.hi + step):
        with pytest.raises(ConfigError):
            parse(bad)
    base = {"compare": {"strategies": "random,greedy"}, "tune-target": {"targets": "50"}}
    base = base.get(row.name, {})
    with pytest.raises(ConfigError) as e:
        getattr(api, row.function)(variant="fives", **base, **{key: str(below)})
    msg = str(e.value)
    assert msg.startswith(f"{p.flag[0]} must be a number")
    assert p.interval() in msg if p.open_lo else f"from {p.lo:g} to {p.hi:g}," in msg


def test_a_keyword_that_may_not_be_none_says_so():
    with pytest.raises(ConfigError, match=r"executor must be a string, not None \(NoneType\)"):
        dominosim.run(executor=None)
    assert not settings.SESSION["executor"].nullable


# ---------------------------------------------------------------------------------------------
# the plan (point 4): made once, frozen; the session's settings beside it; the file read once


def test_the_plan_and_the_session_are_frozen_values():
    from dominosim import runner

    exp = experiment_from_cli(variants=["fives"], sets=["fives.reserve_k=0,2"], games=4)
    plan = runner.Plan.from_experiment(exp, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.ids_per_chunk = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        runner.Session().workers = 2  # type: ignore[misc]
    # the rules the config made, not made again
    assert all(a is b for a, b in zip(plan.rules, exp.rule_sets, strict=True))
    from dominosim.analysis.manifest import Manifest

    fields = {**plan.to_manifest(), "name": plan.name, "status": "running", "experiment": {}}
    assert plan == runner.Plan.from_manifest(Manifest.build(**fields))


def test_the_experiment_file_is_read_once_and_its_rules_made_once(tmp_path, monkeypatch):
    import tomllib

    cfg = tmp_path / "exp.toml"
    cfg.write_text('variants = ["fives"]\ngames = 4\n[options.fives]\nreserve_k = [0, 2]\n')
    reads, made = [], []
    loads, make = tomllib.loads, config.make_rules
    monkeypatch.setattr(tomllib, "loads", lambda text: reads.append(1) or loads(text))
    monkeypatch.setattr(config, "make_rules", lambda *a, **k: made.append(1) or make(*a, **k))
    rep = dominosim.run(str(cfg), out=str(tmp_path / "o"), workers=1, plots=False)
    assert len(reads) == 1 and len(made) == 2 and len(rep["groups"]) == 2
    manifest = json.loads((Path(rep["run_dir"]) / "manifest.json").read_text())
    assert manifest["seed_drawn"] is True  # (the file gives no seed: drawn, as before)
    cfg.write_text('variants = ["fives"]\ngames = 4\nseed = 3\n')
    rep = dominosim.run(str(cfg), out=str(tmp_path / "o"), workers=1, plots=False)
    manifest = json.loads((Path(rep["run_dir"]) / "manifest.json").read_text())
    assert manifest["seed_drawn"] is False and manifest["seed"] == 3 and len(reads) == 2


def test_new_manifests_record_no_batch_size_and_old_ones_still_load(tmp_path):
    rep = dominosim.run(
        variants="fives", games=8, seed=1, out=str(tmp_path), workers=1, plots=False
    )
    path = tmp_path / "fives"
    (d,) = path.iterdir()
    m = json.loads((d / "manifest.json").read_text())
    assert "batch_size" not in m
    # a folder written before: its manifest says batch_size 10000 (the fingerprint never held it)
    (d / "manifest.json").write_text(json.dumps({**m, "batch_size": 10_000}))
    assert invoke(["verify", str(d)]).exit_code == 0
    r = invoke(["run", "--resume", str(d), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["groups"] == rep["groups"]
    (d / "manifest.json").write_text(json.dumps({**m, "batch_size": 0}))
    r = invoke(["report", str(d)])
    assert r.exit_code == 5 and "'batch_size' or 'ids_per_rotation' is out of range" in r.stderr


def test_the_flag_table_of_docs_config_lists_every_row():
    text = (Path(__file__).resolve().parents[1] / "docs" / "config.md").read_text()
    table = text.split("## Command-line flags and file keys")[1].split("\n\n")[1]
    rows = {line.split("|")[1].strip(): line.split("|")[2] for line in table.splitlines()[2:]}
    for f in FLAGGED:
        (row,) = [cell for key, cell in rows.items() if f"`{f.key}`" in key or f"[{f.key}." in key]
        assert f.flag_name in row or f.flag[0] in row, f.key


def test_the_runner_s_session_is_the_declared_one_decoded_once():
    """The settings a user gives of a session are declared on the runner's own value
    (``runner.Session``), not on a second type: each declared runner setting is a field of it
    with the declaration's default, and the API decodes its keywords into it."""
    import dataclasses

    from dominosim import runner

    assert runner.Session is settings.Session
    fields = {f.name: f for f in dataclasses.fields(runner.Session)}
    runner_keys = set(settings.SESSION) - set(settings.declared(settings.CommandSettings))
    assert runner_keys == {
        "executor",
        "scheduler",
        "progress",
        "echo",
        "strategy_timeout",
        "isolate",
    }
    for key in runner_keys:
        assert fields[key].default == settings.SESSION[key].default, key
    s = api._session(
        {"strategy_timeout": "2.5", "isolate": True}, None, "dask", "tcp://h:1", True, print
    )
    assert (s.executor, s.scheduler, s.progress, s.echo) == ("dask", "tcp://h:1", True, print)
    assert (s.strategy_timeout, s.isolate) == (2.5, True)
