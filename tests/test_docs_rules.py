"""docs/rules.md is a byte copy of the shared RULES.md (when the shared copy is present)."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "RULES.md"


def test_docs_rules_is_a_copy_of_rules_md():
    if not SHARED.exists():
        pytest.skip(f"{SHARED} is absent")
    assert (ROOT / "docs" / "rules.md").read_bytes() == SHARED.read_bytes()


def test_docs_rules_exists():
    assert (ROOT / "docs" / "rules.md").stat().st_size > 0
