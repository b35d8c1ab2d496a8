"""The API takes what each flag takes (issue 46 point 6): for every option of every command
that plays (the rows of analysis/analyses.py) whose destination is a keyword of its API
function, each spelling the flag accepts (a choice, ``--records all|none``, an integer as the
command line gives it, a flag on and off) is accepted by the keyword, and the two plan the
same experiment. Nothing is played: the runner's start is replaced by one that notes what it
was given."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

import dominosim
from dominosim import api, runner
from dominosim.analysis import analyses
from dominosim.cli import main


class _Planned(BaseException):  # (not an Exception: nothing on the way catches it)
    pass


#: Each command's flags that make a small valid experiment, as flags and as keywords.
BASE = {
    "run": {"variants": "fives", "games": "2"},
    "compare": {"variant": "fives", "strategies": "random,greedy", "games": "2"},
    "skill": {"variant": "fives", "strategies": "random,greedy", "deals": "2"},
    "tune": {"variant": "fives", "sets": "fives.reserve_k=0,2", "games": "2"},
    "tune_target": {"variant": "fives", "targets": "50,100", "games": "2"},
}
#: A value the command line takes, for an option that is no choice and no on/off flag.
SAMPLES = {
    "variants": "fives",
    "variant": "fives",
    "players": "3",
    "sets": "fives.reserve_k=2",
    "strategies": "random,greedy",
    "games": "4",
    "seed": "7",
    "chunk_size": "3",
    "workers": "2",
    "out": "OUT",
    "name": "a-name",
    "strategy_path": "strategies",
    "targets": "50,150",
    "share": "0.4",
    "deals": "3",
    "budget": "1000",
    "accuracy_deals": "2",
    "strategy_timeout": "5",
    "equal_time": "5",
}
#: What a flag needs besides the base: --metric (run's) goes with --until-decided, and
#: --metric matches with --unit match; three players need three strategies (compare).
NEEDS = {
    "metric": {"until_decided": True, "unit": "match"},
    "players": {"strategies": "random,greedy,heaviest"},
}


def _keywords(row: analyses.Analysis) -> tuple[str, ...]:
    return row.takes(api._EXPERIMENT)


def _spellings(p: click.Option, key: str, row) -> list[tuple[list[str], object]]:
    """(the command line's arguments, the keyword's value) for each spelling of ``p``."""
    if p.is_flag:
        if p.secondary_opts:
            return [([p.opts[0]], True), ([p.secondary_opts[0]], False)]
        return [([p.opts[0]], True)]
    if isinstance(p.type, click.Choice):
        return [([p.opts[0], c], c) for c in p.type.choices]
    assert key in SAMPLES, f"add a sample value of {p.opts[0]} to SAMPLES"
    v = BASE[row.function].get(key, SAMPLES[key])  # (tune's --set: a value list)
    out = [([p.opts[0], v], v)]
    if isinstance(p.type, click.types.IntParamType) or api.kind_of(key, row) == "int":
        out.append(([p.opts[0], v], int(v)))  # (an int too)
    return out


def _cases():
    for row in analyses.ANALYSES:
        cmd = main.commands[row.name]
        for p in cmd.params:
            if isinstance(p, click.Option) and p.name in _keywords(row):
                for args, value in _spellings(p, p.name, row):
                    yield pytest.param(row, p.name, args, value, id=f"{row.name}-{args}-{value!r}")


def _plan(monkeypatch, call):
    """What ``call`` hands the runner to start: (Experiment, seed, keywords but the session)."""
    seen = []

    def start_run(exp, seed, **kw):
        kw.pop("session")
        seen.append((exp, seed, kw))
        raise _Planned

    monkeypatch.setattr(runner, "start_run", start_run)
    with pytest.raises(_Planned):
        call()
    return seen[0]


@pytest.mark.parametrize("row, key, args, value", list(_cases()))
def test_the_api_takes_what_each_flag_takes(row, key, args, value, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    base = {"seed": "1", **BASE[row.function], **NEEDS.get(key, {})}
    base = {k: v for k, v in base.items() if k in _keywords(row)}
    cli_base = []
    for k, v in base.items():
        if k != key:
            opt = next(p for p in main.commands[row.name].params if p.name == k)
            cli_base += [opt.opts[0]] if v is True else [opt.opts[0], v]
    keywords = {k: v for k, v in base.items() if k != key}

    def cli():
        r = CliRunner().invoke(main, [row.name, *cli_base, *args])
        assert isinstance(r.exception, _Planned), r.output
        raise _Planned

    def call():
        getattr(dominosim if row.function == "run" else api, row.function)(
            **keywords, **{key: value}
        )

    by_flag = _plan(monkeypatch, cli)
    by_keyword = _plan(monkeypatch, call)
    assert by_keyword == by_flag


def test_every_command_that_plays_has_cases():
    rows = {c.values[0].name for c in _cases()}
    assert rows == {r.name for r in analyses.ANALYSES}
