"""The installed package holds every subpackage (a non-editable `pip install .` must work)."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_subpackage_is_installed():
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(conf["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "dominosim").rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert "dominosim.strategies" in listed  # the built-in strategy files, shipped by path


def test_the_shipped_models_are_installed():
    """learned's models (strategies/models/*.json) are package data of dominosim.strategies,
    so a wheel holds every one (docs/strategies.md, "learned")."""
    from fnmatch import fnmatch

    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = conf["tool"]["setuptools"]["package-data"]["dominosim.strategies"]
    models = sorted((ROOT / "strategies" / "models").glob("*.json"))
    assert len(models) >= 6
    for m in models:
        assert any(fnmatch(f"models/{m.name}", p) for p in patterns), m


def test_numba_is_gone():
    """The compiled core is built at install; no extra, dependency or import uses numba."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    deps = conf["project"]["dependencies"]
    extras = conf["project"]["optional-dependencies"]
    assert not [d for d in deps + sum(extras.values(), []) if d.startswith("numba")]
    assert extras["fast"] == []  # (kept as an empty alias: old install commands still work)
    for path in [*(ROOT / "dominosim").rglob("*.py"), *(ROOT / "strategies").glob("*.py")]:
        assert "import numba" not in path.read_text(encoding="utf-8"), path


def test_the_build_without_a_c_compiler_says_what_to_install(monkeypatch):
    """No silent slow fallback: the install stops with one line naming the fix."""
    import importlib.util

    import pytest
    from setuptools import Distribution

    spec = importlib.util.spec_from_file_location("dominosim_setup", ROOT / "setup.py")
    setup_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_py)  # (as a module: setup() is not run)
    cmd = setup_py.BuildCore(Distribution({"ext_modules": [setup_py.EXTENSION]}))
    cmd.ensure_finalized()

    class NoCompiler:
        compiler_so = ["/nonexistent/cc", "-O2"]

    cmd.compiler = NoCompiler()
    with pytest.raises(SystemExit) as exc:
        cmd.build_extensions()
    message = str(exc.value)
    assert "\n" not in message and "C compiler" in message
    assert "apt-get install build-essential" in message


def test_a_release_builds_one_abi3_wheel_per_platform_and_runs_it():
    """[tool.cibuildwheel] (docs/design.md, "Building and shipping"): CPython 3.11 only (the
    abi3 wheel serves the later ones), the platforms users have, a smoke run of a shipped
    experiment file."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    cibw = conf["tool"]["cibuildwheel"]
    assert cibw["build"] == "cp311-*"
    assert set(cibw["linux"]["archs"]) == {"x86_64", "aarch64"}
    assert set(cibw["macos"]["archs"]) == {"arm64", "x86_64"}
    assert cibw["windows"]["archs"] == ["AMD64"]
    config = cibw["test-command"].split()[2]  # a shipped example by name, from the wheel
    assert cibw["test-command"].startswith("dominosim run ")
    assert (ROOT / "configs" / f"{config}.toml").is_file()


def test_the_formatter_decides_the_layout():
    """The formatter policy (docs/design.md, "Formatting"): `ruff format` lays out all code;
    only data tables whose columns line up sit between `# fmt: off` and `# fmt: on`, and no
    statement is exempted one by one with `# fmt: skip`."""
    skipped = []
    for folder in ("dominosim", "strategies", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if line.rstrip().endswith("# fmt: skip"):
                    skipped.append(f"{path.relative_to(ROOT)}:{n}")
    assert skipped == []
