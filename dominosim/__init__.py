"""dominosim: a simulator for twelve domino rule variants (see docs/rules.md)."""

from .rules import Rules
from .variants import make_rules
from .version import __version__

__all__ = ["Rules", "__version__", "make_rules"]

from .api import load, run  # noqa: E402  (runs: docs/results.md)

__all__ += ["load", "run"]

from .search import action_values  # noqa: E402  (search as building blocks: docs/strategies.md)

__all__ += ["action_values"]
