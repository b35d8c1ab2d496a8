"""The strategies' classes a report shows (issue 45): what the manifest records as a run
begins (:func:`strategy_classes`), and what the strategy files say, recomputed for every
report and ``verify`` (:func:`classes_of`, :func:`recomputed_classes`): a built-in's from the
package's registry, a user's from its recorded file read without running it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from dominosim.base.errors import OutputError

if TYPE_CHECKING:
    from dominosim.analysis.manifest import Manifest


def seated_labels(manifest: Manifest) -> list[str]:
    """Every strategy label seated in the run, in order of first appearance."""
    seated = (x for g in manifest.groups for x in (g.seats if g.has("seats") else manifest.seats))
    return list(dict.fromkeys(str(x) for x in seated))


def strategy_classes(manifest: Manifest, seers: Iterable[str] = ()) -> dict[str, list[str]]:
    """What a report needs of the strategies' classes, recorded in the manifest as the run
    begins (``classes``; ``verify`` holds a folder's to its strategies' own): the seated labels
    that play with perfect information, and the built-in heuristics (the skill ladder's best
    heuristic is chosen among them), from the registry of this process and, for the users'
    files loaded only in a child (a run's own process never imports them), the names the
    child found perfect-information (``seers``)."""
    seers = set(seers)
    from dominosim import strategy

    pi = [
        x
        for x in seated_labels(manifest)
        if strategy.classifier_of(x.split(":")[0]) == strategy.PERFECT_INFORMATION
        or x.split(":")[0] in seers
    ]
    return {"perfect_information": pi, "heuristics": sorted(strategy.builtins("heuristic"))}


def classes_of(manifest: Manifest) -> dict[str, list[str]]:
    """The strategies' classes a report shows, recomputed from the strategy files, never taken
    from the manifest's ``classes`` alone (issue 45): a built-in's from the package's registry,
    a user's from its recorded file read without running it
    (:mod:`dominosim.strategy.source_classes`); a user's strategy whose classifier cannot be
    read so is ``unverified``. A label the manifest records as perfect information stays
    marked (a mark is never taken away); a heuristic counts only where both say so."""
    recorded = _recorded_classes(manifest)
    now = recomputed_classes(manifest)
    pi = [
        x
        for x in seated_labels(manifest)
        if x in now["perfect_information"] or x in recorded.get("perfect_information", ())
    ]
    heur = now["heuristics"]
    if "heuristics" in recorded:
        heur = [x for x in recorded["heuristics"] if x in set(heur)]
    return {"perfect_information": pi, "heuristics": heur, "unverified": now["unverified"]}


def recomputed_classes(manifest: Manifest) -> dict[str, list[str]]:
    """The classes of the seated strategies as the strategy files say (a built-in by the
    package's registry, a user's by its recorded file's source), with the labels whose
    classifier cannot be read (``unverified``), for :func:`classes_of` and ``verify``."""
    from dominosim import strategy
    from dominosim.strategy import source_classes

    builtin = set(strategy.builtins())
    files, cache = source_classes.recorded_user_files(manifest.inputs), {}
    out: dict[str, list[str]] = {"perfect_information": [], "unverified": []}
    for x in seated_labels(manifest):
        name = x.split(":")[0]
        if name in builtin:
            got = strategy.classifier_of(name)
        else:
            got = source_classes.classifier_in_files(name, files, cache)
        if got is None:
            out["unverified"].append(x)
        elif got == strategy.PERFECT_INFORMATION:
            out["perfect_information"].append(x)
    out["heuristics"] = sorted(strategy.builtins("heuristic"))
    return out


def _recorded_classes(manifest: Manifest) -> dict[str, list[str]]:
    """The manifest's recorded ``classes`` (checked: lists of names; the perfect-information
    ones among the seated labels); empty for a folder written before they were recorded."""
    got = manifest.classes
    if got is None:
        return {}
    keys = ("perfect_information", "heuristics")
    ok = isinstance(got, Mapping) and set(got) == set(keys)
    ok = ok and all(
        isinstance(got[k], list) and all(isinstance(x, str) for x in got[k]) for k in keys
    )
    if not ok or not set(got["perfect_information"]) <= set(seated_labels(manifest)):
        raise OutputError(
            "the manifest's classes field is damaged (not the run's strategy classes); "
            "take the folder again from its source, or start the run again"
        )
    return {k: list(got[k]) for k in keys}
