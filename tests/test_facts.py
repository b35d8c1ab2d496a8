"""Each fact once (issue 48, point 2): the players range, the seed range, the metrics, the
units, the rules' enumerations, the score columns, the random strategy's name and the
experiment fields' help live in one module each (docs/design.md, "Where a fact lives"); every
other module reads them from there. The package's source is read with ``ast`` (string
constants and f-strings' literal parts, docstrings aside; comments are no code), once."""

import ast
import functools
import re
from pathlib import Path

import dominosim
from dominosim import cli, config
from dominosim.analysis import analyses
from dominosim.base.params import declared
from dominosim.engine import kernel
from dominosim.game import rules, seeding, variants
from dominosim.strategy import spec

ROOT = Path(dominosim.__file__).resolve().parent
#: the built-in strategy files (shipped as dominosim.strategies), read as the package is
STRATEGIES = ROOT.parent / "strategies"


@functools.cache
def _trees() -> dict[str, ast.Module]:
    """Each module's tree by its path: the package's relative to it, the built-in strategy
    files as ``strategies/<file>``."""
    files = [(p, p.relative_to(ROOT)) for p in sorted(ROOT.rglob("*.py"))]
    files += [(p, p.relative_to(ROOT.parent)) for p in sorted(STRATEGIES.glob("*.py"))]
    return {name.as_posix(): ast.parse(p.read_text(encoding="utf-8")) for p, name in files}


def test_the_built_in_strategy_files_are_read():
    assert STRATEGIES.is_dir() and "strategies/pimc.py" in _trees()


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = n.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _strings(tree: ast.Module):
    """(line, text) of every string constant but the docstrings (an f-string's literal parts
    one by one)."""
    docs = _docstrings(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            yield n.lineno, n.value


def _displays(tree: ast.Module):
    """(line, values) of every tuple or list display of constants only, but those a loop
    walks (indices, such as the solver's record fields 2, 3 and 4, are no players)."""
    walked = {id(n.iter) for n in ast.walk(tree) if isinstance(n, ast.For | ast.comprehension)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Tuple | ast.List) and n.elts and id(n) not in walked:
            if all(isinstance(e, ast.Constant) for e in n.elts):
                yield n.lineno, tuple(e.value for e in n.elts)


def outside(home: str, found) -> list[str]:
    """``file:line`` of each hit of ``found(tree)`` (lines) in a module other than ``home``."""
    return [
        f"{name}:{line}" for name, tree in _trees().items() if name != home for line in found(tree)
    ]


# ---- the players: game/rules.py (PLAYERS) -----------------------------------------------------
def _players_spelled(tree):
    ends = {rules.PLAYERS[0], rules.PLAYERS[-1]}
    for line, values in _displays(tree):
        if values == rules.PLAYERS:
            yield line
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call | ast.Compare):
            continue
        args = [a.value for a in getattr(n, "args", []) if isinstance(a, ast.Constant)]
        kws = {k.arg: getattr(k.value, "value", None) for k in getattr(n, "keywords", [])}
        if isinstance(n, ast.Call) and (
            set(args) == ends or {kws.get("lo"), kws.get("hi")} == ends
        ):
            yield n.lineno  # IntRange(2, 4), Field(lo=2, hi=4)
        if isinstance(n, ast.Compare) and len(n.comparators) == 2:
            if {getattr(n.left, "value", None), getattr(n.comparators[1], "value", None)} == ends:
                yield n.lineno  # 2 <= players <= 4
    for line, text in _strings(tree):
        if any(s in text for s in ("2, 3 or 4", "2 to 4", "2-4", "2/3/4")):
            yield line


def test_the_players_are_spelled_in_rules_alone():
    assert outside("game/rules.py", _players_spelled) == []


def test_the_players_check_finds_each_spelling():
    code = 'a = (2, 3, 4)\nb = IntRange(2, 4)\nc = 2 <= p <= 4\nd = f"{v} by 2, 3 or 4"\n'
    assert sorted(_players_spelled(ast.parse(code))) == [1, 2, 3, 4]


def test_the_players_flags_are_the_home_range():
    assert rules.PLAYERS_TEXT == "2, 3 or 4"
    field = config.FIELD["players"]
    assert (field.lo, field.hi) == (min(rules.PLAYERS), max(rules.PLAYERS))
    trace = next(p for p in cli.main.commands["trace"].params if p.name == "players")
    assert (trace.type.min, trace.type.max) == (field.lo, field.hi)


# ---- the seeds: game/seeding.py (M64, SEED_SPAN, in_range) -----------------------------------
def _seed_range_spelled(tree):
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow | ast.LShift):
            if getattr(n.left, "value", None) in (1, 2) and getattr(n.right, "value", None) == 64:
                yield n.lineno  # 2**64, 1 << 64
    for line, text in _strings(tree):
        if "2**64" in text:
            yield line


def test_the_seed_range_is_spelled_in_seeding_alone():
    assert outside("game/seeding.py", _seed_range_spelled) == []


def test_the_seed_check_finds_each_spelling():
    code = 'a = x < 2**64\nb = 1 << 64\nc = f"{w} from 0 to 2**64-1"\n'
    assert sorted(_seed_range_spelled(ast.parse(code))) == [1, 2, 3]


def test_the_seed_range_is_the_home_range():
    assert seeding.in_range(0) and seeding.in_range(seeding.M64)
    assert not seeding.in_range(-1) and not seeding.in_range(seeding.M64 + 1)


# ---- metrics (analysis/analyses.py), units and the rules' enumerations (game/rules.py) -------
ENUMS = {
    "analysis/analyses.py": (analyses.METRICS, analyses.HAND_METRICS),
    "game/rules.py": (
        rules.UNITS,
        rules.LAYOUTS,
        rules.DRAW_MODES,
        rules.SCORINGS,
        rules.LEAD_FIRST,
        rules.LEAD_LATER,
        rules.SETTLEMENTS,
        rules.MATCH_ENDS,
    ),
}


def _listed(tuples, tree):
    return (line for line, values in _displays(tree) if values in tuples)


def test_each_enumeration_is_listed_in_its_home_alone():
    for home, tuples in ENUMS.items():
        spelled = functools.partial(_listed, tuples)
        assert outside(home, spelled) == [], home


def test_the_readers_take_the_home_tuples():
    assert config.FIELD["unit"].choices is rules.UNITS
    assert analyses.CompareParams.__dataclass_fields__["metric"].metadata["param"].choices is (
        analyses.METRICS
    )
    metric = next(p for p in cli.main.commands["compare"].params if p.name == "metric")
    assert tuple(metric.type.choices) == analyses.METRICS
    skill = next(p for p in cli.main.commands["skill"].params if p.name == "metric")
    assert tuple(skill.type.choices) == analyses.HAND_METRICS == ("hands", "points")
    for knob, names in (
        (kernel.DRAW_MODES, rules.DRAW_MODES),
        (kernel.SCORINGS, rules.SCORINGS),
        (kernel.LEAD_LATER, rules.LEAD_LATER),
        (kernel.SETTLEMENTS, rules.SETTLEMENTS),
        (kernel.MATCH_ENDS, rules.MATCH_ENDS),
    ):
        assert tuple(knob) == names


def test_the_variants_are_listed_once():
    """VARIANTS is INFO's slugs (game/variants.py); no tuple or list names them all again (the
    presets' builders are looked up by slug in a dict, one per variant)."""
    assert variants.VARIANTS == tuple(variants.INFO)
    every = set(variants.VARIANTS)
    spelled = lambda tree: (line for line, v in _displays(tree) if every <= set(v))  # noqa: E731
    assert outside(None, spelled) == []


# ---- the score columns: game/rules.py (Rules.points_by_seat, score_columns) ------------------
def _score_columns_derived(tree):
    """A choice on ``match_end == "one_hand"`` between seats and sides."""
    lanes = {"players", "sides", "P", "S", "side_of", "seat", "side"}
    for n in ast.walk(tree):
        if isinstance(n, ast.IfExp) and "one_hand" in ast.unparse(n.test):
            branches = [*ast.walk(n.body), *ast.walk(n.orelse)]
            names = {getattr(b, "id", None) or getattr(b, "attr", None) for b in branches}
            values = {getattr(b, "value", None) for b in branches if isinstance(b, ast.Constant)}
            if (names | values) & lanes:
                yield n.lineno


def test_the_score_columns_are_derived_in_rules_alone():
    assert outside("game/rules.py", _score_columns_derived) == []


def test_the_score_columns_check_finds_one():
    code = 'n = r.players if r.match_end == "one_hand" else r.sides\n'
    assert list(_score_columns_derived(ast.parse(code))) == [1]


# ---- the random strategy's name: strategy/spec.py (RANDOM) ----------------------------------
#: a pair's label in an f-string beside the random strategy (``f"{x} vs random"``)
PAIRED = re.compile(r"^ (vs|/) random$|^random (vs|/) $")


def _random_named(tree):
    """``"random"`` as a strategy's name, alone or in a pair's label: not the classifier of
    that name (CLASSIFIERS, ``builtins("random")``, the built-ins of a classifier, and a
    registration row's classifier, its third field)."""
    allowed = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "builtins":
            allowed |= {id(a) for a in n.args}
        if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "Registration":
            allowed |= {id(a) for a in n.args[2:3]}
        if isinstance(n, ast.Assign) and any(
            getattr(t, "id", None) in ("CLASSIFIERS", "classifier") for t in n.targets
        ):  # (the registry's classifiers, and a strategy class's own: a built-in file's)
            allowed |= {id(e) for e in ast.walk(n.value)}
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and n.value == spec.RANDOM and id(n) not in allowed:
            yield n.lineno
        if isinstance(n, ast.JoinedStr):
            parts = [v.value for v in n.values if isinstance(v, ast.Constant)]
            if any(PAIRED.match(p) for p in parts):
                yield n.lineno


def test_the_random_strategy_is_named_in_spec_alone():
    assert spec.RANDOM == "random"
    assert outside("strategy/spec.py", _random_named) == []


def test_the_random_check_finds_a_name_and_spares_the_classifier():
    code = 'a = get("random")\nb = f"{x} vs random"\nc = strategy.builtins("random")\n'
    code += 'class R:\n    name = "random"\n    classifier = "random"\n'
    assert sorted(_random_named(ast.parse(code))) == [1, 2, 5]


# ---- help strings and --resume's error (dominosim/cli.py) -----------------------------------
def test_the_command_line_restates_no_field_help():
    """An experiment field's help is its row's in config.FIELDS; cli.py reads it."""
    helps = {f.help for f in config.FIELDS if f.help}
    assert [line for line, text in _strings(_trees()["cli.py"]) if text in helps] == []
    tune = next(p for p in cli.main.commands["tune"].params if p.name == "strategies")
    assert tune.help == config.FIELD["seats"].help


def test_resume_names_every_session_flag():
    assert len(cli.SESSION_FLAGS) == len(cli.SESSION_OPTIONS - {"resume"})
    assert "--strategy-timeout" in cli.SESSION_FLAGS and "--resume" not in cli.SESSION_FLAGS


# ---- help phrases (issue 48, point 2: "help strings in 3") ----------------------------------
def _help_texts(node) -> list[str]:
    """The literal parts of a help value: a string, an f-string's parts between its
    placeholders, a sum's parts (a placeholder ends a part: a phrase written once is read)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return ["\0".join(v.value if isinstance(v, ast.Constant) else "\0" for v in node.values)]
    if isinstance(node, ast.BinOp):
        return _help_texts(node.left) + _help_texts(node.right)
    return []


def _help_phrases(tree):
    """(phrase, line) of each phrase of three words or more of every ``help=`` value (an
    option's, a Field's, a Param's), split at its punctuation, lower-cased."""
    for n in ast.walk(tree):
        if isinstance(n, ast.keyword) and n.arg == "help":
            for text in _help_texts(n.value):
                for part in re.split(r"[;:.()\0]", text):
                    phrase = " ".join(part.split()).lower()
                    if len(phrase.split()) >= 3:
                        yield phrase, n.value.lineno


def _helps_twice(trees: dict[str, ast.Module]) -> list[str]:
    where: dict[str, set[str]] = {}
    for name, tree in trees.items():
        for phrase, line in _help_phrases(tree):
            where.setdefault(phrase, set()).add(f"{name}:{line}")
    return sorted(f"{p!r} at {sorted(w)}" for p, w in where.items() if len(w) > 1)


def test_each_help_phrase_is_written_once():
    """A phrase several options' help share is written once (config.HELP_*, cli.HELP_*,
    analyses' _DECIDES) and read where each help says it: cli, trace, config, settings, the
    analyses' parameters, check."""
    assert _helps_twice(_trees()) == []


def test_the_help_check_finds_a_phrase_written_twice():
    planted = {
        "a.py": ast.parse('f(help="Set a RULES §15 option (repeatable).")'),
        "b.py": ast.parse('Field(help=f"Set a RULES §15 option (repeatable); {x} more.")'),
        "c.py": ast.parse('g(help=f"{HELP_SET}; once.")'),
    }
    assert _helps_twice(planted) == ["'set a rules §15 option' at ['a.py:1', 'b.py:1']"]


# ---- the variants in the command line's help: game/variants.py (INFO) -----------------------
def _variants_restated(tree):
    """Lines of strings (docstrings too: a command's docstring is its --help) that write the
    number of variants in words or the listing's columns again."""
    columns = ", ".join(d for _, d in variants.LISTING_COLUMNS)
    count = re.compile(rf"\b{variants.COUNT}\b", re.IGNORECASE)
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str):
            if count.search(n.value) or columns in " ".join(n.value.split()):
                yield n.lineno


def test_the_commands_help_takes_the_variants_from_info():
    """``dominosim --help``, ``variants --help`` and check-strategy's --variant say how many
    variants there are and what the listing shows from game/variants.py."""
    assert list(_variants_restated(_trees()["cli.py"])) == []
    assert variants.COUNT == "twelve" and len(variants.INFO) == 12
    helps = [cli.main.help, cli.main.commands["variants"].help]
    assert all(f"the {variants.COUNT} " in h for h in helps)
    header = variants.listing().splitlines()[0].split()
    assert all(h.split()[0] in header for h, _ in variants.LISTING_COLUMNS)


def test_the_variants_check_finds_a_count_and_the_columns():
    code = (
        'def f():\n    """List the twelve variants."""\n'
        'x = "(players, deal for 2/3/4 players, layout, drawing, scoring, match end, '
        'Russian name)"\ny = "twelve-tone"\nz = "all variants"\n'
    )
    assert sorted(_variants_restated(ast.parse(code))) == [2, 3, 4]


# ---- the solver's value of a hand over: the core's (engine/_solver.h side_value) -----------
def _solver_clamp_spelled(tree):
    """The solver's clamp of a points difference, 2^27 (``SOLVE_CAP``), written in Python."""
    for n in ast.walk(tree):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow | ast.LShift):
            if getattr(n.left, "value", None) in (1, 2) and getattr(n.right, "value", None) == 27:
                yield n.lineno  # 1 << 27, 2**27
        if (
            isinstance(n, ast.Constant)
            and n.value == 1 << 27
            or isinstance(n, ast.Name)
            and (n.id == "SOLVE_CAP")
        ):
            yield n.lineno


def test_the_solver_s_leaf_value_is_the_core_s_alone():
    """pimc's alpha-mu values a hand over as the solver does, by asking the core
    (solver.leaf_values); no module, the built-in strategy files included, restates it."""
    assert outside(None, _solver_clamp_spelled) == []
    code = "SOLVE_CAP = 1 << 27\nd = max(-SOLVE_CAP, d)\nc = 2**27\n"
    assert sorted(set(_solver_clamp_spelled(ast.parse(code)))) == [1, 2, 3]


# ---- the session's settings: base/session.py (Session, EXECUTORS) ----------------------------
def _executors_spelled(tree):
    """A display of the executors (one holding ``dask-local``), as base/session.py writes it."""
    return [line for line, values in _displays(tree) if "dask-local" in values]


def test_the_session_s_executors_are_written_once():
    """The places a run's work items run (``--executor``'s choices, the runner's check) are
    ``base.session.EXECUTORS``; the runner's Session and the command line's options read
    them (they were written in settings.py and runner/plan.py both)."""
    from dominosim.base import session

    assert outside("base/session.py", _executors_spelled) == []
    assert _executors_spelled(ast.parse('E = ("local", "dask", "dask-local")\n')) == [1]
    assert session.EXECUTORS == session.SESSION["executor"].choices


# ---- the solver's default node budget: base/budget.py (SOLVER_BUDGET) -----------------------
def _solver_budget_spelled(tree):
    """The solver's default budget written as a number (2_000_000) or in a string."""
    from dominosim.base.budget import SOLVER_BUDGET

    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and type(n.value) is int and n.value == SOLVER_BUDGET:
            yield n.lineno
    for line, text in _strings(tree):
        if re.search(rf"\b{SOLVER_BUDGET}\b|\b{SOLVER_BUDGET:,}\b|\b{SOLVER_BUDGET:_}\b", text):
            yield line


def test_the_solver_s_default_budget_is_written_in_its_home_alone():
    """The solver, search's ``solver`` method, the oracle's row and ``--budget``'s help read
    ``base/budget.py``; the help shows it as it did."""
    from dominosim.base.budget import SOLVER_BUDGET
    from dominosim.engine import solver
    from dominosim.search import SOLVER_OPTIONS
    from dominosim.strategy.registrations import BY_NAME

    assert outside("base/budget.py", _solver_budget_spelled) == []
    assert solver.DEFAULT_BUDGET == SOLVER_OPTIONS["budget"] == SOLVER_BUDGET
    assert dict(BY_NAME["oracle"].params)["budget"] == SOLVER_BUDGET == 2_000_000
    assert "(default 2000000; 0: no solving)" in declared(analyses.SkillParams)["budget"].help


def test_the_budget_check_finds_a_planted_copy():
    code = 'a = {"budget": 2_000_000}\nb = 2000000\nc = "default 2000000"\nd = "2,000,000 nodes"\n'
    assert sorted(_solver_budget_spelled(ast.parse(code))) == [1, 2, 3, 4]
