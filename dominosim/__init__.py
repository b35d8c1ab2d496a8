"""dominosim: a simulator for twelve domino rule variants (see docs/rules.md).

The package's folders are its layers (docs/design.md, "Layout of the package"): ``base``,
``game``, ``engine``, ``strategy``, ``analysis``, ``storage``, ``runner``, and the entry points
on top (``cli``, ``api``, ``config``, ``trace``, ``check``)."""

from dominosim.base import moved

moved.install()  # (the module paths of earlier releases stay importable: base/moved.py)

from dominosim.base.version import __version__  # noqa: E402
from dominosim.game.rules import Rules  # noqa: E402
from dominosim.game.variants import make_rules  # noqa: E402

__all__ = ["Rules", "__version__", "make_rules"]

from dominosim.api import load, run  # noqa: E402  (runs: docs/results.md)

__all__ += ["load", "run"]

from dominosim.search import action_values  # noqa: E402  (search as building blocks: docs/strategies.md)

__all__ += ["action_values"]
