"""The strategy checker (dominosim/check.py, ``dominosim check-strategy``): each kind of
failure is found and reported with its rule set and a position; a good strategy passes; the
command's output and exit codes. The built-ins are checked in test_strategy_conformance.py."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dominosim.base.errors import ConfigError, StrategyError
from dominosim.check import CHECKS, check_strategy, rule_sets
from dominosim.cli import main as cli
from dominosim.game.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent

HEAD = """
import numpy as np
from dominosim import actions as A
from dominosim.strategy import Strategy, register
"""

# name -> (body of the strategy class, the check that must fail, what its message says)
BAD = {
    "illegal": (
        "def choose_one(self, obs, legal, key):\n"
        "    return 999 if obs.variant == 'sniff' else legal[0]",
        "legal",
        "illegal action 999",
    ),
    "raises": (
        "def choose_one(self, obs, legal, key):\n"
        "    if obs.variant == 'sniff':\n"
        "        raise ValueError('no sniffing')\n"
        "    return legal[0]",
        "legal",
        "raised ValueError: no sniffing",
    ),
    "floaty": (
        "def choose_one(self, obs, legal, key):\n"
        "    return float(legal[0]) if obs.variant == 'sniff' else legal[0]",
        "legal",
        "(float), not an action",
    ),
    "batch-differs": (
        "def choose_one(self, obs, legal, key):\n"
        "    return legal[-1]\n"
        "def choose(self, obs, legal, keys):\n"
        "    if obs.rules.variant != 'sniff':\n"
        "        return super().choose(obs, legal, keys)\n"
        "    return legal.action_at(np.zeros(len(keys), dtype=np.int64))",
        "batch",
        "where choose_one answers",
    ),
    "batch-illegal": (
        "def choose_one(self, obs, legal, key):\n"
        "    return legal[0]\n"
        "def choose(self, obs, legal, keys):\n"
        "    out = super().choose(obs, legal, keys)\n"
        "    return np.where(obs.rules.variant == 'sniff', 999, out)",
        "legal",
        "choose returned an illegal action 999",
    ),
    "nondeterministic": (
        "def choose_one(self, obs, legal, key):\n"
        "    import random\n"
        "    return random.choice(legal) if obs.variant == 'sniff' else legal[0]",
        "deterministic",
        "answered",
    ),
    "stateful": (  # two fresh instances agree; asked again in another order, it does not
        "def __init__(self, **kw):\n"
        "    super().__init__(**kw)\n"
        "    self.n = 0\n"
        "def choose_one(self, obs, legal, key):\n"
        "    self.n += obs.variant == 'sniff'\n"
        "    return legal[self.n % len(legal)]",
        "deterministic",
        "asked again",
    ),
    "mutates-legal": (
        "def choose_one(self, obs, legal, key):\n"
        "    if obs.variant == 'sniff':\n"
        "        legal.reverse()\n"
        "    return legal[0]",
        "inputs",
        "changed the list of legal actions",
    ),
    "mutates-arrays": (
        "def choose_one(self, obs, legal, key):\n"
        "    return legal[0]\n"
        "def choose(self, obs, legal, keys):\n"
        "    out = super().choose(obs, legal, keys)\n"
        "    if obs.rules.variant == 'sniff':\n"
        "        keys[:] = 0\n"
        "        legal.values[:] = 6\n"
        "    return out",
        "inputs",
        "choose changed the arrays it was given: legal.values, ",
    ),
    "no-workers": (
        "def choose_one(self, obs, legal, key):\n"
        "    import multiprocess\n"
        "    if obs.variant == 'sniff' and multiprocess.parent_process() is not None:\n"
        "        raise RuntimeError('only in the main process')\n"
        "    return legal[0]",
        "spawn",
        "in a spawned worker: choose_one raised RuntimeError: only in the main process",
    ),
    "salted": (  # a process-wide random salt: every process plays other games
        "import random as _r\n"
        "SALT = _r.getrandbits(40)\n"
        "def choose_one(self, obs, legal, key):\n"
        "    return legal[(key ^ self.SALT) % len(legal)] if obs.variant == 'sniff' "
        "else legal[0]",
        "spawn",
        "a spawned worker answered",
    ),
    "peeks": (  # finds the batch engine through the garbage collector, plays on a hidden hand
        "def choose_one(self, obs, legal, key):\n"
        "    import gc\n"
        "    from dominosim.engine.batch import BatchEngine\n"
        "    if obs.variant != 'sniff':\n"
        "        return legal[0]\n"
        "    for e in gc.get_objects():\n"
        "        if isinstance(e, BatchEngine) and e.r == obs.rules:\n"
        "            g = np.flatnonzero(e.state.active & (e.state.match == obs.match_id))\n"
        "            if len(g) == 1:\n"
        "                other = (obs.seat + 1) % obs.rules.players\n"
        "                return legal[int(e.state.hands[g[0], other]) % len(legal)]\n"
        "    return legal[0]",
        "information",
        "on a re-dealt one with the same Observation and key",
    ),
}


def bad_file(folder: Path, name: str) -> Path:
    body = BAD[name][0]
    cls = name.title().replace("-", "")
    text = (
        HEAD
        + textwrap.dedent(f'''

        @register
        class {cls}(Strategy):
            """A strategy that is wrong on purpose."""

            name = "{name}"
            params = {{}}

    ''')
        + textwrap.indent(body, "    ")
        + "\n"
    )
    path = folder / f"{name.replace('-', '_')}.py"
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_kind_of_failure_is_reported_with_its_rule_set(name, tmp_path, clean_registry):
    """Each strategy is wrong in sniff only: the failure names sniff (never fives) and a
    position, and the check that catches it."""
    check, says = BAD[name][1:]
    path = bad_file(tmp_path, name)
    only = ["legal", "batch"] if check in ("legal", "inputs") else [check]
    report = check_strategy(path, deals=4, variants=["fives", "sniff"], players=[2], checks=only)
    assert report.strategies == [name] and report.decisions > 0
    assert report, f"{name}: no failure found"
    assert {f.rules for f in report} == {"sniff 2p"}, [str(f) for f in report]
    hit = [f for f in report if f.check == check and says in f.message]
    assert hit, [str(f) for f in report]
    f = hit[0]
    if name == "mutates-arrays":
        assert f.message.endswith(", keys"), f.message
    assert f.strategy == name and "seat " in f.position and "legal " in f.position, str(f)
    assert str(f).startswith(f"{name}: {check}: sniff 2p: ") and "\n" not in str(f)


def test_the_oracle_does_not_pass_the_information_check(clean_registry):
    """The oracle reads the true deal by design (perfect information): not probed, and a
    check that checked nothing does not pass (issue 45)."""
    report = check_strategy(
        "oracle", deals=2, variants=["fives"], players=[2], checks=["information"]
    )
    assert [(f.check, f.strategy) for f in report] == [("information", "oracle")]
    assert "registered perfect_information" in report[0].message and report.decisions == 0


def test_a_worker_that_dies_is_reported(tmp_path, clean_registry):
    (tmp_path / "dies.py").write_text(
        HEAD
        + textwrap.dedent('''
        import os
        import multiprocess

        @register
        class Dies(Strategy):
            """Ends its process when it is a worker."""
            name = "dies"
            def choose_one(self, obs, legal, key):
                if multiprocess.parent_process() is not None:
                    os._exit(3)
                return legal[0]
    ''')
    )
    report = check_strategy(tmp_path / "dies.py", deals=2, variants=["fives"], checks=["spawn"])
    assert [(f.check, f.rules) for f in report] == [("spawn", "fives 2p")]
    assert "died (exit code 3)" in report[0].message


def test_the_example_strategy_passes_every_check(tmp_path, clean_registry):
    path = tmp_path / "example_strategy.py"
    shutil.copy(ROOT / "docs" / "example_strategy.py", path)
    report = check_strategy(path, deals=2)
    assert report == [], [str(f) for f in report]
    assert report.strategies == ["lightest"] and report.checks == CHECKS
    assert report.rule_sets == len(rule_sets()) and report.decisions > 500


def _examples(folder: Path) -> Path:
    """docs/example_strategy.py and docs/example_batch_strategy.py, copied into ``folder``."""
    folder.mkdir()
    for name in ("example_strategy.py", "example_batch_strategy.py"):
        shutil.copy(ROOT / "docs" / name, folder / name)
    return folder


def test_the_batch_example_passes_every_check(tmp_path, clean_registry):
    folder = _examples(tmp_path / "mine")
    report = check_strategy(folder / "example_batch_strategy.py", deals=2)
    assert report == [], [str(f) for f in report]
    assert report.strategies == ["lightest-batch"] and report.checks == CHECKS
    report = check_strategy(
        "lightest-batch:explore=0.3", paths=[str(folder)], deals=2, variants=["fives", "blind"]
    )
    assert report == [], [str(f) for f in report]


def test_the_docs_show_the_batch_examples_code():
    """docs/strategies.md's batch ``choose`` is the example file's, line for line."""
    doc = (ROOT / "docs" / "strategies.md").read_text(encoding="utf-8")
    block = doc.split("**The same rule, a batch at a time.**", 1)[1].split("```python\n", 1)[1]
    code = (ROOT / "docs" / "example_batch_strategy.py").read_text(encoding="utf-8")
    lines = [x for x in block.split("```", 1)[0].splitlines() if x.strip()]
    lines = [x.split("  # ")[0] for x in lines if not x.strip().startswith("#")]
    assert len(lines) > 8 and all(x in code for x in lines), [x for x in lines if x not in code]


@pytest.mark.parametrize("explore", [0.0, 0.3])
def test_the_batch_example_plays_the_per_decision_examples_games(tmp_path, clean_registry, explore):
    """docs/example_batch_strategy.py's batch ``choose`` is docs/example_strategy.py's rule: in
    every variant and player count, seated against the built-ins, the batch engine plays the
    same games with either (every record of every hand equal), exploring or not."""
    from dominosim.engine.batch import BatchEngine
    from dominosim.strategy import get

    folder = str(_examples(tmp_path / "mine"))
    one, batch = (get(n, [folder], explore=explore) for n in ("lightest", "lightest-batch"))
    others = [get("random"), get("heaviest"), get("greedy")]
    for rules in rule_sets():
        played = []
        for mine in (one, batch):
            seats = [mine, *others][: rules.players]
            eng = BatchEngine(rules, 7, seats, range(24), unit="hand", batch_size=16)
            played.append(eng.run()[0])
        a, b = played
        assert a.keys() == b.keys()
        for k in a:
            assert np.array_equal(a[k], b[k]), (rules, k)


def test_the_batch_example_gives_the_same_run(tmp_path, clean_registry):
    """Through ``dominosim run`` (the same seed): the same records and the same aggregates,
    but for the strategy's name."""
    import pandas as pd

    folder = _examples(tmp_path / "mine")
    frames = []
    for name in ("lightest", "lightest-batch"):
        out = tmp_path / name
        args = ["run", "--variant", "fives", "--strategies", f"{name}:explore=0.1,greedy"]
        args += ["--strategy-path", str(folder), "--games", "12", "--unit", "match"]
        r = CliRunner().invoke(cli, [*args, "--seed", "9", "--workers", "1", "--out", str(out)])
        assert r.exit_code == 0, r.output
        (run,) = out.glob("*/*")
        recs = pd.read_parquet(run / "chunks" / "0-0.parquet")
        agg = pd.read_parquet(run / "aggregates.parquet")
        agg["pair"] = agg["pair"].str.replace("lightest-batch", "lightest")
        frames.append((recs.drop(columns=["strategy_0", "strategy_1"]), agg))
    (recs_a, agg_a), (recs_b, agg_b) = frames
    pd.testing.assert_frame_equal(recs_a, recs_b)
    pd.testing.assert_frame_equal(agg_a, agg_b)


def test_the_partner_example_passes_every_check(tmp_path, clean_registry):
    path = tmp_path / "example_partner.py"
    shutil.copy(ROOT / "docs" / "example_partner.py", path)
    report = check_strategy(path, deals=2)
    assert report == [], [str(f) for f in report]
    assert report.strategies == ["partner-convention"] and report.rule_sets == len(rule_sets())


def test_the_search_example_passes_every_check(tmp_path, clean_registry):
    """docs/example_search.py calls dominosim.action_values late in the hand: deterministic
    from the key, the same alone and in batches, in a spawned worker, on re-dealt hands."""
    path = tmp_path / "example_search.py"
    shutil.copy(ROOT / "docs" / "example_search.py", path)
    report = check_strategy(path, deals=1)
    assert report == [], [str(f) for f in report]
    assert report.strategies == ["late-search"] and report.rule_sets == len(rule_sets())


def test_rule_sets_cover_every_variant_player_count_and_partnership():
    labels = {f"{r.label} {r.players}p" for r in rule_sets()}
    for v in VARIANTS:
        assert {f"{v} 2p", f"{v} 3p", f"{v} 4p"} <= labels
    assert "fives[partnership=on] 4p" in labels
    assert "blind[blind_draw_optional=on,blind_play_optional=on] 2p" in labels
    assert "kozel[partnership=on] 4p" not in labels  # (kozel has no partnership option)
    assert {f"{r.label} {r.players}p" for r in rule_sets(["fives"], [3])} == {"fives 3p"}


def test_a_file_that_builds_on_a_built_in_by_its_module_path(tmp_path, clean_registry):
    """``from dominosim.strategies import heaviest`` works in a user's file, here and in a
    spawned worker, and gives the module the registry's ``heaviest`` comes from."""
    (tmp_path / "heavier.py").write_text(
        textwrap.dedent('''
        from dominosim.strategies import heaviest
        from dominosim.strategy import register

        @register
        class Heavier(heaviest.Heaviest):
            """heaviest, under another name."""
            name = "heavier"
    ''')
    )
    report = check_strategy(
        tmp_path / "heavier.py", deals=2, variants=["fives"], checks=["legal", "spawn"]
    )
    assert report == [] and report.strategies == ["heavier"] and report.decisions > 0
    from dominosim.strategy import get

    assert type(get("heaviest")) is sys.modules["dominosim.strategies.heaviest"].Heaviest


def test_built_in_files_are_one_module_each():
    from dominosim.strategy import builtin_dir, discover

    reg = discover()
    import dominosim.strategies.doubles_first as df
    import dominosim.strategies.greedy as greedy
    import dominosim.strategies.heaviest as heaviest

    assert reg["greedy"] is greedy.Greedy and reg["heaviest"] is heaviest.Heaviest
    assert reg["doubles-first"] is df.DoublesFirst
    assert greedy.heaviest is heaviest and df.greedy is greedy
    folder = builtin_dir().resolve()
    for name, cls in reg.items():
        file = Path(sys.modules[cls.__module__].__file__).resolve()
        if file.parent == folder:
            assert cls.__module__ == f"dominosim.strategies.{file.stem}", name
            same = [
                m
                for m in list(sys.modules.values())
                if getattr(m, "__file__", None) and Path(m.__file__).resolve() == file
            ]
            assert len(same) == 1, (name, [m.__name__ for m in same])
    for path in builtin_dir().glob("*.py"):  # no built-in reaches into sys.modules any more
        assert "sys.modules" not in path.read_text(encoding="utf-8"), path.name


def test_bad_arguments_are_one_line_errors(tmp_path, clean_registry):
    with pytest.raises(StrategyError, match="does not exist; check the path"):
        check_strategy(tmp_path / "nope.py")
    (tmp_path / "empty.py").write_text("x = 1\n")
    with pytest.raises(StrategyError, match="registers no strategy; decorate"):
        check_strategy(tmp_path / "empty.py")
    with pytest.raises(StrategyError, match="unknown strategy 'gready' .did you mean 'greedy'"):
        check_strategy("gready")
    with pytest.raises(ConfigError, match="unknown check 'legl' .did you mean 'legal'"):
        check_strategy("random", checks=["legl"])
    with pytest.raises(ConfigError, match="deals must be an integer >= 1, not 0"):
        check_strategy("random", deals=0)


# ---------------------------------------------------------------------------------------------
# the command


def test_the_command_prints_each_failure_and_exits_1(tmp_path, clean_registry):
    path = bad_file(tmp_path, "illegal")
    r = CliRunner().invoke(
        cli,
        [
            "check-strategy",
            str(path),
            "--deals",
            "2",
            "--variant",
            "sniff",
            "--variant",
            "fives",
            "--check",
            "legal",
        ],
    )
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert lines and all(x.startswith("illegal: legal: sniff") for x in lines), r.stdout
    assert {x.split(": ")[2] for x in lines} == {
        "sniff 2p",
        "sniff 3p",
        "sniff 4p",
        "sniff[partnership=on] 4p",
    }
    assert "Traceback" not in r.output
    assert r.stderr.strip().startswith(f"illegal: {len(lines)} failures (")


def test_the_command_passes_a_good_strategy(clean_registry):
    r = CliRunner().invoke(
        cli, ["check-strategy", "random", "--deals", "2", "--variant", "classic"]
    )
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith(
        "random: passed legal, batch, deterministic, spawn, inputs, information ("
    )


@pytest.mark.parametrize(
    "args, code, says",
    [
        (["nope.py"], 4, "error: strategy file nope.py does not exist; check the path"),
        (["random", "--check", "legl"], 2, "error: unknown check 'legl'"),
        (["random", "--deals", "0"], 2, "error: Invalid value for '--deals'"),
        (["random", "--variant", "fivs"], 3, "error: unknown variant 'fivs'"),
    ],
)
def test_the_command_refuses_bad_arguments(args, code, says, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["check-strategy", *args])
    assert r.exit_code == code, r.output
    assert r.stderr.startswith(says) and len(r.stderr.strip().splitlines()) == 1, r.stderr


# ---------------------------------------------------------------------------------------------
# issue 40, point 5: a strategy that ends, kills or hangs its process is one line, exit 4


ENDERS = {
    "import": "import os\nos._exit({code})\n",
    "init": textwrap.dedent(
        """\
        import os
        from dominosim.strategy import Strategy, register
        @register
        class Ender(Strategy):
            name = "ender"
            def __init__(self, **kw):
                super().__init__(**kw)
                os._exit({code})
            def choose_one(self, obs, legal, key):
                return legal[0]
        """
    ),
    "decision": textwrap.dedent(
        """\
        import os, signal
        from dominosim.strategy import Strategy, register
        @register
        class Ender(Strategy):
            name = "ender"
            def choose_one(self, obs, legal, key):
                if {code} == 9:
                    os.kill(os.getpid(), signal.SIGKILL)
                os._exit({code})
        """
    ),
}


def _one_error(r, *words):
    assert r.exit_code == 4, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    lines = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1, r.output
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("where", sorted(ENDERS))
@pytest.mark.parametrize("code", [0, 1, 9])
def test_a_strategy_that_ends_its_process_is_one_line(where, code, tmp_path, clean_registry):
    f = tmp_path / "ender.py"
    f.write_text(ENDERS[where].format(code=code))
    how = "killed by SIGKILL" if code == 9 and where == "decision" else f"exit code {code}"
    says = {
        "import": f"strategy path {f} ended its process while loading",
        "init": "strategy 'ender' ended the check's process",
        "decision": "strategy 'ender' ended the check's process",
    }[where]
    r = CliRunner().invoke(cli, ["check-strategy", str(f), "--variant", "fives"])
    _one_error(r, says, how)
    with pytest.raises(StrategyError, match=says):  # (the caller goes on)
        check_strategy(f, variants=["fives"])
    if where == "import":
        r = CliRunner().invoke(cli, ["strategies", "--strategy-path", str(f)])
        _one_error(r, says, how)


SLEEPER = textwrap.dedent(
    """\
    import time
    from dominosim.strategy import Strategy, register
    @register
    class Sleeper(Strategy):
        name = "sleeper"
        def __init__(self, **kw):
            super().__init__(**kw)
            if {init}:
                time.sleep(600)
        def choose_one(self, obs, legal, key):
            time.sleep(600)
    """
)


@pytest.mark.parametrize("init", [True, False])
def test_check_strategy_timeout(init, tmp_path, clean_registry):
    f = tmp_path / "sleeper.py"
    f.write_text(SLEEPER.format(init=init))
    r = CliRunner().invoke(
        cli, ["check-strategy", str(f), "--variant", "fives", "--strategy-timeout", "0.2"]
    )
    what = "strategy 'sleeper' (its __init__)" if init else "strategy 'sleeper'"
    _one_error(r, f"{what} did not return within 0.2 s (--strategy-timeout)")
    with pytest.raises(StrategyError, match="did not return within 0.2 s"):
        check_strategy(f, variants=["fives"], strategy_timeout=0.2)
    with pytest.raises(ConfigError, match="--strategy-timeout must be a number"):
        check_strategy(f, variants=["fives"], strategy_timeout="soon")
