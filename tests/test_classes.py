"""What a strategy is handed is decided by its class, once (issue 45 points 1, 3 and 6).

The cheaters of tests/cheaters/: (a) a heuristic class that says of itself in ``__init__`` that
it cheats, (b) a class whose classifier is changed after its registration, (c) a strategy
honest only where its key is a multiple of 3, (d) a strategy that remembers its answers by
their place; and (e) a folder whose manifest's perfect-information list was emptied.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from dominosim import strategy
from dominosim.check import check_strategy
from dominosim.cli import main
from dominosim.engine.batch import BatchEngine
from dominosim.game.variants import make_rules
from dominosim.strategy import source_classes

CHEATERS = Path(__file__).resolve().parent / "cheaters"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args], prog_name="dominosim")


def _played(name: str, file: str):
    """The cheater ``name`` of ``file`` seated against greedy on the batch engine: its module
    and seat 0's hand win rate."""
    strategy.load_file(CHEATERS / file)
    s = strategy.get(name)
    hands, _ = BatchEngine(
        make_rules("basic", 2), 1, [s, strategy.get("greedy")], range(40), unit="hand"
    ).run()
    return sys.modules[type(s).__module__], float((hands["winner"] == 0).mean())


@pytest.mark.parametrize(
    "name, file", [("self-cheating", "self_cheating.py"), ("late-cheating", "late_cheating.py")]
)
def test_a_class_is_handed_what_it_was_registered_as(name, file, clean_registry):
    """(a) ``self.cheating = True`` in ``__init__``, (b) the class's classifier changed after
    its registration: no engine for either, and neither is perfect information."""
    module, _ = _played(name, file)
    assert module.SAW_ENGINE == []
    cls = strategy.discover()[name]
    assert strategy.classification(cls) == "heuristic"
    assert not strategy.plays_with_perfect_information(cls)
    assert not strategy.sees_hidden(strategy.get(name))


def test_the_oracle_still_sees_and_an_unregistered_object_does_not(clean_registry):
    from dominosim.engine import solver

    assert strategy.sees_hidden(strategy.get("oracle")) and strategy.sees_hidden(solver.Oracle())

    class Unnamed(solver.Oracle):  # (never registered: no sight, whatever it inherits)
        pass

    assert not strategy.sees_hidden(Unnamed())


def test_a_strategy_that_changes_its_class_in_init_is_refused(tmp_path, clean_registry):
    path = tmp_path / "swap.py"
    path.write_text(
        "from dominosim.strategy import Strategy, register\n"
        "from dominosim.strategies.oracle import Oracle\n\n"
        "@register\nclass Swap(Strategy):\n    name = 'swap'\n\n"
        "    def __init__(self, **p):\n        super().__init__(**p)\n"
        "        self.__class__ = Oracle\n"
    )
    strategy.load_file(path)
    with pytest.raises(strategy.StrategyError, match="strategy 'swap' changed its class"):
        strategy.get("swap")


def _report_of(tmp_path, file: str, name: str) -> tuple[dict, str, Path]:
    # fmt: off
    r = invoke("run", "--variant", "basic", "--players", "2", "--strategies", f"{name},greedy",
               "--games", "8", "--seed", "1", "--workers", "1", "--strategy-path",
               CHEATERS / file, "--out", tmp_path, "--json", "--no-plots")
    # fmt: on
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    text = invoke("report", data["run_dir"]).output
    return data, text, Path(data["run_dir"])


def test_reports_mark_what_the_files_say(tmp_path, clean_registry):
    """(a) read from its file: heuristic, no mark; (b) its classifier changed by the file's
    code: not verifiable from its file, marked so."""
    data, text, _ = _report_of(tmp_path / "a", "self_cheating.py", "self-cheating")
    assert "perfect_information_strategies" not in data and "unverified_strategies" not in data
    assert "[perfect information]" not in text and "not verifiable" not in text
    data, text, _ = _report_of(tmp_path / "b", "late_cheating.py", "late-cheating")
    assert data["unverified_strategies"] == ["late-cheating"]
    assert "late-cheating [classifier not verifiable from its file]" in text


def test_a_strategy_file_not_here_as_recorded_is_not_verified(tmp_path, clean_registry):
    copy = tmp_path / "mine.py"
    shutil.copy(CHEATERS / "self_cheating.py", copy)
    # fmt: off
    r = invoke("run", "--variant", "basic", "--players", "2", "--strategies",
               "self-cheating,greedy", "--games", "8", "--workers", "1", "--strategy-path",
               copy, "--out", tmp_path / "c", "--json", "--no-plots")
    # fmt: on
    assert r.exit_code == 0, r.output
    copy.write_text(copy.read_text() + "\n# changed\n")
    text = invoke("report", json.loads(r.stdout)["run_dir"]).output
    assert "self-cheating [classifier not verifiable from its file]" in text


# fmt: off
SOURCES = [
    ("class X(Strategy):\n    name = 'x'\n    classifier = 'search'\n", "search"),
    ("class X(Strategy):\n    name = 'x'\n", "heuristic"),
    ("class X(Strategy):\n    name = 'x'\n    cheating = True\n", "perfect_information"),
    ("class X(Oracle):\n    name = 'x'\n", "perfect_information"),
    ("class X(Strategy):\n    name = 'x'\n    classifier = 'heur' + 'istic'\n", None),
    ("class X(Strategy):\n    name = 'x'\nX.classifier = 'heuristic'\n", None),
    ("class X(Strategy):\n    name = 'x'\n    def __init__(self):\n        self.cheating = 1\n",
     "heuristic"),
    ("class X(Strategy):\n    name = 'y'\n", None),
]
# fmt: on


@pytest.mark.parametrize("body, want", SOURCES)
def test_the_classifier_is_read_from_the_source_without_running_it(body, want):
    head = (
        "from dominosim.strategy import Strategy, register\n"
        "from dominosim.strategies.oracle import Oracle\n"
        "raise SystemExit('never run')\n@register\n"
    )
    assert source_classes.classifier_in_source((head + body).encode(), "x") == want
    other = head.replace("@register\n", "@register\n@other\n")
    assert source_classes.classifier_in_source((other + body).encode(), "x") is None


@pytest.mark.parametrize(
    "file, name", [("key_three.py", "key-three"), ("remembers.py", "remembers")]
)
def test_the_information_check_catches_what_it_could_not(file, name, clean_registry):
    """(c) honest only where the key is a multiple of 3, (d) answers remembered by their
    place: both passed the check of old, probed by key and asked the true position first."""
    report = check_strategy(
        CHEATERS / file,
        deals=4,
        variants=["fives", "basic"],
        players=[2],
        probe_seed=7,
        checks=["information"],
    )
    assert report.probed > 0 and report.probe_seed == 7
    hits = [f for f in report if f.check == "information"]
    assert hits and all(f.strategy == name for f in report), [str(f) for f in report]
    assert "on a re-dealt one with the same Observation and key" in hits[0].message


def test_an_information_check_that_probed_nothing_does_not_pass(clean_registry):
    report = check_strategy(
        "random", deals=2, variants=["blind"], players=[2], checks=["information"]
    )
    assert [f.check for f in report] == ["information"] and report.probed == 0
    assert "no decision was probed" in report[0].message and report[0].strategy == "random"


def test_the_command_names_the_strategy_and_its_probe_seed(clean_registry):
    # fmt: off
    r = invoke("check-strategy", CHEATERS / "key_three.py", "--deals", "4", "--variant",
               "fives", "--check", "information", "--probe-seed", "7")
    # fmt: on
    assert r.exit_code == 1, r.output
    assert r.stdout.startswith("key-three: information: fives ")
    assert "chosen by probe seed 7 (the same probes again: --probe-seed 7)" in r.stderr
    assert "'check'" not in r.output


def test_the_check_shows_where_it_is_on_a_terminal(capfd, clean_registry):
    check_strategy(
        "random", deals=1, variants=["fives"], players=[2], checks=["legal"], progress=True
    )
    err = capfd.readouterr().err
    assert "check-strategy random: legal, rule set 1/2: fives 2p" in err
    check_strategy("random", deals=1, variants=["fives"], players=[2], checks=["legal"])
    assert "rule set" not in capfd.readouterr().err


@pytest.fixture(scope="module")
def oracle_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("oracle")
    # fmt: off
    r = invoke("compare", "--variant", "fives", "--strategies", "oracle,greedy", "--games", "4",
               "--seed", "2", "--workers", "1", "--out", out, "--json")
    # fmt: on
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def test_an_emptied_classes_list_takes_no_mark_away_and_fails_verify(oracle_run, tmp_path):
    """(e) ``classes.perfect_information`` emptied in the manifest: the report still marks
    the oracle (recomputed from the package's registry), and verify fails on one line."""
    d = tmp_path / "copy"
    shutil.copytree(oracle_run, d)
    m = json.loads((d / "manifest.json").read_text())
    m["classes"]["perfect_information"] = []
    (d / "manifest.json").write_text(json.dumps(m))
    r = invoke("report", d, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["perfect_information_strategies"] == ["oracle"]
    assert "oracle [perfect information]" in invoke("report", d).output
    r = invoke("verify", d)
    assert r.exit_code == 5, r.output
    lines = [x for x in r.output.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1 and "its classes field is not what its strategies say" in lines[0]
    assert invoke("verify", oracle_run).exit_code == 0


SEER = """
from dominosim.strategy import Strategy, register


@register
class Seer(Strategy):
    name = "seer"
    classifier = "perfect_information"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[0]
"""


@pytest.mark.parametrize("isolate", [[], ["--isolate"]])
def test_a_users_perfect_information_strategy_is_recorded_and_verifies(
    tmp_path, clean_registry, isolate
):
    """A run's own process never imports a user's file: the child that loads it says which
    of its strategies play with perfect information, so the manifest records them as
    verify (which loads the file) recomputes them, and the report marks them."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "seer.py").write_text(SEER)
    # fmt: off
    r = invoke("run", "--variant", "fives", "--strategies", "seer,random", "--games", "4",
               "--strategy-path", folder, "--out", tmp_path / "o", "--no-plots", "--seed", "1",
               "--json", *isolate)
    # fmt: on
    assert r.exit_code == 0, r.output
    run_dir = json.loads(r.stdout)["run_dir"]
    manifest = json.loads((Path(run_dir) / "manifest.json").read_text())
    assert manifest["classes"]["perfect_information"] == ["seer"]
    assert invoke("verify", run_dir, "--strategy-path", folder).exit_code == 0
