"""oracle: the perfect-information solver's move, seeing every hand and the stock order.

A cheating reference, not a strategy a player could follow: at each decision it reads the
batch engine's true state behind the observation and plays the move the core's solver
(``dominosim.solver``, docs/design.md "The solver") rates best for its seat's side, the
paranoid bound's move with three or more sides. It is never a default of ``run`` or
``compare``; ``dominosim skill`` puts it at the top of its ladder as the perfect-information
yardstick, and every report marks its rows as perfect-information play. Where the solver's
``budget`` (nodes per decision) runs out it plays the first legal action. It plays on the
batch engine only (the reference engine's observation holds nothing hidden), so the
conformance checks of ``dominosim check-strategy`` do not apply to it.
"""

from __future__ import annotations

from dominosim.engine import solver
from dominosim.strategy import register


@register
class Oracle(solver.Oracle):
    """The solver's move on the true deal: a cheating reference (perfect information)."""

    name = "oracle"
