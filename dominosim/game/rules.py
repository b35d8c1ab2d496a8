"""Rules: one frozen, hashable value that describes a variant completely (docs/design.md, "Rules are data").

The engines read only this value. Named variants are presets built by
:func:`dominosim.variants.make_rules`; RULES §15 options set its fields. Anything that does not
change outcomes (batch size, workers) is not here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

#: the players at a table: every variant is played by 2, 3 or 4 (RULES §2)
PLAYERS = (2, 3, 4)
#: :data:`PLAYERS` as messages name them: ``2, 3 or 4``
PLAYERS_TEXT = f"{', '.join(map(str, PLAYERS[:-1]))} or {PLAYERS[-1]}"
#: what one game of a run is (its ``unit``): a hand, or a match of hands to the target
UNITS = ("hand", "match")

LAYOUTS = ("line", "spinner", "single_end")
DRAW_MODES = ("none", "one", "until_playable", "blind")
SCORINGS = ("none", "fives", "threes", "muggins", "bergen")
LEAD_FIRST = (
    "lot_any",  # a seat chosen by lot leads any tile (§5.4)
    "lowest_double",  # bergen §4.4: lowest double, else lowest non-double
    "highest_double",  # block §12.4: highest double, else highest non-double
    "kozel",  # §14.4 / §14.4a
    "blind_front",  # §3.4: a seat by lot leads its front tile
    "ladder",  # §10.4: first player by lot builds on the starting tile
)
LEAD_LATER = (
    "as_first",  # every hand as hand 1
    "next_after_leader",  # §3.5, §5.5
    "winner_else_lot",  # §8.5
    "winner_else_first",  # §11.5, block/classic lead_winner_of_previous_hand
    "winner_else_next",  # fives/threes lead_winner_of_previous_hand
    "out_else_lot",  # §7.5
    "out_else_fishmaker",  # §14.5
    "lot",  # two-lane / ladder cumulative_hands, muggins.lead_by_lot
)
SETTLEMENTS = ("pips", "bergen", "book", "sniff", "muggins", "kozel", "penalties")
MATCH_ENDS = ("race", "one_hand", "kozel")


@dataclass(frozen=True)
class Rules:
    """Every rule knob of one variant at one player count.

    Structural fields come from the variant's preset (RULES §2 and §n); option fields carry the
    §15 options that are not expressed structurally. ``options`` lists the options set away from
    their defaults, as ``(name, value)`` pairs, for labels such as ``fives[reserve_k=2]``.
    """

    variant: str
    players: int
    hand_size: int
    layout: str = "line"
    draw_mode: str = "until_playable"
    max_draws: int = 0  # 0: unlimited (UNTIL_PLAYABLE(m) otherwise)
    reserve_k: int = 0
    stock_in_play: bool = True  # False in block: undealt tiles are out of play (§1.5)
    scoring: str = "none"
    failed_turn_penalty: int = 0  # two-lane / ladder: +10 penalty per failed turn (§9.8)
    lead_first: str = "lot_any"
    lead_later: str = "as_first"
    settlement: str = "pips"
    domino_bonus: int = 0
    partnership: bool = False
    target: int = 100
    check_only_at_hand_end: bool = False
    match_end: str = "race"
    hands_per_match: int = 1  # one_hand matches: 1, or K under cumulative_hands
    # --- options not expressed structurally (RULES §15) ---
    blind_deal: str = "standard"
    blind_draw_optional: bool = False
    blind_play_optional: bool = False
    blind_unplayable_double_face_up: bool = False
    block_winner_fewest_tiles: bool = False
    bergen_voluntary: bool = False
    bergen_block_lowest_hand_1pt: bool = False
    bergen_near_target_cap: bool = False
    inline_double_counts_single: bool = False
    spinner_open_all_four_immediately: bool = False
    us_sniff_counting: bool = False
    penalty_per_miss: bool = False
    may_draw_when_able: bool = False
    muggins_no_rounding: bool = False
    muggins_block_difference_per_opponent: bool = False
    fish_score_sum_only: bool = False
    fish_difference_per_opponent: bool = False
    kozel_redeal: bool = False
    kozel_zero_double_lowest: bool = False
    lone_00_value: int = 10
    lone_66_value: int = 0  # 0: off, 6-6 counts 12
    eggs_double_next: bool = False
    fish_maker_takes_all: bool = False
    dry_goat: bool = False
    kozel_positive_scoring: bool = False
    options: tuple = field(default=(), compare=True)

    # --- derived ---
    @property
    def sides(self) -> int:
        """Number of sides: teams in partnership play, seats otherwise (RULES §1.4)."""
        return 2 if self.partnership else self.players

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def seats_of(self, side: int) -> tuple[int, ...]:
        if self.partnership:
            return (side, side + 2)
        return (side,)

    @property
    def points_by_seat(self) -> bool:
        """Whether points (and a match's scores) are counted by seat, where the match is one
        hand (``match_end`` ``one_hand``: each seat's penalties, §9, §10), else by side."""
        return self.match_end == "one_hand"

    @property
    def score_columns(self) -> int:
        """The points columns of a hand and scores of a match: one per seat or per side
        (:attr:`points_by_seat`)."""
        return self.players if self.points_by_seat else self.sides

    def score_column(self, seat: int) -> int:
        """The points column (and match score) of ``seat``'s: its own or its side's."""
        return seat if self.points_by_seat else self.side_of(seat)

    @property
    def points_sense(self) -> str:
        """``lower`` where points are penalties (two-lane, ladder, kozel), else ``higher``."""
        if self.match_end in ("one_hand", "kozel") and not self.kozel_positive_scoring:
            return "lower"
        return "higher"

    @property
    def label(self) -> str:
        """``variant`` or ``variant[opt=value,...]`` for the options away from defaults."""
        if not self.options:
            return self.variant
        inner = ",".join(f"{k}={format_value(v)}" for k, v in self.options)
        return f"{self.variant}[{inner}]"

    @property
    def set_flags(self) -> tuple[str, ...]:
        """The options away from defaults as ``--set`` writes them (``fives.reserve_k=2``)."""
        return tuple(f"{self.variant}.{k}={format_value(v)}" for k, v in self.options)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["options"] = {k: v for k, v in self.options}
        return d


#: The most hands one match may last: a match that reaches it without ending (a target no
#: side reaches in practice, ``target=2147483647``) is a RulesError in both engines, never an
#: endless run whose hand records fill the memory. At the default targets the longest of
#: 20,000 random matches of every variant and player count lasts 26 hands.
MAX_HANDS_PER_MATCH = 1_000


#: ``target=none``: a target no side reaches, so a hand never ends by target (for the study
#: of single hands with ``unit = "hand"``; a match would never end).
NO_TARGET = 1_000_000_000


def format_value(v: object) -> str:
    """An option value as written on the command line: ``on``/``off`` for booleans, ``none``
    for :data:`NO_TARGET`."""
    if v == NO_TARGET and type(v) is int:
        return "none"
    if v is True:
        return "on"
    if v is False:
        return "off"
    return str(v)
