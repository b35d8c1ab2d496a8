"""The core builds anywhere (issue 30): one abi3 extension, GCC builtins only behind _port.h,
flags by compiler type, and the plain C branch of _port.h (MSVC's and unknown compilers')
computing what GCC's builtins compute."""

import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "dominosim" / "engine"
C_SOURCES = sorted([*ENGINE.glob("*.c"), *ENGINE.glob("*.h")])


def load_setup():
    spec = importlib.util.spec_from_file_location("dominosim_setup_portable", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # (as a module: setup() is not run)
    return module


def test_the_core_is_built_for_the_stable_abi():
    """The imported extension is the abi3 build (one wheel for every CPython from 3.11)."""
    from dominosim.engine import _core

    assert ".abi3." in Path(_core.__file__).name, _core.__file__
    glue = [p for p in ENGINE.glob("*.c") if "#include <Python.h>" in p.read_text(encoding="utf-8")]
    assert {p.name for p in glue} == {"_core_glue.c", "_core_seat.c"}
    for path in glue:  # (every file of the glue: one that did not would see the full API)
        text = path.read_text(encoding="utf-8")
        assert "#define Py_LIMITED_API 0x030B0000" in text, path.name
        # (macros outside the stable ABI that the glue once used)
        assert "PyTuple_SET_ITEM" not in text and "PyList_SET_ITEM" not in text, path.name


def test_compiler_specific_code_sits_behind_the_portability_macros():
    for path in C_SOURCES:
        if path.name == "_port.h":
            continue
        text = path.read_text(encoding="utf-8")
        found = re.findall(r"__builtin_\w+|__attribute__|__declspec|_BitScan\w+", text)
        assert not found, f"{path.name}: {sorted(set(found))} (use the macros of _port.h)"
    assert '#include "_port.h"' in (ENGINE / "_core.h").read_text(encoding="utf-8")


def test_flags_are_chosen_by_compiler_type(monkeypatch):
    setup_py = load_setup()
    unix, unix_link = setup_py.flags_for("unix")
    assert "-std=c11" in unix and "-O3" in unix and unix_link == []
    msvc, _ = setup_py.flags_for("msvc")
    assert "/std:c11" in msvc and "/O2" in msvc
    assert not [flag for flag in msvc if flag.startswith("-")]  # no GCC flag reaches MSVC
    assert setup_py.flags_for("other") == ([], [])  # an unknown compiler: its defaults
    monkeypatch.setattr(setup_py, "FALLBACK", True)
    assert "-DDOMINOSIM_PORTABLE_FALLBACK" in setup_py.flags_for("unix")[0]
    monkeypatch.setattr(setup_py, "SANITIZE", True)
    assert "-fsanitize=address,undefined" in setup_py.flags_for("unix")[0]
    with pytest.raises(SystemExit, match="GCC or Clang"):
        setup_py.flags_for("msvc")


def test_an_in_place_build_removes_a_stale_per_version_build(tmp_path):
    """A `_core.cpython-311-....so` left from an older build would be imported before the
    abi3 one: the in-place build removes it, and nothing else."""
    setup_py = load_setup()
    built = tmp_path / "_core.abi3.so"
    names = ["_core.abi3.so", "_core.cpython-311-x86_64-linux-gnu.so", "_core.c", "_core.h"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    setup_py.remove_stale_builds(built)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["_core.abi3.so", "_core.c", "_core.h"]


PROBE = r"""
#include <stdio.h>
#include "_port.h"
static int table[4] = {1, 2, 3, 4};
DS_NOINLINE static int probe(void) { return table[1]; }
DS_FLATTEN static int flat(void) { return probe(); }
int main(void) {
    DS_PREFETCH(&table[2]);
    if (flat() != 2) return 1;
    for (int i = 0; i < 64; i++) {
        uint64_t bit = UINT64_C(1) << i;
        printf("%d %d\n", DS_CTZ64(bit), DS_CTZ64(bit | (bit << 1) | UINT64_C(1) << 63));
        if (i < 32) printf("%d\n", DS_CTZ32((uint32_t)bit | UINT32_C(1) << 31));
    }
    return 0;
}
"""


@pytest.mark.parametrize("defines", [[], ["-DDOMINOSIM_PORTABLE_FALLBACK"]])
def test_the_bit_scans_of_every_branch_agree(tmp_path, defines):
    """_port.h compiled alone, with GCC's builtins and with the plain C that MSVC's branch and
    unknown compilers use (-DDOMINOSIM_PORTABLE_FALLBACK): the same index of every bit."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler here (a wheel install); CI compiles this test")
    (tmp_path / "probe.c").write_text(PROBE, encoding="utf-8")
    exe = tmp_path / "probe"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"]
    subprocess.run(
        [compiler, *flags, *defines, f"-I{ENGINE}", str(tmp_path / "probe.c"), "-o", str(exe)],
        check=True,
    )
    lines = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    expected = []
    for i in range(64):
        expected.append(f"{i} {i}")
        if i < 32:
            expected.append(f"{i}")
    assert lines.split("\n")[:-1] == expected
