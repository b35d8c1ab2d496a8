"""The batch engine: many game slots stepped together by the compiled core (``_core.c``),
driven from Python by :mod:`.batch`; the strategies are asked in batches."""

from dominosim.engine.batch import BatchEngine
from dominosim.engine.legal import Legal

__all__ = ["BatchEngine", "Legal"]
