"""The compiled core of the batch engine (dominosim/engine/_core.c), built by ``pip install``
or ``python -m build``.

Everything else about the package is in pyproject.toml. The core is built against CPython's
stable ABI (``Py_LIMITED_API`` 3.11), so the wheel is tagged ``cp311-abi3`` and serves every
CPython from 3.11. Flags are chosen by the compiler's type: GCC and Clang (``unix``), MSVC
(``msvc``). Environment switches at build time (docs/design.md, "The compiled core"):

- ``DOMINOSIM_SANITIZE=1``: AddressSanitizer and UBSan (GCC / Clang only);
- ``DOMINOSIM_PORTABLE_FALLBACK=1``: the plain C of ``_port.h`` (the branch MSVC and unknown
  compilers take) instead of GCC's builtins, so CI exercises it on Linux.
"""

import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NO_COMPILER = (
    "dominosim needs a C compiler to build its core from source: install one (Debian/Ubuntu: "
    "apt-get install build-essential; Fedora: dnf install gcc python3-devel; macOS: "
    "xcode-select --install; Windows: Visual Studio Build Tools), or install a prebuilt "
    "wheel (pip install dominosim-*.whl), and run pip install again"
)

SANITIZE = os.environ.get("DOMINOSIM_SANITIZE") == "1"
FALLBACK = os.environ.get("DOMINOSIM_PORTABLE_FALLBACK") == "1"
WERROR = os.environ.get("DOMINOSIM_WERROR") == "1"  # CI: a compiler warning fails the build
SANITIZERS = [
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=undefined",
    "-fno-omit-frame-pointer",
    "-g",
]
# fmt: off
FLAGS = {
    # GCC and Clang (Linux, macOS); -g0: no debug information (Python's CFLAGS ask -g), the
    # same machine code in two thirds of the compile time (49 s to 35 s for _core.c)
    "unix": (["-std=c11", "-O3", "-fno-wrapv", "-fno-semantic-interposition", "-Wall", "-Wextra",
              "-g0"], []),
    # MSVC: C11, speed, the level 3 warnings
    "msvc": (["/std:c11", "/O2", "/W3"], []),
}
# fmt: on
SANITIZE_FLAGS = (
    ["-std=c11", "-O1", "-Wall", "-Wextra", "-DDOMINOSIM_SANITIZE", *SANITIZERS],
    SANITIZERS,
)


def flags_for(compiler_type):
    """(compile flags, link flags) for a compiler type of setuptools ("unix", "msvc", ...)."""
    if SANITIZE:
        if compiler_type != "unix":
            sys.exit("error: DOMINOSIM_SANITIZE=1 needs GCC or Clang")
        compile_args, link_args = SANITIZE_FLAGS
    else:
        compile_args, link_args = FLAGS.get(compiler_type, ([], []))
    if FALLBACK:
        compile_args = [*compile_args, "-DDOMINOSIM_PORTABLE_FALLBACK"]
    if WERROR:
        compile_args = [*compile_args, "/WX" if compiler_type == "msvc" else "-Werror"]
    return list(compile_args), list(link_args)


class BuildCore(build_ext):
    """build_ext with flags by compiler type, a one-line error where no C compiler works, and
    no stale per-version build of the core left beside the abi3 one in the source tree."""

    def build_extensions(self):
        cc = getattr(self.compiler, "compiler_so", None)
        if cc and shutil.which(cc[0]) is None:
            sys.exit(f"error: {NO_COMPILER}")
        compile_args, link_args = flags_for(self.compiler.compiler_type)
        for ext in self.extensions:
            ext.extra_compile_args = compile_args
            ext.extra_link_args = link_args
        try:
            super().build_extensions()
        except Exception as exc:  # (distutils' CompileError, a missing Python.h, ...)
            sys.exit(f"error: {NO_COMPILER} (the build failed: {exc})")

    def run(self):
        super().run()
        if self.inplace or getattr(self, "editable_mode", False):
            for ext in self.extensions:
                remove_stale_builds(Path(self.get_ext_fullpath(ext.name)))


def remove_stale_builds(built):
    """Remove builds of the core for one Python version (``_core.cpython-311-....so``) beside
    the abi3 one just built in the source tree: Python would load them first."""
    stem = built.name.split(".")[0]
    for other in built.parent.glob(f"{stem}.*"):
        if other != built and other.suffix in (".so", ".pyd") and ".abi3." not in other.name:
            other.unlink()


EXTENSION = Extension(
    "dominosim.engine._core",
    sources=[
        "dominosim/engine/_core.c",
        "dominosim/engine/_core_glue.c",
        "dominosim/engine/_core_seat.c",
    ],
    depends=[
        "dominosim/engine/_core.h",
        "dominosim/engine/_core_glue.h",
        "dominosim/engine/_port.h",
        "dominosim/engine/_policy.h",
        "dominosim/engine/_solver.h",
        "dominosim/engine/_siphash.h",
    ],
    py_limited_api=True,
)

if __name__ == "__main__":  # (setuptools' build backend runs this file as __main__)
    setup(
        ext_modules=[EXTENSION],
        cmdclass={"build_ext": BuildCore},
        options={"bdist_wheel": {"py_limited_api": "cp311"}},
    )
