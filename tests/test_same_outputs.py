"""The masking of bench/same_outputs.py (issue 48 point 7): what differs from one run to the
next is masked, and nothing else."""

import importlib.util
from pathlib import Path

SPEC = importlib.util.spec_from_file_location(
    "same_outputs", Path(__file__).parent.parent / "bench" / "same_outputs.py"
)
same_outputs = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(same_outputs)
mask = same_outputs.mask


def test_run_to_run_parts_masked():
    line = (
        "played 20 games (141 hands) in 0.6 s (0.2 s playing, 1,099 games/s); results in "
        "/tmp/x/src/head/res/match-fives/20261207-004021-f422"
    )
    assert mask(line, {"/tmp/x/src/head": "<CHECKOUT>"}) == (
        "played 20 games (141 hands) in <N> s (<N> s playing, <N> games/s); results in "
        "<CHECKOUT>/res/match-fives/<RUN-ID>"
    )
    doc = '{"run_id": "20261207-004021-f422", "created": "2026-12-07T00:40:21+0000",'
    doc += ' "timing":{"cpu_seconds":0.0356,"wall_seconds":3.5e-05},"checksum":"ab12"}'
    assert mask(doc, {}) == (
        '{"run_id": <MASKED>, "created": <MASKED>, "timing":{"cpu_seconds":<MASKED>,'
        '"wall_seconds":<MASKED>},"checksum":<MASKED>}'
    )
    assert mask("{'wall_seconds': 0.19, 'hands_per_second': None}", {}) == (
        "{'wall_seconds': <MASKED>, 'hands_per_second': <MASKED>}"
    )


def test_results_not_masked():
    kept = [
        '{"games": 20, "hands": 141, "seed": 7, "mean_points": [3.01, 3.04]}',
        "hand length (domino/blocked hands): mean 16.51, median 16, p90 24",
        "error: --strategy-timeout must be a number of seconds from 0.001 to 86400",
        '"fingerprint": "2ec9a517a218a67372be8fa8e695ca90ff569646a725d43958329976dde3c7e0"',
        "match 3, hand 1: seat 0 plays 6:4 (left), 15 points",
    ]
    for text in kept:
        assert mask(text, {}) == text


def test_allowed_parts_only_the_builtin_hashes():
    old = '{"builtin": "greedy.py", "sha256": "' + "a" * 64 + '"}, "games": 20'
    new = '{"builtin": "greedy.py", "sha256": "' + "b" * 64 + '"}, "games": 20'
    a, b, reasons = same_outputs.allowed_parts(old.encode(), new.encode())
    assert a == b and reasons == [same_outputs.BUILTIN_FILES]
    a, b, _ = same_outputs.allowed_parts(old.encode(), new.replace("20", "21").encode())
    assert a != b
    user = '{"file": "mine.py", "sha256": "' + "a" * 64 + '"}'
    a, b, _ = same_outputs.allowed_parts(user.encode(), user.replace("a", "b").encode())
    assert a != b
