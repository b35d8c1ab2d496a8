"""Shared test settings: hypothesis profiles ("ci" when the CI variable is set, else "dev")."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=50, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# The suite plays dozens of rule sets: it uses the general kernel, which compiles once, and
# test_kernel.py checks the per-rule-set kernels (kernel.advance_for) against it on a few.
os.environ.setdefault("DOMINOSIM_SPECIALIZE", "0")
