"""Cheater (a), issue 45: a class declared ``heuristic`` that says of itself, in ``__init__``,
that it cheats (``self.cheating = True``, ``self.classifier = "perfect_information"``) and plays
the oracle's move wherever the engine hands it the true state (``obs._e``). The engine must
hand it nothing, and no report may take it for a perfect-information strategy it is not."""

import numpy as np

from dominosim.engine import solver
from dominosim.strategy import Strategy, register

SAW_ENGINE = []  # (one entry per batch the engine handed the true state: must stay empty)


@register
class SelfCheating(Strategy):
    name = "self-cheating"
    params = {"budget": solver.DEFAULT_BUDGET}
    classifier = "heuristic"

    def __init__(self, **params):
        super().__init__(**params)
        self.cheating = True
        self.classifier = "perfect_information"

    def choose_one(self, obs, legal, key):
        return legal[0]

    def choose(self, obs, legal, keys):
        e = getattr(obs, "_e", None)
        if e is None:
            return legal.action_at(np.zeros(len(keys), dtype=np.int64))
        SAW_ENGINE.append(len(keys))
        return solver.Oracle.choose(self, obs, legal, keys)
