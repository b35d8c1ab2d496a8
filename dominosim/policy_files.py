"""The built-in strategy files the compiled policies were written from (engine/_policy.h).

A compiled policy decides for a strategy only where it is the built-in class it was written
for, read from these files as shipped (docs/strategies.md, "Compiled policies";
``Strategy.compiled_policy``): the class's module is ``dominosim.strategies.<file>``, loaded
from the built-in folder, and each of these files that is loaded hashed, when it was loaded, as
recorded here. A user's file (a copy of one of these, even byte for byte) or a built-in file
changed in place plays its Python. The twins read each other (``greedy`` ranks with
``heaviest``'s key), so a change to any of them turns every twin off.

A change to one of these files goes with its C twin and a new hash here (the value
``tests/test_policies.py`` prints when they differ); ``source_hash`` reads line endings as
``\\n``, so a checkout that writes ``\\r\\n`` keeps the twins.
"""

import hashlib
from pathlib import Path

POLICY_FILES = {
    "random.py": "b20cf5a5bc0ae813763ae164904114beb799eb35efbd64c8a4b593732df3563a",
    "heaviest.py": "6fc410103e2843aaa70a5ba49d8018f40b901b8052331b9e2216f05f97c9dfb6",
    "greedy.py": "885460808a31de1d9e9327a892f87332e74644883e121d460d7dac0f4cfa1868",
    "doubles_first.py": "e41e944043117488e8db6c00f766159038f000f4540b85ec31678d9c4a337b0d",
    "suit_keeper.py": "4bdb14d1ae8f682f6e92292ef88c469ac6fdcc926e1b531b0900967615832099",
    "blocker.py": "fd1c55615f81d97bbd126f76bd1edba042e748c599dec00791d7c72247588a6d",
}


def source_hash(path: str | Path) -> str | None:
    """The sha256 of a source file's content with ``\\r\\n`` read as ``\\n`` (None when it
    cannot be read)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()
