"""The model files of the ``learned`` strategy (docs/strategies.md, "learned": the format).

A model is a small JSON object: what it was trained for (``variant``, ``players``,
``partnership``, the ``options`` away from the variant's defaults), the names of the features
its weights multiply (``features``, exactly ``strategies/learned.py``'s ``FEATURES``), the
integer ``weights`` and how it was trained (``training``: the seed, the opponents, the budget;
documentation only). A model file is data: it is read bounded (at most ``MAX_BYTES``), checked
field by field, and never runs anything, so a model named by a received results folder is as
safe to read as its manifest.

The shipped models live beside the built-in strategies (``strategies/models``), one per
variant, player count and partnership (:func:`shipped_name`); a game without one of its own
plays the nearest (:func:`shipped_for`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from dominosim.base import bounded
from dominosim.base.errors import StrategyError

FORMAT = "dominosim-learned-model"
VERSION = 1
MAX_BYTES = 1 << 16
#: the largest weight magnitude (the core's LEARN_WEIGHT_MAX)
MAX_WEIGHT = 1 << 24
#: the features' names, in the order of the weights (strategies/learned.py's FEATURES, which
#: the core's learned_features computes in this order)
FEATURES = (
    "pips",
    "double",
    "points",
    "control",
    "void_hits",
    "blocked",
    "next_blocked",
    "partner_blocked",
    "keeps_suit",
    "unseen_fit",
    "pips_held",
    "threat",
)


@dataclass(frozen=True)
class Model:
    """A learned model (the file's fields)."""

    variant: str
    players: int
    partnership: bool
    weights: tuple[int, ...]
    options: dict = field(default_factory=dict)
    training: dict = field(default_factory=dict)
    source: str = ""  # where it was read from (a path, or "shipped:NAME")
    sha256: str = ""

    def to_json(self) -> str:
        body = {
            "format": FORMAT,
            "version": VERSION,
            "variant": self.variant,
            "players": self.players,
            "partnership": self.partnership,
            "options": self.options,
            "features": list(FEATURES),
            "weights": list(self.weights),
            "training": self.training,
        }
        return json.dumps(body, indent=1, sort_keys=False) + "\n"


def shipped_dir() -> Path:
    """The folder of the shipped models (beside the built-in strategy files)."""
    from dominosim.strategy import builtin_dir

    return builtin_dir() / "models"


def shipped_name(variant: str, players: int, partnership: bool) -> str:
    """The file name of the shipped model for a game (``fives-4p-teams.json``)."""
    return f"{variant}-{players}p{'-teams' if partnership else ''}.json"


def game_of(rules) -> tuple[str, int, bool]:
    return rules.variant, rules.players, bool(rules.partnership)


#: the shipped model a game with none of its variant plays
FALLBACK = "fives-2p.json"


def shipped_for(rules) -> str:
    """The file name of the shipped model ``rules``' game plays: its own, else one of its
    variant (the same player count first), else :data:`FALLBACK` (a model plays any game:
    its features are defined for every rule set)."""
    variant, players, partnership = game_of(rules)
    have = {p.name for p in shipped_dir().glob("*.json")}
    own = shipped_name(variant, players, partnership)
    if own in have:
        return own
    same = sorted(n for n in have if n.startswith(f"{variant}-"))
    near = [n for n in same if n.startswith(f"{variant}-{players}p")]
    return (near or same or [FALLBACK])[0]


def shipped_model(rules) -> Model:
    """The shipped model ``rules``' game plays (:func:`shipped_for`)."""
    name = shipped_for(rules)
    return read_model(shipped_dir() / name, source=f"shipped:{name}")


def load_model(path: str) -> Model:
    """The model file ``path`` (``~`` expanded), checked."""
    return read_model(Path(path).expanduser(), source=str(path))


def read_model(path: Path, source: str = "") -> Model:
    """Read and check a model file (a one-line StrategyError naming what is wrong)."""
    try:
        data = bounded.read(path, MAX_BYTES)
    except (OSError, ValueError) as e:
        raise StrategyError(
            f"learned: model {bounded.problem(path, e)}; give a model file that "
            "`dominosim train` wrote"
        ) from None
    m = parse_model(data, str(path))
    digest = hashlib.sha256(data).hexdigest()
    return Model(**{**m.__dict__, "source": source or str(path), "sha256": digest})


def parse_model(data: bytes, where: str) -> Model:
    """The Model of a model file's bytes; a one-line StrategyError naming what is wrong."""

    def bad(what: str) -> StrategyError:
        return StrategyError(
            f"learned: model {where} {what}; give a model file that `dominosim train` wrote"
        )

    try:
        d = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise bad("is not JSON") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise bad(f"is not a {FORMAT} file (its 'format' must say so)")
    if d.get("version") != VERSION:
        raise bad(f"has version {d.get('version')!r}; this dominosim reads version {VERSION}")
    if d.get("features") != list(FEATURES):
        raise bad(f"has features {d.get('features')!r}, not {list(FEATURES)}")
    w = d.get("weights")
    if not (
        isinstance(w, list)
        and len(w) == len(FEATURES)
        and all(type(x) is int and abs(x) <= MAX_WEIGHT for x in w)
    ):
        raise bad(f"must have {len(FEATURES)} integer weights within ±{MAX_WEIGHT}")
    variant, players, partnership = d.get("variant"), d.get("players"), d.get("partnership")
    if not isinstance(variant, str) or type(players) is not int or type(partnership) is not bool:
        raise bad("must name its variant (text), players (an integer) and partnership (true/false)")
    options, training = d.get("options", {}), d.get("training", {})
    if not isinstance(options, dict) or not isinstance(training, dict):
        raise bad("has options or training that are not objects")
    return Model(variant, players, partnership, tuple(w), options, training)
