"""The batch engine: many game slots stepped together by the compiled core (``_core.c``),
driven from Python by :mod:`.batch`; the strategies are asked in batches."""

from .batch import BatchEngine
from .legal import Legal

__all__ = ["BatchEngine", "Legal"]
