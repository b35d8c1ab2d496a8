"""The compiled twins (engine/_policy.h) and the versions of the built-ins they were written
for: each built-in strategy whose decisions the core makes declares ``twin_version = N`` on its
class, beside ``compiled``, and ``TWINS`` records the version each twin follows, by the
strategy's name.

A compiled policy decides for a strategy only where it is the built-in class it was written
for (docs/strategies.md, "Compiled policies"; ``Strategy.compiled_policy``): the class's module
is ``dominosim.strategies.<file>``, loaded from the built-in folder, and the class declares the
version recorded here, as every other built-in class with a twin loaded with it does (the
twins read each other: ``greedy`` ranks with ``heaviest``'s key, so one off turns every twin
off). A user's file (a copy of a built-in, even byte for byte) plays its Python.

The pairing is by name and version, not by the file's bytes: an edit that changes no decision
(an import, a comment) keeps the twin. A change to a built-in's decisions goes with its C
twin, a new ``twin_version`` in the file and the same number here (``tests/test_twins.py``
holds the pairing; ``tests/test_policies.py`` compares each twin with its file decision by
decision).
"""

from dominosim.strategy.spec import RANDOM

TWINS = {
    RANDOM: 1,
    "heaviest": 1,
    "greedy": 1,
    "doubles-first": 1,
    "suit-keeper": 1,
    "blocker": 1,
    "learned": 1,
}
