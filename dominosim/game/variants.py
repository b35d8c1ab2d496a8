"""The twelve variants of RULES.md as presets, and their §15 options with validation.

``make_rules("fives", 2, reserve_k=2)`` returns the :class:`~dominosim.rules.Rules` of a variant
at a player count with options applied. Every mistake raises :class:`~dominosim.errors.RulesError`
naming the problem and what is allowed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from dominosim.base.errors import ConfigError, RulesError, did_you_mean
from dominosim.game.rules import (
    MAX_HANDS_PER_MATCH,
    NO_TARGET,
    PLAYERS,
    PLAYERS_TEXT,
    Rules,
    format_value,
)

#: :data:`rules.PLAYERS` as the listings write them: the range (``2-4``), each count (``2/3/4``)
PLAYERS_RANGE = f"{PLAYERS[0]}-{PLAYERS[-1]}"
PLAYERS_EACH = "/".join(map(str, PLAYERS))


@dataclass(frozen=True)
class VariantInfo:
    slug: str
    section: int
    name: str
    russian: str
    deal: tuple[int, int, int]  # tiles each for 2 / 3 / 4 players
    layout: str
    drawing: str
    scoring: str
    match: str


# fmt: off
INFO = {
    v.slug: v
    for v in (
        VariantInfo("blind", 3, "Blind domino", "Слепое домино", (7, 5, 5), "LINE",
                    "blind row, draw one", "none", "100"),
        VariantInfo("bergen", 4, "Bergen", "Берген", (6, 6, 5), "LINE, doubles across",
                    "ONE, reserve 2", "2 or 3 for matching ends", "15 / 10 / 10"),
        VariantInfo("fives", 5, "All Fives", "Пятёрки", (6, 6, 5), "LINE", "ONE", "c / 5",
                    "25 / 20 / 20"),
        VariantInfo("threes", 6, "All Threes", "Тройки", (6, 6, 5), "LINE", "ONE", "c / 3",
                    "33 / 22 / 22"),
        VariantInfo("sniff", 7, "Sniff", "Снифф", (7, 5, 5), "SPINNER", "UNTIL_PLAYABLE",
                    "c / 5", "61"),
        VariantInfo("basic", 8, "Base draw game", "Домино", (7, 5, 5), "LINE", "UNTIL_PLAYABLE",
                    "none", "100"),
        VariantInfo("two-lane", 9, "Two-lane domino", "Двухполосное домино", (5, 5, 6),
                    "LINE, all along", "ONE", "10 penalty per failed turn", "one hand"),
        VariantInfo("ladder", 10, "Ladder", "Лестница", (5, 5, 5), "SINGLE_END", "ONE",
                    "10 penalty per failed turn", "one hand"),
        VariantInfo("muggins", 11, "Muggins", "Маггинс", (7, 5, 5), "LINE",
                    "UNTIL_PLAYABLE, reserve 2", "c", "100"),
        VariantInfo("block", 12, "Block", "Блокировка", (7, 5, 5), "LINE", "NONE", "none", "50"),
        VariantInfo("classic", 13, "Classic draw game", "Классическая", (7, 7, 7), "LINE",
                    "UNTIL_PLAYABLE", "none", "100"),
        VariantInfo("kozel", 14, "Goat", "Козёл", (7, 7, 7), "LINE",
                    "UNTIL_PLAYABLE; NONE with 4", "none (penalties)", "a side at >= 101 loses"),
    )
}
# fmt: on
#: the twelve variants' slugs, in RULES §2's order (INFO's)
VARIANTS = tuple(INFO)

BOOL = (False, True)
INT_GE1 = "integer >= 1"
INT32_MAX = 2**31 - 1  # the largest option value (targets, points) the records hold
OFF_OR_INT_GE2 = "off or integer >= 2"


@dataclass(frozen=True)
class Option:
    """One RULES §15 option: its default, allowed values and the rows it changes."""

    variant: str
    name: str
    default: object  # a value, or a (2p, 3p, 4p) tuple for player-dependent defaults
    allowed: object  # a tuple of values, INT_GE1 or OFF_OR_INT_GE2
    sections: str
    help: str
    #: the Rules field the value is copied to unchanged (None: a structural option, from which
    #: ``_build`` derives layout, deal, draw mode, leads, ...)
    field: str | None = None
    #: the compiled core's knob (``kernel.knobs``) that reads that field as an integer (None:
    #: the core reads the field through a structural knob, or the Python side reads it)
    knob: str | None = None

    def default_for(self, players: int) -> object:
        if isinstance(self.default, tuple) and self.allowed == INT_GE1:
            return self.default[players - 2]
        return self.default

    def allowed_text(self) -> str:
        if self.name == "target":
            return f"{self.allowed} or none"
        if isinstance(self.allowed, str):
            return self.allowed
        return ", ".join(format_value(v) for v in self.allowed)


def _o(variant, name, default, allowed, sections, help_, knob=None, field=None):
    """A row; ``knob`` (the core's knob) makes the option a field of its own name, or of
    ``field``."""
    if knob is not None and field is None:
        field = name
    return Option(variant, name, default, allowed, sections, help_, field, knob)


_TARGET = (
    "match target (§1.14); any integer >= 1; 'none': no target, a hand never ends by "
    "target (unit hand only)"
)
_CHECK = "check the target only at the end of a hand (§1.14)"
_PARTNER = "4 players play as two teams {0,2} and {1,3} (§1.4)"

# fmt: off
OPTIONS: dict[tuple[str, str], Option] = {
    (o.variant, o.name): o
    for o in (
        _o("blind", "blind_deal", "standard", ("standard", "all_tiles"), "§3.2, §3.4, §3.5",
           "all_tiles: 14 / 9 / 7 each; with 3 players the leftover tile starts the layout", field="blind_deal"),
        _o("blind", "blind_draw_optional", False, BOOL, "§3.7a, §3.7c, §3.9a",
           "the draws of 3.7a and 3.7c are optional", knob="blind_draw_optional"),
        _o("blind", "blind_play_optional", False, BOOL, "§3.7a",
           "a fitting front or drawn tile may be declined in the blind phase", knob="blind_play_optional"),
        _o("blind", "blind_unplayable_double_face_up", False, BOOL, "§3.7a",
           "a double that goes back into a row lies face up", knob="blind_face_up"),
        _o("blind", "block_winner_fewest_tiles", False, BOOL, "§3.10",
           "a block is won by the fewest tiles, scoring the others' pip sum", knob="fewest_tiles"),
        _o("blind", "target", (100, 100, 100), INT_GE1, "§3.11", _TARGET, knob="target"),
        _o("blind", "check_only_at_hand_end", False, BOOL, "§3.11", _CHECK, knob="check_only"),
        _o("bergen", "partnership", False, BOOL, "§4.1", _PARTNER, knob="partnership"),
        _o("bergen", "bergen_highest_double_leads", False, BOOL, "§4.4, §4.5",
           "the holder of the highest double leads it"),
        _o("bergen", "bergen_voluntary", False, BOOL, "§4.7",
           "a player may decline to play while a drawable tile exists", knob="bergen_voluntary"),
        _o("bergen", "bergen_draw_until_playable", False, BOOL, "§4.7",
           "drawing mode UNTIL_PLAYABLE with reserve 2"),
        _o("bergen", "bergen_domino_bonus", 2, (2, 1), "§4.10", "points for going out", knob="domino_bonus", field="domino_bonus"),
        _o("bergen", "bergen_block_lowest_hand_1pt", False, BOOL, "§4.10, §4.10a",
           "block award 1 point, doubles' pips not counted", knob="bergen_1pt"),
        _o("bergen", "bergen_near_target_cap", False, BOOL, "§4.8",
           "headers score 1 when need <= 2 and at most 2 when need = 3", knob="bergen_cap"),
        _o("bergen", "target", (15, 10, 10), INT_GE1, "§4.11", _TARGET, knob="target"),
        _o("bergen", "check_only_at_hand_end", False, BOOL, "§4.11", _CHECK, knob="check_only"),
        _o("fives", "partnership", False, BOOL, "§5.1", _PARTNER, knob="partnership"),
        _o("fives", "lead_winner_of_previous_hand", False, BOOL, "§5.5",
           "the previous hand's winner leads any tile"),
        _o("fives", "reserve_k", 0, (0, 2), "§5.3", "stock tiles never drawn", field="reserve_k"),
        _o("fives", "inline_double_counts_single", False, BOOL, "§5.6",
           "a double laid along counts single (§1.11 rule 4)", knob="inline_single"),
        _o("fives", "target", (25, 20, 20), INT_GE1, "§5.11", _TARGET, knob="target"),
        _o("fives", "check_only_at_hand_end", False, BOOL, "§5.11", _CHECK, knob="check_only"),
        _o("threes", "partnership", False, BOOL, "§6.1", _PARTNER, knob="partnership"),
        _o("threes", "lead_winner_of_previous_hand", False, BOOL, "§6.5",
           "the previous hand's winner leads any tile"),
        _o("threes", "reserve_k", 0, (0, 2), "§6.3", "stock tiles never drawn", field="reserve_k"),
        _o("threes", "inline_double_counts_single", False, BOOL, "§6.6",
           "a double laid along counts single (§1.11 rule 4)", knob="inline_single"),
        _o("threes", "target", (33, 22, 22), INT_GE1, "§6.11", _TARGET, knob="target"),
        _o("threes", "check_only_at_hand_end", False, BOOL, "§6.11", _CHECK, knob="check_only"),
        _o("sniff", "partnership", False, BOOL, "§7.1", _PARTNER, knob="partnership"),
        _o("sniff", "sniff_pagat_deal", False, BOOL, "§7.2", "deal 7 / 6 / 5 each"),
        _o("sniff", "reserve_k", 0, (0, 2), "§7.3", "stock tiles never drawn (2 players only)", field="reserve_k"),
        _o("sniff", "max_draws_per_turn", 0, (0, 2, 3), "§7.7",
           "at most m draws per turn, UNTIL_PLAYABLE(m); 0 = unlimited", field="max_draws"),
        _o("sniff", "spinner_open_all_four_immediately", False, BOOL, "§7.6a",
           "all four sides of the spinner are playable at once", knob="open_all_four"),
        _o("sniff", "us_sniff_counting", False, BOOL, "§7.6a", "US spinner counting (§1.11)", knob="us_sniff"),
        _o("sniff", "target", (61, 61, 61), INT_GE1, "§7.11", _TARGET, knob="target"),
        _o("sniff", "sniff_book_endgame", False, BOOL, "§7.10, §7.11",
           "settle as fives (domino +2, block +1) and play to 25 / 20 / 20"),
        _o("sniff", "check_only_at_hand_end", False, BOOL, "§7.11", _CHECK, knob="check_only"),
        _o("basic", "lead_highest_double", False, BOOL, "§8.4, §8.5",
           "every hand is led as in §12.4"),
        _o("basic", "penalty_per_miss", False, BOOL, "§8.10",
           "+10 penalty per pass; the winner scores the others' penalties minus his own", knob="penalty_per_miss"),
        _o("basic", "target", (100, 100, 100), INT_GE1, "§8.11", _TARGET, knob="target"),
        _o("basic", "check_only_at_hand_end", False, BOOL, "§8.11", _CHECK, knob="check_only"),
        _o("two-lane", "cumulative_hands", 0, OFF_OR_INT_GE2, "§9.5, §9.11",
           "play K hands and sum the penalties"),
        _o("ladder", "cumulative_hands", 0, OFF_OR_INT_GE2, "§10.5, §10.11",
           "play K hands and sum the penalties"),
        _o("muggins", "partnership", False, BOOL, "§11.1", _PARTNER, knob="partnership"),
        _o("muggins", "muggins_deal_7_all", False, BOOL, "§11.2", "7 each for every player count"),
        _o("muggins", "lead_by_lot", False, BOOL, "§11.4, §11.5",
           "every hand's leader is chosen by lot and leads any tile"),
        _o("muggins", "first_double_spinner", False, BOOL, "§11.6",
           "SPINNER layout (§1.9, §1.11 rule 3)"),
        _o("muggins", "spinner_open_all_four_immediately", False, BOOL, "§11.6",
           "with first_double_spinner: all four sides open at once", knob="open_all_four"),
        _o("muggins", "us_sniff_counting", False, BOOL, "§11.6",
           "with first_double_spinner: US spinner counting", knob="us_sniff"),
        _o("muggins", "reserve_k", 2, (2, 0), "§11.3", "stock tiles never drawn", field="reserve_k"),
        _o("muggins", "may_draw_when_able", False, BOOL, "§11.7",
           "a player may draw before playing while drawable tiles remain", knob="may_draw"),
        _o("muggins", "muggins_no_rounding", False, BOOL, "§11.10a", "round5 is not applied", knob="muggins_no_rounding"),
        _o("muggins", "muggins_block_difference_per_opponent", False, BOOL, "§11.10, §11.10a",
           "at a block each side scores against every higher side", knob="muggins_block_per_opponent"),
        _o("muggins", "target", (100, 100, 100), INT_GE1, "§11.11", _TARGET, knob="target"),
        _o("muggins", "check_only_at_hand_end", False, BOOL, "§11.11", _CHECK, knob="check_only"),
        _o("block", "partnership", False, BOOL, "§12.1", _PARTNER, knob="partnership"),
        _o("block", "block_deal_7_all", False, BOOL, "§12.2", "7 each for every player count"),
        _o("block", "lead_winner_of_previous_hand", False, BOOL, "§12.5",
           "the previous hand's winner leads any tile"),
        _o("block", "fish_score_sum_only", False, BOOL, "§12.10",
           "the fish winner scores the others' sum without subtracting his own", knob="fish_sum_only"),
        _o("block", "fish_difference_per_opponent", False, BOOL, "§12.10",
           "the fish winner scores the sum of (each other side - his own)", knob="fish_diff"),
        _o("block", "target", (50, 50, 50), INT_GE1, "§12.11", _TARGET, knob="target"),
        _o("block", "check_only_at_hand_end", False, BOOL, "§12.11", _CHECK, knob="check_only"),
        _o("classic", "partnership", False, BOOL, "§13.1", _PARTNER, knob="partnership"),
        _o("classic", "lead_winner_of_previous_hand", False, BOOL, "§13.5",
           "the previous hand's winner leads any tile"),
        _o("classic", "target", (100, 100, 100), INT_GE1, "§13.11", _TARGET, knob="target"),
        _o("classic", "check_only_at_hand_end", False, BOOL, "§13.11", _CHECK, knob="check_only"),
        _o("kozel", "kozel_individual_4p", False, BOOL, "§14.1a", "4 players are 4 sides"),
        _o("kozel", "kozel_redeal", False, BOOL, "§14.2",
           "redeal when a hand holds 5+ doubles or 6+ tiles of one number", knob="kozel_redeal"),
        _o("kozel", "kozel_zero_double_lowest", False, BOOL, "§14.4a", "0-0 is the lowest double", field="kozel_zero_double_lowest"),
        _o("kozel", "reserve_k", 0, (0, 1), "§14.3", "stock tiles never drawn (2-3 players)", field="reserve_k"),
        _o("kozel", "lone_00_value", 10, (10, 25), "§14.12", "value of a hand that is exactly 0-0", knob="lone_00_value"),
        _o("kozel", "lone_66_value", 0, (0, 50), "§14.12",
           "value of a hand that is exactly 6-6 (0 = off, counts 12)", knob="lone_66_value"),
        _o("kozel", "eggs_double_next", False, BOOL, "§14.14",
           "no pot: charges after e egg hands are multiplied by 2^e", knob="eggs_double"),
        _o("kozel", "fish_maker_takes_all", False, BOOL, "§14.10",
           "a fish-maker's side not among the lowest is charged everything", knob="fish_maker_takes_all"),
        _o("kozel", "kozel_target", (101, 101, 101), INT_GE1, "§14.11, §14.11a",
           "written score at which a side is the goat", knob="target", field="target"),
        _o("kozel", "dry_goat", False, BOOL, "§14.11", "report dry losses separately", knob="dry_goat"),
        _o("kozel", "kozel_positive_scoring", False, BOOL, "§14.10, §14.11, §14.14",
           "charges are credited to the hand's winner; highest at the target wins", knob="kozel_positive"),
    )
}
# fmt: on


def options_of(variant: str) -> dict[str, Option]:
    """The §15 options of one variant, by name."""
    check_variant(variant)
    return {name: o for (v, name), o in OPTIONS.items() if v == variant}


def check_variant(variant: str) -> str:
    if variant not in INFO:
        raise RulesError(
            f"unknown variant '{variant}'{did_you_mean(variant, VARIANTS)}; "
            f"choose one of: {', '.join(VARIANTS)}"
        )
    return variant


_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}


def parse_value(opt: Option, raw: object) -> object:
    """Convert a TOML or command-line value to the option's type and check it is allowed."""
    where = f"{opt.variant}.{opt.name}"
    allowed = opt.allowed
    if allowed == BOOL:
        return _parse_bool(raw, where)
    if allowed in (INT_GE1, OFF_OR_INT_GE2) or all(isinstance(a, int) for a in allowed):
        return _parse_int(opt, raw, where)
    s = str(raw).strip()
    if s not in allowed:
        raise RulesError(
            f"bad value '{raw}' for {where}{did_you_mean(s, allowed)}; "
            f"allowed: {opt.allowed_text()}"
        )
    return s


def _parse_bool(raw: object, where: str) -> bool:
    """An on/off option's value: a bool, or one of the words of :data:`_TRUE`, :data:`_FALSE`."""
    if isinstance(raw, bool):
        return raw
    s = str(raw).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise RulesError(f"bad value '{raw}' for {where}; use on/off (or true/false)")


def _parse_int(opt: Option, raw: object, where: str) -> int:
    """An integer option's value, checked against what it allows, the 32-bit range of the
    records and (``cumulative_hands``) the most hands one match may last."""
    allowed = opt.allowed
    value = _int_value(opt, raw)
    if value is not None and not -INT32_MAX <= value <= INT32_MAX:
        raise RulesError(
            f"bad value '{raw}' for {where}; allowed: {opt.allowed_text()}, "
            f"at most {INT32_MAX} (the records hold 32-bit numbers)"
        )
    if value is None or not _int_allowed(allowed, value):
        raise RulesError(f"bad value '{raw}' for {where}; allowed: {opt.allowed_text()}")
    if allowed == OFF_OR_INT_GE2 and value > MAX_HANDS_PER_MATCH:  # (cumulative_hands)
        raise RulesError(
            f"bad value '{raw}' for {where}; allowed: {opt.allowed_text()}, at most "
            f"{MAX_HANDS_PER_MATCH} (the most hands one match may last)"
        )
    return value


def _int_value(opt: Option, raw: object) -> int | None:
    """``raw`` as an integer (an int, an integer's text or one of the option's words), or None
    where it is none of these (a bool is none)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    s = str(raw).strip().lower()
    word = _int_word(opt, s)
    if word is not None:
        return word
    try:
        return int(s)
    except ValueError:
        return None


def _int_word(opt: Option, s: str) -> int | None:
    """The number a word stands for in an integer option: off (0) where the option may be
    off, unlimited (0) in a draw limit, none (no target) in a target; else None."""
    if (opt.allowed == OFF_OR_INT_GE2 or opt.name == "lone_66_value") and s in _FALSE:
        return 0
    if opt.allowed == (0, 2, 3) and s == "unlimited":
        return 0
    if opt.name == "target" and s == "none":
        return NO_TARGET
    return None


def _int_allowed(allowed: object, value: int) -> bool:
    """Whether an integer option that allows ``allowed`` takes ``value``."""
    return (
        (allowed == INT_GE1 and value >= 1)
        or (allowed == OFF_OR_INT_GE2 and (value == 0 or value >= 2))
        or (isinstance(allowed, tuple) and value in allowed)
    )


def check_players(variant: str, players: object) -> int:
    check_variant(variant)
    if isinstance(players, bool) or not isinstance(players, int) or players not in PLAYERS:
        raise RulesError(
            f"{variant} is played by {PLAYERS_TEXT} players, not {players}; use {PLAYERS_TEXT}"
        )
    return players


def make_rules(variant: str, players: int, **options: object) -> Rules:
    """The Rules of ``variant`` for ``players`` with §15 ``options`` applied.

    Option values may be typed values or strings as written on the command line
    (``"on"``, ``"2"``). Raises RulesError for an unknown variant or option, a bad value, a
    player count the variant does not allow, or an invalid combination of §15; a
    ConfigError for a variant that is not a string.
    """
    if not isinstance(variant, str):
        from dominosim.base.errors import ConfigError

        raise ConfigError(
            f"make_rules(): variant must be a variant name (a string), not {variant!r} "
            f"({type(variant).__name__})"
        )
    check_players(variant, players)
    known = options_of(variant)
    values = {name: o.default_for(players) for name, o in known.items()}
    explicit = set()
    for name, raw in options.items():
        if name not in known:
            hint = did_you_mean(name, known)
            allowed = ", ".join(known) or "none"
            raise RulesError(
                f"unknown option '{name}' for {variant}{hint}; its options are: {allowed}"
            )
        values[name] = parse_value(known[name], raw)
        explicit.add(name)
    _check_combinations(variant, players, values, explicit)
    changed = tuple(
        (name, values[name]) for name in known if values[name] != known[name].default_for(players)
    )
    return _build(variant, players, values, changed)


def _check_combinations(variant, players, v, explicit):
    """The first invalid combination of §15 (:data:`_INVALID`, in its order) that the option
    values ``v`` (``explicit``: the ones given) make for ``players``: a RulesError."""
    for where, invalid, message in _INVALID:
        if where in (None, variant) and invalid(players, v, explicit):
            text = message.format(variant=variant, players=players)
            raise RulesError(f"invalid combination: {text}")


#: the invalid combinations of §15: (the variant, None for every one; whether the player count,
#: the option values and the set of options given make it; what the error says)
_INVALID = (
    (
        None,
        lambda P, v, given: v.get("partnership") and P != 4,
        "{variant}.partnership needs 4 players, not {players}; drop it or use --players 4",
    ),
    (
        "block",
        lambda P, v, given: v["fish_score_sum_only"] and v["fish_difference_per_opponent"],
        "block.fish_score_sum_only and block.fish_difference_per_opponent; choose one",
    ),
    (
        "bergen",
        lambda P, v, given: v["bergen_voluntary"] and v["bergen_draw_until_playable"],
        "bergen.bergen_voluntary and bergen.bergen_draw_until_playable; choose one",
    ),
    (
        "muggins",
        lambda P, v, given: (
            not v["first_double_spinner"] and v["spinner_open_all_four_immediately"]
        ),
        "muggins.spinner_open_all_four_immediately needs muggins.first_double_spinner=on",
    ),
    (
        "muggins",
        lambda P, v, given: not v["first_double_spinner"] and v["us_sniff_counting"],
        "muggins.us_sniff_counting needs muggins.first_double_spinner=on",
    ),
    (
        "sniff",
        lambda P, v, given: v["sniff_book_endgame"] and "target" in given,
        "sniff.sniff_book_endgame sets the target; drop sniff.target",
    ),
    (
        "sniff",
        lambda P, v, given: v["reserve_k"] == 2 and P != 2,
        "sniff.reserve_k=2 is for 2 players, not {players}",
    ),
    (
        "kozel",
        lambda P, v, given: v["reserve_k"] == 1 and P == 4,
        "kozel.reserve_k=1 is for 2-3 players; with 4 there is no stock",
    ),
)


def _deal(variant: str, players: int) -> int:
    return INFO[variant].deal[players - 2]


def _build(variant: str, P: int, v: dict, changed: tuple) -> Rules:
    """The Rules of ``variant`` for ``P`` players and option values ``v``: the options that
    are fields of Rules copied, then the structural fields its preset fixes (_STRUCTURE)."""
    r = dict(variant=variant, players=P, hand_size=_deal(variant, P), options=changed)
    for name, o in options_of(variant).items():  # the options that are fields of Rules
        if o.field is not None:
            r[o.field] = v[name]
    _STRUCTURE[variant](r, variant, P, v)
    return Rules(**r)


# the structural fields of each preset, from its options (and what the variant fixes):
# functions (r, variant, players, option values) that update the Rules fields ``r``


def _blind(r: dict, variant: str, P: int, v: dict) -> None:
    if v["blind_deal"] == "all_tiles":
        r["hand_size"] = (14, 9, 7)[P - 2]
    r.update(draw_mode="blind", lead_first="blind_front", lead_later="next_after_leader")


def _bergen(r: dict, variant: str, P: int, v: dict) -> None:
    r.update(
        draw_mode="until_playable" if v["bergen_draw_until_playable"] else "one",
        reserve_k=2,
        scoring="bergen",
        settlement="bergen",
        lead_first="highest_double" if v["bergen_highest_double_leads"] else "lowest_double",
        lead_later="as_first",
    )


def _fives_threes(r: dict, variant: str, P: int, v: dict) -> None:
    r.update(
        draw_mode="one",
        scoring=variant,
        settlement="book",
        domino_bonus=2,
        lead_first="lot_any",
        lead_later="winner_else_next" if v["lead_winner_of_previous_hand"] else "next_after_leader",
    )


def _sniff(r: dict, variant: str, P: int, v: dict) -> None:
    if v["sniff_pagat_deal"]:
        r["hand_size"] = (7, 6, 5)[P - 2]
    book = v["sniff_book_endgame"]
    r.update(
        layout="spinner",
        draw_mode="until_playable",
        scoring="fives",
        settlement="book" if book else "sniff",
        domino_bonus=2 if book else 0,
        lead_first="lot_any",
        lead_later="out_else_lot",
    )
    if book:
        r["target"] = (25, 20, 20)[P - 2]


def _basic(r: dict, variant: str, P: int, v: dict) -> None:
    hd = v["lead_highest_double"]
    r.update(
        draw_mode="until_playable",
        lead_first="highest_double" if hd else "lot_any",
        lead_later="as_first" if hd else "winner_else_lot",
    )


def _lanes(r: dict, variant: str, P: int, v: dict) -> None:
    k = v["cumulative_hands"]
    r.update(
        layout="line" if variant == "two-lane" else "single_end",
        draw_mode="one",
        failed_turn_penalty=10,
        settlement="penalties",
        lead_first="lot_any" if variant == "two-lane" else "ladder",
        lead_later="lot",
        match_end="one_hand",
        hands_per_match=k if k else 1,
        target=0,
    )


def _muggins(r: dict, variant: str, P: int, v: dict) -> None:
    if v["muggins_deal_7_all"]:
        r["hand_size"] = 7
    lot = v["lead_by_lot"]
    r.update(
        layout="spinner" if v["first_double_spinner"] else "line",
        draw_mode="until_playable",
        scoring="muggins",
        settlement="muggins",
        lead_first="lot_any" if lot else "highest_double",
        lead_later="lot" if lot else "winner_else_first",
    )


def _block_classic(r: dict, variant: str, P: int, v: dict) -> None:
    if variant == "block" and v["block_deal_7_all"]:
        r["hand_size"] = 7
    r.update(
        draw_mode="none" if variant == "block" else "until_playable",
        stock_in_play=variant != "block",
        lead_first="highest_double",
        lead_later="winner_else_first" if v["lead_winner_of_previous_hand"] else "as_first",
    )


def _kozel(r: dict, variant: str, P: int, v: dict) -> None:
    teams = P == 4 and not v["kozel_individual_4p"]
    r.update(
        partnership=teams,
        draw_mode="none" if P == 4 else "until_playable",
        settlement="kozel",
        lead_first="kozel",
        lead_later="out_else_fishmaker",
        match_end="kozel",
    )


# fmt: off
_STRUCTURE = {
    "blind": _blind, "bergen": _bergen, "fives": _fives_threes, "threes": _fives_threes,
    "sniff": _sniff, "basic": _basic, "two-lane": _lanes, "ladder": _lanes, "muggins": _muggins,
    "block": _block_classic, "classic": _block_classic, "kozel": _kozel,
}
# fmt: on


#: ``(Rules field, core knob)`` of every option the core reads as an integer knob of its own
#: (kernel.knobs builds those knobs from this table)
OPTION_KNOBS: tuple[tuple[str, str], ...] = tuple(
    sorted({(o.field, o.knob) for o in OPTIONS.values() if o.knob is not None})
)
assert len({k for _, k in OPTION_KNOBS}) == len(OPTION_KNOBS), "one field per knob"


def check_match_end(rules: Rules, unit: str) -> None:
    """``target=none`` plays hands only: a match without a target would never end."""
    if unit == "match" and rules.target == NO_TARGET and rules.match_end != "one_hand":
        raise RulesError(
            f"{rules.variant}.target=none has no match end; play single hands with --unit hand, "
            "or give a target"
        )


def target_option(variant: str) -> str | None:
    """The option that sets a variant's match target: the one whose knob is the core's
    ``target`` (``kozel_target`` in kozel, ``target`` elsewhere; None in two-lane and ladder,
    whose match is hands of one seat's penalties)."""
    return next((o.name for o in options_of(variant).values() if o.knob == "target"), None)


@dataclass(frozen=True)
class TraceFacts:
    """What a trace prints differently by variant (docs/trace.md), read from the rules."""

    kozel_book: bool  # written scores, eggs and the goat (§14)
    totals_per_seat: bool  # penalties of each seat, not scores of sides (§9, §10)
    rows: bool  # blind's rows of hidden tiles, front to back (§3)
    ladder: bool  # a starting tile the layout grows from one half of (§10)
    stock_out_of_play: bool  # the undealt tiles are never drawn (block, §12)


def trace_facts(rules: Rules) -> TraceFacts:
    """The :class:`TraceFacts` of ``rules``."""
    return TraceFacts(
        kozel_book=rules.match_end == "kozel",
        totals_per_seat=rules.points_by_seat,
        rows=rules.draw_mode == "blind",
        ladder=rules.lead_first == "ladder",
        stock_out_of_play=rules.variant == "block",
    )


def match_too_long(rules: Rules) -> RulesError:
    """The error of a match of ``rules`` that did not end within MAX_HANDS_PER_MATCH hands."""
    option = "cumulative_hands" if rules.match_end == "one_hand" else target_option(rules.variant)
    return RulesError(
        f"a match of {rules.label} did not end within {MAX_HANDS_PER_MATCH} hands, the most "
        f"one match may last; lower {rules.variant}.{option}"
    )


def with_target(rules: Rules, target: int) -> Rules:
    """The same rules with another target (``kozel_target`` for kozel), for target sweeps."""
    name = target_option(rules.variant)
    if rules.match_end == "one_hand":
        raise RulesError(
            f"{rules.variant} has no target: a match is one hand (§9.11, §10.11); "
            "sweep a variant with a target, e.g. fives"
        )
    opts = dict(rules.options)
    opts[name] = target
    return make_rules(rules.variant, rules.players, **opts)


def preset(variant: str, players: int) -> Rules:
    """The default Rules of a named variant."""
    return make_rules(variant, players)


# ---------------------------------------------------------------------------------------------
# the --set grammar (VARIANT.OPTION=V1,V2; docs/config.md), shared by every command


def no_control(text: str, where: str) -> None:
    """Refuse a setting with a control character (a newline, a tab, an escape): it would be
    printed raw into reports and status lines."""
    bad = next((c for c in text if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        raise ConfigError(
            f"{where} {text!r} holds a control character ({bad!r}); remove it (a newline "
            "pasted with the value?)"
        )


def parse_set(text: str) -> tuple[str | None, str, list[str]]:
    """Split ``VARIANT.OPTION=V1,V2`` (or ``OPTION=V``) into (variant or None, option, values)."""
    no_control(text, "--set")
    lhs, eq, rhs = text.partition("=")
    lhs = lhs.strip()
    if not eq or not lhs:
        raise ConfigError(
            f"--set '{text}': expected VARIANT.OPTION=VALUE, e.g. --set fives.reserve_k=2"
        )
    variant, dot, option = lhs.rpartition(".")
    if dot and (not variant or not option):
        raise ConfigError(
            f"--set '{text}': expected VARIANT.OPTION=VALUE, e.g. --set fives.reserve_k=2"
        )
    values = [v.strip() for v in rhs.split(",")]
    if any(v == "" for v in values):
        raise ConfigError(
            f"--set '{text}': empty value; write a value or a list such as reserve_k=0,2"
        )
    return (variant or None), option, values


def apply_sets(
    sets: Iterable[str], variant_names: Sequence[str]
) -> dict[str, dict[str, list[object]]]:
    """Resolve ``--set`` entries against the experiment's variants.

    Returns ``{variant: {option: [values]}}`` with values parsed by ``variants.parse_value``.
    A bare ``OPTION=VALUE`` goes to the one variant that has the option; if none or several
    have it, a ConfigError lists the candidates.
    """
    names = list(dict.fromkeys(variant_names))
    out: dict[str, dict[str, list[object]]] = {}
    for text in sets:
        variant, option, raw_values = parse_set(text)
        if variant is None:
            owners = [v for v in names if option in options_of(v)]
            if not owners:
                every = sorted({o for v in names for o in options_of(v)})
                raise ConfigError(
                    f"--set '{text}': no variant of this experiment ({', '.join(names)}) has an "
                    f"option '{option}'{did_you_mean(option, every)}; "
                    f"see 'dominosim variants VARIANT'"
                )
            if len(owners) > 1:
                cands = ", ".join(f"{v}.{option}" for v in owners)
                raise ConfigError(
                    f"--set '{text}': option '{option}' is ambiguous; write one of: {cands}"
                )
            variant = owners[0]
        else:
            check_variant(variant)
            if variant not in names:
                raise ConfigError(
                    f"--set '{text}': variant '{variant}' is not in this experiment "
                    f"({', '.join(names)}); add it with --variant {variant}"
                )
        opts = options_of(variant)
        if option not in opts:
            raise RulesError(
                f"unknown option '{option}' for {variant}{did_you_mean(option, opts)}; "
                f"its options are: {', '.join(opts) or 'none'}"
            )
        out.setdefault(variant, {})[option] = [parse_value(opts[option], v) for v in raw_values]
    return out


def expand_groups(options: Mapping[str, Sequence[object]]) -> list[dict[str, object]]:
    """The cartesian product of option value lists: ``{a: [1, 2]}`` -> ``[{a: 1}, {a: 2}]``."""
    names = list(options)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*options.values())]


# ---------------------------------------------------------------------------------------------
# the listings of ``dominosim variants`` (docs/rules.md)


def _default_text(opt: Option) -> str:
    d = opt.default
    if isinstance(d, tuple) and opt.allowed == INT_GE1:
        if len(set(d)) == 1:
            return format_value(d[0])
        return " / ".join(format_value(x) for x in d) + f" ({PLAYERS_EACH} pl.)"
    return format_value(d)


def text_table(header: list[str], rows: list[list[str]]) -> str:
    """Rows under a header, in columns of their widths (the listings of the command line)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(widths[i]) for i, c in enumerate(header)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows]
    return "\n".join(lines)


#: the columns of :func:`listing` after the slug and section: (its header, what it is, as the
#: help of ``dominosim variants`` describes it)
LISTING_COLUMNS = (
    ("players", "players"),
    (f"deal {PLAYERS_EACH}", f"deal for {PLAYERS_EACH} players"),
    *((c, c) for c in ("layout", "drawing", "scoring", "match end", "Russian name")),
)
_NUMBERS = "zero one two three four five six seven eight nine ten eleven twelve".split()
#: how many variants there are, in words (``the twelve variants``: the commands' help)
COUNT = _NUMBERS[len(INFO)] if len(INFO) < len(_NUMBERS) else str(len(INFO))


def listing() -> str:
    """``dominosim variants``: one row per variant (its slug, RULES section and
    :data:`LISTING_COLUMNS`)."""
    header = ["variant", "§", *(h for h, _ in LISTING_COLUMNS)]
    rows = [
        [i.slug, str(i.section), PLAYERS_RANGE, "/".join(map(str, i.deal)), i.layout, i.drawing]
        + [i.scoring, i.match, i.russian]
        for i in (INFO[s] for s in VARIANTS)
    ]
    return text_table(header, rows) + "\n\nOptions of one variant: dominosim variants VARIANT"


def describe(variant: str) -> str:
    """``dominosim variants VARIANT``: the variant, then each option with its default,
    allowed values, RULES sections and meaning."""
    check_variant(variant)
    info = INFO[variant]
    rows = [
        [name, _default_text(o), o.allowed_text(), o.sections, o.help]
        for name, o in options_of(variant).items()
    ]
    return "\n".join(
        [
            f"{info.slug}: {info.name} ({info.russian}), RULES §{info.section}",
            f"players {PLAYERS_RANGE}; deal {'/'.join(map(str, info.deal))} ({PLAYERS_EACH} pl.); "
            f"layout {info.layout}; "
            f"drawing {info.drawing}; scoring {info.scoring}; match end {info.match}",
            "",
            text_table(["option", "default", "allowed", "RULES", "meaning"], rows),
            "",
            f"Set one with: --set {variant}.OPTION=VALUE (booleans: on/off)",
        ]
    )


__all__ = [
    "INFO",
    "OPTIONS",
    "OPTION_KNOBS",
    "VARIANTS",
    "Option",
    "check_variant",
    "make_rules",
    "options_of",
    "parse_value",
    "preset",
    "replace",
    "with_target",
]
