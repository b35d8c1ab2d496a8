"""``dominosim train``: learn a ``learned`` model from the engine's own games.

The cross-entropy method (Rubinstein 1999; Szita and Lőrincz 2006 learned Tetris players this
way) over the model's integer weights: each generation draws ``population`` weight vectors
around the current mean (half of them mirrored: antithetic pairs), plays each against every
opponent on the same ``deals`` deals, each deal once per seating of the learned player
(paired duplicate deals: every candidate meets the same luck), scores each by its mean
per-hand points margin (the points the learned side scores minus the opponents', counted
against it where points are penalties: a match is a race on these points), and moves the mean
and spread to those of the best ``elite`` share. Each generation plays new deals (match ids
``generation * deals`` on), so the memory used is one generation's records, whatever the
number of generations; the whole is a function of the seed.

The opponents are the compiled heuristics (they decide inside the core, so a generation of
24 candidates against five opponents on 400 deals is a few seconds); the learned player's
weights decide inside the core too (``kernel.policy_table``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dominosim.engine.batch import BatchEngine
from dominosim.strategy import builtins, get
from dominosim.strategy.models import FEATURES, MAX_WEIGHT, Model

#: where the search starts: a soft ``greedy`` (points first, then the heavy tile, doubles and
#: control), a mean the first generations move away from where the games say so
START = {"pips": 10, "double": 8, "points": 60, "control": 4, "void_hits": 2}
SPREAD = 12.0  # the first generation's standard deviation of every weight
MIN_SPREAD = 1.0  # the spread never falls below this (the search keeps looking)


@dataclass(frozen=True)
class Budget:
    """How much a training plays: ``generations`` of ``population`` candidates, each on
    ``deals`` deals per opponent and seating; the ``elite`` share sets the next mean."""

    generations: int = 30
    population: int = 24
    deals: int = 400
    elite: float = 0.25

    def check(self) -> None:
        from dominosim.base.errors import ConfigError

        for k in ("generations", "population", "deals"):
            v = getattr(self, k)
            if type(v) is not int or not 1 <= v <= 1_000_000:
                raise ConfigError(f"--{k} must be an integer from 1 to 1,000,000, not {v!r}")
        if self.population < 4:
            raise ConfigError("--population must be at least 4 (the elite is a quarter of it)")


def default_opponents() -> list[str]:
    """The compiled heuristics, every one but ``learned`` itself."""
    return [n for n in builtins("heuristic", compiled=True) if n != "learned"]


def _seatings(rules) -> list[list[bool]]:
    """Per seating, which seats the learned player takes: each side in turn (in partnership
    both seats of the side)."""
    if rules.partnership:
        return [[s % 2 == side for s in range(4)] for side in (0, 1)]
    return [[s == k for s in range(rules.players)] for k in range(rules.players)]


def margins(rules, seed: int, learned, opponent, ids: range) -> np.ndarray:
    """Per deal of ``ids``, the learned side's points margin per hand averaged over the
    seatings (the points of its side minus the mean of the others'; negated where points are
    penalties)."""
    total = np.zeros(len(ids))
    sign = -1.0 if rules.points_sense == "lower" else 1.0
    for mine in _seatings(rules):
        seats = [learned if m else opponent for m in mine]
        hands, _ = BatchEngine(rules, seed, seats, ids, unit="hand", batch_size=len(ids)).run()
        order = np.argsort(hands["match_id"], kind="stable")
        pts = np.asarray(hands["points"], dtype=np.float64)[order]
        side = rules.side_of(mine.index(True))
        others = np.delete(pts, side, axis=1).mean(axis=1)
        total += sign * (pts[:, side] - others)
    return total / len(_seatings(rules))


def candidate(rules, weights) -> object:
    """A ``learned`` player with ``weights`` (the training's own model, no file)."""
    player = get("learned")
    player.use(Model(rules.variant, rules.players, bool(rules.partnership), tuple(weights)))
    return player


def fitness(rules, seed, weights, opponents, ids) -> float:
    """The mean points margin of ``weights`` against every opponent on the deals ``ids``."""
    me = candidate(rules, weights)
    return float(np.mean([margins(rules, seed, me, get(o), ids).mean() for o in opponents]))


def _draw(rng, mean, spread, n) -> np.ndarray:
    """``n`` integer weight vectors around ``mean`` (antithetic pairs), within the limits."""
    half = rng.standard_normal((n - n // 2, len(mean)))
    z = np.concatenate([half, -half])[:n]
    return np.clip(np.rint(mean + spread * z), -MAX_WEIGHT, MAX_WEIGHT).astype(np.int64)


def train(
    rules,
    seed: int,
    budget: Budget = Budget(),
    opponents: Sequence[str] | None = None,
    progress: Callable[[int, float, np.ndarray], None] | None = None,
) -> Model:
    """The model learned for ``rules``' game from ``seed`` (docstring of the module);
    ``progress(generation, best fitness, mean)`` after each generation."""
    budget.check()
    opponents = list(opponents or default_opponents())
    rng = np.random.default_rng([seed, 0x1EA2])
    mean = np.array([float(START.get(f, 0)) for f in FEATURES])
    spread = np.full(len(FEATURES), SPREAD)
    keep = max(2, int(round(budget.population * budget.elite)))
    history = []
    for g in range(budget.generations):
        ids = range(g * budget.deals, (g + 1) * budget.deals)
        cands = _draw(rng, mean, spread, budget.population)
        scores = np.array([fitness(rules, seed, w, opponents, ids) for w in cands])
        elite = cands[np.argsort(-scores, kind="stable")[:keep]].astype(np.float64)
        mean = elite.mean(axis=0)
        spread = np.maximum(elite.std(axis=0), MIN_SPREAD)
        history.append(round(float(scores.max()), 4))
        if progress is not None:
            progress(g, float(scores.max()), mean)
    weights = tuple(int(x) for x in np.rint(mean))
    training = {
        "method": "cross-entropy",
        "seed": seed,
        "generations": budget.generations,
        "population": budget.population,
        "deals": budget.deals,
        "elite": budget.elite,
        "opponents": opponents,
        "fitness": "points margin per hand, paired deals, every seating",
        "best_per_generation": history,
    }
    options = {k: v for k, v in rules.options}
    return Model(rules.variant, rules.players, bool(rules.partnership), weights, options, training)


def check_opponents(spec: str | None) -> list[str] | None:
    """``--opponents``: compiled heuristics by name (None: all of them); a one-line
    ConfigError for another."""
    from dominosim.base.errors import ConfigError

    if spec is None:
        return None
    names = [n.strip() for n in spec.split(",") if n.strip()]
    allowed = default_opponents()
    for n in names:
        if n not in allowed:
            raise ConfigError(
                f"--opponents: {n!r} is not a compiled heuristic; choose from {', '.join(allowed)}"
            )
    if not names:
        raise ConfigError(f"--opponents is empty; name one or more of {', '.join(allowed)}")
    return names


def check_out(path: str):
    """``--out``: a model file to write, in a folder that exists (a one-line ConfigError)."""
    from pathlib import Path

    from dominosim.base.errors import ConfigError

    out = Path(path).expanduser()
    if not out.parent.is_dir():
        raise ConfigError(f"--out {path}: the folder {out.parent} does not exist; create it first")
    if out.exists() and not out.is_file():
        raise ConfigError(f"--out {path} is not a regular file; give a file name")
    return out


class progress_bar:
    """A tqdm bar over the generations on stderr, on a terminal (showing the best score so
    far), as a callback."""

    def __init__(self, total: int):
        import sys

        from tqdm import tqdm

        self._bar = tqdm(
            total=total,
            unit="generation",
            desc="train",
            leave=False,
            disable=not sys.stderr.isatty(),
        )

    def __enter__(self):
        return self

    def __call__(self, generation: int, best: float, mean) -> None:
        self._bar.set_postfix(best=f"{best:+.3f}")
        self._bar.update(1)

    def __exit__(self, *exc):
        self._bar.close()
        return False
