"""Shared test settings: hypothesis profiles ("ci" when the CI variable is set, else "dev")."""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=50, deadline=None, print_blob=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
