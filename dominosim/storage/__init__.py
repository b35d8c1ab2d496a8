"""The results folder of a run (``store``) and the Arrow columns it writes (``arrow``)
(docs/design.md, "Layout of the package", and docs/results.md)."""
