"""The package's import graph flows one way (docs/design.md, "Layout of the package"): no
cycle between its modules, counting every import, at module level or inside a function (so a
function-level import cannot hide one), and no module imports another module's private
names."""

import ast
import functools
from pathlib import Path

import dominosim

ROOT = Path(dominosim.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


@functools.cache
def _parse(text: str) -> ast.Module:
    return ast.parse(text)


def _tree(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once per content for all the checks below (read only)."""
    return _parse(path.read_text(encoding="utf-8"))


MODULES = _modules()
# compiled modules (the core) are modules too, though not ones this test reads
EXTENSIONS = {
    ".".join((*p.relative_to(ROOT.parent).parent.parts, p.name.split(".")[0]))
    for p in ROOT.rglob("*.so")
}


def _imports(name: str, path: Path):
    """(imported module, imported names, line) for every import of the package's modules."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "dominosim":
                    yield a.name, [], node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.split(".")[0] != "dominosim":
                continue
            names = [a.name for a in node.names]
            subs = [f"{mod}.{n}" for n in names if f"{mod}.{n}" in MODULES]
            plain = [
                n for n in names if f"{mod}.{n}" not in MODULES and f"{mod}.{n}" not in EXTENSIONS
            ]
            if plain:
                yield mod, plain, node.lineno
            for sub in subs:
                yield sub, [], node.lineno


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in MODULES}
    for name, path in MODULES.items():
        for mod, _, _ in _imports(name, path):
            if mod in MODULES and mod != name:
                edges[name].add(mod)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def test_the_import_graph_has_no_cycle():
    assert cycles(graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_another_modules_private_names():
    bad = []
    for name, path in MODULES.items():
        for mod, names, line in _imports(name, path):
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    bad.append(f"{path.name}:{line} imports {n} from {mod}")
    assert bad == []


def test_the_graph_sees_function_level_imports():
    assert "dominosim.trace" in graph()["dominosim.cli"]  # (cli imports trace in a command)


def _module_aliases(name: str, path: Path, tree: ast.AST) -> set[str]:
    """The local names this module binds to other modules of the package."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {
                a.asname or a.name.split(".")[0]
                for a in node.names
                if a.name.startswith("dominosim")
            }
        elif isinstance(node, ast.ImportFrom):
            package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
            base = package.split(".")
            if node.level:
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out |= {a.asname or a.name for a in node.names if f"{mod}.{a.name}" in MODULES}
    return out


def private_reads(name: str, path: Path) -> list[str]:
    """Where module ``name`` reads another module's private name as an attribute."""
    tree = _tree(path)
    aliases = _module_aliases(name, path, tree)
    bad = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            bad.append(f"{path.name}:{node.lineno} reads {node.value.id}.{node.attr}")
    return bad


def test_no_module_reads_another_modules_private_names():
    """Not ``strategy._ORIGIN`` from the runner: a module's private names are its own."""
    assert [x for name, path in MODULES.items() for x in private_reads(name, path)] == []


def test_the_private_read_check_sees_one(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from .. import strategy\n\nx = strategy._ORIGIN\n")
    assert private_reads("dominosim.runner.bad", bad) == ["bad.py:3 reads strategy._ORIGIN"]


#: The runner's modules in their one-way order (docs/design.md, "The runner"): each imports
#: only those before it; ``__init__`` only re-exports.
RUNNER_ORDER = [
    "files",
    "isolated",
    "plan",
    "worker",
    "executors",
    "progress",
    "results",
    "session",
    "verify",
]


def test_the_runner_package_flows_one_way():
    listed = {f"dominosim.runner.{m}" for m in RUNNER_ORDER}
    assert {m for m in MODULES if m.startswith("dominosim.runner.")} == listed
    edges = graph()
    for i, mod in enumerate(RUNNER_ORDER):
        inside = {m.rsplit(".", 1)[-1] for m in edges[f"dominosim.runner.{mod}"] if m in listed}
        assert inside <= set(RUNNER_ORDER[:i]), (mod, sorted(inside - set(RUNNER_ORDER[:i])))


def _functions():
    for path in MODULES.values():
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield path, node


def test_no_function_in_the_package_is_longer_than_60_lines():
    """Functions a person can hold in their head (issues 29 and 41): none over 60 lines,
    counting its docstring and comments; the longest are split along the rules or sections
    they hold."""
    long = {
        f"{path.relative_to(ROOT).as_posix()} {node.name}"
        for path, node in _functions()
        if node.end_lineno - node.lineno + 1 > 60
    }
    assert long == set()


def parameters(node: ast.FunctionDef) -> int:
    """A function's parameters, ``self`` and ``cls`` not counted, ``*args`` and ``**kw`` one
    each."""
    a = node.args
    names = [*a.posonlyargs, *a.args, *a.kwonlyargs]
    n = len(names) + (a.vararg is not None) + (a.kwarg is not None)
    return n - (bool(names) and names[0].arg in ("self", "cls"))


def test_no_function_takes_more_than_8_parameters():
    """More than 8 is a value with fields of its own (a dataclass: issue 41)."""
    many = {
        f"{path.relative_to(ROOT).as_posix()} {node.name}"
        for path, node in _functions()
        if parameters(node) > 8
    }
    assert many == set()


def test_the_parameter_count_is_right():
    tree = ast.parse("class C:\n    def f(self, a, /, b, *c, d, **e): pass\ndef g(cls): pass")
    g, f = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))  # (breadth first)
    assert (parameters(f), parameters(g)) == (5, 0)


#: the two files allowed to be long: the reference engine is every rule in the order RULES.md
#: states it, the core one C translation unit (issue 41)
LONG_FILES = {"game/reference.py", "engine/_core.c"}


def test_no_file_is_over_900_lines():
    files = [p for p in ROOT.rglob("*") if p.suffix in (".py", ".c", ".h")]
    long = {
        rel
        for p in files
        if (rel := p.relative_to(ROOT).as_posix()) not in LONG_FILES
        and len(p.read_text(encoding="utf-8").splitlines()) > 900
    }
    assert long == set()


# ---- the layers (issue 41): the sketch in docs/design.md is the rule -------------------------
DESIGN = ROOT.parent / "docs" / "design.md"


def sketch() -> tuple[list[str], set[str]]:
    """The layers of docs/design.md's sketch, bottom first, and the entry points (its top line):
    the first word of each line of the first code block under "Layout of the package"."""
    text = DESIGN.read_text(encoding="utf-8").split("## Layout of the package", 1)[1]
    block = text.split("```", 2)[1].strip("\n").splitlines()
    top = block[0].split("  ")
    entry = {w.strip() for w in top if w.strip() and " " not in w.strip()}
    layers = [line.split()[0].strip("()/") for line in block[1:]]
    return layers[::-1], entry


def _layer(module: str, layers: list[str]) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in layers else "top"


def _typing_only(tree: ast.AST) -> set[int]:
    """The lines under ``if TYPE_CHECKING:``: imports for annotations, never run."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for b in node.body:
                out.update(range(b.lineno, b.end_lineno + 1))
    return out


def layer_breaks(modules: dict[str, Path], layers: list[str]) -> list[str]:
    """Every import of a module from a folder above its own (or from an entry point), by a
    module in a folder: ``module:line -> imported``."""
    from dominosim.base.moved import MOVED

    rank = {name: i for i, name in enumerate(layers)}
    bad = []
    for name, path in modules.items():
        here = _layer(name, layers)
        if here == "top":
            continue
        skip = _typing_only(_tree(path))
        for mod, names, line in _imports(name, path):
            # (``from dominosim import tiles``: the module of each name, by its old path too)
            for target in [f"{mod}.{n}" for n in names] if mod == "dominosim" else [mod]:
                target = MOVED.get(target, target)
                there = _layer(target, layers)
                if line not in skip and (there == "top" or rank[there] > rank[here]):
                    bad.append(f"{name}:{line} -> {target}")
    return bad


def _builtin_files() -> dict[str, Path]:
    folder = ROOT / "strategies"
    folder = folder if folder.is_dir() else ROOT.parent / "strategies"
    return {f"dominosim.strategies.{p.stem}": p for p in sorted(folder.glob("*.py"))}


def test_the_sketch_names_every_folder_and_entry_point():
    layers, entry = sketch()
    assert layers[0] == "base" and layers[-1] == "runner", layers
    folders = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    # (the built-in strategy files are the folder dominosim/strategies once installed)
    assert (folders | {"strategies"}) - {"configs", "examples"} == set(layers), folders
    top = {p.stem for p in ROOT.glob("*.py")} - {"__init__", "__main__"}
    assert top == entry, (top, entry)


def test_each_folder_imports_only_the_folders_below_it():
    layers, _ = sketch()
    assert layer_breaks(MODULES, layers) == []
    assert layer_breaks(_builtin_files(), layers) == []


def test_the_layer_check_sees_an_import_from_above(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from dominosim import api\n"
        "from dominosim.runner import plan\nfrom dominosim.scoring import ends_after\n"
    )
    layers, _ = sketch()
    assert layer_breaks({"dominosim.game.bad": bad}, layers) == [
        "dominosim.game.bad:5 -> dominosim.runner.plan"
    ]
    assert layer_breaks({"dominosim.analysis.bad": bad}, layers) == [
        "dominosim.analysis.bad:5 -> dominosim.runner.plan"
    ]
