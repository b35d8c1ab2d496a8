"""The package's import graph flows one way (docs/design.md, "Layout of the package"): no
cycle between its modules, counting every import, at module level or inside a function (so a
function-level import cannot hide one), and no module imports another module's private
names."""

import ast
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


MODULES = _modules()
# compiled modules (the core) are modules too, though not ones this test reads
EXTENSIONS = {
    ".".join((*p.relative_to(ROOT.parent).parent.parts, p.name.split(".")[0]))
    for p in ROOT.rglob("*.so")
}


def _imports(name: str, path: Path):
    """(imported module, imported names, line) for every import of the package's modules."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
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
    tree = ast.parse(path.read_text(encoding="utf-8"))
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
RUNNER_ORDER = ["files", "plan", "worker", "executors", "progress", "results", "session", "verify"]


def test_the_runner_package_flows_one_way():
    listed = {f"dominosim.runner.{m}" for m in RUNNER_ORDER}
    assert {m for m in MODULES if m.startswith("dominosim.runner.")} == listed
    edges = graph()
    for i, mod in enumerate(RUNNER_ORDER):
        inside = {m.rsplit(".", 1)[-1] for m in edges[f"dominosim.runner.{mod}"] if m in listed}
        assert inside <= set(RUNNER_ORDER[:i]), (mod, sorted(inside - set(RUNNER_ORDER[:i])))


def test_no_function_in_the_package_is_longer_than_80_lines():
    """Functions a person can hold in their head (issue 29): none over 80 lines, counting its
    docstring and comments; the longest are split along the rules or sections they hold."""
    long = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = node.end_lineno - node.lineno + 1
                if length > 80:
                    long.append(
                        f"{path.relative_to(ROOT.parent)}:{node.lineno} {node.name} {length}"
                    )
    assert long == []
