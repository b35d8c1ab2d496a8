"""Conformance of every built-in strategy (docs/strategies.md): the checks of ``dominosim check-strategy``
(dominosim/check.py: legal actions only, the same answers for a batch as one by one,
deterministic given the keys, usable from a spawned worker, inputs left unchanged), and one real
decision each in blind's open phase and on a spinner. Plus strategy discovery and the CLI."""

from __future__ import annotations

import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dominosim.base.errors import StrategyError
from dominosim.check import check_strategy, rule_sets
from dominosim.cli import main as cli
from dominosim.game import actions as A
from dominosim.game import seeding, tiles
from dominosim.game.layout import Layout
from dominosim.game.reference import Hand, play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, discover, get, plays_with_perfect_information

from helpers import line, t

# (the oracle cheats by design: it reads the true deal, so the checks of a strategy that sees
# only its observation do not apply; tests/test_solver.py checks it)
ALL = sorted(n for n, cls in discover().items() if not plays_with_perfect_information(cls))
# small budgets keep the suite fast; the logic is the same as with the defaults
FAST = {"mc": {"samples": 3}, "pimc": {"samples": 2, "budget": 2000, "min_solved": 1}}
ROOT = Path(__file__).resolve().parent.parent


def make(name: str) -> Strategy:
    return get(name, **FAST.get(name, {}))


class Checking(Strategy):
    """Wraps a strategy; asserts every answer is legal and keeps (obs, legal, key, answer)."""

    name = "checking"
    params = {}

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.seen = []

    def choose_one(self, obs, legal, key):
        a = self.inner.choose_one(obs, legal, key)
        assert a in legal, (self.inner.name, obs.variant, A.describe(a), legal)
        self.seen.append((obs, list(legal), key, a))
        return a


# ---------------------------------------------------------------------------------------------
# the checks of dominosim/check.py (dominosim check-strategy), on every built-in: only legal
# actions in every variant and player count; a batch answers as its rows one by one; the same
# answers for the same keys; the same games in a spawned worker; inputs left unchanged (checked
# wherever the strategy is asked, so in the legal and batch runs); the same answer with the hidden
# part re-dealt (information)

# hands per rule set and check (mc decides slowly, so fewer); two hands play both of the
# check's seatings (odd: the strategy at every seat; even: at seat 0 against random) on all 47
# rule sets; blind's open phase is asked of every strategy below
DEALS = {"mc": 1, "pimc": 1}


# legal, deterministic and spawn in one call, as check-strategy runs them: the last two compare
# against the legal check's games instead of playing them again
@pytest.mark.parametrize("checks", ["legal,deterministic,spawn", "batch", "information"])
@pytest.mark.parametrize("name", ALL)
def test_conformance(name, checks):
    params = "".join(f":{k}={v}" for k, v in FAST.get(name, {}).items())
    report = check_strategy(name + params, deals=DEALS.get(name, 2), checks=checks.split(","))
    assert report == [], "\n".join(str(f) for f in report)
    assert report.decisions > 0 and report.rule_sets == len(rule_sets())


@pytest.mark.parametrize("name", ALL)
def test_blind_options_and_open_phase(name):
    """blind with its optional draws and plays: every decision kind is answered legally."""
    rules = make_rules("blind", 2, blind_draw_optional="on", blind_play_optional="on")
    strat = Checking(make(name))
    for m in range(4):
        play_match(rules, 3, m, [strat, strat], unit="hand")
    assert {o.phase for o, *_ in strat.seen} >= {"play", "continue"}


# ---------------------------------------------------------------------------------------------
# one decision each: blind's open phase, a spinner with N and S open


def blind_open_position():
    """Seat 0 in blind's open phase, after a placement: it may place 3-1 or 5-5, or stop."""
    rules = make_rules("blind", 2)
    hand = Hand.from_position(
        rules,
        [["3-1", "5-5", "6-6"], ["2-2", "4-0"]],
        layout=line("[3 | 5]"),
        opened=[True, True],
        stock=["0-0"],
    )
    hand.voids[1] = {1, 3, 5}
    legal = hand.placements(0) + [A.STOP]
    return hand.observe(0, "continue"), legal


def spinner_position():
    """Sniff: the spinner 5-5 with W and E covered, so N and S are open."""
    rules = make_rules("sniff", 2)
    lay = Layout("spinner")
    for tile, pos in (("5-5", None), ("5-0", "E"), ("5-6", "W")):
        lay.place(t(tile), pos, spinners=True)
    hand = Hand.from_position(
        rules,
        [["5-4", "5-2", "6-1", "0-3", "2-2"], ["1-1", "4-4"]],
        layout=lay,
        stock=["3-3", "1-2"],
    )
    return hand.observe(0), hand.placements(0)


@pytest.mark.parametrize("name", ALL)
def test_decision_in_blinds_open_phase(name):
    obs, legal = blind_open_position()
    assert obs.phase == "continue" and A.STOP in legal and len(legal) >= 3
    a = make(name).choose_one(obs, legal, seeding.strategy_key(1, 0, 0, 5, 0))
    assert a in legal


@pytest.mark.parametrize("name", ALL)
def test_decision_on_a_spinner(name):
    obs, legal = spinner_position()
    assert {"N", "S"} <= {p for p, _ in obs.positions}
    assert {A.pos_of(a) for a in legal} >= {"N", "S", "W", "E"}
    a = make(name).choose_one(obs, legal, seeding.strategy_key(1, 0, 0, 5, 0))
    assert a in legal


# ---------------------------------------------------------------------------------------------
# mc's samples respect what is public


def _mc_module():
    return sys.modules[type(get("mc")).__module__]


def _check_deals(obs, deals):
    public = set(obs.hand) | set(obs.table) | set(obs.face_up)
    for hands, stock in deals:
        assert sorted(hands[obs.seat]) == sorted(obs.hand)
        seen = [x for h in hands for x in h] + list(stock)
        assert sorted(seen) == sorted(set(range(28)) - set(obs.table) - set(obs.face_up))
        assert len(stock) == obs.stock_size
        for s, h in enumerate(hands):
            assert len(h) == obs.counts[s]
            if s == obs.seat:
                continue
            assert not public & set(h), "a public tile in a sampled hand"
            for x in h:
                assert not set(tiles.halves(x)) & obs.voids[s], (s, tiles.name(x), obs.voids[s])


def _greedy_decisions(matches: int):
    """(players, the decisions greedy saw) of ``matches`` hands in each of four rule sets."""
    for variant, players in (("fives", 3), ("classic", 2), ("block", 4), ("two-lane", 3)):
        w = Checking(get("greedy"))
        for m in range(matches):
            play_match(make_rules(variant, players), 8, m, [w] * players, unit="hand")
        yield players, w.seen


def test_mc_samples_avoid_voids_and_public_tiles():
    sample_deals = _mc_module().sample_deals
    checked = 0
    for players, seen in _greedy_decisions(6):
        for obs, _, key, _ in seen:
            deals = sample_deals(obs, key, 6)
            assert deals, obs
            _check_deals(obs, deals)
            checked += any(obs.voids[s] for s in range(players) if s != obs.seat)
    assert checked > 20  # decisions with a known void


def test_mc_deals_from_the_core_equal_the_readable_sampler():
    """kernel.sample_deals (mc's deals in C) deals what sample_deals (numpy, _draw and
    _one_deal) deals, sample for sample, retried samples included."""
    from dominosim.engine.tables import tiles_of

    mod = _mc_module()
    compared = 0
    for _, seen in _greedy_decisions(3):
        for obs, _, key, _ in seen[::3]:
            deals = mod.sample_deals(obs, key, 12)
            hands, stock = mod.sample_arrays(obs, key, 12)
            assert len(hands) == len(deals)
            for j, (h, st) in enumerate(deals):
                assert [sorted(x) for x in h] == [tiles_of(int(x)) for x in hands[j]]
                assert list(stock[j][28 - len(st) :]) == st and (stock[j][: 28 - len(st)] < 0).all()
                compared += 1
    # a tight void: most first tries fail, and the retries must agree too
    obs, key = _tight_void_position()
    deals = mod.sample_deals(obs, key, 40)
    hands, _ = mod.sample_arrays(obs, key, 40)
    assert [sorted(h[1]) for h, _ in deals] == [tiles_of(int(x)) for x in hands[:, 1]]
    assert compared > 100


def _tight_void_position():
    rules = make_rules("classic", 2)
    hands = [["6-6", "6-5", "5-5", "4-4", "3-4"], ["0-0", "0-1", "1-1"]]
    held = {t(x) for h in hands for x in h}
    rest = [x for x in range(28) if x not in held]
    hand = Hand.from_position(rules, hands, layout=line("[6 | 4]"), stock=rest)
    hand.voids[1] = {2, 3, 4, 5, 6}
    return hand.observe(0), 12345


def test_mc_samples_under_tight_voids():
    """An opponent void in five values must get the only tiles it can hold."""
    obs, key = _tight_void_position()
    deals = _mc_module().sample_deals(obs, key, 20)
    assert len(deals) == 20
    _check_deals(obs, deals)
    allowed = {x for x in range(28) if set(tiles.halves(x)) <= {0, 1}} - set(obs.table)
    assert all(set(d[0][1]) <= allowed for d in deals)


def test_mc_plays_out_the_tested_action():
    """Every playout position's first decision of the root seat is the tested action (the core
    plays it as the seat's first answer; tests/test_positions.py checks that a position so
    started plays on as the game): every legal action but a mirrored one is tested on every
    sample, and a copy of the plan plays the same."""
    mc = get("mc", samples=4)
    rules = make_rules("fives", 2)
    w = Checking(get("random"))
    play_match(rules, 2, 0, [w, w], unit="hand")
    obs, legal, key, _ = next(x for x in w.seen if len(x[1]) >= 2 and x[0].phase == "play")
    plan = mc._positions(obs, legal, key)
    assert len(plan.mids) == 4 * len(legal)
    assert sorted(set(plan.first.tolist())) == sorted(legal)
    in_core = mc._values(rules, plan)
    other = mc._values(rules, plan.rows(slice(None)))  # (a copy plays the same)
    assert np.array_equal(other, in_core)


@pytest.mark.parametrize(
    ("variant", "opts"),
    [("bergen", {"bergen_voluntary": True}), ("muggins", {"may_draw_when_able": True})],
)
def test_mc_searches_the_voluntary_draws(variant, opts):
    """§15 bergen_voluntary, §11.7 may_draw_when_able: the draw is one of the tested actions,
    and the after-draw decision is searched too (no fallback)."""
    mc = get("mc", samples=4)
    rules = make_rules(variant, 2, **opts)
    w = Checking(get("random"))
    for m in range(4):
        play_match(rules, 3, m, [w, w], unit="hand")
    draws = [x for x in w.seen if A.DRAW in x[1]]
    after = [x for x in w.seen if x[0].phase == "after_draw" and len(x[1]) >= 2]
    assert draws and (after or variant == "muggins")
    for obs, legal, key, _ in draws[:3] + after[:3]:
        plan = mc._positions(obs, legal, key)
        assert plan is not None
        tested = set(plan.first.tolist())
        assert tested <= set(legal) and (A.DRAW in tested) == (A.DRAW in legal)
        assert np.isfinite(mc._values(rules, plan)).all()


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"blind_play_optional": True, "blind_draw_optional": True},
        {"blind_unplayable_double_face_up": True},
    ],
)
def test_mc_samples_blind_rows_consistent_with_what_the_seat_knows(opts):
    """§3.2, §3.7: a sampled row keeps the own looked-at tiles where they lie, every other
    tile is the seat's own or another's or the stock's, each row has its count, a face-up tile
    stays in its holder's row (§15 blind_unplayable_double_face_up), the voids of the open
    phase are kept, and each decision is searched (no fallback)."""
    mod = _mc_module()
    rules = make_rules("blind", 3, **opts)
    w = Checking(get("greedy"))
    for m in range(6):
        play_match(rules, 8, m, [w] * 3, unit="hand")
    mc = get("mc", samples=5)
    phases, face_up = set(), 0
    for obs, legal, key, _ in w.seen:
        drawn = [A.tile_of(legal[0])] if obs.phase == "blind_drawn" else []
        rows, stock = mod.sample_rows(obs, key, 5, seen=drawn)
        assert len(rows) == 5
        phases.add(obs.phase)
        face_up += len(obs.face_up) > 0
        for j in range(len(rows)):
            held = [[x for x in rows[j, s] if x >= 0] for s in range(3)]
            assert [len(h) for h in held] == list(obs.counts)
            own = held[obs.seat]
            assert all(x is None or x == own[i] for i, x in enumerate(obs.row))
            cut = 28 - obs.stock_size  # (the stock in the engine's layout: -1, then its tiles)
            assert (stock[j][:cut] < 0).all()
            rest = [int(x) for x in stock[j][cut:]]
            every = sorted([x for h in held for x in h] + rest + list(obs.table) + drawn)
            assert every == list(range(28))
            for x, s in zip(obs.face_up, obs.face_up_seats, strict=True):
                assert x in held[s]
            for s in range(3):
                if s != obs.seat:
                    assert not any(
                        set(tiles.halves(x)) & obs.voids[s] for x in held[s] if x not in obs.face_up
                    )
        assert mc._positions(obs, legal, key) is not None
    assert "play" in phases and ("continue" in phases or not opts)
    if opts.get("blind_play_optional"):
        assert {"blind_front", "blind_drawn"} <= phases
    if opts.get("blind_unplayable_double_face_up"):
        assert face_up > 5


def test_mc_parameters():
    assert get("mc", samples=5).label == "mc:samples=5"
    with pytest.raises(StrategyError, match="samples"):
        get("mc", samples=0)
    with pytest.raises(StrategyError, match="policy"):
        get("mc", policy="perfect")
    with pytest.raises(StrategyError, match="unknown parameter 'sample'"):
        get("mc", sample=3)


# ---------------------------------------------------------------------------------------------
# what the heuristics do


def _obs(variant, hands, ends, voids=None, to_move=0, players=2):
    rules = make_rules(variant, players)
    hand = Hand.from_position(rules, hands, layout=line(ends), to_move=to_move)
    for s, v in (voids or {}).items():
        hand.voids[s] = set(v)
    obs = hand.observe(to_move)
    return obs, hand.placements(to_move)


def test_doubles_first_plays_a_double():
    obs, legal = _obs("block", [["6-6", "6-5", "2-2", "2-6"], ["0-0"]], "[6 | 2]")
    assert A.describe(get("doubles-first").choose_one(obs, legal, 0)) == "6-6@L"


def test_suit_keeper_keeps_its_longest_suit():
    # holds four 6s; ends 6 and 1: 1-2 keeps the sixes, 6-x would spend one
    obs, legal = _obs("block", [["6-4", "6-5", "6-3", "6-0", "1-2"], ["0-0"]], "[6 | 1]")
    assert A.describe(get("suit-keeper").choose_one(obs, legal, 0)) == "2-1@R"


def test_blocker_leaves_a_value_the_next_opponent_lacks():
    # seat 1 (next) lacks 2 and 3: 6-3 on R leaves [2 | 3]; 2-4 on L would leave [4 | 6]
    obs, legal = _obs("block", [["2-4", "6-3"], ["0-0", "1-1"]], "[2 | 6]", voids={1: {2, 3}})
    assert A.describe(get("blocker").choose_one(obs, legal, 0)) == "6-3@R"


def test_blocker_stops_to_keep_a_block():
    obs, legal = blind_open_position()  # ends [3 | 5], seat 1 lacks 1, 3, 5
    # 3-1 leaves [1 | 5] (still blocked), 5-5 leaves [3 | 5] (still blocked): it continues
    assert get("blocker").choose_one(obs, legal, 0) != A.STOP
    rules = make_rules("blind", 2)
    hand = Hand.from_position(
        rules, [["3-2", "6-6", "4-4"], ["2-2", "4-0"]], layout=line("[3 | 5]"), opened=[True, True]
    )
    hand.voids[1] = {3, 5}
    legal = hand.placements(0) + [A.STOP]
    assert get("blocker").choose_one(hand.observe(0, "continue"), legal, 0) == A.STOP


# ---------------------------------------------------------------------------------------------
# discovery: --strategy-path, duplicates, syntax errors, the CLI


def test_example_strategy_loads_from_a_strategy_path(tmp_path, clean_registry):
    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(ROOT / "docs" / "example_strategy.py", folder / "example_strategy.py")
    reg = discover([str(folder)])
    assert "lightest" in reg
    strat = Checking(get("lightest", [str(folder)]))
    for variant in ("classic", "fives", "blind", "sniff"):
        rules = make_rules(variant, 2)
        for m in range(3):
            play_match(rules, 1, m, [strat, get("random")], unit="hand")
    assert strat.seen
    res = CliRunner().invoke(cli, ["strategies", "--strategy-path", str(folder)])
    assert res.exit_code == 0 and "lightest" in res.output
    res = CliRunner().invoke(
        cli,
        [
            "trace",
            "--variant",
            "classic",
            "--strategies",
            "lightest,random",
            "--strategy-path",
            str(folder),
        ],
    )
    assert res.exit_code == 0, res.output


def test_example_partner_follows_its_convention_in_fives_teams(tmp_path, clean_registry):
    """docs/example_partner.py reads obs.history: in fives 4p teams (RULES §5.1, §1.4) it leads
    from its longest suit, and once its partner has placed it keeps a value of the partner's
    first tile open where a placement can; with no partner it is doubles-first after the lead."""
    from dominosim.game.scoring import ends_after, suit_counts
    from dominosim.strategies.doubles_first import doubles_first_choice

    shutil.copy(ROOT / "docs" / "example_partner.py", tmp_path / "example_partner.py")
    assert "partner-convention" in discover([str(tmp_path)])
    conv = Checking(get("partner-convention", [str(tmp_path)]))
    rules = make_rules("fives", 4, partnership="on")
    for m in range(12):
        play_match(
            rules, 7, m, [conv, get("doubles-first"), conv, get("doubles-first")], unit="hand"
        )
    leads = follows = 0
    for obs, legal, _, a in conv.seen:
        places = [x for x in legal if A.is_placement(x)]
        partner_tiles = [e.tile for e in obs.history if e.kind == "place" and e.seat == obs.partner]
        assert partner_tiles == [x for x in partner_tiles if x in obs.table]  # public, on the table
        if places and not obs.table:
            counts = suit_counts(obs.hand)
            best = max(counts[v] for x in places for v in tiles.halves(A.tile_of(x)))
            assert max(counts[v] for v in tiles.halves(A.tile_of(a))) == best
            leads += 1
        elif places and partner_tiles:
            suits = set(tiles.halves(partner_tiles[0]))
            keep = [x for x in places if suits & set(ends_after(obs, x))]
            assert a == doubles_first_choice(obs, keep or legal)
            follows += bool(keep)
    assert leads >= 3 and follows >= 10  # both rules were exercised, not only the fallback
    alone = Checking(get("partner-convention", [str(tmp_path)]))
    play_match(make_rules("fives", 2), 7, 0, [alone, get("random")], unit="hand")
    assert all(
        a == doubles_first_choice(obs, legal) for obs, legal, _, a in alone.seen if obs.table
    )


def test_a_name_defined_twice_names_both_files(tmp_path):
    body = textwrap.dedent('''
        from dominosim.strategy import Strategy, register

        @register
        class Twin(Strategy):
            """Twin."""
            name = "twin-strategy"
            def choose_one(self, obs, legal, key):
                return legal[0]
    ''')
    (tmp_path / "a_twin.py").write_text(body)
    (tmp_path / "b_twin.py").write_text(body)
    with pytest.raises(StrategyError) as e:
        discover([str(tmp_path)])
    msg = e.value.message
    assert "twin-strategy" in msg and "a_twin.py" in msg and "b_twin.py" in msg
    assert "\n" not in msg


def test_a_builtin_name_redefined_names_both_files(tmp_path):
    (tmp_path / "my_random.py").write_text(
        textwrap.dedent("""
        from dominosim.strategy import Strategy, register

        @register
        class R(Strategy):
            name = "random"
    """)
    )
    with pytest.raises(StrategyError) as e:
        discover([str(tmp_path)])
    assert "my_random.py" in e.value.message and "random.py" in e.value.message


def test_a_syntax_error_is_one_line_naming_the_file(tmp_path):
    (tmp_path / "broken.py").write_text("def choose(:\n    pass\n")
    with pytest.raises(StrategyError) as e:
        discover([str(tmp_path)])
    msg = e.value.message
    assert "broken.py" in msg and "syntax error" in msg and "\n" not in msg
    res = CliRunner().invoke(cli, ["strategies", "--strategy-path", str(tmp_path)])
    assert res.exit_code != 0
    err = res.output.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and "broken.py" in err[0]


def test_a_missing_strategy_path_is_an_error(tmp_path):
    res = CliRunner().invoke(cli, ["strategies", "--strategy-path", str(tmp_path / "nope")])
    assert res.exit_code != 0 and "does not exist" in res.output


def test_strategies_command_lists_every_strategy():
    res = CliRunner().invoke(cli, ["strategies"])
    assert res.exit_code == 0, res.output
    for name in ALL:
        assert name in res.output
    assert "samples=" in res.output  # mc's parameters
    assert "Determinized Monte Carlo" in res.output


def test_every_strategy_has_a_docstring():
    reg = discover()
    for name in ALL:
        cls = reg[name]
        mod = sys.modules[cls.__module__]
        assert mod.__doc__ and len(mod.__doc__.split()) > 15, name
        assert cls.__doc__, name


def test_parameters_from_the_command_line_label_the_results(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "run",
            "--variant",
            "block",
            "--strategies",
            "mc:samples=2,suit-keeper",
            "--games",
            "8",
            "--unit",
            "hand",
            "--workers",
            "1",
            "--seed",
            "3",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "mc:samples=2" in res.output and "suit-keeper" in res.output
