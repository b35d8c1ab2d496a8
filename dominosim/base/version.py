"""The engine's version: a number bumped whenever the games a run plays can change (rules,
deals, the order strategies are asked in, records). A run records it in its manifest, and
``--resume`` refuses to finish a run begun under another engine version (docs/results.md)."""

ENGINE_VERSION = 2
#: the package's version (pyproject.toml says the same)
__version__ = "0.1.0"
