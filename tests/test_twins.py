"""The user's code is what plays: a compiled policy (engine/_policy.h) decides only for the
built-in class it was written for, in its built-in file, at the version it follows (dominosim/strategy/policy_files.py;
docs/strategies.md, "Compiled policies"). A copy of a built-in file, renamed and changed or
not, plays its Python in runs, in ``trace --run`` and in ``check-strategy``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from dominosim.base.errors import StrategyError
from dominosim.check import check_strategy
from dominosim.cli import main as cli
from dominosim.engine import kernel as KN
from dominosim.engine.batch import BatchEngine
from dominosim.game.variants import make_rules
from dominosim.strategy import builtin_dir, get, policy_files

HEURISTICS = KN.POLICIES  # (the compiled twins, as the core lists them: a new one is tested too)


def test_the_built_in_twins_are_the_cores_policies():
    """The core's policies (kernel.POLICIES, read from the core) are the compiled twins the
    built-in files declare, one each, and the classifiers order them as the ladder has them."""
    from dominosim import strategy

    twins = strategy.builtins(compiled=True)
    assert sorted(twins) == sorted(KN.POLICIES) and list(HEURISTICS) == twins
    assert [strategy.discover()[n].compiled for n in twins] == twins
    assert strategy.builtins("random") == ["random"]
    assert strategy.builtins("search") == ["mc", "pimc"]
    assert strategy.builtins("perfect_information") == ["oracle"]


GREEDY_RETURNS = "        return greedy_choice(obs, legal)\n"
GREEDY_CHOOSE = "    def choose(self, obs, legal, keys):\n"


def copy_greedy(
    folder: Path, name: str, returns: str | None = None, keep_choose: bool = True
) -> Path:
    """strategies/greedy.py copied to ``folder`` as the strategy ``name`` (its
    ``compiled = "greedy"`` kept), ``choose_one`` returning ``returns`` (an expression) and,
    unless ``keep_choose``, without its batch ``choose`` (the default asks ``choose_one``)."""
    text = (builtin_dir() / "greedy.py").read_text(encoding="utf-8")
    assert text.count('name = "greedy"') == 1 and GREEDY_RETURNS in text and GREEDY_CHOOSE in text
    text = text.replace('name = "greedy"', f'name = "{name}"')
    if returns is not None:
        text = text.replace(GREEDY_RETURNS, f"        return {returns}\n")
    if not keep_choose:
        text = text.replace(GREEDY_CHOOSE, "    def greedy_batch(self, obs, legal, keys):\n")
    path = folder / f"{name.replace('-', '_')}.py"
    path.write_text(text, encoding="utf-8")
    return path


def _hands(rules, strategies, compiled=True):
    eng = BatchEngine(
        rules, 4, strategies, range(200), unit="hand", batch_size=64, compiled=compiled
    )
    return eng, eng.run()[0]


def _same(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k]) for k in a)


def test_a_changed_copy_of_greedy_plays_its_python(tmp_path, clean_registry):
    """The copy keeps ``compiled = "greedy"`` but gets no twin: its seat is asked in Python,
    and its games are those of its own choose_one (every seat asked in Python), not greedy's."""
    path = copy_greedy(tmp_path, "my-greedy", "legal[-1]", keep_choose=False)
    mine = get("my-greedy", [path])
    assert type(mine).compiled == "greedy" and mine.compiled_policy() is None
    rules = make_rules("fives", 2)
    eng, played = _hands(rules, [mine, get("random")])
    assert list(eng._policy[:2]) == [KN.POL_PYTHON, KN.POLICIES.index("random")]
    _, python = _hands(rules, [mine, get("random")], compiled=False)
    _, greedy = _hands(rules, [get("greedy"), get("random")])
    assert _same(played, python)
    assert not _same(played, greedy)


def test_a_copy_identical_but_for_its_name_gets_no_twin(tmp_path, clean_registry):
    """Byte for byte greedy's file but for the name: still not the built-in module, so no twin
    (it plays greedy's Python, which gives greedy's games)."""
    path = copy_greedy(tmp_path, "greedy-copy")
    copy = get("greedy-copy", [path])
    assert copy.compiled_policy() is None
    eng, played = _hands(make_rules("threes", 3), [copy, get("heaviest"), get("blocker")])
    assert eng._policy[0] == KN.POL_PYTHON and (eng._policy[1:3] >= 0).all()
    _, builtin = _hands(make_rules("threes", 3), [get("greedy"), get("heaviest"), get("blocker")])
    assert _same(played, builtin)


def test_the_built_ins_keep_their_twins():
    """The speed path: each built-in heuristic, with its default parameters, is decided in the
    core."""
    strats = [get(name) for name in HEURISTICS]
    assert [s.compiled_policy() for s in strats] == list(HEURISTICS)
    eng = BatchEngine(make_rules("fives", 4), 1, strats[:4], range(8), unit="hand")
    assert list(eng._policy[:4]) == [KN.POLICIES.index(n) for n in HEURISTICS[:4]]
    assert get("mc").compiled_policy() is None  # (no twin: decided in Python, playouts in C)


def test_a_built_in_at_another_version_loses_every_twin(monkeypatch):
    """A built-in class whose declared twin_version is not the one its twin follows (here: the
    recorded version differs) plays its Python, and so do the twins that read it (greedy ranks
    with heaviest's key): every twin is off."""
    monkeypatch.setitem(policy_files.TWINS, "heaviest", 0)
    assert [get(name).compiled_policy() for name in HEURISTICS] == [None] * len(HEURISTICS)
    monkeypatch.undo()
    assert get("heaviest").compiled_policy() == "heaviest"


def test_each_twin_is_paired_with_its_built_in_by_name_and_version():
    """policy_files.TWINS holds one version per compiled policy of the core, and each built-in
    class with a twin declares that version on itself (beside ``compiled``): the pairing is by
    name and version, never by the file's bytes (its imports and comments may change)."""
    from dominosim import strategy

    assert sorted(policy_files.TWINS) == sorted(KN.POLICIES)
    for name in KN.POLICIES:
        cls = strategy.discover()[name]
        assert vars(cls).get("compiled") == name
        assert vars(cls).get("twin_version") == policy_files.TWINS[name], (
            f"{name}: its file declares twin_version {vars(cls).get('twin_version')}, "
            f"policy_files.TWINS records {policy_files.TWINS[name]}: a change of its decisions "
            "goes with its C twin (tests/test_policies.py) and the new version in both"
        )
        assert strategy.shipped_builtin(cls)


def test_a_subclass_declaring_the_version_gets_no_twin():
    """twin_version is read from the built-in class itself: a user's subclass that declares
    ``compiled`` and the recorded version still plays its Python."""
    from dominosim.strategies import heaviest
    from dominosim.strategy import Strategy, classify

    @classify
    class Mine(heaviest.Heaviest):
        name = "mine"
        compiled = "heaviest"
        twin_version = policy_files.TWINS["heaviest"]

    assert Mine().compiled_policy() is None and isinstance(Mine(), Strategy)


def test_a_run_with_the_copy_is_replayed_as_recorded(tmp_path, clean_registry):
    """``dominosim run`` with the copy plays its Python, so ``trace --run`` (the reference
    engine, which asks Python) replays each hand as its record holds it."""
    folder = tmp_path / "mine"
    folder.mkdir()
    copy_greedy(folder, "last-greedy", "legal[-1]", keep_choose=False)
    out = tmp_path / "runs"
    r = CliRunner().invoke(
        cli,
        [
            "run",
            "--variant",
            "fives",
            "--strategies",
            "last-greedy,random",
            "--strategy-path",
            str(folder),
            "--games",
            "12",
            "--seed",
            "3",
            "--workers",
            "1",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    run_dir = json.loads(r.stdout)["run_dir"]
    recs = pd.concat(pd.read_parquet(p) for p in sorted(out.rglob("chunks/*.parquet")))
    for row in recs.sample(6, random_state=2).itertuples():
        hid = f"{row.group}:{row.rotation}:{row.match_id}:{row.hand_index}"
        named = ["--strategy-path", str(folder)]
        t = CliRunner().invoke(cli, ["trace", "--run", run_dir, "--hand", hid, "--json", *named])
        assert t.exit_code == 0, t.output
        lines = [json.loads(x) for x in t.stdout.splitlines()]
        end = next(x for x in lines if x["type"] == "hand_end")
        assert sum(x["type"] == "place" for x in lines) == row.hand_length, hid
        assert (end["winner"] if end["winner"] is not None else -1) == row.winner, hid


def test_check_strategy_checks_the_copys_python(tmp_path, clean_registry):
    """check-strategy plays the copy's Python: a choose_one that answers legally passes; one
    that answers an illegal action in sniff fails there (and a run refuses it: no twin plays
    in its place); a copy whose choose_one was changed and its batch choose was not fails the
    batch check."""
    good = copy_greedy(tmp_path, "last-legal", "legal[-1]", keep_choose=False)
    report = check_strategy(good, deals=2, variants=["fives"], players=[2])
    assert report == [] and report.decisions > 0, [str(f) for f in report]
    illegal = "999 if obs.rules.variant == 'sniff' else greedy_choice(obs, legal)"
    bad = copy_greedy(tmp_path, "sniff-illegal", illegal, keep_choose=False)
    report = check_strategy(
        bad, deals=2, variants=["fives", "sniff"], players=[2], checks=["legal"]
    )
    assert [(f.check, f.rules) for f in report] == [("legal", "sniff 2p")], report
    with pytest.raises(StrategyError, match="sniff-illegal"):
        BatchEngine(
            make_rules("sniff", 2), 1, [get("sniff-illegal"), get("random")], range(20), unit="hand"
        ).run()
    stale = copy_greedy(tmp_path, "stale-batch", "legal[-1]")
    report = check_strategy(stale, deals=2, variants=["fives"], players=[2], checks=["batch"])
    assert report and {f.check for f in report} == {"batch"}, report
    assert "where choose_one answers" in report[0].message


def _run_args(folder: Path, seats: str, out: Path) -> list[str]:
    args = ["run", "--variant", "fives", "--strategies", seats, "--strategy-path", str(folder)]
    return [*args, "--games", "4", "--seed", "1", "--workers", "1", "--no-plots", "--out", str(out)]


def test_a_copy_that_keeps_compiled_says_it_plays_its_python(tmp_path, clean_registry):
    """Issue 37 point 5: check-strategy and a run that seats the copy say, in one line on
    stderr, that its ``compiled = "greedy"`` does nothing (the twin serves only the shipped
    file) and that it plays its Python; once per run, whatever the seats; the built-ins and a
    strategy without the line say nothing."""
    folder = tmp_path / "mine"
    folder.mkdir()
    path = copy_greedy(folder, "my-greedy")
    note = (
        f"note: {path} sets compiled = 'greedy' but the compiled twin serves only the shipped "
        "file; your copy plays its Python (delete the line to drop this note)\n"
    )
    r = CliRunner().invoke(cli, ["check-strategy", str(path), "--deals", "1", "--variant", "fives"])
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith(note) and r.stderr.count("note:") == 1, r.stderr
    assert "my-greedy: passed" in r.stdout
    r = CliRunner().invoke(cli, _run_args(folder, "my-greedy", tmp_path / "o"))
    assert r.exit_code == 0, r.output
    assert r.stderr.count("note:") == 1 and note in r.stderr
    plain = folder / "plain.py"
    plain.write_text(
        "from dominosim.strategy import Strategy, register\n\n\n@register\nclass Plain(Strategy):\n"
        '    name = "plain"\n\n    def choose_one(self, obs, legal, key):\n        return legal[0]\n'
    )
    for seats in ("plain,greedy", "heaviest,random"):
        r = CliRunner().invoke(cli, _run_args(folder, seats, tmp_path / "p"))
        assert r.exit_code == 0 and "note:" not in r.stderr, r.output
    r = CliRunner().invoke(
        cli, ["check-strategy", str(plain), "--deals", "1", "--variant", "fives"]
    )
    assert r.exit_code == 0 and "note:" not in r.stderr, r.output


def test_a_built_in_changed_in_place_says_its_twin_is_off(monkeypatch):
    """A built-in file that is not as shipped (here: its twin's recorded version differs)
    plays its Python; strategy.twin_note says so for it (and for the twins that read it)."""
    from dominosim import strategy

    assert strategy.twin_note("heaviest") is None and strategy.twin_note("mc") is None
    monkeypatch.setitem(policy_files.TWINS, "heaviest", 0)
    get("heaviest")
    note = strategy.twin_note("greedy")
    assert note.startswith("note: ") and "compiled = 'greedy'" in note
    assert "not as shipped, so the compiled twin is off and it plays its Python" in note
