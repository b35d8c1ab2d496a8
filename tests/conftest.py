"""Shared test settings: hypothesis profiles ("ci" when the CI variable is set, else "dev"),
and a home of its own for the whole test run."""

import atexit
import os
import shutil
import tempfile

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=50, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Nothing the suite does may touch the user's home or cache: HOME and XDG_CACHE_HOME (and so
# matplotlib's and every other package's caches) point into one temporary folder per test
# process (subprocesses of the tests inherit them), removed when the process ends.
_HOME = tempfile.mkdtemp(prefix="dominosim-tests-")
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["HOME"] = _HOME
os.environ["XDG_CACHE_HOME"] = os.path.join(_HOME, ".cache")


@pytest.fixture
def clean_registry():
    """Strategies a test registers (and the instances the runner made of them) are gone after
    it."""
    from dominosim.strategy import REGISTRY

    with REGISTRY.scoped():
        yield
