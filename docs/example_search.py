"""late-search: a heuristic early in the hand, a search late (an example strategy).

An example for docs/strategies.md ("Search as building blocks"): ``doubles-first`` decides
while the seat holds more than ``late`` tiles; from then on, each decision with a choice asks
``dominosim.action_values`` for every legal action's value by ``method`` (by default ``pimc``'s
sampled exact solving with 16 deals, cheap once few tiles are left) and plays the best, the
first in canonical order among equals. Early in a hand a search is slow and a heuristic loses
little; late, when few tiles are hidden, the search sees the hand almost exactly.

``method`` is written as in ``--strategies`` (``mc:samples=64``, ``pimc:samples=32``); the
values come from the decision's key, so the strategy is deterministic, as a strategy must be.

Copy it into a folder of your own and load it with ``--strategy-path FOLDER``.
"""

from dominosim import action_values
from dominosim.base.errors import StrategyError
from dominosim.search import NoDealError
from dominosim.strategies.doubles_first import doubles_first_choice
from dominosim.strategy import Strategy, register


@register
class LateSearch(Strategy):
    """doubles-first while the hand is long; the best action_values late in the hand."""

    name = "late-search"
    params = {"late": 3, "method": "pimc:samples=16"}

    def __init__(self, **params):
        super().__init__(**params)
        late = self.settings["late"]
        if isinstance(late, bool) or not isinstance(late, int) or late < 0:
            raise StrategyError(f"late-search: late must be an integer >= 0, not {late!r}")

    def choose_one(self, obs, legal, key):
        if obs.counts[obs.seat] > self.settings["late"]:
            return doubles_first_choice(obs, legal)
        try:
            values = action_values(obs, key, self.settings["method"], legal=legal)
        except NoDealError:  # (the sampler found no deal that fits every revealed void)
            return doubles_first_choice(obs, legal)
        best = max(v for _, v in values)
        return next(a for a, v in values if v == best)
