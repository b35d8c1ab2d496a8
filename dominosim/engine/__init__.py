"""The batch engine: many games in lockstep on numpy arrays (see :mod:`.batch`)."""

from .batch import BatchEngine
from .legal import Legal

__all__ = ["BatchEngine", "Legal"]
