"""Seeds (issue 45 point 2): a drawn seed has 64 bits and is never below 2**32, so a strategy
that tries every seed below 2**32 against its keys cannot find it; a seed up to 2**64-1 is
stored, printed, verified, resumed and entered again exactly; a seed of the wrong type or out
of range is one ConfigError in every API function and refused alike by every command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_trace import assert_valid, trace_json

import dominosim
from dominosim.api import prepare
from dominosim.base.errors import ConfigError
from dominosim.check import check_strategy
from dominosim.cli import main
from dominosim.engine.batch import BatchEngine
from dominosim.engine.solver import decision_accuracy, solve_deals
from dominosim.game import seeding
from dominosim.game.reference import play_match
from dominosim.strategy import get
from dominosim.trace import make_trace

from runs import aggregates, stop_after, strip

TOP = 2**64 - 1
RUN = ["run", "--variant", "fives", "--strategies", "random,greedy", "--games", "12"]


def invoke(args):
    return CliRunner().invoke(main, args)


def test_a_drawn_seed_is_from_2_32_to_2_64(monkeypatch):
    seen = []

    def extreme(n):  # the source's extremes, then its middle
        seen.append(n)
        return [0, n - 1, n // 2][len(seen) - 1]

    monkeypatch.setattr(seeding.secrets, "randbelow", extreme)
    assert [seeding.draw_seed() for _ in range(3)] == [2**32, TOP, 2**32 + (2**64 - 2**32) // 2]
    assert seen == [2**64 - 2**32] * 3
    monkeypatch.undo()
    exp, seed, drawn = prepare(variants="fives")
    assert drawn and 2**32 <= seed <= TOP and exp.seed == 0  # (the drawn seed is the plan's)
    assert all(2**32 <= seeding.draw_seed() <= TOP for _ in range(1000))


def test_a_search_below_2_32_never_meets_a_drawn_seed():
    """What a search over the seeds below 2**32 compares with a key it saw is the keys of
    those seeds; a drawn seed is at least 2**32 and nothing reduces it, so none of them is the
    drawn one: its keys are not those of its low 32 bits (a truncating search's guess)."""
    for low in (0, 1, 12345, 2**32 - 1):
        drawn = 2**32 + low
        assert seeding.strategy_secret(drawn) != seeding.strategy_secret(low)
        assert seeding.strategy_key(drawn, 0, 0, 0, 0) != seeding.strategy_key(low, 0, 0, 0, 0)
    assert seeding.DRAWN_LOW == 2**32


def _run_dir(r) -> Path:
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def test_the_top_seed_end_to_end(tmp_path, monkeypatch):
    args = [*RUN, "--seed", str(TOP), "--workers", "1", "--no-plots", "--chunk-size", "4"]
    full = _run_dir(invoke([*args, "--out", str(tmp_path / "a"), "--json"]))
    m = json.loads((full / "manifest.json").read_text())
    assert m["seed"] == TOP and m["experiment"]["seed"] == TOP and not m["seed_drawn"]
    rep = invoke(["report", str(full), "--json"])
    assert json.loads(rep.stdout)["seed"] == TOP
    assert f"seed {TOP}," in invoke(["report", str(full)]).stdout
    assert dominosim.load(full).manifest["seed"] == TOP
    v = invoke(["verify", str(full)])
    assert v.exit_code == 0 and "verified by replay: 3 of 3" in v.stdout, v.output
    t = invoke(["trace", "--variant", "fives", "--seed", str(TOP)])
    assert t.exit_code == 0 and f"seed {TOP}, match 0" in t.stdout, t.output
    lines = trace_json("--variant", "fives", "--seed", str(TOP))
    assert lines[0]["seed"] == TOP
    assert_valid(lines)  # (docs/trace.schema.json: 0 to 2**64-1)
    # interrupted and resumed: the same run
    stop_after(monkeypatch, 1)
    cut = invoke([*args, "--out", str(tmp_path / "b")])
    assert cut.exit_code == 130, cut.output
    stop_after(monkeypatch, None)
    (cut_dir,) = (tmp_path / "b" / "fives").iterdir()
    resumed = invoke(["run", "--resume", str(cut_dir), "--json"])
    assert strip(json.loads(resumed.stdout)) == strip(json.loads(rep.stdout))
    assert aggregates(cut_dir).equals(aggregates(full))


def test_a_drawn_top_seed_is_printed_and_entered_again(tmp_path, monkeypatch):
    monkeypatch.setattr(seeding.secrets, "randbelow", lambda n: n - 1)
    args = [*RUN, "--workers", "1", "--no-plots"]
    r = invoke([*args, "--out", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    printed = re.search(r"seed: (\d+) \(drawn; repeat this run with --seed (\d+)\)", r.stderr)
    assert printed and printed[1] == printed[2] == str(TOP), r.stderr
    (drawn,) = (tmp_path / "a" / "fives").iterdir()
    assert json.loads((drawn / "manifest.json").read_text())["seed_drawn"] is True
    again = _run_dir(invoke([*args, "--seed", printed[1], "--out", str(tmp_path / "b"), "--json"]))
    assert aggregates(again).equals(aggregates(drawn))


@pytest.mark.parametrize("seed", ["x", True, 1.5, None, -1, 2**64])
def test_a_bad_seed_is_one_config_error_in_every_api_function(seed):
    rules = dominosim.make_rules("fives", 2)
    two = [get("random")] * 2
    calls = {
        "play_match()": lambda: play_match(rules, seed, 0, two),
        "make_trace()": lambda: make_trace(rules, seed=seed),
        "BatchEngine()": lambda: BatchEngine(rules, seed, two, range(2)),
        "solve_deals()": lambda: solve_deals(rules, seed, range(1)),
        "decision_accuracy()": lambda: decision_accuracy(rules, seed, two, range(1), [0]),
        "check_strategy()": lambda: check_strategy("greedy", seed=seed, variants=["fives"]),
    }
    if seed is not None:  # (run's seed=None: drawn)
        calls["dominosim.run()"] = lambda: dominosim.run(variants="fives", seed=seed, games=2)
    for name, call in calls.items():
        with pytest.raises(ConfigError) as e:
            call()
        msg = str(e.value)
        assert "\n" not in msg and "seed must be an integer" in msg, (name, msg)
        if seed is not None and not isinstance(seed, str):
            assert name in msg or "--seed" in msg, (name, msg)


@pytest.mark.parametrize("seed", ["-1", str(2**64)])
def test_check_strategy_refuses_a_seed_as_run_does(seed, tmp_path):
    runs = invoke([*RUN, "--seed", seed, "--out", str(tmp_path)])
    checks = invoke(["check-strategy", "greedy", "--seed", seed, "--variant", "fives"])
    assert runs.exit_code == checks.exit_code == 2
    assert (
        checks.stderr
        == runs.stderr
        == f"error: --seed must be an integer from 0 to 2**64-1, not {seed}\n"
    )
