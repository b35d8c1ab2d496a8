"""Every bad input of docs/errors.md: its exit code, and one line ``error: <problem>; <fix>``.

Each row of the "Messages" table of docs/errors.md has a case here, keyed by the row's first
cell (``test_every_documented_input_has_a_case`` keeps the two in step). A case runs the
command in-process through click's test runner (or calls the library) and checks:

* the exit code of the row;
* stderr holds exactly one line starting with ``error:``, it is the last line, and the only
  other lines are the run's status lines (``seed: ...``, ``run folder: ...``);
* the message matches the row's pattern and names the fix (it has a ``; `` part);
* no ``Traceback`` anywhere in the output.

Errors inside pool workers, where a traceback could reach the terminal directly, are checked on
a real subprocess (``test_strategy_error_in_pool_workers_has_no_traceback``).
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.base.errors import DominosimError
from dominosim.cli import main
from dominosim.storage import store

from helpers import BOT
from runs import refingerprint, stop_after

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "errors.md"
STATUS = ("seed: ", "run folder: ", "games: ")
FIX = r"fix the strategy \(--debug shows the traceback\)"
RUN = [
    "run",
    "--variant",
    "fives",
    "--strategies",
    "random,heaviest",
    "--seed",
    "1",
    "--workers",
    "1",
]


# the test strategies registered here do not leak into other tests of this worker
pytestmark = pytest.mark.usefixtures("clean_registry")


# ---------------------------------------------------------------------------------------------
# files the cases need


def toml(t: Path, text: str, name: str = "exp.toml") -> str:
    p = t / name
    p.write_text(text, encoding="utf-8")
    return str(p)


def strategy_folder(t: Path, body: str, name: str = "mine") -> str:
    d = t / name
    d.mkdir(exist_ok=True)
    (d / "bot.py").write_text(body, encoding="utf-8")
    return str(d)


#: a search of the user's own: compare --equal-time knows no budget knob of it
DEEP_SEARCH = """from dominosim.strategy import Strategy, register


@register
class Deep(Strategy):
    name = "deep"
    classifier = "search"

    def choose_one(self, obs, legal, key):
        return legal[0]
"""


def bot(t: Path, name: str, body: str) -> str:
    return strategy_folder(t, BOT.format(name=name, body=body), name=name)


_FINISHED: dict[tuple, Path] = {}


def finished_run(t: Path, *extra: str) -> str:
    """A small finished run; returns its folder (a copy of one played once per process)."""
    import shutil

    src = _FINISHED.get(extra)
    if src is None or not src.is_dir():
        r = CliRunner().invoke(
            main,
            [*RUN, "--games", "8", "--chunk-size", "4", "--out", str(t / "done"), "--json", *extra],
        )
        assert r.exit_code == 0, r.output
        src = Path(json.loads(r.stdout)["run_dir"])
        keep = t / "finished-template"
        shutil.copytree(src, keep)
        _FINISHED[extra] = keep
        return str(src)
    dst = t / "done" / "fives" / "copy"
    shutil.copytree(src, dst)
    return str(dst)


def tampered_run(t: Path) -> str:
    d = finished_run(t)
    m = json.loads((Path(d) / "manifest.json").read_text())
    m["groups"][0]["rules"]["target"] = 999
    m["status"] = "interrupted"
    (Path(d) / "manifest.json").write_text(json.dumps(m))
    return d


def damaged_run(t: Path) -> str:
    d = finished_run(t)
    (Path(d) / "manifest.json").write_text("{not json")
    return d


def edited_manifest(t: Path, edit) -> str:
    """A finished run whose manifest ``edit(m)`` changed (and marked unfinished)."""
    d = finished_run(t)
    m = json.loads((Path(d) / "manifest.json").read_text())
    m["status"] = "interrupted"
    m = edit(m) or m
    try:  # (as a deliberate editor would; a manifest the plan cannot be read from stays)
        m = refingerprint(m)
    except (DominosimError, KeyError, TypeError, ValueError, AttributeError):
        pass
    (Path(d) / "manifest.json").write_text(json.dumps(m))
    return d


def raw_strategy(t: Path, text: str, name: str = "raw.py") -> str:
    """A strategy file of ``text`` (a class as the user wrote it) in its own folder."""
    d = t / "raw"
    d.mkdir(exist_ok=True)
    (d / name).write_text("from dominosim.strategy import Strategy, register\n\n" + text)
    return str(d / name)


def run_with(t: Path, name: str, body: str, *extra: str) -> list[str]:
    """``run`` of strategy ``name`` (a BOT body) against random."""
    return [
        *RUN[:4],
        f"{name},random",
        *RUN[5:],
        "--games",
        "8",
        "--chunk-size",
        "4",
        "--out",
        str(t / "o"),
        "--strategy-path",
        bot(t, name, body),
        *extra,
    ]


def old_run(t: Path) -> str:
    d = finished_run(t)
    m = json.loads((Path(d) / "manifest.json").read_text())
    del m["groups"]
    m["status"] = "interrupted"
    (Path(d) / "manifest.json").write_text(json.dumps(m))
    return d


# ---------------------------------------------------------------------------------------------
# the cases: (row of docs/errors.md, arguments, exit code, message pattern)


@dataclass
class Case:
    row: str  # the first cell of the row in docs/errors.md
    args: object  # list of arguments, or callable(tmp_path) -> list (or a DominosimError raiser)
    code: int
    pattern: str  # a regular expression the whole message (after "error: ") must match
    stop_after: int | None = None  # a Ctrl-C once the run has written that many chunks
    api: bool = False  # args is callable(tmp_path) that raises; no CLI


def _write(path, text):
    path.write_text(text)
    return path


def _cfg(text):
    return lambda t: ["run", toml(t, text), "--out", str(t / "out")]


CASES = [
    # --- experiment files ---------------------------------------------------------------------
    Case(
        "file does not exist",
        lambda t: ["run", str(t / "missing.toml")],
        2,
        r"experiment file not found: .*missing\.toml; check the path",
    ),
    Case(
        "a bare name that is neither a file nor a shipped example",
        lambda t: ["run", "no-such-example"],
        2,
        r"experiment file not found: no-such-example; check the path, or name a shipped "
        r"example \(dominosim configs lists them\)",
    ),
    Case(
        "a folder instead of a file",
        lambda t: ["run", str(t)],
        2,
        r"experiment file is a folder: .*; give a \.toml file",
    ),
    Case(
        "an experiment file that is a FIFO, a device or a link to one",
        lambda t: ["run", _zero_link(t)],
        2,
        r"experiment file .*exp\.toml is a character device, not a regular file; give a "
        r"\.toml file",
    ),
    Case(
        "an experiment file nested too deep",
        _cfg("a = " + "[" * 100_000 + "]" * 100_000 + "\n"),
        2,
        r"experiment file .*exp\.toml nests tables or arrays more than 32 deep; an experiment "
        r"file needs a few levels at most \(docs/config\.md\)",
    ),
    Case(
        "file not UTF-8",
        lambda t: ["run", str((t / "x.toml").write_bytes(b"games = \xff\n") and t / "x.toml")],
        2,
        r"not valid TOML: .*x\.toml: not UTF-8 text; save the file as UTF-8",
    ),
    Case(
        "file not readable",
        "unreadable",
        2,
        r"cannot read .*exp\.toml: Permission denied; check its permissions",
    ),
    Case(
        "TOML syntax error",
        _cfg("games = = 3\n"),
        2,
        r"not valid TOML: .*exp\.toml:1: Invalid value; fix the file at that line",
    ),
    Case(
        "unknown top-level key",
        _cfg('variants = ["fives"]\ngame = 10\n'),
        2,
        r"unknown key 'game' in .*exp\.toml \(did you mean 'games'\?\); allowed keys: name, .*",
    ),
    Case(
        "no variants",
        _cfg("games = 10\n"),
        2,
        r"no variants in .*exp\.toml; add e\.g\. variants = \[\"fives\"\] or --variant fives",
    ),
    Case("zero games", [*RUN, "--games", "0"], 2, r"--games must be an integer >= 1, not 0"),
    Case("negative games", [*RUN, "--games", "-3"], 2, r"--games must be an integer >= 1, not -3"),
    Case(
        "games not a whole number",
        [*RUN, "--games", "1.5"],
        2,
        r"--games must be an integer >= 1, not '1\.5'",
    ),
    Case(
        "zero workers",
        ["run", "--variant", "fives", "--workers", "0"],
        2,
        r"--workers must be an integer >= 1, not 0",
    ),
    Case(
        "`games`, `chunk_size`, `workers` < 1 or not an integer",
        [*RUN, "--chunk-size", "0"],
        2,
        r"--chunk-size must be an integer >= 1, not 0",
    ),
    Case(
        "`seed` not an integer",
        [*RUN[:-4], "--seed", "abc"],
        2,
        r"--seed must be an integer, not 'abc'",
    ),
    Case(
        "`players` outside 2..4",
        [*RUN, "--players", "5"],
        2,
        r"--players must be an integer from 2 to 4, not 5",
    ),
    Case(
        "`unit`",
        _cfg('variants = ["fives"]\nunit = "hands"\n'),
        2,
        r"'unit' in .*exp\.toml must be 'hand' or 'match', not 'hands' "
        r"\(did you mean 'hand'\?\)",
    ),
    Case(
        "`rotate`, `records`, `plots` not boolean",
        _cfg('variants = ["fives"]\nrotate = "yes"\n'),
        2,
        r"'rotate' in .*exp\.toml must be true or false, not 'yes'",
    ),
    Case(
        "`rotate`, `records`, `plots` not boolean",
        _cfg('variants = ["fives"]\nplots = "yes"\n'),
        2,
        r"'plots' in .*exp\.toml must be true or false, not 'yes'",
    ),
    Case(
        "`out` not a string",
        lambda t: ["run", toml(t, 'variants = ["fives"]\nout = 3\n')],
        2,
        r"'out' in .*exp\.toml must be a non-empty string, not 3",
    ),
    Case(
        "`strategy_path`",
        _cfg('variants = ["fives"]\nstrategy_path = 3\n'),
        2,
        r"'strategy_path' in .*exp\.toml must be a string or a list of strings, not 3",
    ),
    Case(
        "`name` not folder-safe",
        [*RUN, "--name", "a/b"],
        2,
        r"--name must be a folder-safe name \(letters, digits, '\.', '_', '-'\), not 'a/b'",
    ),
    Case(
        "`name` with a newline or another control character (also a trailing one)",
        [*RUN, "--name", "abc\n"],
        2,
        r"--name must be a folder-safe name \(letters, digits, '\.', '_', '-'\), not 'abc\\n'",
    ),
    Case(
        "strategy entry with a control character (`seats`, `--strategies`, a `[strategy.NAME]` "
        "value)",
        _cfg('variants = ["fives"]\nseats = ["greedy:mode=a\\nb", "random"]\n'),
        2,
        r"'seats' in .*exp\.toml: the strategy entry 'greedy:mode=a\\nb' holds a control "
        r"character \(a newline, a tab, \.\.\.\); write its parameters on one line",
    ),
    Case(
        "`variants` not a list",
        _cfg("variants = 3\n"),
        2,
        r"'variants' in .*exp\.toml must be a non-empty list of variant names or tables, "
        r"not 3",
    ),
    Case(
        "a `variants` table without `variant`",
        _cfg("variants = [{ reserve_k = [0, 2] }]\n"),
        2,
        r"a table in 'variants' in .*exp\.toml needs a 'variant' key, "
        r"e\.g\. \{ variant = \"fives\", reserve_k = \[0, 2\] \}",
    ),
    Case(
        "`[options.V]` with V not in `variants`",
        _cfg('variants = ["fives"]\n[options.threes]\ntarget = 50\n'),
        2,
        r"\[options\.threes\] in .*exp\.toml but threes is not in variants \(fives\); "
        r"add it to variants or remove the table",
    ),
    Case(
        "empty value list in a file",
        _cfg('variants = ["fives"]\n[options.fives]\nreserve_k = []\n'),
        2,
        r"fives\.reserve_k \(.*\) is an empty list; give at least one value",
    ),
    # --- --set and --strategies ---------------------------------------------------------------
    Case(
        "`--set` without `=`",
        [*RUN, "--set", "fives.reserve_k"],
        2,
        r"--set 'fives\.reserve_k': expected VARIANT\.OPTION=VALUE, "
        r"e\.g\. --set fives\.reserve_k=2",
    ),
    Case(
        "`--set` with an empty value",
        [*RUN, "--set", "fives.reserve_k="],
        2,
        r"--set 'fives\.reserve_k=': empty value; write a value or a list such as "
        r"reserve_k=0,2",
    ),
    Case(
        "bare option nobody has",
        [*RUN, "--set", "reserv_k=2"],
        2,
        r"--set 'reserv_k=2': no variant of this experiment \(fives\) has an option 'reserv_k' "
        r"\(did you mean 'reserve_k'\?\); see 'dominosim variants VARIANT'",
    ),
    Case(
        "bare option several have",
        ["run", "--variant", "fives,threes", "--workers", "1", "--set", "target=30"],
        2,
        r"--set 'target=30': option 'target' is ambiguous; write one of: "
        r"fives\.target, threes\.target",
    ),
    Case(
        "`--set` for a variant not in the experiment",
        [*RUN, "--set", "threes.target=30"],
        2,
        r"--set 'threes\.target=30': variant 'threes' is not in this experiment \(fives\); "
        r"add it with --variant threes",
    ),
    Case(
        "a value list where one rule set is played (`trace`)",
        ["trace", "--variant", "fives", "--set", "fives.reserve_k=0,2"],
        2,
        r"--set gives 2 rule sets \(.*\); this command plays one, so give one value per option",
    ),
    Case(
        "bad strategy entry",
        [*RUN[:4], "greedy:depth", *RUN[5:]],
        2,
        r"--strategies: bad parameter 'depth' in 'greedy:depth'; "
        r"write name:key=value:key2=value2",
    ),
    Case(
        "empty strategy entry",
        [*RUN[:4], "random,,heaviest", *RUN[5:]],
        2,
        r"--strategies: empty strategy entry in 'random,,heaviest'; write e\.g\. random,greedy",
    ),
    Case(
        "parameter given twice",
        [*RUN[:4], "random:d=1:d=2", *RUN[5:]],
        2,
        r"--strategies: parameter 'd' given twice in 'random:d=1:d=2'; keep one",
    ),
    Case(
        "seats do not fit players",
        [*RUN, "--players", "3"],
        2,
        r"--strategies names 2 strategies for 3 players; give one per seat, "
        r"or one name for every seat",
    ),
    Case(
        "`[strategy.X]` no seat plays",
        _cfg('variants = ["fives"]\nseats = ["random"]\n[strategy.randm]\n'),
        2,
        r"\[strategy\.randm\] in .*exp\.toml but no seat plays randm "
        r"\(did you mean 'random'\?\); seats play: random",
    ),
    # --- rules ---------------------------------------------------------------------------------
    Case(
        "unknown variant",
        ["run", "--variant", "fivs", "--workers", "1"],
        3,
        r"unknown variant 'fivs' \(did you mean 'fives'\?\); choose one of: blind, .*",
    ),
    Case(
        "unknown option",
        [*RUN, "--set", "fives.reserv_k=0"],
        3,
        r"unknown option 'reserv_k' for fives \(did you mean 'reserve_k'\?\); "
        r"its options are: .*",
    ),
    Case(
        "bad option value",
        [*RUN, "--set", "fives.reserve_k=3"],
        3,
        r"bad value '3' for fives\.reserve_k; allowed: 0, 2",
    ),
    Case(
        "target <= 0",
        [*RUN, "--set", "fives.target=0"],
        3,
        r"bad value '0' for fives\.target; allowed: integer >= 1 or none",
    ),
    Case(
        "`target=none` with whole matches",
        [*RUN, "--set", "fives.target=none", "--unit", "match"],
        3,
        r"fives\.target=none has no match end; play single hands with --unit hand, or give a "
        r"target",
    ),
    Case(
        "bad boolean",
        [*RUN, "--set", "fives.partnership=maybe"],
        3,
        r"bad value 'maybe' for fives\.partnership; use on/off \(or true/false\)",
    ),
    Case(
        "player count (library call)",
        "make_rules_5",
        3,
        r"fives is played by 2, 3 or 4 players, not 5; use 2, 3 or 4",
        api=True,
    ),
    Case(
        "`--metric matches` with unit hand (`compare`, `run --until-decided`)",
        ["compare", "--variant", "fives", "--strategies", "random,greedy", "--metric", "matches"],
        2,
        r"--metric matches ranks by match wins, but with --unit hand every game is one hand; "
        r"add --unit match, or rank by hands or points",
    ),
    Case(
        "`run --metric` without `--until-decided`",
        [*RUN, "--metric", "points"],
        2,
        r"--metric in run chooses the metric --until-decided decides on; give --until-decided "
        r"too \(dominosim compare ranks by it\)",
    ),
    Case(
        "`run --until-decided` with one strategy",
        lambda t: ["run", "--variant", "fives", "--until-decided", "--out", str(t)],
        2,
        r"--until-decided stops when every pair of strategies is told apart, but the run seats "
        r"one strategy; give two or more with --strategies",
    ),
    Case(
        "`dominosim.action_values` with a bad method, option, legal list or deal",
        lambda t: dominosim.action_values(None, 0, "nope", legal=[1, 2]),
        4,
        r"action_values: unknown method 'nope'; use one of solver, mc, pimc",
        api=True,
    ),
    Case(
        "`dominosim.load` with a bad level",
        lambda t: dominosim.load(t, level="deal"),
        2,
        r"dominosim\.load\(\): level must be 'hand' or 'match', not 'deal'",
        api=True,
    ),
    Case(
        '`dominosim.load(run, level="match")` of a folder written before per-match records',
        lambda t: _older_match_records(t),
        5,
        r"chunk 0-0 of .* has no per-match records \(written by an older dominosim\); read "
        r"level='hand' \(matches are its hands grouped by match_id\), or run the experiment again",
        api=True,
    ),
    Case(
        "a keyword of the Python API of the wrong type (`dominosim.run`, `dominosim.api.compare`, ...)",
        lambda t: dominosim.run(variants="fives", sets=3, out=t),
        2,
        r"dominosim\.run\(\): sets must be a string VARIANT\.OPTION=VALUE \(one --set\) or a list "
        r"of them, not 3 \(int\)",
        api=True,
    ),
    Case(
        "`dominosim.load` or `check_strategy` of a wrong type",
        lambda t: dominosim.load(5),
        2,
        r"dominosim\.load\(\): run_dir must be a path \(a string or pathlib\.Path\), not 5 "
        r"\(int\)",
        api=True,
    ),
    Case(
        "an unknown keyword of the Python API",
        lambda t: dominosim.api.compare(variant="fives", strategies="random,greedy", game=3),
        2,
        r"dominosim\.compare\(\) has no keyword 'game' \(did you mean 'games'\?\); its keywords "
        r"are: variant, .*",
        api=True,
    ),
    Case(
        "player count (`trace`)",
        ["trace", "--variant", "fives", "--players", "5"],
        2,
        r"Invalid value for '--players' / '-p': 5 is not in the range 2<=x<=4; "
        r"see 'dominosim trace --help'",
    ),
    Case(
        "partnership with 3 players",
        [*RUN[:4], "random", *RUN[5:], "--players", "3", "--set", "fives.partnership=on"],
        3,
        r"invalid combination: fives\.partnership needs 4 players, not 3; "
        r"drop it or use --players 4",
    ),
    Case(
        "invalid combination (RULES §15)",
        [
            "run",
            "--variant",
            "block",
            "--workers",
            "1",
            "--set",
            "block.fish_score_sum_only=on",
            "--set",
            "block.fish_difference_per_opponent=on",
        ],
        3,
        r"invalid combination: block\.fish_score_sum_only and "
        r"block\.fish_difference_per_opponent; choose one",
    ),
    Case(
        "invalid combination in a file",
        _cfg(
            'variants = ["fives"]\nplayers = 3\nseats = ["random"]\n'
            "[options.fives]\npartnership = true\n"
        ),
        3,
        r"invalid combination: fives\.partnership needs 4 players, not 3; "
        r"drop it or use --players 4 \(in .*exp\.toml\)",
    ),
    Case(
        "target of a one-hand variant (also `tune-target --variant two-lane`)",
        ["tune-target", "--variant", "two-lane", "--targets", "10,20", "--workers", "1"],
        3,
        r"two-lane has no target: a match is one hand \(§9\.11, §10\.11\); "
        r"sweep a variant with a target, e\.g\. fives",
    ),
    # --- strategies ---------------------------------------------------------------------------
    Case(
        "unknown strategy",
        [*RUN[:4], "gready", *RUN[5:]],
        4,
        r"unknown strategy 'gready' \(did you mean 'greedy'\?\); known strategies: .*",
    ),
    Case(
        "unknown strategy parameter",
        [*RUN[:4], "random:depth=3", *RUN[5:]],
        4,
        r"unknown parameter 'depth' for strategy 'random'; its parameters are: none",
    ),
    Case(
        "strategy path does not exist",
        lambda t: [*RUN, "--strategy-path", str(t / "nowhere")],
        4,
        r"strategy path .*nowhere does not exist; check --strategy-path",
    ),
    Case(
        "`check-strategy` of a file that does not exist",
        lambda t: ["check-strategy", str(t / "mine.py")],
        4,
        r"strategy file .*mine\.py does not exist; check the path",
    ),
    Case(
        "`check-strategy` of a file without a strategy",
        lambda t: [
            "check-strategy",
            str((t / "plain.py").write_text("x = 1\n") and t / "plain.py"),
        ],
        4,
        r"strategy file .*plain\.py registers no strategy; decorate a Strategy subclass with "
        r"@register \(docs/strategies\.md\)",
    ),
    Case(
        "`check-strategy --check` unknown",
        ["check-strategy", "random", "--check", "legl"],
        2,
        r"unknown check 'legl' \(did you mean 'legal'\?\); the checks are: legal, batch, "
        r"deterministic, spawn, inputs, information",
    ),
    Case(
        "strategy file with a syntax error",
        lambda t: [*RUN, "--strategy-path", strategy_folder(t, "def f(:\n    pass\n")],
        4,
        r"strategy file .*bot\.py has a syntax error at line 1: .*; fix it",
    ),
    Case(
        "strategy file that fails to load",
        lambda t: [*RUN, "--strategy-path", strategy_folder(t, "import no_such_module_xyz\n")],
        4,
        r"strategy file .*bot\.py failed to load: ModuleNotFoundError: "
        r"No module named 'no_such_module_xyz'; fix it",
    ),
    Case(
        "strategy that raises",
        lambda t: [
            *RUN[:4],
            "boom,random",
            *RUN[5:],
            "--games",
            "4",
            "--out",
            str(t / "o"),
            "--strategy-path",
            bot(t, "boom", "raise ValueError('kaboom')"),
        ],
        4,
        r"strategy 'boom' raised ValueError: kaboom at .*bot\.py:\d+; " + FIX,
    ),
    Case(
        "strategy that calls `sys.exit`",
        lambda t: [
            *RUN[:4],
            "quitter,random",
            *RUN[5:],
            "--games",
            "4",
            "--out",
            str(t / "o"),
            "--strategy-path",
            bot(t, "quitter", "sys.exit(3)"),
        ],
        4,
        r"strategy 'quitter' raised SystemExit: 3 at .*bot\.py:\d+; " + FIX,
    ),
    Case(
        "strategy that returns an illegal action",
        lambda t: [
            *RUN[:4],
            "cheat,random",
            *RUN[5:],
            "--games",
            "4",
            "--out",
            str(t / "o"),
            "--strategy-path",
            bot(t, "cheat", "return 99999"),
        ],
        4,
        r"strategy 'cheat' returned an illegal action 99999; legal were \[.*\]; "
        r"fix the strategy",
    ),
    Case(
        "strategy that raises (`trace`)",
        lambda t: [
            "trace",
            "--variant",
            "fives",
            "--strategies",
            "boom2,random",
            "--strategy-path",
            bot(t, "boom2", "raise ValueError('kaboom')"),
        ],
        4,
        r"strategy 'boom2' raised ValueError: kaboom at .*bot\.py:\d+; " + FIX,
    ),
    Case(
        "`trace --decision` past the hand's last decision",
        ["trace", "--variant", "fives", "--decision", "999"],
        2,
        r"--decision 999: hand 0 of match 0 asked \d+ decision\(s\) \(a decision is a question "
        r"with two or more legal actions\); use --decision 0\.\.\d+",
    ),
    Case(
        "`compare` with one strategy",
        lambda t: [
            "compare",
            "--variant",
            "fives",
            "--strategies",
            "random",
            "--workers",
            "1",
            "--out",
            str(t),
        ],
        2,
        r"compare needs at least two strategies, not one \('random'\); "
        r"write e\.g\. --strategies random,greedy",
    ),
    Case(
        "`skill` without random in the ladder",
        lambda t: [
            "skill",
            "--variant",
            "fives",
            "--strategies",
            "greedy,heaviest",
            "--out",
            str(t),
        ],
        2,
        r"skill measures every strategy against random, so --strategies must name random "
        r"\(it names greedy, heaviest\); add random to the list",
    ),
    Case(
        "`skill --budget` not a count",
        lambda t: ["skill", "--variant", "fives", "--budget", "lots", "--out", str(t)],
        2,
        r"--budget must be an integer >= 0 \(solver nodes per deal; 0: no solving\), "
        r"not 'lots'",
    ),
    Case(
        "`skill --accuracy-deals` not a count",
        lambda t: ["skill", "--variant", "fives", "--accuracy-deals", "-3", "--out", str(t)],
        2,
        r"--accuracy-deals must be an integer >= 0 \(deals per strategy whose decisions are "
        r"rated; 0: none\), not '-3'",
    ),
    Case(
        "`compare` with a strategy twice",
        ["compare", "--variant", "fives", "--strategies", "random,random", "--workers", "1"],
        2,
        r"--strategies names 'random' twice; compare plays each strategy once",
    ),
    Case(
        "`compare`, 3–4 players, too few strategies",
        [
            "compare",
            "--variant",
            "fives",
            "--players",
            "3",
            "--strategies",
            "random,greedy",
            "--workers",
            "1",
        ],
        2,
        r"compare with 3 players seats 3 different strategies at a table, but --strategies "
        r"names 2; give at least 3 or use --players 2",
    ),
    Case(
        "`tune-target` bad targets",
        ["tune-target", "--variant", "fives", "--targets", "0,50", "--workers", "1"],
        2,
        r"--targets must be integers >= 1 separated by commas \(e\.g\. 50,100,150\), "
        r"not '0' in '0,50'",
    ),
    Case(
        "`compare --equal-time` not a number of ms in range",
        ["compare", "--variant", "fives", "--strategies", "mc,greedy", "--equal-time", "0"],
        2,
        r"--equal-time must be a number of milliseconds per decision from 0\.05 to 1000, "
        r"e\.g\. --equal-time 10, not '0'",
    ),
    Case(
        "`compare --equal-time` with a search of your own (no budget knob)",
        lambda t: [
            *("compare", "--variant", "fives", "--strategies", "deep,greedy", "--equal-time", "5"),
            *("--strategy-path", strategy_folder(t, DEEP_SEARCH)),
        ],
        2,
        r"--equal-time sets a search's budget knob, and 'deep' is a search with none it knows "
        r"\(only mc:samples, pimc:samples\); give its budget in its entry and drop --equal-time",
    ),
    Case(
        "`tune-target` bad share",
        [
            "tune-target",
            "--variant",
            "fives",
            "--targets",
            "50,100",
            "--share",
            "2",
            "--workers",
            "1",
        ],
        2,
        r"--share must be a number in \(0, 1\], e\.g\. 0\.75, not '2'",
    ),
    Case(
        "`tune-target` with the target in `--set`",
        [
            "tune-target",
            "--variant",
            "muggins",
            "--targets",
            "50,100",
            "--set",
            "muggins.target=50",
            "--workers",
            "1",
        ],
        2,
        r"tune-target sets muggins\.target itself \(from --targets\); drop that --set",
    ),
    Case(
        "`tune` without a value list",
        ["tune", "--variant", "sniff", "--workers", "1"],
        2,
        r"tune sweeps an option: give a value list, e\.g\. --set sniff\.OPTION=A,B "
        r"\(options: dominosim variants sniff\)",
    ),
    Case(
        "`compare` / `tune` / `tune-target` without `--variant`",
        ["compare", "--strategies", "random,greedy"],
        2,
        r"compare needs --variant, e\.g\. --variant fives",
    ),
    # --- output and resume --------------------------------------------------------------------
    Case(
        "unwritable output folder",
        lambda t: [*RUN, "--games", "2", "--out", str((t / "f").write_text("x") and t / "f/sub")],
        5,
        r"cannot write .*: Not a directory; check the --out folder "
        r"\(permissions, disk space\)",
    ),
    Case(
        "full disk while writing",
        "full_disk",
        5,
        r"cannot write .*\.agg\.json: No space left on device; check the --out folder "
        r"\(permissions, disk space\); finished chunks are kept, finish with: "
        r"dominosim run --resume .*",
    ),
    Case(
        "`--resume` of a folder that is not a run",
        lambda t: ["run", "--resume", str(t)],
        5,
        r".* is not a run folder \(no manifest\.json\); give results/NAME/RUN-ID",
    ),
    Case(
        "`--resume` with experiment flags",
        lambda t: ["run", "--resume", finished_run(t), "--games", "10"],
        2,
        r"--resume continues a run as it was planned, so --games cannot be given with it; "
        r"only --workers, --strategy-path, --executor, --scheduler, --json, --debug, "
        r"--strategy-timeout and --isolate",
    ),
    Case(
        "`--resume` with an experiment file",
        lambda t: ["run", toml(t, 'variants = ["fives"]\n'), "--resume", finished_run(t)],
        2,
        r"--resume continues a run as it was planned, so CONFIG cannot be given with it; "
        r"only --workers, --strategy-path, --executor, --scheduler, --json, --debug, "
        r"--strategy-timeout and --isolate",
    ),
    Case(
        "`--resume` of another kind of run",
        lambda t: ["compare", "--resume", finished_run(t)],
        2,
        r".* is not a compare run; finish it with dominosim run --resume",
    ),
    Case(
        "`--resume` of a run whose rules differ",
        lambda t: ["run", "--resume", tampered_run(t)],
        5,
        r"the rules of group .* in the manifest differ from this version of dominosim; "
        r"resume with the version that started the run",
    ),
    Case(
        "`--resume` of a damaged manifest",
        lambda t: ["run", "--resume", damaged_run(t)],
        5,
        r"cannot read .*manifest\.json: .*; the run folder is damaged",
    ),
    Case(
        "`--resume` of a manifest missing keys",
        lambda t: ["run", "--resume", old_run(t)],
        5,
        r"the manifest is damaged or from another version \(KeyError: 'groups'\); "
        r"resume with the version that started the run, or start it again",
    ),
    Case(
        "`verify` of a run whose chunks differ from their replay",
        lambda t: ["verify", _consistent_edit(t)],
        5,
        r"2 problems in .*: it is not what its seed, strategies and plan give \(a chunk edited, "
        r"damaged or of another run\); do not use its numbers, play the run again",
    ),
    Case(
        "a FIFO, a link or a device in place of a run folder's file",
        lambda t: ["report", _fifo_manifest(t)],
        5,
        r"cannot read .*manifest\.json: it is a FIFO \(named pipe\), not a regular file; the run "
        r"folder is damaged",
    ),
    Case(
        "a run folder's file larger than its kind can be",
        lambda t: ["report", _giant_manifest(t)],
        5,
        r"cannot read .*manifest\.json: it is 1,500,000,000 bytes, more than the 4,194,304 such "
        r"a file can have; the run folder is damaged",
    ),
    Case(
        "a manifest field that disagrees with its plan",
        lambda t: ["run", "--resume", edited_manifest(t, lambda m: m.update(rotations=[]))],
        5,
        r"the manifest is damaged or from another version \(ValueError: 'rotations' is \[\], not "
        r"\[.*\] \(the seat rotations its seats give with 'rotate' on\)\); resume with the "
        r"version that started the run, or start it again",
    ),
    Case(
        "a manifest whose recorded strategy classes are damaged",
        lambda t: [
            "report",
            edited_manifest(t, lambda m: m.update(classes={"perfect_information": ["mc"]})),
        ],
        5,
        r"the manifest's classes field is damaged \(not the run's strategy classes\); take "
        r"the folder again from its source, or start the run again",
    ),
    Case(
        "`verify` of a folder whose recorded strategy classes are not its strategies'",
        lambda t: [
            "verify",
            edited_manifest(t, lambda m: m["classes"].update(heuristics=["random"])),
        ],
        5,
        r".*manifest\.json: its classes field is not what its strategies say \(heuristics: "
        r"\['random'\] in the folder, \[.*\] by the strategies\); the folder was edited: do "
        r"not use its numbers, play the run again",
    ),
    Case(
        "`report` of a folder that is not a run",
        lambda t: ["report", str(t)],
        5,
        r".* is not a run folder \(no manifest\.json\); give results/NAME/RUN-ID",
    ),
    # --- issue 18: inputs in range, strategies that cannot corrupt a run ----------------------
    Case(
        "`seed` outside [0, 2^64)",
        [*RUN[:-4], "--seed", "-1", "--games", "2"],
        2,
        r"--seed must be an integer from 0 to 2\*\*64-1, not -1",
    ),
    Case(
        "option value beyond what the records hold",
        [*RUN, "--set", "fives.target=99999999999999999999"],
        3,
        r"bad value '99999999999999999999' for fives\.target; allowed: integer >= 1 or none, "
        r"at most 2147483647 \(the records hold 32-bit numbers\)",
    ),
    Case(
        "a match that does not end within 1,000 hands (`--unit match`, `trace --match`)",
        [*RUN, "--games", "8", "--unit", "match", "--set", "fives.target=2147483647"],
        3,
        r"a match of fives\[target=2147483647\] did not end within 1000 hands, the most one "
        r"match may last; lower fives\.target",
    ),
    Case(
        "`cumulative_hands` above the most hands of a match",
        ["run", "--variant", "two-lane", "--set", "two-lane.cumulative_hands=2000"],
        3,
        r"bad value '2000' for two-lane\.cumulative_hands; allowed: off or integer >= 2, at most "
        r"1000 \(the most hands one match may last\)",
    ),
    Case(
        "`games` beyond what the engine can number",
        [*RUN, "--games", str(10**30)],
        2,
        r"--games must be at most \d+, not 10{30}",
    ),
    Case(
        "`trace --match-id` outside [0, 2^64)",
        ["trace", "--variant", "fives", "--match-id", str(2**64)],
        2,
        r"--match-id must be an integer from 0 to 2\*\*64-1, not 18446744073709551616",
    ),
    Case(
        "`chunk_size` too large",
        [*RUN, "--chunk-size", str(10**10)],
        2,
        r"--chunk-size must be at most 10000000 \(a chunk is held in memory\), not 10000000000",
    ),
    Case(
        "`mc:samples` too large",
        [*RUN[:4], "mc:samples=1000000000,random", *RUN[5:], "--games", "2"],
        4,
        r"mc: samples must be at most 100000, not 1000000000; use a smaller samples",
    ),
    Case(
        "`pimc:budget` too large, or a bad `objective`",
        [*RUN[:4], "pimc:budget=1000000000,random", *RUN[5:], "--games", "2"],
        4,
        r"pimc: budget must be at most 50000000, not 1000000000; use a smaller budget",
    ),
    Case(
        "`learned:model=FILE` that is not a model file",
        lambda t: [
            *RUN[:4],
            f"learned:model={_write(t / 'm.json', 'not json')},random",
            *RUN[5:],
            "--games",
            "2",
            "--out",
            str(t / "out"),
        ],
        4,
        r"learned: model .*m\.json is not JSON; give a model file that `dominosim train` wrote",
    ),
    Case(
        "`dominosim train` with a bad budget, opponent or output",
        lambda t: ["train", "--variant", "fives", "--population", "2", "--out", str(t / "m.json")],
        2,
        r"--population must be at least 4 \(the elite is a quarter of it\)",
    ),
    Case(
        "`pimc:temp` out of range, or `infer` not on or off",
        [*RUN[:4], "pimc:temp=0,random", *RUN[5:], "--games", "2"],
        4,
        r"pimc: temp must be a number from 0\.05 to 1000\.0, not 0",
    ),
    Case(
        "bad `--strategy-timeout`",
        [*RUN, "--games", "2", "--strategy-timeout", "soon"],
        2,
        r"--strategy-timeout must be a number of seconds from 0\.001 to 86400 \(0: no limit\), "
        r"not 'soon'",
    ),
    Case(
        "`--strategy-timeout` out of range",
        [*RUN, "--games", "2", "--strategy-timeout", "1e10"],
        2,
        r"--strategy-timeout must be a number of seconds from 0\.001 to 86400 \(0: no limit\), "
        r"not '1e10'",
    ),
    Case(
        "strategy slower than `--strategy-timeout`",
        lambda t: run_with(t, "stuck", "while True: pass", "--strategy-timeout", "0.2"),
        4,
        r"strategy 'stuck' did not return a decision batch within 0\.2 s "
        r"\(--strategy-timeout\); fix the strategy or raise the limit",
    ),
    Case(
        "strategy that returns a float or a string (`run` and `trace`)",
        lambda t: run_with(t, "floaty", "return legal[0] + 0.5"),
        4,
        r"strategy 'floaty' returned \d+\.5 \(float\), not an action; an action is an integer "
        r"code of dominosim\.actions; fix the strategy",
    ),
    Case(
        "strategy class without a name",
        lambda t: [
            *RUN,
            "--strategy-path",
            raw_strategy(t, "@register\nclass X(Strategy):\n    pass\n"),
        ],
        4,
        r"strategy class X in .*raw\.py has no name; set name = \"my-bot\" in the class",
    ),
    Case(
        "strategy name that `--strategies` cannot write",
        lambda t: [
            *RUN,
            "--strategy-path",
            raw_strategy(t, "@register\nclass X(Strategy):\n    name = 'my bot'\n"),
        ],
        4,
        r"strategy name 'my bot' in .*raw\.py cannot be written in --strategies; use letters "
        r"\(any alphabet\), digits, '_', '-' or '\.', starting with a letter or '_'",
    ),
    Case(
        "strategy `params = None`",
        lambda t: [
            *RUN,
            "--strategy-path",
            raw_strategy(t, "@register\nclass X(Strategy):\n    name = 'x'\n    params = None\n"),
        ],
        4,
        r"strategy 'x' in .*raw\.py: params must be a dict of parameter defaults, not None; "
        r"write params = \{\} for none",
    ),
    Case(
        'strategy `classifier = "smart"`',
        lambda t: [
            *RUN,
            "--strategy-path",
            raw_strategy(
                t, "@register\nclass X(Strategy):\n    name = 'x'\n    classifier = 'smart'\n"
            ),
        ],
        4,
        r"strategy 'x' in .*raw\.py: classifier must be one of random, heuristic, search, "
        r"perfect_information, not 'smart'; see docs/strategies\.md, Classifiers",
    ),
    Case(
        "strategy `__init__` that raises",
        lambda t: [
            *RUN[:4],
            "sulky,random",
            *RUN[5:],
            "--strategy-path",
            raw_strategy(
                t,
                "@register\nclass X(Strategy):\n    name = 'sulky'\n"
                "    def __init__(self, **k):\n"
                "        raise RuntimeError('no')\n",
            ),
        ],
        4,
        r"strategy 'sulky' failed to start: RuntimeError: no; fix its __init__",
    ),
    Case(
        "strategy `__init__` that changes its object's class",
        lambda t: [
            *RUN[:4],
            "swap,random",
            *RUN[5:],
            "--strategy-path",
            raw_strategy(
                t,
                "@register\nclass X(Strategy):\n    name = 'swap'\n"
                "    def __init__(self, **k):\n"
                "        super().__init__(**k)\n"
                "        self.__class__ = Y\n"
                "class Y(X):\n    pass\n",
            ),
        ],
        4,
        r"strategy 'swap' changed its class in __init__ \(to Y\); a strategy plays as the "
        r"class it registered: fix its __init__",
    ),
    Case(
        "`seats` written as one string in a file",
        _cfg('variants = ["fives"]\nseats = "greedy,random"\n'),
        2,
        r"'seats' in .*exp\.toml is one string 'greedy,random'; write a list, one entry per "
        r'seat: seats = \["greedy", "random"\]',
    ),
    Case(
        "a setting with a control character",
        [*RUN, "--games", "4", "--set", "fives.reserve_k=2\n"],
        2,
        r"--set 'fives\.reserve_k=2\\n' holds a control character \('\\n'\); remove it \(a "
        r"newline pasted with the value\?\)",
    ),
    Case(
        "`--strategy-path` that is a device or a FIFO",
        ["strategies", "--strategy-path", "/dev/zero"],
        4,
        r"strategy path /dev/zero is not a folder or a \.py file; check --strategy-path",
    ),
    Case(
        "a FIFO or a device named `.py` in a strategy folder",
        lambda t: ["strategies", "--strategy-path", _fifo_bot(t)],
        4,
        r"strategy file .*a\.py is a FIFO \(named pipe\), not a regular file; give a \.py file",
    ),
    Case(
        "strategy that returns an integer beyond every action code",
        lambda t: run_with(t, "huge", "return 2**70"),
        4,
        r"strategy 'huge' returned an illegal action 1180591620717411303424; action codes are 0 "
        r"to 338 \(dominosim\.actions\); fix the strategy",
    ),
    Case(
        "strategy that raises its own BaseException",
        lambda t: run_with(t, "odd", "raise type('Odd', (BaseException,), {})('odd one')"),
        4,
        r"strategy 'odd' raised Odd \(a BaseException, not an Exception\): odd one at .*bot\.py:\d+; "
        + FIX,
    ),
    Case(
        "strategy that raises MemoryError",
        lambda t: run_with(t, "hog", "raise MemoryError"),
        4,
        r"strategy 'hog' raised MemoryError \(out of memory\) at .*bot\.py:\d+; " + FIX,
    ),
    Case(
        "`check-strategy` of a strategy that ends its process",
        lambda t: [
            "check-strategy",
            bot(t, "ender", "__import__('os')._exit(1)") + "/bot.py",
            "--variant",
            "fives",
        ],
        4,
        r"strategy 'ender' ended the check's process \(exit code 1: os\._exit or a kill in the "
        r"strategy, or a crash\); fix the strategy",
    ),
    Case(
        "`check-strategy` of a strategy slower than `--strategy-timeout`",
        lambda t: [
            "check-strategy",
            bot(t, "slow", "__import__('time').sleep(600)") + "/bot.py",
            "--variant",
            "fives",
            "--strategy-timeout",
            "0.1",
        ],
        4,
        r"strategy 'slow' did not return within 0\.1 s \(--strategy-timeout\); fix the "
        r"strategy or raise the limit",
    ),
    Case(
        "`--strategy-path` that is not a folder or a `.py` file",
        lambda t: [
            *RUN,
            "--strategy-path",
            str((t / "notes.txt").write_text("x") and t / "notes.txt"),
        ],
        4,
        r"strategy path .*notes\.txt is not a folder or a \.py file; check --strategy-path",
    ),
    Case(
        "a worker process that dies",
        lambda t: run_with(t, "exiter", "__import__('os')._exit(3)", "--workers", "2"),
        6,
        r"chunk 0-\d+ failed: its worker process exited with code 3 \(os\._exit in a strategy, "
        r"or a crash\); no chunk was finished",
    ),
    Case(
        "strategy that raises KeyboardInterrupt or GeneratorExit",
        lambda t: run_with(t, "ctrl", "raise KeyboardInterrupt", "--workers", "2"),
        4,
        r"strategy 'ctrl' raised KeyboardInterrupt at .*bot\.py:\d+; " + FIX,
    ),
    Case(
        "a strategy that calls `os._exit` (one chunk, one worker)",
        lambda t: run_with(t, "exiter0", "__import__('os')._exit(0)", "--games", "4"),
        6,
        r"chunk 0-0 failed: its worker process exited with code 0 \(os\._exit in a strategy, "
        r"or a crash\); no chunk was finished",
    ),
    Case(
        "strategy file that calls `os._exit` at import",
        lambda t: [*RUN, "--strategy-path", strategy_folder(t, "import os\nos._exit(0)\n")],
        4,
        r"strategy path .*mine ended its process while loading \(exit code 0: os\._exit at "
        r"import, or a crash\); fix it",
    ),
    Case(
        "strategy file that loops at import (`--strategy-timeout`)",
        lambda t: [
            *RUN,
            "--strategy-timeout",
            "0.5",
            "--strategy-path",
            strategy_folder(t, "while True:\n    pass\n"),
        ],
        4,
        r"strategy path .*mine did not load within 0\.5 s \(--strategy-timeout: a loop or a wait "
        r"at import or in __init__\); fix it or raise the limit",
    ),
    Case(
        "`--isolate`: a strategy that ends its process",
        lambda t: [
            *RUN[:4],
            "gone,random",
            *RUN[5:],
            "--games",
            "4",
            "--isolate",
            "--strategy-path",
            bot(t, "gone", "__import__('os')._exit(0)"),
        ],
        4,
        r"strategy 'gone' ended its process \(exit code 0: os\._exit, or a crash\); fix the "
        r"strategy",
    ),
    Case(
        "strategy `__init__` that calls `os._exit`",
        lambda t: [
            *RUN[:4],
            "vanisher,random",
            *RUN[5:],
            "--strategy-path",
            raw_strategy(
                t,
                "@register\nclass X(Strategy):\n    name = 'vanisher'\n"
                "    def __init__(self, **k):\n"
                "        __import__('os')._exit(0)\n",
            ),
        ],
        4,
        r"strategy 'vanisher' ended its process in __init__ \(exit code 0: os\._exit, or a "
        r"crash\); fix its __init__",
    ),
    Case(
        "strategy that calls `os._exit` (`trace`)",
        lambda t: [
            "trace",
            "--variant",
            "fives",
            "--strategies",
            "gone,random",
            "--strategy-path",
            bot(t, "gone", "__import__('os')._exit(0)"),
        ],
        4,
        r"a strategy of --strategy-path ended the trace's process \(exit code 0: os\._exit in "
        r"a strategy, or a crash\); fix the strategy",
    ),
    Case(
        "strategy file that calls `sys.exit` at import",
        lambda t: [*RUN, "--strategy-path", strategy_folder(t, "import sys\nsys.exit(0)\n")],
        4,
        r"strategy file .*bot\.py failed to load: SystemExit: 0; fix it",
    ),
    Case(
        "`trace --run` with a match id the run did not play",
        lambda t: ["trace", "--run", finished_run(t), "--hand", "0:0:4000:0"],
        2,
        r"run .* played match ids 0 to 3, not 4000; give a match id of its records",
    ),
    # --- issue 18: results that can be trusted -------------------------------------------------
    Case(
        "`--resume` after a strategy file changed",
        "strategy_changed",
        5,
        r"strategy file .*bot\.py changed since the run .* began \(or is missing\), so its "
        r"games would mix two versions of it; start a new run \(dominosim run with the "
        r"settings of its manifest\.json 'experiment'\) or restore the file",
    ),
    Case(
        "`trace --run` after a strategy file changed",
        "strategy_changed_trace",
        5,
        r"strategy file .*bot\.py changed since the run .* began \(or is missing\), so its "
        r"games would mix two versions of it; start a new run \(.*\) or restore the file",
    ),
    Case(
        "`--resume` / `verify` / `trace --run` of a run of your own strategy file, not named",
        lambda t: ["verify", _bot_run(t)],
        2,
        r"verify: strategy file .*bot\.py is a user file \(not a built-in\), and a run folder's "
        r"code is run only where you name it; name it, or the folder holding it, with "
        r"--strategy-path .*first",
    ),
    Case(
        "a manifest naming a strategy file under /proc, through a link or with `..`",
        lambda t: ["verify", _planted_run(t), "--strategy-path", str(t / "first")],
        2,
        r"verify: the manifest names the strategy file '/proc/self/cwd/bot\.py', a file of the "
        r"system's /proc; a run folder is data and no path it names is run: name your own "
        r"copy of the strategy with --strategy-path DIR",
    ),
    Case(
        "an older manifest whose seated strategy file changed",
        lambda t: ["verify", _older_bot_run(t), "--strategy-path", str(t / "first")],
        5,
        r"verify: strategy file .*bot\.py changed since the run began \(or is missing\), and "
        r"the run seats 'first', which no other file defines; restore the file, or start a "
        r"new run",
    ),
    Case(
        "`dominosim.load` of a finished run with a damaged or missing chunk",
        lambda t: dominosim.load(_damaged_chunk_run(t)),
        5,
        r"chunk 0-1 of the finished run .*: its records file .*; play it again with: dominosim "
        r"run --resume .*",
        api=True,
    ),
    Case(
        "`--resume` / `trace --run` of a manifest naming a file inside the run folder",
        lambda t: ["trace", "--hand", "0:0:1:0", "--run", _inside_run(t)],
        5,
        r"the manifest of .* names a strategy file inside the run folder \(.*evil\.py\); a run "
        r"folder is data and none of its files is ever run: use your own copy of the strategy "
        r"and start a new run",
    ),
    Case(
        "`--resume` / `trace --run` of a manifest with a bad strategy file entry",
        lambda t: [
            "run",
            "--resume",
            edited_manifest(
                t,
                lambda m: m["inputs"]["strategy_files"].append(
                    {"path": "evil.py", "sha256": "0" * 64}
                ),
            ),
        ],
        5,
        r"the manifest is damaged or from another version \(ValueError: strategy file entry "
        r"\{.*\} is not an absolute path of a \.py file\); resume with the version that "
        r"started the run, or start it again",
    ),
    Case(
        "a strategy file that changes while it is loaded",
        "changed_while_loaded",
        4,
        r"strategy file .*bot\.py is not the file the run recorded \(its content changed or "
        r"it is another file\); restore it, or start a new run",
    ),
    Case(
        "`--resume` of a run folder with a link among its own files",
        lambda t: ["run", "--resume", _linked_chunks(t)],
        5,
        r".*/chunks is a symbolic link; dominosim writes only into a run folder's own files: "
        r"replace the link by a copy of what it points to \(or copy the folder with cp -rL\), "
        r"then resume",
    ),
    Case(
        "`--resume` after the engine changed",
        lambda t: [
            "run",
            "--resume",
            edited_manifest(t, lambda m: m["inputs"].update(engine_version=0)),
        ],
        5,
        r"the engine changed since the run .* began \(engine version 0, now \d+\), so its "
        r"chunks would mix two engines; start a new run \(.*\) or resume with the version "
        r"that began it",
    ),
    Case(
        "`--resume` of a run without engine version",
        lambda t: ["run", "--resume", edited_manifest(t, lambda m: m.pop("inputs") and None)],
        5,
        r"the manifest of .* records no engine version or strategy files \(made by an older "
        r"dominosim\); resume with the version that started the run, or start a new run",
    ),
    Case(
        "`report` / `--resume` of a manifest with wrong types (`chunks: null`)",
        lambda t: ["report", edited_manifest(t, lambda m: m.update(chunks=None))],
        5,
        r"the manifest is damaged or from another version \(TypeError: 'chunks' is None, not "
        r"a list\); resume with the version that started the run, or start it again",
    ),
    Case(
        "`report` / `--resume` of a manifest that is a JSON list",
        lambda t: ["run", "--resume", edited_manifest(t, lambda m: [m])],
        5,
        r"cannot read .*manifest\.json: a JSON list, not an object; the run folder is damaged",
    ),
    Case(
        "`report` of a run whose aggregates.parquet changed",
        lambda t: [
            "report",
            str((Path(d := finished_run(t)) / "aggregates.parquet").open("ab").write(b"x") and d),
        ],
        5,
        r".*aggregates\.parquet is not the file the run wrote \(edited or damaged\); write it "
        r"again from the chunks with: dominosim run --resume .*",
    ),
    Case(
        "`--resume` of a folder another process plays",
        "locked",
        5,
        r".* is being played by another dominosim process; wait for it to finish or stop it, "
        r"then resume",
    ),
    # --- the command line itself --------------------------------------------------------------
    Case(
        "unknown command",
        ["frobnicate"],
        2,
        r"No such command 'frobnicate'; see 'dominosim --help'",
    ),
    Case(
        "unknown flag", ["run", "--frob"], 2, r"No such option '--frob'; see 'dominosim run --help'"
    ),
    Case(
        "bad flag value",
        [*RUN, "--unit", "hands"],
        2,
        r"Invalid value for '--unit': 'hands' is not one of 'hand', 'match'; "
        r"see 'dominosim run --help'",
    ),
    Case(
        "missing required argument",
        ["report"],
        2,
        r"Missing argument 'RUN_DIR'; see 'dominosim report --help'",
    ),
    Case(
        "`trace` without `--variant`",
        ["trace"],
        2,
        r"trace needs --variant, e\.g\. --variant fives \(list: dominosim variants\)",
    ),
    Case(
        "`--executor dask` without `--scheduler`",
        [*RUN, "--executor", "dask"],
        2,
        r"--executor dask needs --scheduler tcp://HOST:PORT",
    ),
    Case(
        "`--scheduler` of another scheme (`tls://`, `ucx://`, ...)",
        [*RUN, "--executor", "dask", "--scheduler", "tls://10.0.0.5:8786"],
        2,
        r"--scheduler 'tls://10\.0\.0\.5:8786': dominosim connects to a Dask scheduler over tcp "
        r"only, not tls://; give its address as tcp://HOST:PORT",
    ),
    Case(
        "`--scheduler` that is not an address",
        [*RUN, "--executor", "dask", "--scheduler", "tcp://:99999"],
        2,
        r"--scheduler 'tcp://:99999' is not an address tcp://HOST:PORT \(port 1 to 65535\); "
        r"give the scheduler's address, e\.g\. tcp://10\.0\.0\.5:8786",
    ),
    Case(
        "`~user` that names no home folder (`--out`, `out`, `--strategy-path`, `strategy_path`, "
        "`check-strategy PATH`)",
        [*RUN, "--out", "~nosuchuser/x"],
        2,
        r"--out '~nosuchuser/x': ~nosuchuser names no home folder \(no such user, or no HOME\); "
        r"give a full path, or \./~nosuchuser/x for a folder named ~nosuchuser",
    ),
    # --- interruption -------------------------------------------------------------------------
    Case(
        "Ctrl-C during a run",
        lambda t: [*RUN, "--games", "24", "--chunk-size", "4", "--out", str(t / "o")],
        130,
        r"interrupted: 2 of 6 chunks kept in .*; finish with: dominosim run --resume .*",
        stop_after=2,
    ),
    Case("Ctrl-C outside a run", "ctrl_c_trace", 130, r"interrupted; finished work is kept"),
]

BY_ROW = {c.row: c for c in CASES}


def check_stderr(r, code: int, pattern: str) -> str:
    """The assertions every bad input shares; returns the message."""
    assert r.exit_code == code, (r.exit_code, r.output, r.exception)
    assert "Traceback" not in r.output and "Traceback" not in r.stderr
    assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), repr(
        r.exception
    )
    lines = r.stderr.splitlines()
    errors = [x for x in lines if x.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], r.stderr
    assert all(x.startswith(STATUS) for x in lines[:-1]), r.stderr
    message = errors[0][len("error: ") :]
    assert re.fullmatch(pattern, message), f"\n{message}\n{pattern}"
    assert any(x in message for x in ("; ", " must be ", " needs ", "e.g.")), message
    return message


@pytest.mark.parametrize("case", CASES, ids=[c.row for c in CASES])
def test_bad_input(case: Case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a run that gets past the check writes under results/ here
    if case.stop_after is not None:
        stop_after(monkeypatch, case.stop_after)
    if case.api:
        from dominosim.game.variants import make_rules

        with pytest.raises(DominosimError) as e:
            case.args(tmp_path) if callable(case.args) else make_rules("fives", 5)
        assert e.value.exit_code == case.code
        assert re.fullmatch(case.pattern, str(e.value)) and "\n" not in str(e.value)
        return
    # fmt: off
    special = {"unreadable": _unreadable, "full_disk": _full_disk, "ctrl_c_trace": _ctrl_c,
               "strategy_changed": _strategy_changed, "locked": _locked,
               "strategy_changed_trace": _strategy_changed_trace,
               "changed_while_loaded": _changed_while_loaded}
    # fmt: on
    if isinstance(case.args, str):
        special[case.args](case, tmp_path, monkeypatch)
        return
    args = case.args(tmp_path) if callable(case.args) else case.args
    r = CliRunner().invoke(main, args, prog_name="dominosim")
    check_stderr(r, case.code, case.pattern)


def _older_match_records(t):
    """A run whose chunk names no per-match records (as an older version wrote), read at the
    match level."""
    from dominosim.storage.store import checksum

    rep = dominosim.run(variants=["fives"], players=2, games=4, seed=1, workers=1, out=str(t))
    (agg,) = (Path(rep["run_dir"]) / "chunks").glob("*.agg.json")
    doc = json.loads(agg.read_text())
    del doc["match_parquet"], doc["checksum"]
    agg.write_text(json.dumps({**doc, "checksum": checksum(doc)}))
    dominosim.load(rep["run_dir"], level="match")


def _unreadable(case, t, monkeypatch):
    from dominosim.base import bounded

    path = toml(t, 'variants = ["fives"]\n')
    real = bounded.read

    def deny(p, *a, **k):
        if os.path.realpath(p) == os.path.realpath(path):
            raise PermissionError(errno.EACCES, "Permission denied", path)
        return real(p, *a, **k)

    monkeypatch.setattr(bounded, "read", deny)
    check_stderr(CliRunner().invoke(main, ["run", path]), case.code, case.pattern)


def _strategy_changed(case, t, monkeypatch):
    """A strategy file edited between an interruption and --resume: refused."""
    stop_after(monkeypatch, 1)
    r = CliRunner().invoke(main, run_with(t, "first", "return legal[0]"))
    assert r.exit_code == 130, r.output
    stop_after(monkeypatch, None)
    (d,) = (t / "o" / "fives").iterdir()
    f = t / "first" / "bot.py"
    f.write_text(f.read_text().replace("legal[0]", "legal[-1]"))
    named = ["--strategy-path", str(t / "first")]
    r = CliRunner().invoke(main, ["run", "--resume", str(d), *named])
    check_stderr(r, case.code, case.pattern)


def _edited_bot_run(t, monkeypatch) -> tuple[Path, Path]:
    """A finished run of a user's strategy file, and the file, edited since."""
    r = CliRunner().invoke(main, run_with(t, "first", "return legal[0]"))
    assert r.exit_code == 0, r.output
    (d,) = (t / "o" / "fives").iterdir()
    f = t / "first" / "bot.py"
    f.write_text(f.read_text().replace("legal[0]", "legal[-1]"))
    return d, f


def _strategy_changed_trace(case, t, monkeypatch):
    """A strategy file edited after a run: trace --run refuses to replay its hands."""
    d, _ = _edited_bot_run(t, monkeypatch)
    named = ["--strategy-path", str(t / "first")]
    r = CliRunner().invoke(main, ["trace", "--run", str(d), "--hand", "0:0:1:0", *named])
    check_stderr(r, case.code, case.pattern)


def _changed_while_loaded(case, t, monkeypatch):
    """The file changes between the check of the run's inputs and its load (simulated: the
    check is told nothing changed): the load reads it once, checks it and refuses."""
    from dominosim import runner

    d, _ = _edited_bot_run(t, monkeypatch)
    monkeypatch.setattr(runner.session, "changed_strategy_file", lambda files: None)
    named = ["--strategy-path", str(t / "first")]
    r = CliRunner().invoke(main, ["trace", "--run", str(d), "--hand", "0:0:1:0", *named])
    check_stderr(r, case.code, case.pattern)


def _bot_run(t: Path) -> str:
    """A finished run of a user's strategy file (t/first/bot.py)."""
    r = CliRunner().invoke(main, [*run_with(t, "first", "return legal[0]"), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["run_dir"]


def _planted_run(t: Path) -> str:
    """A run whose manifest names /proc/self/cwd/bot.py with the sha256 of a file there."""
    d = Path(_bot_run(t))
    m = json.loads((d / "manifest.json").read_text())
    digest = next(e["sha256"] for e in m["inputs"]["strategy_files"] if "path" in e)
    m["inputs"]["strategy_files"].append({"path": "/proc/self/cwd/bot.py", "sha256": digest})
    (d / "manifest.json").write_text(json.dumps(refingerprint(m)))
    return str(d)


def _older_bot_run(t: Path) -> str:
    """A run whose manifest is of before issue 46 (no ``strategy_files_of``), its seated file
    changed since."""
    d = Path(_bot_run(t))
    m = json.loads((d / "manifest.json").read_text())
    del m["inputs"]["strategy_files_of"]
    (d / "manifest.json").write_text(json.dumps(m))
    f = t / "first" / "bot.py"
    f.write_text(f.read_text().replace("legal[0]", "legal[-1]"))
    return str(d)


def _damaged_chunk_run(t: Path) -> str:
    d = Path(finished_run(t, "--chunk-size", "2"))
    (d / "chunks" / "0-1.parquet").write_bytes(b"damaged")
    return str(d)


def _zero_link(t: Path) -> str:
    p = t / "exp.toml"
    p.symlink_to("/dev/zero")
    return str(p)


def _fifo_bot(t: Path) -> str:
    d = t / "fifo-bots"
    d.mkdir()
    os.mkfifo(d / "a.py")
    return str(d)


def _fifo_manifest(t: Path) -> str:
    d = Path(finished_run(t))
    (d / "manifest.json").unlink()
    os.mkfifo(d / "manifest.json")
    return str(d)


def _giant_manifest(t: Path) -> str:
    d = Path(finished_run(t))
    with open(d / "manifest.json", "r+b") as f:
        f.truncate(1_500_000_000)
    return str(d)


def _consistent_edit(t: Path) -> str:
    """A finished run with a chunk edited consistently (its checksum recomputed)."""
    d = Path(finished_run(t))
    p = d / "chunks" / "0-1.agg.json"
    doc = json.loads(p.read_text())
    for row in doc["rows"]:
        if row[0] == "seat_hand_wins" and row[1] == 0:
            row[-1] += 1 if row[2] == 0 else -1
    doc["checksum"] = store.checksum({k: v for k, v in doc.items() if k != "checksum"})
    p.write_text(json.dumps(doc))
    return str(d)


def _inside_run(t: Path) -> str:
    """A run whose manifest lists a strategy file shipped inside the run folder, with its
    hash."""
    import hashlib

    d = Path(edited_manifest(t, lambda m: None))
    f = d / "evil.py"
    f.write_text("raise SystemExit('never imported')\n")
    m = json.loads((d / "manifest.json").read_text())
    m["inputs"]["strategy_files"].append(
        {"path": str(f), "sha256": hashlib.sha256(f.read_bytes()).hexdigest()}
    )
    (d / "manifest.json").write_text(json.dumps(refingerprint(m)))
    return str(d)


def _linked_chunks(t: Path) -> str:
    d = Path(edited_manifest(t, lambda m: None))
    other = t / "other-chunks"
    (d / "chunks").rename(other)
    (d / "chunks").symlink_to(other)
    return str(d)


def _locked(case, t, monkeypatch):
    d = edited_manifest(t, lambda m: None)
    with store.RunDir(d).locked():
        r = CliRunner().invoke(main, ["run", "--resume", d])
    check_stderr(r, case.code, case.pattern)


def _ctrl_c(case, t, monkeypatch):
    import dominosim.trace as T

    def interrupt(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "trace_from_cli", interrupt)
    r = CliRunner().invoke(main, ["trace", "--variant", "fives"])
    check_stderr(r, case.code, case.pattern)


def _full_disk(case, t, monkeypatch):
    """The disk fills while the third chunk is written: exit 5, the first two chunks are kept,
    and --resume finishes the run with the numbers of an uninterrupted one."""
    args = [*RUN, "--games", "24", "--chunk-size", "4", "--json"]
    calls = []
    real = store.write_bytes

    def full(path, data):
        if str(path).endswith(".agg.json"):
            calls.append(path)
            if len(calls) >= 3:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, data)

    monkeypatch.setattr(store, "write_bytes", full)
    r = CliRunner().invoke(main, [*args, "--out", str(t / "a")])
    check_stderr(r, case.code, case.pattern)
    (run_dir,) = (t / "a" / "fives").iterdir()
    assert sorted(p.name for p in (run_dir / "chunks").glob("*.agg.json")) == [
        "0-0.agg.json",
        "0-1.agg.json",
    ]
    monkeypatch.setattr(store, "write_bytes", real)
    resumed = CliRunner().invoke(main, ["run", "--resume", str(run_dir), "--workers", "1"])
    assert resumed.exit_code == 0, resumed.output
    full_run = CliRunner().invoke(main, [*args, "--out", str(t / "b")])
    assert full_run.exit_code == 0, full_run.output
    other = Path(json.loads(full_run.stdout)["run_dir"])
    pd.testing.assert_frame_equal(
        pd.read_parquet(run_dir / "aggregates.parquet"),
        pd.read_parquet(other / "aggregates.parquet"),
    )


# ---------------------------------------------------------------------------------------------
# docs/errors.md and the cases stay in step


def documented_rows() -> dict[str, tuple[str, int]]:
    """The "Messages" table of docs/errors.md: first cell -> (pattern cell, code)."""
    text = DOC.read_text(encoding="utf-8").split("## Messages", 1)[1]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[-1].isdigit():
            rows[cells[0]] = (" | ".join(cells[1:-1]), int(cells[-1]))
    return rows


def test_every_documented_input_has_a_case():
    rows = documented_rows()
    assert len(rows) >= 25
    assert sorted(set(rows) - set(BY_ROW)) == [], "rows of docs/errors.md without a case"
    assert sorted(set(BY_ROW) - set(rows)) == [], "cases not documented in docs/errors.md"
    for row, (_, code) in rows.items():
        assert BY_ROW[row].code == code, row


def test_exit_codes_table_matches_the_classes():
    from dominosim.base import errors as E

    text = DOC.read_text(encoding="utf-8")
    for cls in (E.ConfigError, E.RulesError, E.StrategyError, E.OutputError, E.Interrupted):
        assert f"| `{cls.__name__}` | {cls.exit_code} |" in text


# ---------------------------------------------------------------------------------------------
# errors inside pool workers: a real process, so worker output reaches the captured stderr


def _subprocess(args, cwd, timeout=60):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-m", "dominosim", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    ("name", "body", "pattern"),
    [
        (
            "boom",
            "raise ValueError('kaboom')",
            r"strategy 'boom' raised ValueError: kaboom at "
            r"boom/bot\.py:13; .*",
        ),
        (
            "quitter",
            "sys.exit(3)",
            r"strategy 'quitter' raised SystemExit: 3 at quitter/bot\.py:13; .*",
        ),
        ("cheat", "return 99999", r"strategy 'cheat' returned an illegal action 99999; .*"),
    ],
)
def test_strategy_error_in_pool_workers_has_no_traceback(tmp_path, name, body, pattern):
    folder = bot(tmp_path, name, body)
    p = _subprocess(
        [
            "run",
            "--variant",
            "fives",
            "--strategies",
            f"{name},random",
            "--games",
            "40",
            "--chunk-size",
            "4",
            "--workers",
            "2",
            "--seed",
            "3",
            "--out",
            str(tmp_path / "o"),
            "--strategy-path",
            folder,
        ],
        cwd=tmp_path,
    )
    assert p.returncode == 4, p.stderr
    assert "Traceback" not in p.stderr + p.stdout
    lines = p.stderr.splitlines()
    assert [x for x in lines if x.startswith("error:")] == [lines[-1]], p.stderr
    assert all(x.startswith(STATUS) for x in lines[:-1]), p.stderr
    assert re.fullmatch("error: " + pattern, lines[-1]), lines[-1]


def test_endless_match_in_trace_and_both_engines():
    """A match that has not ended after MAX_HANDS_PER_MATCH hands is one RulesError in the
    reference engine (``trace --match``) and in the core (pool workers too), never a run that
    fills the memory; a match of the cap's length still plays."""
    from dominosim import strategy
    from dominosim.engine.batch import BatchEngine
    from dominosim.game.reference import play_match
    from dominosim.game.rules import MAX_HANDS_PER_MATCH
    from dominosim.game.variants import make_rules

    endless = ["--variant", "fives", "--set", "fives.target=2147483647"]
    r = CliRunner().invoke(main, ["trace", *endless, "--match"])
    check_stderr(r, 3, r"a match of fives\[target=2147483647\] did not end within 1000 hands.*")
    rules = make_rules("fives", 2, target=2**31 - 1)
    seats = [strategy.get("random")] * 2
    with pytest.raises(DominosimError, match="did not end within 1000 hands"):
        BatchEngine(rules, 1, seats, range(3), unit="match", batch_size=2).run()
    longest = make_rules("two-lane", 2, cumulative_hands=MAX_HANDS_PER_MATCH)
    assert len(play_match(longest, 1, 0, seats).hands) == MAX_HANDS_PER_MATCH
    h, _ = BatchEngine(longest, 1, seats, range(2), unit="match").run()
    assert h["hand_index"].max() == MAX_HANDS_PER_MATCH - 1


@pytest.mark.parametrize(
    "args",
    [
        ["strategies", "--strategy-path", "~nosuchuser"],
        ["trace", "--variant", "fives", "--strategy-path", "~nosuchuser/x.py"],
        ["check-strategy", "~nosuchuser/x.py"],
        ["run", "--variant", "fives", "--strategy-path", "~nosuchuser"],
    ],
)
def test_unknown_home_is_one_line_everywhere(args, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, args)
    check_stderr(r, 2, r".* '~nosuchuser.*': ~nosuchuser names no home folder .*")
    assert not (tmp_path / "~nosuchuser").exists()


@pytest.mark.parametrize(
    ("address", "ok"),
    [
        ("tcp://10.0.0.5:8786", True),
        ("10.0.0.5:8786", True),
        ("tcp://[::1]:8786", True),
        ("tcp://sched.example:1", True),
        ("ucx://h:1", False),
        ("inproc://x", False),
        ("tcp://h:0", False),
        ("tcp://h:65536", False),
        ("tcp://h", False),
        ("tcp://a b:1", False),
        ("tcp://h:1/x", False),
    ],
)
def test_scheduler_addresses(address, ok):
    from dominosim.base.errors import ConfigError
    from dominosim.runner import check_executor

    if ok:
        check_executor("dask", address)
    else:
        with pytest.raises(ConfigError, match="^--scheduler '"):
            check_executor("dask", address)


def test_match_id_bounds():
    """``trace --match-id``: -1 is refused like 2**64 (one line), 2**64-1 is played."""
    r = CliRunner().invoke(main, ["trace", "--variant", "fives", "--match-id", "-1"])
    check_stderr(r, 2, r"--match-id must be an integer from 0 to 2\*\*64-1, not -1")
    r = CliRunner().invoke(main, ["trace", "--variant", "fives", "--match-id", str(2**64 - 1)])
    assert r.exit_code == 0 and f"match {2**64 - 1}, hand 0" in r.stdout, r.output
