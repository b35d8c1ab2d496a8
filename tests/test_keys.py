"""A strategy's keys reveal nothing (issue 36, point 5; docs/design.md, "Randomness").

A decision's key is ``splitmix64(seat_key ^ decision)``, the seat's hand key being SipHash-2-4,
keyed by 128 bits derived from the seed, of (match, hand, seat). SipHash is checked against
the published reference vectors in Python and in the core; the core's keys are the reference
engine's; and the attack that recovered the seed from the old splitmix64 chain, then the
opponent's hand, recovers nothing from the keys the engines hand out now.
"""

from __future__ import annotations

import random
import struct

import pytest

from dominosim.engine import BatchEngine, _core
from dominosim.game import seeding
from dominosim.game.reference import play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, get

M64 = seeding.M64

# SipHash-2-4 reference vectors: key bytes 00 01 .. 0f, message i = bytes 00 01 .. (i-1). The
# values are the reference implementation's vectors.h (github.com/veorq/SipHash, the authors'
# code), its output bytes read as a little-endian integer; the 15-byte one is the worked
# example of the SipHash paper's Appendix A (Aumasson and Bernstein, 2012).
REF_K0, REF_K1 = 0x0706050403020100, 0x0F0E0D0C0B0A0908
REF_VECTORS = {
    0: 0x726FDB47DD0E0E31,
    1: 0x74F839C593DC67FD,
    2: 0x0D6C8009D9A94F5A,
    3: 0x85676696D7FB7E2D,
    4: 0xCF2794E0277187B7,
    5: 0x18765564CD99A68D,
    6: 0xCBC9466E58FEE3CE,
    7: 0xAB0200F58B01D137,
    8: 0x93F5F5799A932462,
    9: 0x9E0082DF0BA9E4B0,
    15: 0xA129CA6149BE45E5,
}


@pytest.mark.parametrize("n", sorted(REF_VECTORS))
def test_siphash24_gives_the_reference_vectors_in_python_and_in_the_core(n):
    msg = bytes(range(n))
    assert seeding.siphash24(REF_K0, REF_K1, msg) == REF_VECTORS[n]
    assert _core.siphash24(REF_K0, REF_K1, msg) == REF_VECTORS[n]


def test_python_and_core_siphash24_agree_on_every_length_and_random_keys():
    rng = random.Random(36)
    for n in list(range(65)) * 8:
        k0, k1 = rng.getrandbits(64), rng.getrandbits(64)
        msg = rng.randbytes(n)
        assert seeding.siphash24(k0, k1, msg) == _core.siphash24(k0, k1, msg), (n, msg)


def test_seat_key_is_siphash_of_the_coordinates_under_the_seeds_key():
    rng = random.Random(5)
    for _ in range(300):
        seed, seat = rng.getrandbits(64), rng.randrange(4)
        match, hand = rng.randrange(-(2**63), 2**63), rng.randrange(0, 2**40)
        k0, k1 = seeding.strategy_secret(seed)
        msg = struct.pack("<3Q", match & M64, hand, seat)
        assert seeding.seat_key(seed, match, hand, seat) == _core.siphash24(k0, k1, msg)
        d = rng.randrange(100)
        assert seeding.strategy_key(seed, match, hand, d, seat) == seeding.splitmix64(
            seeding.seat_key(seed, match, hand, seat) ^ d
        )


class Spy(Strategy):
    """Records (match, hand, decision, seat, key) of every decision; plays the first action."""

    name = "spy"

    def __init__(self, log):
        super().__init__()
        self.log = log

    def choose_one(self, obs, legal, key):
        self.log.append((obs.match_id, obs.hand_index, obs.decision, obs.seat, int(key)))
        return legal[0]


@pytest.mark.parametrize("variant,players", [("fives", 4), ("blind", 3), ("bergen", 2)])
def test_the_cores_keys_are_the_reference_engines_at_every_decision(variant, players):
    rules, log = make_rules(variant, players), []
    eng = BatchEngine(rules, 91, [Spy(log)] * players, range(6), unit="match", batch_size=4)
    eng.run()
    assert len(log) > 50
    for m, k, d, seat, key in log:
        assert key == seeding.strategy_key(91, m, k, d, seat)


def unsplitmix64(z: int) -> int:
    """The inverse of seeding.splitmix64 (the attack of issue 36)."""
    z = z ^ (z >> 31) ^ (z >> 62)
    z = (z * pow(seeding.MUL2, -1, 1 << 64)) & M64
    z = z ^ (z >> 27) ^ (z >> 54)
    z = (z * pow(seeding.MUL1, -1, 1 << 64)) & M64
    z = z ^ (z >> 30) ^ (z >> 60)
    return (z - seeding.GOLDEN) & M64


def attack(obs, key: int) -> int:
    """The seed a key would come from were it the chain key(seed, STRATEGY, m, k, d, seat)."""
    h = key
    for c in (obs.seat, obs.decision, obs.hand_index, obs.match_id, seeding.STRATEGY):
        h = unsplitmix64(h) ^ int(c)
    return unsplitmix64(h)


class Attacker(Strategy):
    """Recovers a seed from each key and predicts the next seat's hand from it."""

    name = "attacker"

    def __init__(self, rules, log):
        super().__init__()
        self.rules, self.log = rules, log

    def choose_one(self, obs, legal, key):
        seed = attack(obs, int(key))
        size, nxt = self.rules.hand_size, (obs.seat + 1) % self.rules.players
        order = seeding.shuffle(seed, self.rules.players, obs.match_id, obs.hand_index)
        guess = sorted(order[nxt * size : (nxt + 1) * size])
        self.log.append((obs.match_id, obs.hand_index, obs.decision, obs.seat, seed, guess))
        return legal[0]


def true_hand(rules, seed, match, hand, seat):
    order = seeding.shuffle(seed, rules.players, match, hand)
    return sorted(order[seat * rules.hand_size : (seat + 1) * rules.hand_size])


def test_the_old_inversion_recovers_nothing_from_the_keys():
    """The 25-line attack: it recovers the seed from every key of the old chain (so it is a
    real attack), and from no key either engine hands out now, nor any opponent's hand."""
    seed, rules = 203, make_rules("classic", 2)
    for m, k, d, s in [(0, 0, 0, 0), (7, 2, 5, 1), (123, 9, 0, 3)]:
        old = seeding.key(seed, seeding.STRATEGY, m, k, d, s)
        obs = type("O", (), dict(seat=s, decision=d, hand_index=k, match_id=m))
        assert attack(obs, old) == seed
    ref_log, core_log = [], []
    play_match(rules, seed, 4, [Attacker(rules, ref_log), get("heaviest")])
    eng = BatchEngine(rules, seed, [Attacker(rules, core_log), get("heaviest")], range(20))
    eng.run()
    assert len(ref_log) > 5 and len(core_log) > 50
    for m, k, _d, seat, got, guess in ref_log + core_log:
        assert got != seed
        assert guess != true_hand(rules, seed, m, k, (seat + 1) % 2)


def test_a_seat_computes_its_own_keys_of_the_hand_and_no_other_seats():
    """Inverting splitmix64 gives a seat its hand key, so its own later keys of that hand (the
    documented, harmless part); another seat's keys and the next hand's are not among them."""
    seed, log = 17, []
    play_match(make_rules("fives", 4), seed, 2, [Spy(log)] * 4)
    by = {(m, k, s): {} for m, k, _d, s, _key in log}
    for m, k, d, s, key in log:
        by[(m, k, s)][d] = key
    for (m, k, s), keys in by.items():
        d0 = min(keys)
        hand_key = unsplitmix64(keys[d0]) ^ d0
        assert all(seeding.splitmix64(hand_key ^ d) == key for d, key in keys.items())
        mine = {seeding.splitmix64(hand_key ^ d) for d in range(200)}
        others = [
            v for (m2, k2, s2), ks in by.items() if (m2, k2, s2) != (m, k, s) for v in ks.values()
        ]
        assert others and not mine.intersection(others)
