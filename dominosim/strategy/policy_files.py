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
    "random.py": "a07ef5287572862ee22126b8c89e4b86f884ff50463969a418049d2f8abc92cb",
    "heaviest.py": "61dbfc6526f1bcea9f7413cb8b31074a03575292b8a7ce658db6c790fcb0c332",
    "greedy.py": "fe42bac65063bf711db5f7a7108bebbd5452d5f1bdfdde837764cd43039c2226",
    "doubles_first.py": "dad851d871db206704e01b42bf4c16a6cb3c448149f7318d9caa92b3025ac719",
    "suit_keeper.py": "9f75b8148ad97c068daf1db594d0856c652e37f498fd5ccfff2b9a5956bdd9e0",
    "blocker.py": "7e971be2f8771eca560ff1436e171d9faea5cc32833ec5ef14c44d87edd0ce0e",
    "learned.py": "4517207ba554568e0ba7371af5e481625bb41ab7c492c9322616bd3118a3630f",
}


def source_hash(path: str | Path) -> str | None:
    """The sha256 of a source file's content with ``\\r\\n`` read as ``\\n`` (None when it
    cannot be read)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    return hashlib.sha256(data.replace(b"\r\n", b"\n")).hexdigest()
