"""Compare the batch engine with the reference engine, event by event (shared by tests)."""

from __future__ import annotations

import pytest

from dominosim.engine import BatchEngine
from dominosim.reference import play_match
from dominosim.variants import OPTIONS, make_rules


def norm(evs) -> list[tuple]:
    """Events as comparable tuples (the fields both engines must agree on)."""
    out = []
    for e in evs:
        t = e["type"]
        if t == "deal":
            out.append((t, tuple(map(tuple, e["hands"])), tuple(e["stock"])))
        elif t == "place":
            out.append((t, e["seat"], e["tile"], e["pos"], e["along"]))
        elif t == "draw":
            out.append((t, e["seat"], e["tile"]))
        elif t == "pass":
            out.append((t, e["seat"]))
        elif t == "score":
            out.append((t, e["side"], e["points"], e["reason"]))
        elif t == "penalty":
            out.append((t, e["seat"], e["points"]))
        elif t == "start_tile":
            out.append((t, e["tile"]))
        elif t == "hand_end":
            out.append((t, e["reason"], e["winner"], tuple(e["pips"]), e["fish_maker"],
                        e["went_out"]))  # fmt: skip
        elif t == "match_end":
            out.append((t, e["winner"], tuple(e["scores"])))
        elif t == "written":
            out.append((t, tuple(e["written"]), tuple(e["pending"])))
        elif t == "eggs":
            out.append((t, e["pot"], e["streak"]))
        elif t in ("look", "to_back"):
            out.append((t, e["seat"], e["tile"]))
        elif t in ("open", "stop"):
            out.append((t, e["seat"]))
    return out


HAND_FIELDS = ("hand_index", "leader", "fish_maker", "winner", "went_out", "hand_length",
               "turns", "draws", "passes")  # fmt: skip


def compare(rules, strategies, n: int, *, unit: str, seed: int = 11, batch_size: int = 13):
    """Play matches 0..n-1 on both engines; return a list of mismatch descriptions."""
    eng = BatchEngine(rules, seed, strategies, range(n), unit=unit, batch_size=batch_size,
                      log=True)  # fmt: skip
    hands, matches = eng.run()
    problems = []
    by_match = {}
    for i, m in enumerate(hands["match_id"]):
        by_match.setdefault(int(m), []).append(i)
    for m in range(n):
        ref = play_match(rules, seed, m, strategies, unit=unit)
        a = norm([e for h in ref.hands for e in h.events])
        b = norm(eng.finished_events[m])
        if a != b:
            i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            i = min(len(a), len(b)) if i is None else i
            problems.append(f"match {m}: first difference at event {i}: "
                            f"reference {a[i:i + 2]} batch {b[i:i + 2]}")  # fmt: skip
            continue
        rows = sorted(by_match[m], key=lambda i: hands["hand_index"][i])
        if len(rows) != len(ref.hands):
            problems.append(f"match {m}: {len(ref.hands)} hands vs {len(rows)} records")
            continue
        for rec, i in zip(ref.hands, rows, strict=True):
            for f in HAND_FIELDS:
                want = getattr(rec, f)
                want = -1 if want is None else want
                if int(hands[f][i]) != want:
                    problems.append(f"match {m} hand {rec.hand_index}: {f} {want} vs {hands[f][i]}")
            if (list(hands["points"][i]) != rec.points or list(hands["pips"][i]) != rec.pips
                    or list(hands["values"][i]) != rec.values):  # fmt: skip
                problems.append(f"match {m} hand {rec.hand_index}: points/pips/values differ")
    return problems


def option_cases():
    """One case per §15 option value away from its default (variant, players, options)."""
    cases = []
    for (variant, name), opt in OPTIONS.items():
        if isinstance(opt.allowed, tuple):
            values = [v for v in opt.allowed if v != opt.default_for(2)]
        elif "cumulative" in name:
            values = [3]
        else:
            values = [7]  # a small target: many matches end in few hands
        for value in values:
            opts = {name: value}
            if variant == "muggins" and name in ("spinner_open_all_four_immediately",
                                                 "us_sniff_counting"):  # fmt: skip
                opts["first_double_spinner"] = True
            for players in (2, 3, 4):
                try:
                    make_rules(variant, players, **opts)
                except Exception:
                    continue
                cases.append(pytest.param(variant, players, opts,
                                          id=f"{variant}-{players}p-{name}={value}"))  # fmt: skip
                break
    return cases
