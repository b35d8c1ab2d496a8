"""Debugging a strategy (issue 46, docs/strategies.md "Debugging a strategy"): the one-line
error names the file and line the strategy raised at, in-process and in pool workers; ``--debug``
prints the strategy's own traceback (no engine frame) and the decision, with a ``dominosim
trace`` command that plays that decision again; ``action_values`` names a bad ``legal``."""

import re
import shlex

import pytest
from click.testing import CliRunner

import dominosim
from dominosim.base.errors import StrategyError
from dominosim.cli import SESSION_OPTIONS, main

pytestmark = pytest.mark.usefixtures("clean_registry")

# the strategy raises at line 12 (in helper), called from line 17; decisions 0 and 1 are fine
BUGGY = """from dominosim.strategy import Strategy, register


@register
class Buggy(Strategy):
    name = "buggy"

    def choose_one(self, obs, legal, key):
        return helper(obs, legal)


def helper(obs, legal):
    if obs.decision >= 2:
        return {}["oops"]
    return legal[0]
"""
LINE = 14
PLAYING = ["run", "compare", "skill", "tune", "tune-target", "trace", "check-strategy"]


def invoke(args):
    return CliRunner().invoke(main, args)


@pytest.fixture
def buggy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # (the error names the file relative to the current folder)
    (tmp_path / "my_bots").mkdir()
    (tmp_path / "my_bots" / "buggy.py").write_text(BUGGY, encoding="utf-8")
    return "my_bots/buggy.py"


def _run(path, *extra):
    # fmt: off
    return invoke(["run", "--variant", "fives", "--strategies", "buggy,random", "--games", "4",
                   "--chunk-size", "2", "--seed", "5", "--strategy-path", path, *extra])
    # fmt: on


def _error(r) -> str:
    assert r.exit_code == 4, r.output
    return r.stderr.splitlines()[-1]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_one_line_error_names_the_file_and_line(buggy, workers):
    r = _run(buggy, "--workers", workers)
    assert _error(r) == (
        f"error: strategy 'buggy' raised KeyError: 'oops' at {buggy}:{LINE}; fix the strategy "
        "(--debug shows the traceback)"
    )
    assert "Traceback" not in r.stderr and "replay it" not in r.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_debug_shows_the_strategys_frames_and_a_trace_command_that_replays_the_decision(
    buggy, workers
):
    r = _run(buggy, "--workers", workers, "--debug")
    err = r.stderr
    assert _error(r).endswith(f"at {buggy}:{LINE}; fix the strategy (--debug shows the traceback)")
    assert "Traceback (the strategy's own frames" in err
    assert f'buggy.py", line {LINE}, in helper' in err and 'buggy.py", line 9, in choose_one' in err
    assert "KeyError: 'oops'" in err
    frames = re.findall(r'File "([^"]+)"', err)
    assert frames and all(f.endswith("buggy.py") for f in frames), frames  # (no engine frame)
    assert "dominosim/engine/" not in err and "dominosim/runner/" not in err
    at = re.search(
        r"decision: fives, 2 players, seed 5, match (\d+), hand (\d+), decision (\d+), "
        r"seat (\d+) \(strategy 'buggy'\)",
        err,
    )
    assert at, err
    match, hand, decision, seat = at.groups()
    assert int(decision) >= 2
    command = re.search(r"^replay it: (.*)$", err, flags=re.M).group(1)
    words = shlex.split(command)
    assert words[:2] == ["dominosim", "trace"]
    assert words[words.index("--match-id") + 1] == match
    assert words[words.index("--decision") + 1] == decision
    replay = invoke([*words[1:], "--debug"])
    assert _error(replay).endswith(
        f"at {buggy}:{LINE}; fix the strategy (--debug shows the traceback)"
    )
    shown = (
        f">>> decision {decision} of hand {hand}: {'AB'[int(seat)]} (seat {seat}, strategy buggy)"
    )
    assert shown in replay.stdout, replay.stdout
    assert "legal: " in replay.stdout and "error: strategy 'buggy' raised KeyError" in replay.stdout
    assert f'buggy.py", line {LINE}, in helper' in replay.stderr


def test_trace_stops_at_a_decision_and_shows_the_answer(buggy):
    args = ["trace", "--variant", "fives", "--seed", "5", "--strategies", "buggy,random"]
    r = invoke([*args, "--strategy-path", buggy, "--decision", "1", "--json"])
    assert r.exit_code == 0, r.output
    import json

    lines = [json.loads(x) for x in r.stdout.splitlines()]
    last = lines[-1]
    assert last["type"] == "decision" and last["decision"] == 1 and last["error"] is None
    assert last["action"] == last["legal"][0]  # (buggy plays its first legal action)
    assert not any(x["type"] == "hand_end" for x in lines)
    r = invoke(["trace", "--variant", "fives", "--seed", "5", "--decision", "999"])
    assert r.exit_code == 2 and "--decision 999: hand 0 of match 0 asked " in r.stderr, r.output


def test_trace_without_debug_names_the_line_and_with_debug_the_decision(buggy):
    args = ["trace", "--variant", "fives", "--seed", "5", "--strategies", "buggy,random"]
    r = invoke([*args, "--strategy-path", buggy])
    assert _error(r).endswith(f"at {buggy}:{LINE}; fix the strategy (--debug shows the traceback)")
    assert "Traceback" not in r.stderr
    r = invoke([*args, "--strategy-path", buggy, "--debug"])
    assert f'buggy.py", line {LINE}, in helper' in r.stderr
    assert (
        "replay it: dominosim trace --variant fives --players 2 --seed 5 --match-id 0" in r.stderr
    )


def test_the_api_error_carries_the_traceback_and_the_decision(buggy, tmp_path):
    with pytest.raises(StrategyError) as e:
        # fmt: off
        dominosim.run(variants=["fives"], strategies="buggy,random", games=4, seed=5,
                      strategy_path=[buggy], out=str(tmp_path / "o"), progress=None)
        # fmt: on
    assert f"at {buggy}:{LINE};" in str(e.value)
    assert f"line {LINE}, in helper" in e.value.traceback
    assert "replay it: dominosim trace" in e.value.decision


@pytest.mark.parametrize("command", PLAYING)
def test_every_command_that_plays_takes_debug(command):
    r = invoke([command, "--help"])
    assert r.exit_code == 0 and "--debug" in r.stdout, command


def test_resume_takes_debug(tmp_path):
    assert "debug" in SESSION_OPTIONS
    r = invoke(["run", "--resume", str(tmp_path / "none"), "--debug"])
    assert r.exit_code == 5, r.output  # (not a run folder: the option itself is taken)


def test_action_values_names_a_bad_legal_list_not_the_playout_policy():
    from dominosim import strategy
    from dominosim.game import actions
    from dominosim.game.reference import Hand
    from dominosim.game.variants import make_rules

    h = Hand.deal(make_rules("fives", 2), 1, 0, 0, strategies=[strategy.get("random")] * 2)
    obs = h.observe(0)
    held = obs.hand[0]
    not_held = next(t for t in range(28) if t not in obs.hand)
    cases = [
        ([actions.place(not_held, "L")], "does not hold"),
        ([actions.place(held, "L")] * 2, "it is there twice"),
        ([actions.place(held, "R")], "position R is not open"),
    ]
    for method in ("mc:samples=8", "pimc:samples=8"):
        for legal, why in cases:
            with pytest.raises(StrategyError) as e:
                dominosim.action_values(obs, 5, method, legal=legal)
            msg = str(e.value)
            assert msg.startswith("action_values: legal holds ") and why in msg, msg
            assert "doubles-first" not in msg and "pass choose_one's legal" in msg
    with pytest.raises(StrategyError, match="legal is not this decision's legal actions"):
        dominosim.action_values(obs, 5, "pimc:samples=8", legal=[actions.place(held, "L")])


def test_check_strategy_names_the_line_and_debug_prints_the_frames(buggy):
    args = ["check-strategy", buggy, "--variant", "fives", "--check", "legal", "--deals", "2"]
    r = invoke(args)
    assert r.exit_code == 1, r.output
    assert f"choose_one raised KeyError: 'oops' at {buggy}:{LINE}; at seed 0" in r.stdout
    assert "Traceback" not in r.stderr
    r = invoke([*args, "--debug"])
    assert r.exit_code == 1 and f'buggy.py", line {LINE}, in helper' in r.stderr, r.output
    assert "dominosim/check.py" not in r.stderr


BATCH = """import numpy as np

from dominosim.strategy import Strategy, register


@register
class Rows(Strategy):
    name = "rows"

    def choose(self, obs, legal, keys):
        out = []
        for i in range(len(obs)):
            out.append(self.choose_one(obs.row(i), legal.row_list(i), int(keys[i])))
        return np.array(out)

    def choose_one(self, obs, legal, key):
        if obs.decision >= 3 and obs.seat == 1:
            raise ValueError(f"decision {obs.decision}")
        return legal[-1]
"""


def test_a_batch_strategy_is_named_at_the_row_it_read_last(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.py").write_text(BATCH, encoding="utf-8")
    # fmt: off
    r = invoke(["run", "--variant", "fives", "--strategies", "random,rows", "--games", "2",
                "--seed", "2", "--no-rotate", "--strategy-path", "rows.py", "--debug"])
    # fmt: on
    assert _error(r).startswith("error: strategy 'rows' raised ValueError: decision ")
    said = int(re.search(r"raised ValueError: decision (\d+) at rows\.py:18;", r.stderr).group(1))
    at = re.search(r"hand \d+, decision (\d+), seat (\d+) \(strategy 'rows'\)", r.stderr)
    assert at and (int(at.group(1)), at.group(2)) == (said, "1"), r.stderr


def test_action_values_raised_in_a_run_names_the_strategy_and_its_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    body = BUGGY.replace("return helper(obs, legal)", "return av(obs, key, legal=legal * 2)")
    body = "from dominosim import action_values as av\n" + body
    (tmp_path / "twice.py").write_text(body.replace('"buggy"', '"twice"'), encoding="utf-8")
    # fmt: off
    r = invoke(["run", "--variant", "fives", "--strategies", "twice,random", "--games", "2",
                "--strategy-path", "twice.py"])
    # fmt: on
    assert re.fullmatch(
        r"error: strategy 'twice' raised StrategyError: action_values: legal holds \S+, not a "
        r"legal action at this decision: it is there twice; pass choose_one's legal at "
        r"twice\.py:10; fix the strategy \(--debug shows the traceback\)",
        _error(r),
    ), r.stderr


def test_trace_run_stops_at_a_decision_of_a_recorded_hand(tmp_path):
    import json

    # fmt: off
    r = invoke(["run", "--variant", "fives", "--strategies", "greedy,random", "--games", "2",
                "--workers", "1", "--out", str(tmp_path), "--json"])
    # fmt: on
    assert r.exit_code == 0, r.output
    run_dir = json.loads(r.stdout)["run_dir"]
    r = invoke(["trace", "--run", run_dir, "--hand", "0:1:0:0", "--decision", "1", "--json"])
    assert r.exit_code == 0, r.output
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[0]["strategies"] == ["random", "greedy"] and lines[-1]["type"] == "decision"
    assert lines[-1]["decision"] == 1 and lines[-1]["action"] in lines[-1]["legal"]
