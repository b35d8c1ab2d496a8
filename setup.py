"""The compiled core of the batch engine (dominosim/engine/_core.c), built by ``pip install``.

Everything else about the package is in pyproject.toml. ``DOMINOSIM_SANITIZE=1`` at build
time compiles the core with AddressSanitizer and UBSan (docs/design.md, "The compiled core").
"""

import os
import shutil
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

NO_COMPILER = (
    "dominosim needs a C compiler to build its core: install one (Debian/Ubuntu: "
    "apt-get install build-essential; Fedora: dnf install gcc python3-devel; macOS: "
    "xcode-select --install) and run pip install again"
)

SANITIZE = os.environ.get("DOMINOSIM_SANITIZE") == "1"
COMPILE = ["-std=c11", "-O3", "-fno-wrapv", "-fno-semantic-interposition", "-Wall", "-Wextra"]
LINK = []
if SANITIZE:
    flags = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
             "-fno-omit-frame-pointer", "-g"]  # fmt: skip
    COMPILE = ["-std=c11", "-O1", "-Wall", "-Wextra", "-DDOMINOSIM_SANITIZE", *flags]
    LINK = flags


class BuildCore(build_ext):
    """build_ext that says in one line what to install when no C compiler works."""

    def build_extensions(self):
        cc = getattr(self.compiler, "compiler_so", None)
        if cc and shutil.which(cc[0]) is None:
            sys.exit(f"error: {NO_COMPILER}")
        try:
            super().build_extensions()
        except Exception as exc:  # (distutils' CompileError, a missing Python.h, ...)
            sys.exit(f"error: {NO_COMPILER} (the build failed: {exc})")


EXTENSION = Extension(
    "dominosim.engine._core",
    sources=["dominosim/engine/_core.c", "dominosim/engine/_core_glue.c"],
    depends=[
        "dominosim/engine/_core.h",
        "dominosim/engine/_policy.h",
        "dominosim/engine/_solver.h",
    ],
    extra_compile_args=COMPILE,
    extra_link_args=LINK,
)

if __name__ == "__main__":  # (setuptools' build backend runs this file as __main__)
    setup(ext_modules=[EXTENSION], cmdclass={"build_ext": BuildCore})
