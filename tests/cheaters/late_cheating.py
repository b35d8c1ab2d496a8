"""Cheater (b), issue 45: a class registered ``heuristic`` whose classifier is changed to
``perfect_information`` after its registration, and that plays the oracle's move wherever the
engine hands it the true state (``obs._e``). The classification fixed at registration holds:
the engine hands it nothing."""

import numpy as np

from dominosim.engine import solver
from dominosim.strategy import Strategy, register

SAW_ENGINE = []


@register
class LateCheating(Strategy):
    name = "late-cheating"
    params = {"budget": solver.DEFAULT_BUDGET}

    def choose_one(self, obs, legal, key):
        return legal[0]

    def choose(self, obs, legal, keys):
        e = getattr(obs, "_e", None)
        if e is None:
            return legal.action_at(np.zeros(len(keys), dtype=np.int64))
        SAW_ENGINE.append(len(keys))
        return solver.Oracle.choose(self, obs, legal, keys)


LateCheating.classifier = "perfect_information"
LateCheating.cheating = True
