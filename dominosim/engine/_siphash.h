/* SipHash-2-4 (J.-P. Aumasson and D. J. Bernstein, "SipHash: a fast short-input PRF", 2012):
 * the keyed one-way function of the strategies' keys (docs/design.md, "Randomness";
 * seeding.siphash24 is the same function in Python). Included by _core.c and by
 * bench/key_speed.c. Plain C11: rotations by 13, 16, 17, 21 and 32 only, all of uint64_t. */
#ifndef DOMINOSIM_SIPHASH_H
#define DOMINOSIM_SIPHASH_H

#include <stdint.h>

static inline uint64_t rotl64(uint64_t x, unsigned b) { return (x << b) | (x >> (64u - b)); }

typedef struct {
    uint64_t v0, v1, v2, v3;
} Sip;

static inline void sip_round(Sip *s) {
    s->v0 += s->v1;
    s->v1 = rotl64(s->v1, 13) ^ s->v0;
    s->v0 = rotl64(s->v0, 32);
    s->v2 += s->v3;
    s->v3 = rotl64(s->v3, 16) ^ s->v2;
    s->v0 += s->v3;
    s->v3 = rotl64(s->v3, 21) ^ s->v0;
    s->v2 += s->v1;
    s->v1 = rotl64(s->v1, 17) ^ s->v2;
    s->v2 = rotl64(s->v2, 32);
}

/* the state for the key (k0, k1): the key's 16 bytes are k0's then k1's, little-endian */
static inline Sip sip_init(uint64_t k0, uint64_t k1) {
    Sip s = {k0 ^ UINT64_C(0x736f6d6570736575), k1 ^ UINT64_C(0x646f72616e646f6d),
             k0 ^ UINT64_C(0x6c7967656e657261), k1 ^ UINT64_C(0x7465646279746573)};
    return s;
}

/* one 8-byte block m (little-endian), two compression rounds */
static inline void sip_block(Sip *s, uint64_t m) {
    s->v3 ^= m;
    sip_round(s);
    sip_round(s);
    s->v0 ^= m;
}

/* the last block (the message's length mod 256 in its top byte, its last n % 8 bytes below),
 * then the four finalization rounds: the hash */
static inline uint64_t sip_final(Sip *s, uint64_t last) {
    sip_block(s, last);
    s->v2 ^= 0xff;
    for (int k = 0; k < 4; k++) sip_round(s);
    return s->v0 ^ s->v1 ^ s->v2 ^ s->v3;
}

/* SipHash-2-4 of the three words (a, b, c) as 24 little-endian bytes: a seat's hand key
 * (seat_key in _core.c, seeding.seat_key) */
static inline uint64_t sip24_words3(uint64_t k0, uint64_t k1, uint64_t a, uint64_t b,
                                    uint64_t c) {
    Sip s = sip_init(k0, k1);
    sip_block(&s, a);
    sip_block(&s, b);
    sip_block(&s, c);
    return sip_final(&s, UINT64_C(24) << 56);
}

#endif
