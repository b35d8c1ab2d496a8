"""The bottom layer, imported by every other: the error layer (``errors``), the engine's version
(``version``), reading a file that may be hostile (``bounded``), interruptions (``signals``)
and the solver's default node budget (``budget``). It imports nothing of the package (docs/design.md, "Layout of the package")."""
