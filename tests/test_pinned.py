"""The numbers a seed gives are pinned: a few small runs' reports, every variant once
(tests/pinned/reports.json, written by tests/pinned/make.py on the engine they pin).

Engine-against-engine tests cannot see a change that alters both engines at once (a seeding
or table change); this one does. A change that alters games on purpose regenerates the file
and says so in its commit."""

import json
from pathlib import Path

import pytest

from pinned.make import CASES, report

PINNED = json.loads((Path(__file__).parent / "pinned" / "reports.json").read_text())


def test_every_case_is_pinned():
    assert sorted(PINNED) == sorted(name for name, _ in CASES)


@pytest.mark.parametrize("name,flags", CASES, ids=[name for name, _ in CASES])
def test_report_equals_pinned(tmp_path, name, flags):
    assert report(flags, tmp_path) == PINNED[name]
