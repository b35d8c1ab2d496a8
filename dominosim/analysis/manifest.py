"""A results folder's ``manifest.json`` as a type (issue 48): declared once, decoded once
where a manifest is read (:meth:`Manifest.decode`), and read through its attributes.

The manifest is written by the runner (``runner.session``: a dict, written as it is, so the
file is byte for byte what it was) and read by the runner, ``verify`` and the report; the type
lives here, at the lowest layer that reads it (the report), so every reader above imports it.
A received folder is untrusted input: ``runner.plan.Plan.from_manifest`` checks the fields of
the plan first, with its own messages; :meth:`Manifest.decode` then takes the fields every
report reads with ``[]`` (a missing or mistyped one a ``KeyError``, ``TypeError`` or
``ValueError``, which the report's reader turns into one line) and the others as they are,
``None`` when absent (the sections other types own, ``analysis`` and ``until_decided``, stay
mappings, checked where they are read). docs/results.md lists the fields."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rotation:
    """One seat rotation of the run (or of a round robin's leg): its offset and seats."""

    offset: Any
    seats: tuple

    @classmethod
    def decode(cls, r: Mapping) -> Rotation:
        return cls(offset=r["offset"], seats=tuple(r["seats"]))


@dataclass(frozen=True)
class Group:
    """One option group (``groups[i]``): a round robin's leg also has its own ``seats`` and
    ``rotations`` (None elsewhere: the run's)."""

    index: Any
    label: Any
    variant: Any
    options: Mapping
    rules: Mapping
    seats: tuple | None
    rotations: tuple[Rotation, ...] | None

    @classmethod
    def decode(cls, gd: Mapping) -> Group:
        return cls(
            index=gd["index"],
            label=gd["label"],
            variant=gd["variant"],
            options=gd["options"],
            rules=gd["rules"],
            seats=tuple(gd["seats"]) if "seats" in gd else None,
            rotations=(
                tuple(Rotation.decode(r) for r in gd["rotations"]) if "rotations" in gd else None
            ),
        )


@dataclass(frozen=True)
class Manifest:
    """A run folder's manifest (docs/results.md, "manifest.json"); ``raw``: the mapping it was
    decoded from, as read (what is written back, and what a reader of a field this type does
    not name yet is handed)."""

    raw: Mapping
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
    players: int
    seats: tuple
    rotations: tuple[Rotation, ...]
    groups: tuple[Group, ...]
    legs: Any
    rotate: Any
    games_requested: Any
    games_per_group: Any
    ids_per_rotation: Any
    ids_per_chunk: Any
    records: Any
    strategy_paths: Any
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
    def decode(cls, m: Mapping) -> Manifest:
        """The manifest ``m`` as the type (a Manifest is returned as it is)."""
        if isinstance(m, Manifest):
            return m
        return cls(
            raw=m,
            groups=tuple(Group.decode(gd) for gd in m["groups"]),
            unit=m["unit"],
            players=int(m["players"]),
            seats=tuple(m["seats"]),
            rotations=tuple(Rotation.decode(r) for r in m["rotations"]),
            **{k: m.get(k) for k in _OPTIONAL},
        )

    def has(self, field: str) -> bool:
        """Whether the manifest holds ``field`` (one of this type's: its reader's default
        stands for it where not; a field held as ``null`` is None)."""
        return field in self.raw

    def seats_of(self, group: Group) -> tuple:
        """The seats of a group: a round robin's leg's own, else the run's."""
        return self.seats if group.seats is None else group.seats

    def rotations_of(self, group: Group) -> tuple[Rotation, ...]:
        """The rotations of a group: a round robin's leg's own, else the run's."""
        return self.rotations if group.rotations is None else group.rotations

    def group(self, index: object) -> Group:
        """The group of ``index`` (a StopIteration where none is)."""
        return next(gd for gd in self.groups if gd.index == index)


#: the fields a manifest may lack (None where it does)
_OPTIONAL = tuple(
    name
    for name in Manifest.__dataclass_fields__
    if name not in {"raw", "groups", "unit", "players", "seats", "rotations"}
)
