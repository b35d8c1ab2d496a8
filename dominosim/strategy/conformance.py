"""What a strategy's conformance check reports (``dominosim check-strategy``, docs/strategies.md):
the :class:`Report` of its :class:`Failure` lines, and how a rule set, an action and a decision's
position are shown in them. The checks themselves are ``dominosim.check``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dominosim.game import actions, tiles
from dominosim.game.observe import Observation
from dominosim.game.rules import Rules


class Report(list):
    """The failures (a list of :class:`Failure`, empty when every check passed), with what was
    checked: ``strategies`` (labels), ``checks``, ``rule_sets`` and ``decisions`` (how many
    decisions the checks looked at); ``probed`` and ``probe_seed``: how many decisions the
    information check probed and the seed that chose them; ``notes``: lines to tell the user that are no failure
    (:func:`dominosim.strategy.twin_note`)."""

    def __init__(
        self,
        failures: Iterable[Failure] = (),
        *,
        strategies: Iterable[str] = (),
        checks: Iterable[str] = (),
        rule_sets: int = 0,
        decisions: int = 0,
    ) -> None:
        super().__init__(failures)
        self.strategies = list(strategies)
        self.checks = tuple(checks)
        self.rule_sets = rule_sets
        self.decisions = decisions
        self.notes: list[str] = []
        self.probed = 0  # decisions the information check probed
        self.probe_seed: int | None = None  # the seed that chose them (check-strategy --probe-seed)

    def lines(self, debug: bool = False) -> list[tuple[str, bool]]:
        """What ``dominosim check-strategy`` prints, ``(line, on stderr)``: the notes, the
        information check's probes, one line per failure (stdout; with ``debug``, after the
        strategy's own traceback where it raised, on stderr), and the summary naming the
        strategies checked (stderr where any failed)."""
        out = [(note, True) for note in self.notes]
        if self.probe_seed is not None:
            out.append(
                (
                    f"information: {self.probed} decisions probed, chosen by probe seed "
                    f"{self.probe_seed} (the same probes again: --probe-seed {self.probe_seed})",
                    True,
                )
            )
        for f in self:
            if debug and f.traceback:
                out.append((f.traceback, True))
            out.append((str(f), False))
        names, n = ", ".join(self.strategies), len(self)
        counts = f"({self.decisions} decisions checked in {self.rule_sets} rule sets)"
        if self:
            return [*out, (f"{names}: {n} failure{'s' * (n != 1)} {counts}", True)]
        return [*out, (f"{names}: passed {', '.join(self.checks)} {counts}", False)]


@dataclass(frozen=True)
class Failure:
    """One problem: the check, the strategy (its label), the rule set (``fives 3p``), what went
    wrong and the position that shows it (:func:`show_position`)."""

    check: str
    strategy: str
    rules: str
    message: str
    position: str = ""
    traceback: str = field(default="", compare=False, repr=False)  # (--debug: the strategy's)

    def __str__(self) -> str:
        at = f"; at {self.position}" if self.position else ""
        return f"{self.strategy}: {self.check}: {self.rules}: {self.message}{at}"


def rules_label(rules: Rules) -> str:
    """``fives 3p``, ``fives[partnership=on] 4p``."""
    return f"{rules.label} {rules.players}p"


def show_action(a: object) -> str:
    """An action as ``6-5@R`` (or its repr when it is not an action code)."""
    try:
        if not isinstance(a, bool) and 0 <= int(a) <= actions.STOP and int(a) == a:
            return actions.describe(int(a))
    except (TypeError, ValueError, OverflowError):
        pass
    shown = " ".join(repr(a).split())
    return shown if len(shown) <= 60 else shown[:57] + "..."


def show_position(obs: Observation, legal: Sequence[int] = (), seed: int | None = None) -> str:
    """One decision on one line: where it is (seed, match, hand, decision, seat, phase), the
    seat's hand, the open positions, the table and stock sizes and the legal actions."""
    where = [] if seed is None else [f"seed {seed}"]
    where += [
        f"match {obs.match_id}",
        f"hand {obs.hand_index}",
        f"decision {obs.decision}",
        f"seat {obs.seat}",
        obs.phase,
    ]
    ends = " ".join(f"{p}={v}" for p, v in obs.positions) or "(empty table)"
    parts = [
        " ".join(where),
        "hand " + (" ".join(tiles.name(x) for x in obs.hand) or "-"),
        "ends " + ends,
        f"table {len(obs.table)}, stock {obs.stock_size}",
    ]
    if legal:
        parts.append("legal " + " ".join(show_action(a) for a in legal))
    return ", ".join(parts)
