"""The built-ins are declared (issue 48, points 4 and 5; docs/design.md, "Built-ins are
declared"): each row of ``strategy.registrations`` is its file's registered class, a run loads
the files of the strategies it seats and no other, listing and resolving names runs no
built-in file, and the built-in files import the package's current module paths."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from dominosim import strategy
from dominosim.base.moved import MOVED
from dominosim.strategy.registrations import BUILTINS, BY_NAME

ROOT = Path(__file__).resolve().parent.parent


def test_every_row_is_its_files_registered_class():
    """Name, file, classifier, rank, parameters (in order), description and twin, each as
    the class in the row's file declares it (a change to the class goes with its row)."""
    for row in BUILTINS:
        cls = strategy.discover()[row.name]
        got = strategy.Registration(
            name=cls.name,
            file=Path(strategy.origin(row.name)).name,
            classifier=strategy.classification(cls),
            rank=cls.rank,
            params=tuple(cls.params.items()),
            description=strategy.describe(cls),
            compiled=vars(cls).get("compiled"),
        )
        assert got == row, f"set its row in dominosim/strategy/registrations.py to {got!r}"
        assert Path(strategy.origin(row.name)).parent == strategy.builtin_dir().resolve()


def test_every_built_in_file_registers_rows_only():
    """Every strategy the built-in folder's files register has its row (a new built-in file
    is its row too): loading the whole folder registers exactly the declared names."""
    strategy.load_folder(strategy.builtin_dir())
    folder = strategy.builtin_dir().resolve()
    # fmt: off
    names = {n for n in strategy.discover()
             if Path(strategy.origin(n)).parent == folder}
    # fmt: on
    assert names == set(BY_NAME)


def _in_child(code: str) -> dict:
    """Run ``code`` in a fresh interpreter (the suite's process has loaded every file); it
    prints one JSON line, returned."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


LOADED = """
import json, sys
def loaded():
    return sorted(m for m in sys.modules
                  if m.startswith("dominosim.strategies.") or m.startswith("dominosim_strategy")
                  or m == "dominosim.engine.solver")
"""


def test_a_random_run_loads_random_alone(tmp_path):
    """``dominosim run --strategies random`` imports strategies/random.py and no other
    strategy file, and not the solver (a subprocess: the suite's process has them all)."""
    code = LOADED + (
        "from dominosim.cli import main\n"
        "try:\n"
        "    main(['run', '--variant', 'fives', '--strategies', 'random', '--games', '4',\n"
        f"          '--workers', '1', '--no-plots', '--out', {str(tmp_path)!r}])\n"
        "except SystemExit as e:\n"
        "    assert not e.code, e.code\n"
        "print(json.dumps(loaded()))\n"
    )
    assert _in_child(code) == ["dominosim.strategies.random"]


def test_listing_and_resolving_names_run_no_built_in_file():
    """``dominosim strategies``' rows, the ladder's names, a name's file and classifier come
    from the rows, no built-in file run; the rows equal those of the loaded classes."""
    code = LOADED + (
        "from dominosim import strategy\n"
        "rows = strategy.listing_rows(lambda _: None, [], True)\n"
        "names = strategy.builtins(), strategy.builtins('heuristic', compiled=True)\n"
        "where = strategy.origin('pimc'), strategy.classifier_of('oracle')\n"
        "known = 'mc' in strategy.discover() and 'nope' not in strategy.discover()\n"
        "before = loaded()\n"
        "strategy.load_builtins()\n"
        "same = rows == strategy.listing_rows(lambda _: None, [], True)\n"
        "print(json.dumps([before, same, known, where[1], where[0].endswith('pimc.py')]))\n"
    )
    assert _in_child(code) == [[], True, True, "perfect_information", True]


def _imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of the package's modules in a file."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.lineno, node.module))
            out += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
    return out


def test_no_built_in_file_imports_an_old_module_path():
    """The built-in strategy files (and the package's modules) import the modules where they
    are now: the old paths of base/moved.py are kept for users' files only."""
    package = Path(strategy.__file__).resolve().parent.parent
    files = [*strategy.builtin_dir().glob("*.py"), *package.rglob("*.py")]
    old = [
        f"{p.name}:{line} imports {name} (now {MOVED[name]})"
        for p in sorted(files)
        for line, name in _imported(p)
        if name in MOVED
    ]
    assert old == []
    assert len(files) > 60  # (the folders were found)


def test_the_old_path_check_sees_an_old_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from dominosim import actions, tiles\nfrom dominosim.scoring import x\n")
    assert [n for _, n in _imported(bad) if n in MOVED] == [
        "dominosim.actions",
        "dominosim.tiles",
        "dominosim.scoring",
    ]


def _run(out: Path) -> Path:
    from click.testing import CliRunner

    from dominosim.cli import main

    args = [
        *("run", "--variant", "fives", "--strategies", "random,heaviest", "--seed", "5"),
        *("--unit", "hand", "--workers", "1", "--games", "12", "--chunk-size", "6"),
        *("--out", str(out), "--json", "--no-plots"),
    ]
    r = CliRunner().invoke(main, args, prog_name="dominosim")
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def test_a_folder_written_before_the_imports_moved_verifies(tmp_path, clean_registry):
    """A run folder whose manifest records the built-in files as they were before their
    imports moved (the first content of each registrations.SAME_GAMES group, the fingerprint
    its plan had) verifies and resumes: the files play the same games. A content in no group
    is still refused (test_received: a changed built-in file)."""
    from click.testing import CliRunner

    from dominosim.cli import main
    from dominosim.storage import store
    from dominosim.strategy.registrations import SAME_GAMES, same_games

    from runs import refingerprint

    d = _run(tmp_path / "o")
    m = json.loads((d / "manifest.json").read_text())
    older = 0
    for e in m["inputs"]["strategy_files"]:
        group = SAME_GAMES.get(e.get("builtin"), ())
        if e.get("sha256") in group and group[0] != e["sha256"]:
            e["sha256"] = group[0]
            older += 1
    assert older >= 1  # (random.py, the seated file, at least)
    m = refingerprint(m)
    (d / "manifest.json").write_text(json.dumps(m))
    for p in (d / "chunks").glob("*.agg.json"):  # (its chunks name the run they belong to)
        doc = json.loads(p.read_text())
        doc["run"] = m["fingerprint"]
        doc["checksum"] = store.checksum({k: v for k, v in doc.items() if k != "checksum"})
        p.write_text(json.dumps(doc, separators=(",", ":")))
    r = CliRunner().invoke(main, ["verify", str(d)], prog_name="dominosim")
    assert r.exit_code == 0, r.output
    assert not same_games("random.py", "0" * 64, SAME_GAMES["random.py"][-1])


def test_a_users_file_taking_a_built_in_name_is_defined_twice(tmp_path):
    """A user's file that registers a built-in's name is refused naming both files, the
    built-in's file loaded or not (its row declares the name)."""
    mine = tmp_path / "mine.py"
    mine.write_text(
        "from dominosim.strategy import Strategy, register\n\n\n"
        "@register\nclass Mine(Strategy):\n    name = 'greedy'\n\n"
        "    def choose_one(self, obs, legal, key):\n        return legal[0]\n"
    )
    code = LOADED + (
        "from dominosim import strategy\n"
        "try:\n"
        f"    strategy.discover([{str(mine)!r}])\n"
        "except strategy.StrategyError as e:\n"
        "    print(json.dumps([loaded(), str(e)]))\n"
    )
    before, error = _in_child(code)
    assert before == []
    greedy = strategy.builtin_dir().resolve() / "greedy.py"
    assert error == (
        f"strategy 'greedy' is defined twice: in {greedy} and in {mine.resolve()}; rename one"
    )


def test_each_same_games_group_holds_its_files_current_content():
    """A built-in file edited without changing a game adds its new content to its group
    (else the folders written before are refused as changed); one edited to change games
    leaves its group (a stale group would make the old folders verify)."""
    from dominosim.strategy import file_hash
    from dominosim.strategy.registrations import SAME_GAMES

    folder = Path(__file__).resolve().parents[1] / "strategies"
    stale = {f for f, group in SAME_GAMES.items() if file_hash(folder / f) not in group}
    assert stale == set()


def test_the_instances_a_run_makes_are_the_registry_s(tmp_path):
    """The strategies' instances a process plays are the registry's (no module global of the
    runner's): made once per seat label and file version, and forgotten, with the names a
    block registered, after ``REGISTRY.scoped()``."""
    from dominosim.runner.worker import make_strategy

    path = tmp_path / "mine.py"
    path.write_text(
        "from dominosim.strategy import Strategy, register\n\n\n@register\n"
        "class Mine(Strategy):\n    name = 'mine-instances'\n\n"
        "    def choose_one(self, obs):\n        return obs.legal[0]\n"
    )
    import hashlib

    files = (("path", str(path), hashlib.sha256(path.read_bytes()).hexdigest()),)
    before = dict(strategy.REGISTRY.instances)
    with strategy.REGISTRY.scoped():
        first = make_strategy("mine-instances", files)
        again = make_strategy("mine-instances", files)
        assert first.inner is again.inner
        assert first.inner in strategy.REGISTRY.instances.values()
    assert strategy.REGISTRY.instances == before
    assert "mine-instances" not in strategy.discover()


def test_the_guard_declares_what_the_engine_reads_of_a_strategy():
    """A seat's strategy as a worker plays it answers the engine's questions (its label, its
    compiled policy and weights) as the strategy does, and forwards nothing else: the engine
    reads a strategy through declared methods, not a proxy."""
    from dominosim.engine import kernel
    from dominosim.runner.worker import make_strategy

    greedy, mc = make_strategy("greedy"), make_strategy("mc:samples=4")
    assert greedy.compiled_policy() == greedy.inner.compiled_policy() == "greedy"
    assert mc.compiled_policy() is None and mc.label == "mc:samples=4"
    assert list(kernel.policy_table([greedy, mc])[:2]) == [
        kernel.POLICIES.index("greedy"),
        kernel.POL_PYTHON,
    ]
    assert not hasattr(mc, "settings") and mc.inner.settings["samples"] == 4
