"""The analysis of a run: the integer aggregates and their statistics, the report computed from
the manifest and the aggregates, its rendering and figures, and the tournaments' planning and
measurements (docs/design.md, "Layout of the package"). It imports the game, the engine and the
strategies' machinery, never the storage, the runner or the entry points."""
