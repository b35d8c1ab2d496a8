"""A results folder's ``manifest.json`` as a type (issue 48): declared once, decoded once
where a manifest is read (:meth:`Manifest.decode`), built as the type where a run writes it
(:meth:`Manifest.build`, :meth:`Manifest.with_`, :meth:`Manifest.encode`), and read through
its attributes everywhere: no module but this one reads a manifest by key
(tests/test_manifest_type.py holds it).

The type lives here, at the lowest layer that reads it (the report), so every reader above
imports it. A received folder is untrusted input, and two readers decode it two ways, each
with the messages it always had:

* ``strict=False``, as the runner, ``verify`` and ``dominosim.load`` read a folder: nothing
  is refused here; each field holds its value as held, None when absent (:meth:`has` tells
  the two apart; a list of seats is a tuple, a group and a rotation their types where they
  are objects). The plan's fields are then checked by :meth:`plan_fields` (what
  ``runner.plan.Plan.from_manifest`` makes its plan of, in the order it always read them, so
  a damaged folder gives the same first error) and by the plan's own checks, which read the
  type's attributes. A folder whose group a report cannot read still resumes and verifies.
* ``strict=True`` (the report): the fields every report reads are checked with ``[]`` (a
  missing or mistyped one a ``KeyError``, ``TypeError`` or ``ValueError``, which the report's
  reader turns into one line), ``players`` an int, the seats tuples.

``raw`` is the mapping as held: what :meth:`encode` writes back, byte for byte (its keys' order,
a key this version does not name), read by this module only. The sections other types own
(``analysis``, ``until_decided``, ``experiment``, ``inputs``, ``timings``, ...) stay mappings,
checked where they are read. docs/results.md lists the fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any


def as_json(value: object) -> object:
    """``value`` as JSON holds it: a manifest, group or rotation its mapping as held (or
    built), a tuple a list (its items so too), anything else as it is."""
    if isinstance(value, Manifest | Group | Rotation):
        return value.raw
    if isinstance(value, tuple | list):
        return [as_json(x) for x in value]
    return value


def _tuple(x: object) -> object:
    """A JSON list as a tuple; any other value as held."""
    return tuple(x) if isinstance(x, list) else x


@dataclass(frozen=True)
class Rotation:
    """One seat rotation of the run (or of a round robin's leg): its offset and seats."""

    offset: Any
    seats: tuple
    #: the rotation as held (None: as these fields write it)
    raw: Mapping | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.raw is None:
            object.__setattr__(self, "raw", {"offset": self.offset, "seats": list(self.seats)})

    @classmethod
    def decode(cls, r: Mapping) -> Rotation:
        """The rotation ``r``, its fields required (a KeyError or TypeError where not)."""
        return cls(offset=r["offset"], seats=tuple(r["seats"]), raw=r)

    @classmethod
    def held(cls, r: object) -> object:
        """The rotation ``r`` as held: the type where it is an object, else ``r``."""
        if not isinstance(r, Mapping):
            return r
        return cls(offset=r.get("offset"), seats=_tuple(r.get("seats")), raw=r)

    @classmethod
    def build(cls, offset: int, seats) -> Rotation:
        """The rotation of ``seats`` at ``offset``, as a run writes it."""
        return cls(offset=offset, seats=tuple(seats))


def _rotations(x: object, strict: bool) -> object:
    if strict:
        return tuple(Rotation.decode(r) for r in x)
    return tuple(Rotation.held(r) for r in x) if isinstance(x, list) else x


@dataclass(frozen=True)
class Group:
    """One option group (``groups[i]``): a round robin's leg also has its own ``seats`` and
    ``rotations`` (None elsewhere: the run's)."""

    index: Any
    label: Any
    variant: Any
    options: Any
    rules: Any
    seats: tuple | None = None
    rotations: tuple[Rotation, ...] | None = None
    #: the group as held (None: as these fields write it, a leg's seats and rotations last)
    raw: Mapping | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.raw is None:
            names = [f.name for f in fields(self) if f.name != "raw"]
            held = {k: as_json(getattr(self, k)) for k in names}
            if self.seats is None and self.rotations is None:
                del held["seats"], held["rotations"]
            object.__setattr__(self, "raw", held)

    @classmethod
    def decode(cls, gd: Mapping) -> Group:
        """The group ``gd``, the fields every report reads required."""
        return cls(
            index=gd["index"],
            label=gd["label"],
            variant=gd["variant"],
            options=gd["options"],
            rules=gd["rules"],
            seats=tuple(gd["seats"]) if "seats" in gd else None,
            rotations=_rotations(gd["rotations"], True) if "rotations" in gd else None,
            raw=gd,
        )

    @classmethod
    def held(cls, gd: object) -> object:
        """The group ``gd`` as held: the type where it is an object, else ``gd``."""
        if not isinstance(gd, Mapping):
            return gd
        return cls(
            **{k: gd.get(k) for k in ("index", "label", "variant", "options", "rules")},
            seats=_tuple(gd.get("seats")),
            rotations=_rotations(gd.get("rotations"), False),
            raw=gd,
        )

    def has(self, name: str) -> bool:
        """Whether the group holds field ``name`` (a field held as ``null`` is None)."""
        return name in self.raw


@dataclass(frozen=True)
class Manifest:
    """A run folder's manifest (docs/results.md, "manifest.json"); ``raw``: the mapping as
    held (module-private: what :meth:`encode` writes back)."""

    raw: Mapping = field(repr=False, compare=False)
    # the run
    format: Any
    run_id: Any
    name: Any
    status: Any
    created: Any
    source: Any
    experiment: Any
    # its plan (``runner.plan.Plan.to_manifest``, checked by ``Plan.from_manifest``)
    seed: Any
    seed_drawn: Any
    unit: Any
    players: Any
    seats: Any
    rotations: Any
    groups: Any
    legs: Any
    rotate: Any
    games_requested: Any
    games_per_group: Any
    ids_per_rotation: Any
    ids_per_chunk: Any
    records: Any
    strategy_paths: Any
    #: written by an earlier dominosim (a constant 10,000 no run set): checked, then ignored
    batch_size: Any
    until_decided: Any
    chunk_count: Any
    chunks: Any
    fingerprint: Any
    # what produced it, what it found, what it took
    analysis: Any
    classes: Any
    inputs: Any
    outputs: Any
    versions: Any
    timings: Any
    group_timings: Any
    games_played: Any
    hands_played: Any

    @classmethod
    def decode(cls, m: Mapping | Manifest, strict: bool = True) -> Manifest:
        """The manifest ``m`` as the type; ``strict``: the fields every report reads are
        required (a KeyError, TypeError or ValueError where one is missing or mistyped; a
        Manifest is checked so and returned as it is), else nothing is refused (the module's
        docstring)."""
        if isinstance(m, Manifest):
            return cls.decode(m.raw) if strict else m
        if not strict:
            return cls._held(m)
        groups = tuple(Group.decode(gd) for gd in m["groups"])
        unit, players, seats = m["unit"], int(m["players"]), tuple(m["seats"])
        rotations = _rotations(m["rotations"], True)
        return replace(
            cls._held(m),
            groups=groups,
            unit=unit,
            players=players,
            seats=seats,
            rotations=rotations,
        )

    @classmethod
    def _held(cls, m: Mapping) -> Manifest:
        return cls(
            raw=m,
            **{k: m.get(k) for k in _PLAIN},
            seats=_tuple(m.get("seats")),
            rotations=_rotations(m.get("rotations"), False),
            groups=tuple(Group.held(g) for g in m["groups"])
            if isinstance(m.get("groups"), list)
            else m.get("groups"),
        )

    @classmethod
    def build(cls, **values: object) -> Manifest:
        """A manifest as a run writes it: its fields in the order given, each a value of the
        type (a Group, a Rotation, a tuple) or a JSON value (a section other types own)."""
        _check_names(values)
        return cls._held({k: as_json(v) for k, v in values.items()})

    def with_(self, **values: object) -> Manifest:
        """This manifest with ``values`` set: a field it holds keeps its place, a new one is
        added after the others, in the order given (as the file has always been written)."""
        _check_names(values)
        return type(self)._held({**self.raw, **{k: as_json(v) for k, v in values.items()}})

    def encode(self) -> dict:
        """The manifest as JSON holds it (what ``manifest.json`` is written from): its fields
        in their order, a key this version does not name as it was read."""
        return dict(self.raw)

    def plan_fields(self) -> dict:
        """The fields of the plan this manifest records, read as ``runner.plan.Plan`` has
        always read them, in the same order, so a damaged folder's first error is the one it
        always was (a KeyError, TypeError or ValueError, or the OutputError of a group whose
        rules this version makes otherwise): ``Plan``'s keyword arguments, but for the strategy
        files, the measurement and ``--until-decided``, which the plan reads from ``inputs``,
        ``analysis`` and ``until_decided``, and checks further (its ``from_manifest``)."""
        m = self.raw
        ids, chunk = int(m["ids_per_rotation"]), int(m["ids_per_chunk"])
        return {
            "name": m["name"],
            "seed": int(m["seed"]),
            "unit": m["unit"],
            "players": int(m["players"]),
            "seats": tuple(m["seats"]),
            "rotations": tuple(x["offset"] for x in m["rotations"]),
            "rules": _made_rules(m),
            "games_requested": int(m["games_requested"]),
            "ids_per_rotation": ids,
            "ids_per_chunk": chunk,
            "records": bool(m["records"]),
            "strategy_paths": tuple(m.get("strategy_paths", ())),
            "legs": tuple(tuple(gd["seats"]) for gd in m["groups"]) if "legs" in m else (),
            "rotate": _rotate(m),
        }

    def has(self, name: str) -> bool:
        """Whether the manifest holds field ``name`` (one of this type's, a TypeError else: its
        reader's default stands for it where not; a field held as ``null`` is None)."""
        _check_names((name,))
        return name in self.raw

    def seats_of(self, group: Group) -> tuple:
        """The seats of a group: a round robin's leg's own, else the run's."""
        return self.seats if group.seats is None else group.seats

    def rotations_of(self, group: Group) -> tuple[Rotation, ...]:
        """The rotations of a group: a round robin's leg's own, else the run's."""
        return self.rotations if group.rotations is None else group.rotations

    def group(self, index: object) -> Group:
        """The group of ``index`` (a StopIteration where none is)."""
        return next(gd for gd in self.groups if gd.index == index)


#: the fields held as they are (the others: the seats, rotations and groups, typed)
_PLAIN = tuple(
    f.name for f in fields(Manifest) if f.name not in {"raw", "seats", "rotations", "groups"}
)
_NAMES = frozenset(f.name for f in fields(Manifest)) - {"raw"}


def _check_names(values: Mapping) -> None:
    """A manifest is built of its fields only (a misspelt one is a TypeError)."""
    unknown = set(values) - _NAMES
    if unknown:
        raise TypeError(f"not fields of a manifest: {sorted(unknown)}")


def _made_rules(m: Mapping) -> tuple:
    """The rules of a manifest's groups, each the one this version makes of its options (an
    OutputError naming the group where they differ from the recorded ones)."""
    from dominosim.base.errors import OutputError
    from dominosim.game.variants import make_rules

    rules = []
    for gd in m["groups"]:
        r = make_rules(gd["variant"], m["players"], **gd["options"])
        if r.to_dict() != gd["rules"]:
            raise OutputError(
                f"the rules of group {gd['label']} in the manifest differ from this "
                "version of dominosim; resume with the version that started the run"
            )
        rules.append(r)
    return tuple(rules)


def _rotate(m: Mapping) -> bool:
    """Whether the run rotates its seats: a round robin's ``rotate``, else its experiment's."""
    rotate = m["rotate"] if "legs" in m else (m.get("experiment") or {}).get("rotate", True)
    if not isinstance(rotate, bool):
        raise TypeError(f"'rotate' is {rotate!r}, not true or false")
    return rotate
