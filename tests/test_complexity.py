"""No function of the package is graded D or worse by radon's cyclomatic complexity (issue 48
point 3; docs/design.md, "Formatting"): a long chain of checks is split into functions that
each say what they check, or into a table. The reference engine, which states every rule in
the order RULES.md gives it, is held to the grade of its worst function today."""

from functools import cache
from pathlib import Path

from radon.complexity import cc_rank, cc_visit

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("dominosim", "strategies")
REFERENCE = "dominosim/game/reference.py"
#: the worst grade allowed outside the reference engine, and in it (its worst: settle_kozel, 20)
BOUND, REFERENCE_BOUND = "C", "C"


@cache
def _blocks() -> tuple:
    """Every function, method and class of the package: (file, name, complexity)."""
    return tuple(
        (path.relative_to(ROOT).as_posix(), block.fullname, block.complexity)
        for folder in FOLDERS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for block in cc_visit(path.read_text(encoding="utf-8"))
    )


def test_no_function_is_graded_d_or_worse():
    too_complex = []
    for rel, name, complexity in _blocks():
        bound = REFERENCE_BOUND if rel == REFERENCE else BOUND
        if cc_rank(complexity) > bound:
            too_complex.append(f"{rel}:{name} {cc_rank(complexity)} ({complexity})")
    assert too_complex == []


def test_the_test_sees_a_complex_function():
    """The measure grades a chain of 21 ifs D (so the test above can fail)."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(20))
    (block,) = cc_visit(f"def f(x):\n{body}    return -1\n")
    assert (block.complexity, cc_rank(block.complexity)) == (21, "D")
