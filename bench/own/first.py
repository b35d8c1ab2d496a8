"""first: the first legal action (the benchmark's trivial strategy, bench/own_strategy.py).

Two classes with the same rule: ``first`` decides game by game (``choose_one``), ``first-batch``
decides a whole batch (``choose``); they play the same games.
"""

import numpy as np

from dominosim.strategy import Strategy, register


@register
class First(Strategy):
    """The first legal action, one decision at a time (choose_one)."""

    name = "first"
    params = {}

    def choose_one(self, obs, legal, key):
        return legal[0]


@register
class FirstBatch(First):
    """The first legal action, a batch at a time (choose)."""

    name = "first-batch"

    def choose(self, obs, legal, keys):
        return legal.action_at(np.zeros(len(keys), dtype=np.int64))
