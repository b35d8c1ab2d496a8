"""random: uniform over the legal actions of every decision (RULES §1.6).

The baseline every study starts from: the "uniformly random strategy" that RULES.md defines.
"""

from dominosim.game.seeding import below
from dominosim.strategy import Strategy, register
from dominosim.strategy.spec import RANDOM


@register
class Random(Strategy):
    """Uniform over the legal actions."""

    name = RANDOM
    params = {}
    compiled = RANDOM  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    classifier = "random"

    def choose_one(self, obs, legal, key):
        return legal[below(key, len(legal))]

    def choose(self, obs, legal, keys):
        return legal.uniform(keys)
