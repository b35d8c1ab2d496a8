"""pimc's inference (strategies/mc.py: infer_events, infer_deals; the core's infer_logw;
docs/strategies.md): each sampled deal is weighted by the chance a model of the other seats'
play gives the placements they made (RULES §1.3: the public history). The core's
log-likelihood equals its readable definition; the weighted sampler draws a deal with the
probability the model gives it (a small position, every deal enumerated); no drawn deal
contradicts what the seat knows; the fallback searches with mc's default samples at least;
the core refuses arguments out of range."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from dominosim.engine import kernel
from dominosim.engine.tables import PACK, tiles_of
from dominosim.game import actions, tiles
from dominosim.game.layout import Layout
from dominosim.game.reference import play_match
from dominosim.game.scoring import placement_points
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, get
from dominosim.strategy.spec import parse_strategy


def _mc():
    return sys.modules[type(get("mc")).__module__]


class _Seen(Strategy):
    """Plays ``inner`` and keeps every decision's (obs, legal, key)."""

    name = "seen"

    def __init__(self, inner="greedy"):
        super().__init__()
        self.seen = []
        self.inner = get(inner)

    def choose_one(self, obs, legal, key):
        self.seen.append((obs, list(legal), key))
        return self.inner.choose_one(obs, legal, key)


def _decisions(variant, players, matches=2, inner="greedy", seed=9, **options):
    w = _Seen(inner)
    for m in range(matches):
        rules = make_rules(variant, players, **options)
        play_match(rules, seed, m, [w] * players, unit="hand")
    return w.seen


GAMES = [("fives", 2), ("block", 4), ("classic", 2), ("muggins", 3), ("ladder", 2), ("sniff", 2)]


@pytest.mark.parametrize(("variant", "players"), GAMES)
def test_infer_logw_in_the_core_equals_its_readable_definition(variant, players):
    """Every layout (line, spinner, single end): the core's log-likelihood of sampled deals
    equals the Python definition, and the true deal (the one played) is never impossible."""
    mc = _mc()
    scored = 0
    for obs, _legal, key in _decisions(variant, players):
        inf = mc.infer_events(obs, 3.0)
        if inf is None or not len(inf[0]):
            continue
        hands, _ = mc.sample_arrays(obs, key, 12)
        out = np.empty(len(hands))
        kernel.infer_logw(hands, inf[0], inf[1], out)
        assert np.allclose(out, mc.infer_logw_py(hands, *inf), rtol=0, atol=1e-9)
        assert np.isfinite(out).all() and (out <= 0).all()
        scored += len(inf[0])
    assert scored > 20


def test_infer_events_score_what_the_seat_chose_among():
    """A placement's event: the tile placed, the seat's later placements as its back tiles,
    and as fit the tiles carrying an open value then (a hand played by hand: §1.6)."""
    mc = _mc()
    for obs, _legal, _key in _decisions("block", 2, matches=1):
        inf = mc.infer_events(obs, 1.0)
        places = [(i, e) for i, e in enumerate(obs.history) if e.kind == "place"]
        # (block: nobody draws; the lead is the highest double, not a choice: not scored)
        assert obs.rules.lead_first != "lot_any"
        other = [(i, e) for i, e in places[1:] if e.seat != obs.seat]
        assert len(inf[0]) == len(other)
        for row, (i, e) in zip(inf[0], other, strict=True):
            assert row[kernel.IE_SEAT] == e.seat and row[kernel.IE_TILE] == e.tile
            later = {x.tile for j, x in places if j >= i and x.seat == e.seat}
            assert {t for t in range(28) if row[kernel.IE_BACK] >> t & 1} == later
            assert row[kernel.IE_FIT] >> e.tile & 1
        w = np.exp(mc.model_scores())
        assert np.allclose(inf[1], np.tile(w, (len(other), 1)))


SCORING = [
    ("fives", 2, {}),
    ("fives", 4, {}),
    ("fives", 2, {"inline_double_counts_single": True}),
    ("threes", 2, {}),
    ("muggins", 3, {}),
    ("sniff", 2, {}),
    ("bergen", 2, {}),
]


def _replayed(obs, until=None):
    """The layout at the decision (or before the history's event ``until``), rebuilt from
    the history as infer_events rebuilds it."""
    r = obs.rules
    lay = Layout(r.layout, r.spinner_open_all_four_immediately, r.us_sniff_counting)
    for ev in obs.history[:until]:
        if ev.kind == "start":
            lay.start_with(ev.tile)
        elif ev.kind == "place":
            lay.place(ev.tile, None if lay.empty else ev.pos, ev.along, r.layout == "spinner")
    return lay


@pytest.mark.parametrize(("variant", "players", "options"), SCORING)
def test_the_models_points_are_what_each_legal_placement_scores(variant, players, options):
    """The points the model adds for a tile (infer's ``points``) are the most in-play points
    any legal placement of it scores now (scoring.placement_points, as greedy counts them:
    §1.11 end counts, §4.8 headers, §5.8, §6.8, §11.8; muggins' count in fives' units, / 5),
    on every layout: line, spinner (sniff), doubles laid along."""
    mc = _mc()
    scoring = 0
    for obs, legal, _key in _decisions(variant, players, matches=3, **options):
        places = [a for a in legal if actions.is_placement(a)]
        held = {actions.tile_of(a) for a in places}
        units = mc.placement_units(obs.rules, _replayed(obs), sum(1 << t for t in held))
        for t in range(28):
            best = max(
                (placement_points(obs, a) for a in places if actions.tile_of(a) == t), default=0
            )
            assert units[t] == (best / 5 if variant == "muggins" else best), (obs.history, t)
            scoring += best > 0
    assert scoring >= 3


@pytest.mark.parametrize(("variant", "players", "options"), SCORING[:1] + SCORING[4:6])
def test_infer_points_weights_each_tile_by_its_points_there(variant, players, options):
    """With ``points``, an event's weights are proportional to exp((model score + points x
    the tile's points placed there) / temp) (each event's chances: its weights over their
    sum); the core's log-likelihood equals the readable definition on them; without
    ``points`` (and in the variants that do not score in play) the weights are as before."""
    mc = _mc()
    scored = 0
    for obs, _legal, key in _decisions(variant, players, matches=2, **options):
        plain, inf = mc.infer_events(obs, 3.0), mc.infer_events(obs, 3.0, 5.0)
        assert np.array_equal(plain[0], inf[0])
        assert np.allclose(plain[1], np.exp(mc.model_scores() / 3.0))
        if not len(inf[0]):
            continue
        for row, w in zip(inf[0], inf[1], strict=True):
            at = next(
                i for i, e in enumerate(obs.history) if e.kind == "place" and e.tile == row[1]
            )
            part = _replayed(obs, until=at)
            units = mc.placement_units(obs.rules, part, int(row[kernel.IE_FIT]))
            want = np.exp((mc.model_scores() + 5.0 * units) / 3.0)
            assert np.allclose(w / w.sum(), want / want.sum(), rtol=1e-12, atol=0)
            scored += units.any()
        hands, _ = mc.sample_arrays(obs, key, 8)
        out = np.empty(len(hands))
        kernel.infer_logw(hands, inf[0], inf[1], out)
        assert np.allclose(out, mc.infer_logw_py(hands, *inf), rtol=0, atol=1e-9)
    assert scored > 3
    for obs, _legal, _key in _decisions("block", 2, matches=1):
        assert np.array_equal(mc.infer_events(obs, 3.0, 5.0)[1], mc.infer_events(obs, 3.0)[1])


def _small_position():
    """A 4-player block decision late in the hand (all 28 tiles dealt, no stock, no voids:
    the plain sampler is uniform over the deals), with placements to score and a few deals."""
    mc = _mc()
    games = _decisions("block", 4, matches=6, inner="random", seed=3, block_deal_7_all=True)
    for obs, legal, key in games:
        inf = mc.infer_events(obs, 1.0)
        others = [s for s in range(4) if s != obs.seat]
        if (
            len(legal) >= 1
            and not any(obs.voids)
            and 10 <= _count_deals(obs, others) <= 60
            and len(inf[0]) >= 4
        ):
            return obs, key, others
    raise AssertionError("no small position found")


def _count_deals(obs, others):
    n, left = 1, sum(obs.counts[s] for s in others)
    for s in others:
        n *= len(list(itertools.combinations(range(left), obs.counts[s])))
        left -= obs.counts[s]
    return n


def _all_deals(obs, others, unseen):
    """Every deal of ``unseen`` to ``others`` by their counts, packed ``[n, 4]``."""
    out = []

    def rec(i, rest, hands):
        if i == len(others):
            out.append(list(hands))
            return
        for pick in itertools.combinations(rest, obs.counts[others[i]]):
            hands[others[i]] = pick
            rec(i + 1, [t for t in rest if t not in pick], hands)

    rec(0, unseen, [()] * 4)
    packed = np.zeros((len(out), 4), dtype=np.uint64)
    for j, hands in enumerate(out):
        hands[obs.seat] = obs.hand
        for s in range(4):
            packed[j, s] = PACK[list(hands[s])].sum(dtype=np.uint64) if hands[s] else 0
    return packed


def test_infer_draws_each_deal_with_the_probability_the_model_gives_it():
    """A small position, every deal enumerated: the model's probability of a deal is its
    likelihood over the sum of all the deals' (the plain sampler being uniform here); the
    weighted sampler's draws over many keys are that distribution (total variation under
    0.05), and it is far from uniform (so a sampler ignoring the weights would fail)."""
    mc = _mc()
    obs, _key, others = _small_position()
    known = set(obs.hand) | set(obs.table)
    unseen = [t for t in range(28) if t not in known]
    deals = _all_deals(obs, others, unseen)
    inf = mc.infer_events(obs, 1.0)
    logw = mc.infer_logw_py(deals, *inf)
    model = np.exp(logw - logw.max())
    model /= model.sum()
    index = {tuple(int(h) for h in row): j for j, row in enumerate(deals)}
    drawn = np.zeros(len(deals))
    for k in range(300):
        hands, _stock, count = mc.infer_deals(obs, 1000 + k, 40, 8, 1.0)
        for row, c in zip(hands, count, strict=True):
            drawn[index[tuple(int(h) for h in row)]] += c
    assert drawn.sum() == 300 * 40
    freq = drawn / drawn.sum()
    uniform = np.full(len(deals), 1 / len(deals))
    assert 0.5 * np.abs(model - uniform).sum() > 0.15
    assert 0.5 * np.abs(freq - model).sum() < 0.05


@pytest.mark.parametrize(("variant", "players"), [("fives", 3), ("classic", 2), ("block", 4)])
def test_infer_never_draws_a_deal_inconsistent_with_the_history(variant, players):
    """Every drawn deal: the seat's own hand, every count, no public tile in another hand
    (the table: every tile placed so far), no tile showing a value its holder is known to
    lack (a forced pass or draw), a finite likelihood; the draws add up to ``samples``."""
    mc = _mc()
    checked = voids = 0
    for obs, legal, key in _decisions(variant, players, matches=3)[::2]:
        if len(legal) < 2:
            continue
        got = mc.infer_deals(obs, key, 16, 4, 2.0)
        hands, _stock, count = got
        assert count.sum() == 16 and (count >= 1).all()
        placed = {e.tile for e in obs.history if e.kind == "place"}
        assert placed <= set(obs.table)
        for row in hands:
            held = [tiles_of(int(h)) for h in row]
            assert sorted(held[obs.seat]) == sorted(obs.hand)
            assert [len(h) for h in held] == list(obs.counts)
            for s in range(players):
                if s != obs.seat:
                    assert not set(obs.table) & set(held[s])
                    assert not any(set(tiles.halves(x)) & obs.voids[s] for x in held[s])
                    voids += bool(obs.voids[s])
        inf = mc.infer_events(obs, 2.0)
        if len(inf[0]):
            out = np.empty(len(hands))
            kernel.infer_logw(np.ascontiguousarray(hands), inf[0], inf[1], out)
            assert np.isfinite(out).all()
        checked += len(hands)
    assert checked > 100 and voids > 0


def test_infer_without_events_draws_the_plain_samplers_deals():
    """Before anyone else has placed (nothing to score) the deals are the plain sampler's."""
    mc = _mc()
    for obs, _legal, key in _decisions("fives", 2, matches=1)[:6]:
        if len(mc.infer_events(obs, 1.0)[0]):
            continue
        hands, stock, count = mc.infer_deals(obs, key, 8, 4, 1.0)
        plain = mc.sample_arrays(obs, key, 8)
        assert np.array_equal(hands, plain[0]) and np.array_equal(stock, plain[1])
        assert (count == 1).all()


def test_infer_fallback_searches_with_mcs_default_samples_at_least():
    """A decision whose deals all run out of budget falls back to mc with mc's default
    samples (256), not pimc's 64 (issue 38), and pimc's inference settings (pimc:infer=off
    falls back to the plain sampler's mc)."""
    pimc = get("pimc", budget=1)
    for obs, legal, key in _decisions("fives", 2, matches=1):
        if len(legal) >= 2:
            pimc.choose_one(obs, legal, key)
            break
    assert pimc.fallbacks == 1
    assert pimc._mc.settings["samples"] == get("mc").settings["samples"] == 256
    assert pimc._mc.settings["infer"] is True  # (pimc's inference settings: mc's defaults)
    plain = get("pimc", budget=1, infer="off", temp=2.0)
    plain.choose_one(obs, legal, key)
    assert plain._mc.settings["infer"] is False and plain._mc.settings["temp"] == 2.0


def test_infer_parameters():
    spec = parse_strategy("pimc:infer=off:temp=2.5:pool=8")
    pimc = get(spec.name, **dict(spec.params))
    assert (pimc.settings["infer"], pimc.settings["temp"], pimc.settings["pool"]) == (False, 2.5, 8)
    assert get("pimc", points=2.5).settings["points"] == 2.5
    for bad in (
        {"infer": "maybe"},
        {"temp": 0},
        {"temp": True},
        {"pool": 0},
        {"pool": 65},
        {"points": -1},
        {"points": 101},
        {"points": True},
        {"points": "x"},
    ):
        with pytest.raises(Exception, match=next(iter(bad))):
            get("pimc", **bad)


def test_infer_logw_refuses_arguments_out_of_range():
    mc = _mc()
    obs, _legal, key = next(
        d for d in _decisions("block", 2, matches=1) if len(mc.infer_events(d[0], 1.0)[0]) >= 2
    )
    ev, w = mc.infer_events(obs, 1.0)
    hands, _ = mc.sample_arrays(obs, key, 4)
    out = np.empty(len(hands))
    kernel.infer_logw(hands, ev, w, out)  # (in range)

    def refused(ev2=ev, w2=w, out2=out, match="out of range"):
        with pytest.raises(ValueError, match=match):
            kernel.infer_logw(hands, ev2, w2, out2)

    for col, value in (
        (kernel.IE_SEAT, 2),
        (kernel.IE_SEAT, -1),
        (kernel.IE_TILE, 28),
        (kernel.IE_BACK, 0),  # (the tile played is among its back tiles)
        (kernel.IE_FIT, 1 << 28),
    ):
        bad = ev.copy()
        bad[0, col] = value
        refused(ev2=bad)
    for value in (0.0, -1.0, np.nan, np.inf):
        bad = w.copy()
        bad[1, 5] = value
        refused(w2=bad)
    refused(out2=np.empty(len(hands) + 1), match="fit together")
    refused(w2=w[:, :27].copy(), match="fit together")
    refused(w2=w.astype(np.int64), match="weights")


def test_infer_is_spelled_on_and_off_in_labels_and_taken_so_from_the_api():
    """A label is what --strategies reads back: pimc:infer=off, never infer=False; the API
    takes the command line's spelling too."""
    assert get("pimc", infer="off").label == get("pimc", infer=False).label == "pimc:infer=off"
    assert get("pimc", infer="on").label == "pimc"


@pytest.mark.parametrize(("variant", "players"), [("fives", 2), ("block", 4)])
def test_mc_with_inference_counts_each_deal_as_often_as_it_was_drawn(variant, players):
    """mc (infer=on, its default) plays out the deals the inference draws (infer_deals, the
    same as pimc's), and its value of an action is the mean over the draws: the plain mean
    over the drawn deals each repeated as often as it was drawn; mc:infer=off plays the plain
    sampler's deals once each."""
    mc = _mc()
    on, off = get("mc", samples=24, temp=0.5), get("mc", infer="off", samples=24)
    checked = 0
    for obs, legal, key in _decisions(variant, players, matches=2)[1::2]:
        if len(legal) < 2:
            continue
        plan, count = on._weighted(obs, legal, key)
        hands, stock, drawn = mc.infer_deals(obs, key, 24, 4, 0.5)
        assert np.array_equal(plan.hands, hands) and np.array_equal(count, drawn)
        plain, once = off._weighted(obs, legal, key)
        assert np.array_equal(plain.hands, mc.sample_arrays(obs, key, 24)[0])
        assert (once == 1).all()
        rep = (np.repeat(hands, drawn, axis=0), np.repeat(stock, drawn, axis=0))
        flat = mc.positions(obs, legal, key, 24, deals=rep)
        vals = off._values(obs.rules, flat)
        want = [
            vals[flat.cand == c].mean() if (flat.cand == c).any() else None
            for c in range(len(legal))
        ]
        got = on.values(obs, legal, key)
        for c, w in enumerate(want):
            if w is not None:
                assert got[c] == pytest.approx(w, abs=1e-9)
        checked += (drawn > 1).any()
    assert checked >= 2


def test_mc_inference_parameters():
    m = get("mc", infer="off", temp=2.0, pool=8, points=3)
    assert m.label == "mc:infer=off:pool=8:temp=2.0:points=3"
    assert get("mc").settings["infer"] is True and get("mc").label == "mc"
    for bad in ({"infer": "maybe"}, {"temp": 0}, {"pool": 0}, {"pool": 65}, {"points": -1}):
        with pytest.raises(Exception, match=next(iter(bad))):
            get("mc", **bad)
