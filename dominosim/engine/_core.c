/* The compiled core of the batch engine (docs/design.md, "The compiled core").
 *
 * One game slot's state is one Slot record (the numpy dtype kernel.SLOT; blind's rows one
 * BSlot, kernel.BSLOT); the engine's state arrays are views of their fields. advance() takes
 * every slot from where it stands through forced moves, draws, passes, hand ends, settlement,
 * match ends and new deals up to its next decision with two or more legal actions, and leaves
 * those decisions as rows for the strategies (asked from Python through the public
 * Strategy.choose interface); the next call checks each chosen action and plays it.
 *
 * The rules are data: a vector of knobs (kernel.knobs, names in KNOB_NAMES below, checked at
 * import) read once into a Rules struct. The random numbers are the addressed splitmix64
 * streams of dominosim/seeding.py, so the games are those of the reference engine.
 *
 * This file is the rules engine; _core_glue.c is the CPython module around it.
 */
#include "_core.h"
#include "_siphash.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------
 * tables (the same as engine/tables.py; built once at import by core_init_tables)
 * ---------------------------------------------------------------------------------------- */
static uint64_t PACK[28];         /* packed bits of tile t: 8a+b and 8b+a */
static int TILE_AT[7][7];         /* tile index of v-w */
static int TILE_LOW[28], TILE_HIGH[28], TILE_PIPS[28], IS_DBL[28];
static int POPC7[128];            /* set bits of a 7-bit mask */
static int SELECT7[128][7];       /* the k-th set bit of a 7-bit mask (-1: none) */
static uint64_t BYTES_OF[128];    /* the bytes of the values of a value mask */
static int64_t TILES_OF[7][128];  /* 28-bit mask of the tiles v-w, w in m, w >= v */
static int PIPS_BYTE[7][128];     /* sum over w in m of v + w */
static int HI_MASK[7];            /* other halves w >= v */
static int64_t SPREAD[128];       /* a 1 in the 4-bit count of each value of a value mask */
static int64_t DOUBLES28;         /* 28-bit mask of the doubles */
static int64_t CARRY28[7];        /* 28-bit mask of the tiles carrying value v */
static int64_t FIT28[128];        /* 28-bit mask of the tiles carrying a value of a value mask */
static uint64_t PACK00, PACK66;
/* Legal.arrays' info planes per action code (the last entry: padding) */
enum { INFO_TILE, INFO_POS, INFO_PIPS, INFO_DOUBLE, INFO_ALONG, INFO_PLANES };
static int8_t ACT_INFO[A_STOP + 2][INFO_PLANES]; /* per action code (the last: padding) */

static void init_act_info(void) { /* (after TILE_PIPS, IS_DBL) */
    for (int64_t a = 0; a <= A_STOP + 1; a++) {
        int64_t place = a < A_DRAW, t = place ? (a % A_ALONG) / 6 : -1;
        ACT_INFO[a][INFO_TILE] = (int8_t)t;
        ACT_INFO[a][INFO_POS] = (int8_t)(place ? a % 6 : -1);
        ACT_INFO[a][INFO_PIPS] = (int8_t)(place ? TILE_PIPS[t] : 0);
        ACT_INFO[a][INFO_DOUBLE] = (int8_t)(place ? IS_DBL[t] : 0);
        ACT_INFO[a][INFO_ALONG] = (int8_t)(place && a >= A_ALONG);
    }
}

static int tile_index(int a, int b) {
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return hi * (hi + 1) / 2 + lo;
}

void core_init_tables(void) {
    for (int hi = 0; hi < 7; hi++)
        for (int lo = 0; lo <= hi; lo++) {
            int t = tile_index(lo, hi);
            TILE_LOW[t] = lo;
            TILE_HIGH[t] = hi;
            TILE_PIPS[t] = lo + hi;
            IS_DBL[t] = lo == hi;
            PACK[t] = (UINT64_C(1) << (8 * lo + hi)) | (UINT64_C(1) << (8 * hi + lo));
            TILE_AT[lo][hi] = TILE_AT[hi][lo] = t;
        }
    for (int m = 0; m < 128; m++) {
        int k = 0;
        for (int w = 0; w < 7; w++) SELECT7[m][w] = -1;
        BYTES_OF[m] = 0;
        SPREAD[m] = 0;
        for (int w = 0; w < 7; w++)
            if ((m >> w) & 1) {
                SELECT7[m][k++] = w;
                BYTES_OF[m] |= UINT64_C(0x7F) << (8 * w);
                SPREAD[m] |= INT64_C(1) << (4 * w);
            }
        POPC7[m] = k;
    }
    for (int v = 0; v < 7; v++) {
        HI_MASK[v] = 0;
        for (int w = v; w < 7; w++) HI_MASK[v] |= 1 << w;
        for (int m = 0; m < 128; m++) {
            TILES_OF[v][m] = 0;
            PIPS_BYTE[v][m] = 0;
            for (int w = 0; w < 7; w++)
                if ((m >> w) & 1) {
                    PIPS_BYTE[v][m] += v + w;
                    if (w >= v) TILES_OF[v][m] |= INT64_C(1) << tile_index(v, w);
                }
        }
    }
    DOUBLES28 = 0;
    for (int v = 0; v < 7; v++) {
        DOUBLES28 |= INT64_C(1) << tile_index(v, v);
        CARRY28[v] = 0;
        for (int w = 0; w < 7; w++) CARRY28[v] |= INT64_C(1) << tile_index(v, w);
    }
    for (int m = 0; m < 128; m++) {
        FIT28[m] = 0;
        for (int v = 0; v < 7; v++)
            if ((m >> v) & 1) FIT28[m] |= CARRY28[v];
    }
    PACK00 = PACK[0];
    PACK66 = PACK[27];
    init_act_info();
}

/* ------------------------------------------------------------------------------------------
 * the rule knobs
 * ---------------------------------------------------------------------------------------- */
const char *const KNOB_NAMES[K_COUNT] = {
#define KNOB_NAME(name) #name,
    KNOBS(KNOB_NAME)
#undef KNOB_NAME
};

const char *const POLICY_NAMES[POL_COUNT] = {
#define POLICY_NAME(name) #name,
    POLICIES(POLICY_NAME)
#undef POLICY_NAME
};

const char *const HREC_NAMES[HREC_HEAD] = {
#define COLUMN_NAME(name) #name,
    HREC_COLUMNS(COLUMN_NAME)
};
const char *const MREC_NAMES[MREC_HEAD] = {MREC_COLUMNS(COLUMN_NAME)};
#undef COLUMN_NAME

/* A knob vector as Rules, or an error message when a knob is out of the engine's range. */
const char *core_rules(const int64_t *knobs, Rules *r) {
#define KNOB_READ(name) r->name = knobs[K_##name];
    KNOBS(KNOB_READ)
#undef KNOB_READ
    if (r->P < 2 || r->P > 4) return "players must be 2 to 4";
    if (r->S < 1 || r->S > r->P) return "sides out of range";
    if (r->hand_size < 1 || r->P * r->hand_size > 28) return "hand size out of range";
    if (r->npos != 2 && r->npos != 6) return "open positions must be 2 or 6";
    if (r->npoints < 1 || r->npoints > 4) return "point columns out of range";
    if (r->limit < 0) return "draw limit out of range";
    if (r->blind && r->P * r->hand_size > RB) return "blind rows out of range";
    return NULL;
}

/* ------------------------------------------------------------------------------------------
 * small helpers
 * ---------------------------------------------------------------------------------------- */
static inline uint64_t sm(uint64_t x) { /* splitmix64 (seeding.splitmix64) */
    uint64_t z = x + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* SipHash-2-4 of the n bytes at p under the key (k0, k1) (little-endian words) */
uint64_t core_siphash24(uint64_t k0, uint64_t k1, const uint8_t *p, size_t n) {
    Sip s = sip_init(k0, k1);
    size_t full = n - n % 8;
    for (size_t j = 0; j < full; j += 8) {
        uint64_t m = 0;
        for (int k = 7; k >= 0; k--) m = m << 8 | p[j + (size_t)k];
        sip_block(&s, m);
    }
    uint64_t last = (uint64_t)(n & 0xff) << 56;
    for (size_t k = 0; k < n % 8; k++) last |= (uint64_t)p[full + k] << (8 * k);
    return sip_final(&s, last);
}

/* A seat's secret key of the slot's hand: SipHash-2-4 under the run's strategy key (sd[2],
 * sd[3]) of the 24 bytes (match, hand, seat) as little-endian uint64 (seeding.seat_key).
 * Computed when the seat first needs a key in the hand and kept in the slot (0: not yet; a
 * hash of 0 is computed again each time, the same). */
static uint64_t seat_key(Slot *rw, const uint64_t *sd, int64_t seat) {
    uint64_t k = rw->skeys[seat];
    if (k) return k;
    k = sip24_words3(sd[2], sd[3], (uint64_t)rw->match, (uint64_t)rw->hand_idx, (uint64_t)seat);
    rw->skeys[seat] = k;
    return k;
}

/* the key of decision dec for a seat whose hand key is k (seeding.strategy_key) */
static inline uint64_t decision_key(uint64_t k, int64_t dec) { return sm(k ^ (uint64_t)dec); }

static inline int64_t below(uint64_t h, int64_t n) { /* seeding.below */
    return (int64_t)(((h >> 32) * (uint64_t)n) >> 32);
}

/* 7-bit mask of the other halves of the tiles of packed hand h carrying v (-1: none) */
static inline int byte_of(uint64_t h, int64_t v) {
    return v < 0 ? 0 : (int)((h >> (8 * v)) & 0x7F);
}

static int64_t mask28(uint64_t h) {
    int64_t out = 0;
    for (int v = 0; v < 7; v++) out |= TILES_OF[v][byte_of(h, v) & HI_MASK[v]];
    return out;
}

static int64_t pips_of(uint64_t h) {
    int64_t s = 0, d = 0;
    for (int v = 0; v < 7; v++) {
        int m = byte_of(h, v);
        s += PIPS_BYTE[v][m];
        d += ((m >> v) & 1) * 2 * v;
    }
    return (s + d) / 2;
}

static int64_t count_of(uint64_t h) {
    int64_t c = 0;
    for (int v = 0; v < 7; v++) {
        int m = byte_of(h, v);
        c += POPC7[m] + ((m >> v) & 1);
    }
    return c / 2;
}

static inline int popc28(int64_t m) { /* (SWAR on 32 bits: no table loads) */
    uint32_t x = (uint32_t)m & 0x0FFFFFFFu;
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* index of the k-th set bit of a 28-bit mask (k < its popcount), by 7-bit chunks */
static inline int64_t select28(int64_t m, int64_t k) {
    for (int part = 0; part < 4; part++) {
        int c = (int)((m >> (7 * part)) & 0x7F);
        int n = POPC7[c];
        if (k < n) return 7 * part + SELECT7[c][k];
        k -= n;
    }
    return -1;
}

static inline int64_t next_seat(int64_t seat, int64_t P) { /* the turn passes left, §1.6 */
    int64_t s = seat + 1;
    return s < P ? s : s - P;
}

static inline int64_t round5(int64_t x, int no_rounding) {
    if (no_rounding) return x;
    int64_t y = x + 2; /* 5 * floor((x + 2) / 5), floor for negatives too */
    int64_t q = y / 5;
    if (y % 5 != 0 && y < 0) q -= 1;
    return 5 * q;
}

static inline int64_t side_of(const Rules *r, int64_t seat) {
    return r->partnership ? seat % 2 : seat;
}

/* the number of sides, 1 to 4 (core_rules refuses others); the bound is written out so that
 * the compiler sees a loop over it stay inside a [4] array */
static inline int64_t sides_of(const Rules *r) { return r->S < 4 ? r->S : 4; }

static inline int64_t drawable(const Slot *rw) { return rw->hb[H_SEND] - rw->hb[H_SP]; }

/* one public event of the hand appended to its slot's history (Observation.history; lg NULL:
 * no history kept, as for compiled policies and the solver). A history past its bound (never
 * reached: kernel.history_bound) is marked EV_OVERFLOW, which the driver refuses. */
static inline void log_event(Log *lg, int64_t kind, int64_t seat, int64_t tile, int64_t pos,
                             int64_t along) {
    if (!lg) return;
    int64_t n = lg->ev[0];
    if (n >= lg->cap) {
        lg->ev[0] = EV_OVERFLOW;
        return;
    }
    lg->ev[1 + n] = (uint16_t)(tile << EV_TILE_SHIFT | pos << EV_POS_SHIFT |
                               along << EV_ALONG_SHIFT | seat << EV_SEAT_SHIFT |
                               kind << EV_KIND_SHIFT);
    lg->ev[0] = (uint16_t)(n + 1);
}

static inline int fits(int64_t t, int64_t vm) {
    return ((vm >> TILE_LOW[t]) & 1) || ((vm >> TILE_HIGH[t]) & 1);
}

/* index of the strictly lowest of vals[:n] among valid ones, or -1 on a tie */
static int64_t unique_min(const int64_t *vals, int64_t n, const int8_t *valid) {
    int64_t lo = INT64_C(1) << 62, at = -1;
    int c = 0;
    for (int64_t s = 0; s < n; s++)
        if (valid[s] && vals[s] < lo) lo = vals[s];
    for (int64_t s = 0; s < n; s++)
        if (valid[s] && vals[s] == lo) {
            c++;
            at = s;
        }
    return c == 1 ? at : -1;
}

/* ------------------------------------------------------------------------------------------
 * placement, in-play scoring, passes, the block test
 * ---------------------------------------------------------------------------------------- */
/* Points event by event; a side reaching the target ends the match (§1.14). */
static int award(const Rules *r, Slot *rw, int64_t side, int64_t pts) {
    if (pts <= 0) return 0;
    rw->scores[side] += pts;
    rw->points[side] += pts;
    if (r->match_end == ME_RACE && !r->check_only && rw->scores[side] >= r->target) {
        rw->target_hit = 1;
        return 1;
    }
    return 0;
}

static void finish(Slot *rw, int64_t reason, int64_t out, int64_t fish, int64_t winner) {
    rw->over = 1;
    rw->hb[H_REASON] = reason;
    if (out >= 0) rw->hb[H_OUT] = out;
    if (fish >= -1 && reason == BLOCKED) rw->hb[H_FISH] = fish;
    if (winner >= 0) rw->hb[H_WINNER] = winner;
}

/* 7-bit mask of the values showing on open positions */
static inline int64_t open_values(const Rules *r, const Slot *rw) {
    int64_t vm = 0;
    for (int k = 0; k < r->npos; k++)
        if (rw->vals[k] >= 0) vm |= INT64_C(1) << rw->vals[k];
    return vm;
}

/* §1.12: blocked when no hand holds a fitting tile and nothing can be drawn */
static void block_test(const Rules *r, Slot *rw) {
    if (rw->over || (rw->hb[H_SEND] > rw->hb[H_SP] && !r->block_any)) return;
    uint64_t sel = BYTES_OF[open_values(r, rw)];
    for (int s = 0; s < r->P; s++)
        if (rw->hands[s] & sel) return;
    finish(rw, BLOCKED, -1, rw->hb[H_LAST], -1);
}

/* the end count (§1.11; the spinner's arms, §6.8; us_sniff_counting; a double laid along
 * counts single, inline_double_counts_single) */
static int64_t end_count(const Rules *r, const Slot *rw) {
    if (rw->hb[H_NTABLE] == 1) return TILE_PIPS[rw->hb[H_FIRST]];
    int64_t spin = rw->hb[H_SPIN], c = 0;
    if (spin < 0) {
        for (int k = 0; k < 2; k++) {
            int64_t v = rw->vals[k];
            if (v >= 0) c += (rw->dbl[k] && !rw->alg[k]) ? 2 * v : v;
        }
        return c;
    }
    int64_t cov = rw->hb[H_COV];
    int k = 0;
    for (int j = 0; j < 4; j++)
        if ((cov >> j) & 1) {
            int64_t a = rw->armv[j];
            c += rw->armd[j] ? 2 * a : a;
            k++;
        }
    if (r->us_sniff)
        c += k <= 2 ? 2 * spin : (k == 3 ? spin : 0);
    else
        c += k <= 1 ? 2 * spin : 0;
    return c;
}

/* the open positions around the spinner: W E first, N S once W and E are covered */
static void spinner_slots(const Rules *r, Slot *rw) {
    int64_t cov = rw->hb[H_COV], spin = rw->hb[H_SPIN];
    int we = (cov & 3) == 3;
    for (int j = 0; j < 4; j++) {
        if ((cov >> j) & 1) {
            rw->vals[2 + j] = rw->armv[j];
            rw->dbl[2 + j] = rw->armd[j];
        } else {
            rw->vals[2 + j] = (j < 2 || r->open_all_four || we) ? spin : -1;
            rw->dbl[2 + j] = 1;
        }
    }
}

static void place_lead(const Rules *r, Slot *rw, int64_t t, int along) {
    int64_t lo = TILE_LOW[t], hi = TILE_HIGH[t];
    int d = IS_DBL[t];
    rw->hb[H_FIRST] = t;
    if (d && r->spinner) { /* a double lead becomes the spinner */
        rw->hb[H_SPIN] = lo;
        rw->vals[0] = rw->vals[1] = -1;
        spinner_slots(r, rw);
        return;
    }
    rw->vals[0] = lo;
    rw->vals[1] = hi;
    rw->dbl[0] = rw->dbl[1] = (int8_t)d;
    rw->alg[0] = rw->alg[1] = (int8_t)(along && d);
}

static void place_on(const Rules *r, Slot *rw, int64_t t, int64_t p, int along) {
    int64_t v = rw->vals[p], w = TILE_LOW[t] + TILE_HIGH[t] - v;
    int d = IS_DBL[t];
    if (r->single_end) {
        rw->vals[0] = -1;
        rw->vals[1] = w;
        rw->dbl[1] = (int8_t)d;
    } else if (r->spinner && rw->hb[H_SPIN] >= 0) { /* on an arm of the spinner */
        int64_t pa = p - 2;
        rw->hb[H_COV] |= INT64_C(1) << pa;
        rw->armv[pa] = w;
        rw->armd[pa] = (int8_t)d;
        spinner_slots(r, rw);
    } else if (r->spinner && d) { /* the first double on the line becomes the spinner */
        rw->armv[0] = rw->vals[1 - p];
        rw->armd[0] = rw->dbl[1 - p];
        rw->hb[H_COV] = 1;
        rw->hb[H_SPIN] = v;
        rw->vals[0] = rw->vals[1] = -1;
        spinner_slots(r, rw);
    } else {
        rw->vals[p] = w;
        rw->dbl[p] = (int8_t)d;
        if (!r->spinner) rw->alg[p] = (int8_t)(along && d);
    }
}

/* the in-play points of the placement just made (fives, threes, muggins; bergen headers) */
static int64_t in_play_points(const Rules *r, const Slot *rw, int64_t side, int lead) {
    int64_t pts = 0;
    if (r->scoring <= SC_MUGGINS) {
        int64_t c = end_count(r, rw), m = r->scoring == SC_THREES ? 3 : 5;
        if (c > 0 && c % m == 0) pts = r->scoring == SC_MUGGINS ? c : c / m;
        return pts;
    }
    if (lead) /* bergen headers (§4.8) */
        pts = IS_DBL[rw->hb[H_FIRST]] ? 2 : 0;
    else if (rw->vals[0] == rw->vals[1])
        pts = (rw->dbl[0] || rw->dbl[1]) ? 3 : 2;
    if (r->bergen_cap && pts > 0) {
        int64_t need = r->target - rw->scores[side];
        if (need <= 2)
            pts = 1;
        else if (need == 3 && pts > 2)
            pts = 2;
    }
    return pts;
}

/* a placement: action code act (an along code under inline_double_counts_single) */
static void place(const Rules *r, Slot *rw, int64_t seat, int64_t act, int lead, Log *lg) {
    int along = act >= A_ALONG;
    int64_t base = along ? act - A_ALONG : act, t = base / 6, p = base % 6;
    uint64_t h = rw->hands[seat] & ~PACK[t];
    rw->hands[seat] = h;
    rw->hb[H_TABLE] |= INT64_C(1) << t;
    if (lead)
        place_lead(r, rw, t, along);
    else
        place_on(r, rw, t, p, along);
    rw->hb[H_NTABLE] += 1;
    rw->hb[H_LENGTH] += 1;
    rw->hb[H_LAST] = seat;
    log_event(lg, EV_PLACE, seat, t, lead ? 0 : p, along);
    if (r->scoring != SC_NONE) {
        int64_t side = side_of(r, seat);
        if (award(r, rw, side, in_play_points(r, rw, side, lead)))
            finish(rw, TARGET, -1, -2, side);
        if (rw->over) return;
    }
    if (h == 0) {
        finish(rw, DOMINO, seat, -2, -1);
        return;
    }
    block_test(r, rw);
}

static void pass_turn_rules(const Rules *r, Slot *rw, int64_t seat, Log *lg) {
    rw->hb[H_PASSES] += 1;
    log_event(lg, EV_PASS, seat, EV_NO_TILE, EV_NO_POS, 0);
    if (r->failed_turn_penalty) {
        rw->penalties[seat] += r->failed_turn_penalty;
        rw->points[seat] += r->failed_turn_penalty;
    } else if (r->penalty_per_miss) {
        rw->penalties[seat] += 10;
    }
    block_test(r, rw);
}

/* per open position, the 7-bit mask of the seat's tiles fitting it; returns the number of
 * legal placements (along ones included) */
static inline int play_masks(const Rules *r, const Slot *rw, int64_t seat, int64_t *m2) {
    uint64_t h = rw->hands[seat];
    int n = 0;
    for (int k = 0; k < r->npos; k++) {
        int m = byte_of(h, rw->vals[k]);
        m2[k] = m;
        n += POPC7[m];
        if (r->inline_single && rw->vals[k] >= 0) n += (m >> rw->vals[k]) & 1;
    }
    return n;
}

/* the one legal placement (first in canonical order) of the masks just computed */
static inline int64_t only_play(const Rules *r, const Slot *rw, const int64_t *m2) {
    for (int k = 0; k < r->npos; k++)
        if (m2[k]) return (int64_t)TILE_AT[rw->vals[k]][SELECT7[m2[k]][0]] * 6 + k;
    return -1;
}

/* the number of legal leads of a 28-bit lead mask (along leads of doubles included) */
static inline int lead_count(const Rules *r, int64_t lm) {
    return popc28(lm) + (r->inline_single ? popc28(lm & DOUBLES28) : 0);
}

/* ------------------------------------------------------------------------------------------
 * the deal and the leader (§1.2-§1.5, seeding.shuffle)
 * ---------------------------------------------------------------------------------------- */
static int64_t lot(const Rules *r, const Slot *rw, const uint64_t *sd) {
    uint64_t k = sm(sd[1] ^ (uint64_t)rw->match);
    k = sm(k ^ (uint64_t)rw->hand_idx);
    k = sm(k ^ (uint64_t)rw->hb[H_ATTEMPT]);
    return below(k, r->P);
}

typedef struct {
    int64_t seat, tile;
} Leader;

static Leader first_leader(const Rules *r, const Slot *rw, const uint64_t *sd,
                           const int64_t *prio, int64_t nprio) {
    Leader none = {-1, -1};
    if (r->lead_first == LF_LOT) {
        Leader by_lot = {lot(r, rw, sd), -1};
        return by_lot;
    }
    for (int64_t j = 0; j < nprio; j++) {
        int64_t t = prio[j];
        if (t < 0) continue; /* (the list of rules without one: [-1]) */
        for (int s = 0; s < r->P; s++)
            if (rw->hands[s] & PACK[t]) {
                Leader found = {s, t};
                return found;
            }
    }
    return none;
}

/* the seat of the previous hand's winning side that leads (partnerships: fewer pips, else
 * the first after the fish-maker) */
static int64_t winner_seat(const Rules *r, const Slot *rw) {
    int64_t w = rw->prev[P_WINNER], out = rw->prev[P_OUT];
    if (w < 0) return -1;
    if (out >= 0) return out;
    if (!r->partnership) return w;
    int64_t a = w, b = w + 2;
    if (rw->prev_pips[a] != rw->prev_pips[b]) return rw->prev_pips[a] < rw->prev_pips[b] ? a : b;
    int64_t fm = rw->prev[P_FISH], start = fm >= 0 ? (fm + 1) % r->P : 0;
    for (int j = 0; j < r->P; j++) {
        int64_t s = (start + j) % r->P;
        if (s == a || s == b) return s;
    }
    return a;
}

static Leader choose_leader(const Rules *r, const Slot *rw, int first, const uint64_t *sd,
                            const int64_t *prio, int64_t nprio) {
    int64_t kind = r->lead_later;
    Leader l = {-1, -1};
    if (first || kind == LL_AS_FIRST) return first_leader(r, rw, sd, prio, nprio);
    if (kind == LL_NEXT) {
        l.seat = (rw->prev[P_LEADER] + 1) % r->P;
    } else if (kind == LL_LOT) {
        l.seat = lot(r, rw, sd);
    } else if (kind == LL_WINNER_ELSE_LOT || kind == LL_WINNER_ELSE_FIRST ||
               kind == LL_WINNER_ELSE_NEXT) {
        int64_t ws = winner_seat(r, rw);
        if (ws >= 0)
            l.seat = ws;
        else if (kind == LL_WINNER_ELSE_LOT)
            l.seat = lot(r, rw, sd);
        else if (kind == LL_WINNER_ELSE_FIRST)
            return first_leader(r, rw, sd, prio, nprio);
        else
            l.seat = (rw->prev[P_LEADER] + 1) % r->P;
    } else if (rw->prev[P_OUT] >= 0) { /* out_else_lot, out_else_fishmaker */
        l.seat = rw->prev[P_OUT];
    } else {
        l.seat = kind == LL_OUT_ELSE_LOT ? lot(r, rw, sd) : rw->prev[P_FISH];
    }
    return l;
}

/* §14.3 kozel_redeal: a hand with five doubles or six tiles of one value */
static int kozel_bad(const Rules *r, const Slot *rw) {
    for (int s = 0; s < r->P; s++) {
        int nd = 0;
        for (int v = 0; v < 7; v++) {
            int m = byte_of(rw->hands[s], v);
            nd += (m >> v) & 1;
            if (POPC7[m] >= 6) return 1;
        }
        if (nd >= 5) return 1;
    }
    return 0;
}

/* the addressed Fisher-Yates shuffle (seeding.shuffle) of this slot's hand and attempt */
static void shuffle(const Slot *rw, const uint64_t *sd, int64_t *order) {
    uint64_t h = sm(sd[0] ^ (uint64_t)rw->match);
    h = sm(h ^ (uint64_t)rw->hand_idx);
    h = sm(h ^ (uint64_t)rw->hb[H_ATTEMPT]);
    int64_t rr[28];
    for (int j = 1; j < 28; j++) rr[j] = below(sm(h ^ (uint64_t)j), j + 1);
    for (int j = 0; j < 28; j++) order[j] = j;
    for (int j = 27; j > 0; j--) {
        int64_t x = order[j];
        order[j] = order[rr[j]];
        order[rr[j]] = x;
    }
}

static void deal_rows(const Rules *r, BSlot *bw, const int64_t *order) {
    for (int s = 0; s < r->P; s++) { /* the rows, in deal order (§3.2) */
        for (int k = 0; k < RB; k++) bw->buf[s][k] = -1;
        for (int k = 0; k < r->hand_size; k++) bw->buf[s][k] = (int8_t)order[s * r->hand_size + k];
        bw->head[s] = 0;
        bw->span[s] = r->hand_size;
        bw->known[s] = 0;
        bw->opened[s] = 0;
    }
    bw->face_up = 0;
    bw->turn_phase = T_START;
}

/* the starting tile from the stock (§10.6; blind_deal=all_tiles with 3 players, §15) */
static void start_tile(Slot *rw, Log *lg) {
    int64_t t = rw->stock[rw->hb[H_SP]];
    log_event(lg, EV_START, EV_NO_SEAT, t, EV_NO_POS, 0);
    rw->hb[H_SP] += 1;
    if (rw->hb[H_SEND] < rw->hb[H_SP]) rw->hb[H_SEND] = rw->hb[H_SP];
    rw->vals[0] = TILE_LOW[t];
    rw->vals[1] = TILE_HIGH[t];
    rw->dbl[0] = rw->dbl[1] = (int8_t)IS_DBL[t];
    rw->hb[H_NTABLE] = 1;
    rw->hb[H_FIRST] = t;
    rw->hb[H_TABLE] |= INT64_C(1) << t;
    rw->phase = TURN;
}

/* a new hand in slot rw; returns 0, or 1 when no seat can lead (a prev field out of range) */
static int deal(const Rules *r, Slot *rw, BSlot *bw, int first, const Inputs *in, Log *lg) {
    if (lg) lg->ev[0] = 0; /* a new hand, a new history */
    memcpy(rw->hb, in->htmpl, sizeof rw->hb); /* (the glue checks its length) */
    rw->over = 0;
    rw->target_hit = 0;
    memset(rw->skeys, 0, sizeof rw->skeys); /* the seats' keys of this hand: when needed */
    int64_t order[28];
    for (;;) {
        shuffle(rw, in->sd, order);
        for (int s = 0; s < r->P; s++) {
            uint64_t x = 0;
            for (int64_t j = s * r->hand_size; j < (s + 1) * r->hand_size; j++) x |= PACK[order[j]];
            rw->hands[s] = x;
        }
        if (!(r->kozel_redeal && kozel_bad(r, rw))) break;
        rw->hb[H_ATTEMPT] += 1;
    }
    for (int j = 0; j < 28; j++) rw->stock[j] = (int8_t)order[j];
    for (int k = 0; k < 6; k++) {
        rw->vals[k] = -1;
        rw->dbl[k] = 0;
        rw->alg[k] = 0;
    }
    for (int k = 0; k < 4; k++) {
        rw->armv[k] = -1;
        rw->armd[k] = 0;
        rw->points[k] = 0;
    }
    for (int s = 0; s < r->P; s++) {
        rw->penalties[s] = 0;
        rw->voids[s] = 0;
    }
    if (r->blind) deal_rows(r, bw, order);
    Leader l = choose_leader(r, rw, first, in->sd, in->prio, in->nprio);
    if (l.seat < 0 || l.seat >= r->P) return 1;
    rw->leader = l.seat;
    rw->lead_tile = l.tile;
    if (r->blind) rw->lead_tile = bw->buf[l.seat][0]; /* §3.4: the leader leads his front tile */
    rw->to_move = l.seat;
    if (r->start_tile)
        start_tile(rw, lg);
    else
        rw->phase = LEAD;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * settlement (as reference.py's settle: one function per RULES settlement)
 * ---------------------------------------------------------------------------------------- */
typedef struct {
    int64_t seat_pips[4]; /* pips per seat */
    int64_t pips[4];      /* pips per side */
    int64_t tmp[4];
    int8_t valid[4];
} Tally;

/* §15 muggins_block_difference_per_opponent: sides score in ascending pip order */
static void muggins_per_opponent(const Rules *r, Slot *rw, const int64_t *pips) {
    int64_t fm = rw->hb[H_FISH], start = fm >= 0 ? (fm + 1) % r->P : 0;
    int64_t rank[4];
    int8_t done[4] = {0, 0, 0, 0};
    for (int s = 0; s < r->S; s++) rank[s] = 99;
    for (int j = 0; j < r->P; j++) {
        int64_t s = side_of(r, (start + j) % r->P);
        if (rank[s] == 99) rank[s] = j;
    }
    for (int n = 0; n < r->S; n++) {
        int64_t best = -1;
        for (int s = 0; s < r->S; s++)
            if (!done[s] && (best < 0 || pips[s] < pips[best] ||
                             (pips[s] == pips[best] && rank[s] < rank[best])))
                best = s;
        done[best] = 1;
        if (rw->target_hit) break;
        int64_t pts = 0;
        for (int o = 0; o < r->S; o++)
            if (pips[o] > pips[best]) pts += round5(pips[o] - pips[best], r->muggins_no_rounding == 1);
        award(r, rw, best, pts);
    }
}

typedef struct {
    int64_t side, points;
} Award;

/* Bergen's block award (§4.10, §4.10a, bergen_block_lowest_hand_1pt) */
static Award bergen_block(const Rules *r, const Slot *rw) {
    int64_t nd_pips[4] = {0}, all_pips[4] = {0}, min_double[4];
    int8_t has_double[4] = {0}, valid[4];
    Award res = {-1, 2};
    for (int s = 0; s < r->S; s++) min_double[s] = 99;
    for (int s = 0; s < r->P; s++) {
        int64_t side = side_of(r, s), m = mask28(rw->hands[s]);
        for (int t = 0; t < 28; t++)
            if ((m >> t) & 1) {
                all_pips[side] += TILE_PIPS[t];
                if (IS_DBL[t]) {
                    has_double[side] = 1;
                    if (t < min_double[side]) min_double[side] = t;
                } else {
                    nd_pips[side] += TILE_PIPS[t];
                }
            }
    }
    int n_nd = 0;
    for (int s = 0; s < r->S; s++) n_nd += !has_double[s];
    if (r->bergen_1pt) {
        for (int s = 0; s < r->S; s++) valid[s] = !has_double[s] || n_nd == 0;
        res.side = unique_min(nd_pips, r->S, valid);
        res.points = 1;
        return res;
    }
    if (n_nd == 1) {
        for (int s = 0; s < r->S; s++)
            if (!has_double[s]) res.side = s;
        return res;
    }
    for (int s = 0; s < r->S; s++) valid[s] = n_nd >= 2 ? !has_double[s] : 1;
    res.side = unique_min(n_nd >= 2 ? all_pips : min_double, r->S, valid);
    return res;
}

/* the 13-point rule (§14.13) */
static void write_score(Slot *rw, int64_t s, int64_t amount) {
    if (rw->written[s] < 0) {
        rw->pending[s] += amount;
        if (rw->pending[s] >= 13) {
            rw->written[s] = rw->pending[s];
            rw->pending[s] = 0;
        }
    } else {
        rw->written[s] += amount;
    }
}

/* kozel's charges: the hand values per side (§14.12), eggs, the fish-maker, the book */
static void settle_kozel(const Rules *r, Slot *rw, const int64_t *seat_pips) {
    int64_t n = sides_of(r), value[4] = {0, 0, 0, 0}, charges[4] = {0, 0, 0, 0};
    int8_t charged[4] = {0, 0, 0, 0}, winners[4] = {0, 0, 0, 0};
    for (int s = 0; s < r->P; s++) {
        uint64_t h = rw->hands[s];
        int64_t v = seat_pips[s];
        if (h == PACK00)
            v = r->lone_00_value;
        else if (h == PACK66 && r->lone_66_value)
            v = r->lone_66_value;
        value[side_of(r, s)] += v;
    }
    for (int s = 0; s < n; s++) rw->end_values[s] = value[s]; /* end_pips keeps the pips */
    int64_t out = rw->hb[H_OUT];
    if (out >= 0) {
        int64_t w = side_of(r, out);
        rw->hb[H_WINNER] = w;
        winners[w] = 1;
        for (int s = 0; s < n; s++)
            if (s != w) {
                charged[s] = 1;
                charges[s] = value[s];
            }
    } else {
        int64_t lo = value[0], total = 0, first_low = -1;
        int nlow = 0;
        for (int s = 0; s < n; s++)
            if (value[s] < lo) lo = value[s];
        for (int s = 0; s < n; s++) {
            total += value[s];
            if (value[s] == lo) {
                nlow++;
                winners[s] = 1;
                if (first_low < 0) first_low = s;
            }
        }
        if (nlow == n) { /* eggs */
            rw->hb[H_WINNER] = -1;
            if (r->eggs_double)
                rw->eggs += 1;
            else
                rw->pot += total;
            return;
        }
        rw->hb[H_WINNER] = nlow == 1 ? first_low : -1;
        int64_t fm = rw->hb[H_FISH], fm_side = fm >= 0 ? side_of(r, fm) : -1;
        if (r->fish_maker_takes_all && fm_side >= 0 && !winners[fm_side]) {
            charged[fm_side] = 1;
            charges[fm_side] = total;
        } else {
            for (int s = 0; s < n; s++)
                if (!winners[s]) {
                    charged[s] = 1;
                    charges[s] = value[s];
                }
        }
    }
    int64_t mult = r->eggs_double ? (INT64_C(1) << rw->eggs) : 1, p0 = rw->pot;
    rw->eggs = 0;
    rw->pot = 0;
    if (r->kozel_positive) { /* kozel_positive_scoring */
        int64_t tot = 0;
        for (int s = 0; s < n; s++)
            if (charged[s]) tot += charges[s] * mult;
        for (int s = 0; s < n; s++)
            if (winners[s]) {
                rw->points[s] += tot + p0;
                write_score(rw, s, tot + p0);
            }
    } else {
        for (int s = 0; s < n; s++)
            if (charged[s]) {
                int64_t amount = charges[s] * mult + p0;
                rw->points[s] += amount;
                write_score(rw, s, amount);
            }
    }
}

/* the penalty ledgers (two-lane, ladder; basic's penalty_per_miss): the fewest penalties,
 * then the fewest pips, wins */
static void settle_penalties(const Rules *r, Slot *rw, Tally *ty) {
    int64_t w = rw->hb[H_OUT];
    if (w < 0) {
        int64_t lo = INT64_C(1) << 62;
        for (int s = 0; s < r->P; s++)
            if (rw->penalties[s] < lo) lo = rw->penalties[s];
        for (int s = 0; s < r->P; s++) ty->valid[s] = rw->penalties[s] == lo;
        w = unique_min(ty->seat_pips, r->P, ty->valid);
    }
    rw->hb[H_WINNER] = w;
    if (r->settlement == ST_PENALTIES || w < 0) return;
    int64_t tot = 0;
    for (int s = 0; s < r->P; s++) tot += rw->penalties[s];
    int64_t pts = tot - 2 * rw->penalties[w];
    award(r, rw, w, pts > 0 ? pts : 0);
}

static int64_t block_winner(const Rules *r, const Slot *rw, Tally *ty) {
    if (!r->fewest_tiles) return unique_min(ty->pips, r->S, ty->valid);
    for (int s = 0; s < r->S; s++) ty->tmp[s] = 0; /* block_winner_fewest_tiles */
    for (int s = 0; s < r->P; s++) ty->tmp[side_of(r, s)] += count_of(rw->hands[s]);
    return unique_min(ty->tmp, r->S, ty->valid);
}

/* end-of-hand awards and the hand winner */
static void settle(const Rules *r, Slot *rw, Tally *ty) {
    int64_t out = rw->hb[H_OUT], total = 0, pts = 0, winner;
    int dom = out >= 0;
    int64_t out_side = dom ? side_of(r, out) : -1;
    const int64_t *pips = ty->pips;
    for (int s = 0; s < sides_of(r); s++) {
        total += pips[s];
        ty->valid[s] = 1;
    }
    if (r->settlement == ST_KOZEL) {
        settle_kozel(r, rw, ty->seat_pips);
        return;
    }
    if (r->settlement == ST_PENALTIES || (r->settlement == ST_PIPS && r->penalty_per_miss)) {
        settle_penalties(r, rw, ty);
        return;
    }
    if (r->settlement == ST_PIPS) {
        winner = dom ? out_side : block_winner(r, rw, ty);
        if (winner >= 0) {
            int64_t own = pips[winner], others = total - own;
            if (dom || r->fewest_tiles || r->fish_sum_only)
                pts = others;
            else if (r->fish_diff)
                pts = others - (r->S - 1) * own;
            else
                pts = others - own > 0 ? others - own : 0;
        }
    } else if (r->settlement == ST_BOOK) {
        winner = dom ? out_side : unique_min(pips, r->S, ty->valid);
        if (winner >= 0) pts = dom ? r->domino_bonus : 1;
    } else if (r->settlement == ST_SNIFF) {
        winner = dom ? out_side : unique_min(pips, r->S, ty->valid);
        if (winner >= 0) {
            int64_t own = pips[winner], others = total - own;
            pts = (dom ? round5(others, 0) : round5(others - own, 0)) / 5; /* (exact) */
        }
    } else if (r->settlement == ST_MUGGINS) {
        int nr = r->muggins_no_rounding == 1;
        winner = dom ? out_side : unique_min(pips, r->S, ty->valid);
        if (dom) {
            for (int s = 0; s < r->S; s++) pts += round5(pips[s], nr);
            pts -= round5(pips[out_side], nr);
        } else if (winner >= 0) {
            pts = round5(total - 2 * pips[winner], nr);
        }
        if (r->muggins_block_per_opponent && !dom) {
            rw->hb[H_WINNER] = winner;
            muggins_per_opponent(r, rw, pips);
            return;
        }
    } else { /* bergen */
        if (dom) {
            winner = out_side;
            pts = r->domino_bonus;
        } else {
            Award wp = bergen_block(r, rw);
            winner = wp.side;
            pts = wp.points;
        }
    }
    rw->hb[H_WINNER] = winner;
    if (winner >= 0) award(r, rw, winner, pts);
}

/* ------------------------------------------------------------------------------------------
 * the end of a match (as reference.py's _match_over: race, one hand, kozel)
 * ---------------------------------------------------------------------------------------- */
typedef struct {
    int done;
    int64_t winner;
} MatchEnd;

static MatchEnd race_over(const Rules *r, const Slot *rw) {
    MatchEnd e = {0, -1};
    int64_t top = rw->scores[0], at = 0;
    for (int s = 0; s < r->npoints; s++)
        if (rw->scores[s] > top) {
            top = rw->scores[s];
            at = s;
        }
    if (r->check_only) {
        int c = 0;
        for (int s = 0; s < r->npoints; s++) c += rw->scores[s] == top;
        e.done = top >= r->target && c == 1;
    } else {
        e.done = rw->target_hit;
    }
    if (e.done) e.winner = at;
    return e;
}

/* the lowest of vals[:n] where ok, as the unique winner (-1 on a tie) */
static int64_t unique_lowest(const int64_t *vals, int64_t n, int64_t skip_mask, int64_t lo) {
    int c = 0;
    int64_t win = -1;
    for (int s = 0; s < n; s++)
        if (!((skip_mask >> s) & 1) && vals[s] == lo) {
            c++;
            if (c == 1) win = s;
        }
    return c == 1 ? win : -1;
}

static MatchEnd one_hand_over(const Rules *r, Slot *rw) {
    MatchEnd e = {0, -1};
    for (int s = 0; s < r->npoints; s++) rw->scores[s] += rw->penalties[s];
    e.done = rw->hand_idx + 1 >= r->hands_per_match;
    if (!e.done) return e;
    if (r->hands_per_match == 1) {
        e.winner = rw->hb[H_WINNER];
        return e;
    }
    int64_t lo = rw->scores[0];
    for (int s = 0; s < r->npoints; s++)
        if (rw->scores[s] < lo) lo = rw->scores[s];
    e.winner = unique_lowest(rw->scores, r->npoints, 0, lo);
    return e;
}

static inline int64_t nonneg(int64_t x) { return x > 0 ? x : 0; }

static MatchEnd kozel_over(const Rules *r, Slot *rw) {
    MatchEnd e = {0, -1};
    int64_t S = r->S, lose = 0, book[4];
    int hit = 0;
    for (int s = 0; s < S; s++) {
        hit |= rw->written[s] >= r->target;
        book[s] = nonneg(rw->written[s]);
    }
    if (!hit) return e;
    e.done = 1;
    if (r->kozel_positive) {
        int64_t top = -1;
        for (int s = 0; s < S; s++)
            if (book[s] > top) top = book[s];
        for (int s = 0; s < S; s++)
            if (book[s] != top) lose |= INT64_C(1) << s;
        e.winner = unique_lowest(book, S, lose, top);
    } else {
        int64_t lo = INT64_C(1) << 62;
        for (int s = 0; s < S; s++) {
            if (book[s] >= r->target)
                lose |= INT64_C(1) << s;
            else if (book[s] < lo)
                lo = book[s];
        }
        e.winner = unique_lowest(book, S, lose, lo);
        if (r->dry_goat) /* a goat side whose opponents never wrote a score */
            for (int gl = 0; gl < S; gl++) {
                if (!((lose >> gl) & 1)) continue;
                int allnone = 1;
                for (int o = 0; o < S; o++)
                    if (o != gl && rw->written[o] >= 0) allnone = 0;
                if (allnone) rw->dry = 1;
            }
    }
    rw->losers = lose;
    return e;
}

static MatchEnd match_over(const Rules *r, Slot *rw) {
    MatchEnd e;
    if (r->match_end == ME_RACE)
        e = race_over(r, rw);
    else if (r->match_end == ME_ONE_HAND)
        e = one_hand_over(r, rw);
    else
        e = kozel_over(r, rw);
    if (r->unit_hand) {
        if (!e.done) e.winner = rw->hb[H_WINNER];
        e.done = 1;
    }
    return e;
}

/* ------------------------------------------------------------------------------------------
 * blind's rows (§3.2, §3.7; as reference.py's blind turn, step for step)
 * ---------------------------------------------------------------------------------------- */
static inline void pop_front(BSlot *bw, int64_t seat) {
    bw->head[seat] = (bw->head[seat] + 1) % RB;
    bw->span[seat] -= 1;
}

static inline void append_row(BSlot *bw, int64_t seat, int64_t t) {
    bw->buf[seat][(bw->head[seat] + bw->span[seat]) % RB] = (int8_t)t;
    bw->span[seat] += 1;
}

static inline int64_t row_front(const BSlot *bw, int64_t seat) {
    return bw->buf[seat][bw->head[seat] % RB];
}

/* take a placed tile out of its row; open a row of 3 tiles or fewer (§3.7b) */
static void blind_after_place(Slot *rw, BSlot *bw, int64_t seat, int64_t t, Log *lg) {
    bw->face_up &= ~(INT64_C(1) << t);
    bw->known[seat] &= ~(INT64_C(1) << t);
    int blind_phase = bw->opened[seat] == 0;
    int64_t h0 = bw->head[seat];
    if (bw->span[seat] > 0 && bw->buf[seat][h0 % RB] == t) {
        pop_front(bw, seat);
    } else if (!blind_phase) { /* the open phase leaves a hole */
        for (int64_t j = 0; j < bw->span[seat]; j++) {
            int64_t k = (h0 + j) % RB;
            if (bw->buf[seat][k] == t) {
                bw->buf[seat][k] = -1;
                break;
            }
        }
    }
    if (blind_phase && count_of(rw->hands[seat]) <= 3) {
        bw->opened[seat] = 1;
        log_event(lg, EV_OPEN, seat, EV_NO_TILE, EV_NO_POS, 0);
    }
}

/* the slot masks of placing the one tile t (the front tile or a drawn tile) */
static inline void single_masks(const Slot *rw, int64_t t, int64_t *m2) {
    for (int k = 0; k < 2; k++) m2[k] = byte_of(PACK[t], rw->vals[k]);
}

/* A decision of the turn: -1 when it has two or more legal actions (the strategy is
 * asked), else its one legal action (placements first, then draw, pass, stop). */
static int64_t pose(const Rules *r, const Slot *rw, BSlot *bw, int64_t turn_phase, int64_t flags,
                    const int64_t *m2) {
    bw->turn_phase = turn_phase;
    bw->cflag = flags;
    int n = POPC7[m2[0]] + POPC7[m2[1]];
    if (n + POPC7[flags] >= 2) return -1;
    if (n == 1) return only_play(r, rw, m2);
    if (flags & F_DRAW) return A_DRAW;
    if (flags & F_PASS) return A_PASS;
    return A_STOP;
}

static inline void to_back(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t t,
                           Log *lg) {
    log_event(lg, EV_TO_BACK, seat, t, EV_NO_POS, 0);
    append_row(bw, seat, t);
    rw->hands[seat] |= PACK[t];
    if (r->blind_face_up && IS_DBL[t]) bw->face_up |= INT64_C(1) << t;
}

static inline void blind_place(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t a,
                               Log *lg) {
    place(r, rw, seat, a, 0, lg);
    blind_after_place(rw, bw, seat, a / 6, lg);
}

/* the next stock tile, drawn and looked at (it joins the hand or a row after) */
static inline int64_t blind_draw(Slot *rw, BSlot *bw, int64_t seat, Log *lg) {
    int64_t sp = rw->hb[H_SP], t = rw->stock[sp];
    log_event(lg, EV_DRAW, seat, t, EV_NO_POS, 0);
    rw->hb[H_SP] = sp + 1;
    rw->hb[H_DRAWS] += 1;
    bw->known[seat] |= INT64_C(1) << t;
    return t;
}

static inline int64_t turn_over(const Rules *r, Slot *rw, BSlot *bw, int64_t seat) {
    rw->to_move = next_seat(seat, r->P);
    bw->turn_phase = T_START;
    return -1;
}

static inline int64_t blind_pass(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, Log *lg) {
    pass_turn_rules(r, rw, seat, lg);
    return turn_over(r, rw, bw, seat);
}

/* the optional draw (blind_draw_optional, §3.7): draw or pass, the strategy's choice */
static inline int64_t draw_or_pass(BSlot *bw, int64_t turn_phase, int64_t *m2) {
    m2[0] = m2[1] = 0;
    bw->turn_phase = turn_phase;
    bw->cflag = F_DRAW | F_PASS;
    return PH_PLAY;
}

static int64_t blind_start(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t *a,
    Log *lg,
                           int64_t *m2) {
    if (bw->opened[seat]) { /* the open phase (§3.7b, §3.7c) */
        if (play_masks(r, rw, seat, m2) > 0) {
            *a = pose(r, rw, bw, T_OPLAY, 0, m2);
            return *a < 0 ? PH_PLAY : -2;
        }
        if (28 - rw->hb[H_SP] > 0) {
            if (r->blind_draw_optional) return draw_or_pass(bw, T_ODRAWQ, m2);
            bw->turn_phase = T_ODRAWQ;
            *a = A_DRAW;
            return -2;
        }
        rw->voids[seat] |= open_values(r, rw);
        return blind_pass(r, rw, bw, seat, lg);
    }
    int64_t front = row_front(bw, seat);
    bw->known[seat] |= INT64_C(1) << front;
    log_event(lg, EV_LOOK, seat, front, EV_NO_POS, 0);
    if (fits(front, open_values(r, rw))) {
        int declinable = r->blind_play_optional && 28 - rw->hb[H_SP] > 0;
        single_masks(rw, front, m2);
        bw->dtile = front;
        *a = pose(r, rw, bw, T_FRONT, declinable ? F_DRAW : 0, m2);
        if (*a < 0) return declinable ? PH_FRONT : PH_PLAY;
        return -2;
    }
    bw->turn_phase = T_BACK;
    return -2;
}

static int64_t blind_back(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t turn_phase, Log *lg,
                          int64_t *a, int64_t *m2) {
    int64_t front = row_front(bw, seat);
    pop_front(bw, seat);
    to_back(r, rw, bw, seat, front, lg);
    int stock = 28 - rw->hb[H_SP] > 0;
    if (r->blind_draw_optional && stock && turn_phase == T_BACK) return draw_or_pass(bw, T_DRAWQ, m2);
    if (!stock) return blind_pass(r, rw, bw, seat, lg);
    bw->turn_phase = T_DRAWQ;
    *a = A_DRAW;
    return -2;
}

static int64_t blind_drawq(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t *a,
    Log *lg,
                           int64_t *m2) {
    if (*a == A_PASS) return blind_pass(r, rw, bw, seat, lg);
    int64_t t = blind_draw(rw, bw, seat, lg);
    if (fits(t, open_values(r, rw))) {
        single_masks(rw, t, m2);
        bw->dtile = t;
        *a = pose(r, rw, bw, T_DRAWN, r->blind_play_optional ? F_PASS : 0, m2);
        return *a < 0 ? PH_DRAWN : -2;
    }
    to_back(r, rw, bw, seat, t, lg);
    return blind_pass(r, rw, bw, seat, lg);
}

static int64_t blind_open_drawq(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t *a,
    Log *lg,
                                int64_t *m2) {
    int64_t vm = open_values(r, rw);
    if (*a == A_PASS) {
        rw->voids[seat] |= vm;
        return blind_pass(r, rw, bw, seat, lg);
    }
    int64_t t = blind_draw(rw, bw, seat, lg);
    rw->hands[seat] |= PACK[t];
    append_row(bw, seat, t);
    if (!fits(t, vm)) {
        rw->voids[seat] = vm;
        return blind_pass(r, rw, bw, seat, lg);
    }
    rw->voids[seat] |= vm;
    play_masks(r, rw, seat, m2);
    *a = pose(r, rw, bw, T_OPLAY, 0, m2);
    return *a < 0 ? PH_PLAY : -2;
}

/* A blind turn (§3.7a-c) from where it stands (bw->turn_phase), with a the answer to its pending
 * decision. Forced decisions are taken here; returns the phase code of the next decision
 * with a choice (its masks in m2, flags in bw->cflag), or -1 when the turn is over. Each
 * step returns -2 to go on with the action it leaves in a. */
static int64_t blind_run(const Rules *r, Slot *rw, BSlot *bw, int64_t seat, int64_t a,
                         int64_t *m2, Log *lg) {
    for (;;) {
        int64_t turn_phase = bw->turn_phase, code;
        if (turn_phase == T_START) {
            code = blind_start(r, rw, bw, seat, &a, lg, m2);
        } else if (turn_phase == T_FRONT) {
            if (a == A_DRAW) { /* declined (blind_play_optional) */
                bw->turn_phase = T_BACK_DECLINED;
                continue;
            }
            blind_place(r, rw, bw, seat, a, lg);
            return turn_over(r, rw, bw, seat);
        } else if (turn_phase == T_BACK || turn_phase == T_BACK_DECLINED) {
            code = blind_back(r, rw, bw, seat, turn_phase, lg, &a, m2);
        } else if (turn_phase == T_DRAWQ) {
            code = blind_drawq(r, rw, bw, seat, &a, lg, m2);
        } else if (turn_phase == T_DRAWN) {
            int64_t t = bw->dtile;
            if (a == A_PASS) {
                to_back(r, rw, bw, seat, t, lg);
                return blind_pass(r, rw, bw, seat, lg);
            }
            rw->hands[seat] |= PACK[t];
            blind_place(r, rw, bw, seat, a, lg);
            return turn_over(r, rw, bw, seat);
        } else if (turn_phase == T_ODRAWQ) {
            code = blind_open_drawq(r, rw, bw, seat, &a, lg, m2);
        } else { /* T_OPLAY, T_CONT: a placement, then continue or stop (§3.7b) */
            if (a == A_STOP) {
                log_event(lg, EV_STOP, seat, EV_NO_TILE, EV_NO_POS, 0);
                return turn_over(r, rw, bw, seat);
            }
            blind_place(r, rw, bw, seat, a, lg);
            if (rw->over || play_masks(r, rw, seat, m2) == 0) return turn_over(r, rw, bw, seat);
            a = pose(r, rw, bw, T_CONT, F_STOP, m2);
            code = a < 0 ? PH_CONT : -2;
        }
        if (code != -2) return code;
    }
}

/* ------------------------------------------------------------------------------------------
 * checking a strategy's action
 * ---------------------------------------------------------------------------------------- */
static inline int fits_at(const Slot *rw, int64_t t, int64_t p) {
    int64_t v = rw->vals[p];
    return v >= 0 && (TILE_LOW[t] == v || TILE_HIGH[t] == v);
}

/* whether a is legal at the blind turn's pending decision (bw->turn_phase, bw->cflag) */
static int blind_legal(const Slot *rw, const BSlot *bw, int64_t a, int64_t seat) {
    int64_t f = bw->cflag, turn_phase = bw->turn_phase;
    if (a == A_DRAW) return (f & F_DRAW) != 0;
    if (a == A_PASS) return (f & F_PASS) != 0;
    if (a == A_STOP) return (f & F_STOP) != 0;
    if (a < 0 || a >= A_ALONG) return 0;
    int64_t t = a / 6, p = a % 6;
    if (p >= 2) return 0;
    if (turn_phase == T_FRONT || turn_phase == T_DRAWN) { /* the one tile looked at */
        if (t != bw->dtile) return 0;
    } else if (turn_phase == T_OPLAY || turn_phase == T_CONT) {
        if (!(rw->hands[seat] & PACK[t])) return 0;
    } else { /* draw or pass only */
        return 0;
    }
    return fits_at(rw, t, p);
}

/* the flags (draw, pass) of a decision of the open turn: voluntary draws (§11.7
 * may_draw_when_able, §15 bergen_voluntary) */
static inline int64_t turn_flags(const Slot *rw) {
    if (rw->phase == MAYDRAW) return drawable(rw) > 0 ? F_DRAW : 0;
    if (rw->phase == BOFFER) return F_DRAW;
    if (rw->phase == AFTERDRAW) return F_PASS;
    return 0;
}

/* whether action a is one of the legal actions slot rw waits on (kind ASK_*) */
static int legal_act(const Rules *r, const Slot *rw, const BSlot *bw, int64_t kind, int64_t a,
                     int64_t seat) {
    if (r->blind && kind == ASK_PLAY) return blind_legal(rw, bw, a, seat);
    if (kind == ASK_PLAY && (a == A_DRAW || a == A_PASS)) {
        int64_t f = turn_flags(rw);
        return a == A_DRAW ? (f & F_DRAW) != 0 : (f & F_PASS) != 0;
    }
    if (a < 0 || a >= 2 * A_ALONG) return 0;
    int along = a >= A_ALONG;
    int64_t base = along ? a - A_ALONG : a, t = base / 6, p = base % 6;
    if (along && !(r->inline_single && IS_DBL[t])) return 0;
    if (!(rw->hands[seat] & PACK[t])) return 0;
    if (kind == ASK_LEAD) return p == 0 && (rw->lead_tile < 0 || rw->lead_tile == t);
    if (p >= r->npos) return 0;
    return fits_at(rw, t, p);
}

/* the built-in strategies as compiled policies (policy_decide) */
#include "_policy.h"

/* ------------------------------------------------------------------------------------------
 * the turn loop
 * ---------------------------------------------------------------------------------------- */
/* the hand record's columns (kernel.HREC, then points, pips, penalties, values) of the hand just
 * settled, at row r of the column-major int32 block buf (ncols rows of width w) */
static void write_hand(const Rules *r, const Slot *rw, int32_t *buf, int64_t w, int64_t row) {
    const int64_t head[HREC_HEAD] = {
        [HR_match_id] = rw->qidx,          [HR_hand_index] = rw->hand_idx,
        [HR_leader] = rw->leader,          [HR_end_reason] = rw->hb[H_REASON],
        [HR_fish_maker] = rw->hb[H_FISH],  [HR_winner] = rw->hb[H_WINNER],
        [HR_went_out] = rw->hb[H_OUT],     [HR_hand_length] = rw->hb[H_LENGTH],
        [HR_turns] = rw->hb[H_TURNS],      [HR_draws] = rw->hb[H_DRAWS],
        [HR_passes] = rw->hb[H_PASSES],    [HR_redeals] = rw->hb[H_ATTEMPT]};
    int64_t c = 0;
    for (; c < HREC_HEAD; c++) buf[c * w + row] = (int32_t)head[c];
    for (int s = 0; s < r->npoints; s++, c++) buf[c * w + row] = (int32_t)rw->points[s];
    for (int s = 0; s < r->S; s++, c++) buf[c * w + row] = (int32_t)rw->end_pips[s];
    for (int s = 0; s < r->P; s++, c++) buf[c * w + row] = (int32_t)rw->penalties[s];
    for (int s = 0; s < r->S; s++, c++) buf[c * w + row] = (int32_t)rw->end_values[s];
}

static void write_match(const Rules *r, const Slot *rw, const Outputs *o, int64_t winner) {
    int64_t m = rw->qidx, w = o->nq;
    int32_t *buf = o->mdir;
    buf[MR_match_id * w + m] = (int32_t)m;
    buf[MR_winner * w + m] = (int32_t)winner;
    buf[MR_hands * w + m] = (int32_t)(rw->hand_idx + 1);
    buf[MR_dry * w + m] = rw->dry;
    buf[MR_losers * w + m] = (int32_t)rw->losers;
    for (int s = 0; s < r->npoints; s++)
        buf[(MREC_HEAD + s) * w + m] =
            (int32_t)(r->match_end == ME_KOZEL ? nonneg(rw->written[s]) : rw->scores[s]);
}

/* the hand just over: the pips per seat and side (end_pips, end_values) and, unless the
 * target ended it in play (§1.14), its settlement (Slot.points, H_WINNER); no record */
static inline void settle_hand(const Rules *r, Slot *rw, Tally *ty) {
    for (int s = 0; s < r->P; s++) ty->seat_pips[s] = pips_of(rw->hands[s]);
    for (int s = 0; s < r->S; s++) ty->pips[s] = 0;
    for (int s = 0; s < r->P; s++) ty->pips[side_of(r, s)] += ty->seat_pips[s];
    for (int s = 0; s < r->S; s++) rw->end_pips[s] = rw->end_values[s] = ty->pips[s];
    if (rw->hb[H_REASON] != TARGET) settle(r, rw, ty);
}

/* the hand is over: settle, record; returns 1 when the match is over too */
static int end_hand(const Rules *r, Slot *rw, const Outputs *o) {
    if (r->P > 4 || r->S > 4 || r->npoints > 4) return 1; /* (core_rules refused these: the
                                                           * bound the per-seat arrays need) */
    Tally ty = {{0}, {0}, {0}, {0}};
    settle_hand(r, rw, &ty);
    if (r->unit_hand) {
        write_hand(r, rw, o->hdir, o->nq, rw->qidx);
    } else {
        write_hand(r, rw, o->hrec, o->cap, o->nrec[0]);
        o->nrec[0] += 1;
    }
    MatchEnd e = match_over(r, rw);
    rw->prev[P_LEADER] = rw->leader;
    rw->prev[P_WINNER] = rw->hb[H_WINNER];
    rw->prev[P_OUT] = rw->hb[H_OUT];
    rw->prev[P_FISH] = rw->hb[H_FISH];
    for (int s = 0; s < r->P; s++) rw->prev_pips[s] = ty.seat_pips[s];
    if (e.done) write_match(r, rw, o, e.winner);
    return e.done;
}

/* the next match id of the queue into slot rw; 0 when the queue is empty (the slot idles) */
static int next_match(const Rules *r, Slot *rw, const Inputs *in) {
    int64_t q = in->qpos[0];
    if (q >= in->nq) {
        rw->active = 0;
        rw->phase = DONE;
        return 0;
    }
    in->qpos[0] = q + 1;
    rw->qidx = q;
    rw->match = in->queue[q];
    rw->hand_idx = 0;
    for (int s = 0; s < 4; s++) rw->scores[s] = 0;
    for (int s = 0; s < r->S; s++) {
        rw->written[s] = -1;
        rw->pending[s] = 0;
    }
    rw->pot = 0;
    rw->eggs = 0;
    rw->dry = 0;
    rw->losers = 0;
    return 1;
}

/* nothing playable: the drawing mode applies (§1.7). Returns 1 when a drawn tile fits. */
static int forced_draws(const Rules *r, Slot *rw, int64_t seat, Log *lg) {
    int64_t vm = open_values(r, rw), ndraw = 0;
    int placed = 0;
    if (r->draw_mode != DM_NONE) {
        int64_t sp = rw->hb[H_SP], av = rw->hb[H_SEND] - sp;
        if (av > r->limit) av = r->limit;
        while (ndraw < av) {
            int64_t t = rw->stock[sp + ndraw];
            ndraw++;
            log_event(lg, EV_DRAW, seat, t, EV_NO_POS, 0);
            rw->hands[seat] |= PACK[t];
            if (fits(t, vm)) {
                placed = 1;
                break;
            }
        }
        rw->hb[H_SP] = sp + ndraw;
        rw->hb[H_DRAWS] += ndraw;
    }
    int kept = ndraw > (placed ? 1 : 0);
    rw->voids[seat] = kept ? vm : (rw->voids[seat] | vm);
    return placed;
}

/* the draw of one tile by choice (voluntary draws: no void is revealed) */
static void draw_one(Slot *rw, int64_t seat, Log *lg) {
    int64_t sp = rw->hb[H_SP], t = rw->stock[sp];
    log_event(lg, EV_DRAW, seat, t, EV_NO_POS, 0);
    rw->hb[H_SP] = sp + 1;
    rw->hands[seat] |= PACK[t];
    rw->hb[H_DRAWS] += 1;
}

/* A seat's turn on an open layout (not blind). Returns 1 when it stops at a decision with a
 * choice (masks in m2, flags in *flags), 0 when the turn was played (forced). */
static int open_turn(const Rules *r, Slot *rw, int64_t seat, int64_t *m2, int64_t *flags,
                     Log *lg) {
    int n = play_masks(r, rw, seat, m2);
    if (rw->phase == TURN) {
        rw->hb[H_TURNS] += 1;
        if (n == 0) {
            if (!forced_draws(r, rw, seat, lg)) {
                pass_turn_rules(r, rw, seat, lg);
                rw->to_move = next_seat(seat, r->P);
                return 0;
            }
            n = play_masks(r, rw, seat, m2);
        } else if ((r->may_draw || r->bergen_voluntary) && drawable(rw) > 0) {
            rw->phase = r->may_draw ? MAYDRAW : BOFFER;
        }
    }
    *flags = (r->may_draw || r->bergen_voluntary) ? turn_flags(rw) : 0;
    if (n + POPC7[*flags] >= 2) return 1;
    if (n == 1) {
        place(r, rw, seat, only_play(r, rw, m2), 0, lg);
    } else { /* a lone pass after a voluntary draw (not reached: the hand held a tile) */
        pass_turn_rules(r, rw, seat, lg);
    }
    rw->to_move = next_seat(seat, r->P);
    rw->phase = TURN;
    return 0;
}

/* the lead: returns 1 when it stops at a decision with a choice (its tile mask in *lm) */
static int lead_turn(const Rules *r, Slot *rw, BSlot *bw, int64_t *lm, Log *lg) {
    int64_t seat = rw->leader;
    rw->to_move = seat;
    rw->hb[H_TURNS] += 1;
    *lm = rw->lead_tile >= 0 ? (INT64_C(1) << rw->lead_tile) : mask28(rw->hands[seat]);
    if (lead_count(r, *lm) >= 2) return 1;
    int64_t t = select28(*lm, 0);
    place(r, rw, seat, t * 6, 1, lg);
    if (r->blind) blind_after_place(rw, bw, seat, t, lg); /* blind leads are forced: §3.4 */
    if (!rw->over) rw->to_move = next_seat(seat, r->P);
    rw->phase = TURN;
    return 0;
}

/* play the action the strategy chose for this slot's pending decision; returns blind's next
 * decision code (or -1) */
static int64_t answer(const Rules *r, Slot *rw, BSlot *bw, int64_t kind, int64_t a,
                      int64_t *m2, Log *lg) {
    int64_t seat = rw->to_move;
    if (r->blind && kind == ASK_PLAY) return blind_run(r, rw, bw, seat, a, m2, lg);
    if (kind == ASK_LEAD) {
        place(r, rw, seat, a, 1, lg);
        rw->phase = TURN;
        if (!rw->over) rw->to_move = next_seat(seat, r->P);
        return -1;
    }
    if (a == A_DRAW) { /* a voluntary draw: the turn goes on */
        draw_one(rw, seat, lg);
        rw->phase = rw->phase == BOFFER ? AFTERDRAW : MAYDRAW;
        return -1;
    }
    if (a == A_PASS)
        pass_turn_rules(r, rw, seat, lg);
    else
        place(r, rw, seat, a, 0, lg);
    rw->to_move = next_seat(seat, r->P);
    rw->phase = TURN;
    return -1;
}

/* Run slot rw forward from where it stands through the forced moves (forced draws and passes,
 * blind's rows, single legal actions) to its next decision with two or more legal actions, and
 * return its kind: ASK_LEAD (the lead mask in *lm) or ASK_PLAY (the slot masks in m2, the
 * flags in *flags, blind's phase code in *code). ASK_NONE: the hand is over (settle_hand
 * settles it) or the slot waits for a deal (START). *code comes in as the last answer's
 * (blind: the decision it posed, else -1). It writes no record and deals nothing:
 * advance_slot does, and the solver (_solver.h) stops at the hand's end. */
static inline int64_t next_decision(const Rules *r, Slot *rw, BSlot *bw, int64_t *code,
                                    int64_t *lm, int64_t *m2, int64_t *flags, Log *lg) {
    for (;;) {
        if (*code >= 0) { /* blind: a decision posed when the last one was answered */
            *flags = bw->cflag;
            return ASK_PLAY;
        }
        if (rw->phase == START || rw->over) return ASK_NONE;
        if (rw->phase == LEAD) {
            if (lead_turn(r, rw, bw, lm, lg)) {
                *flags = 0;
                return ASK_LEAD;
            }
        } else if (r->blind) {
            rw->hb[H_TURNS] += 1;
            *code = blind_run(r, rw, bw, rw->to_move, -1, m2, lg);
        } else if (open_turn(r, rw, rw->to_move, m2, flags, lg)) {
            return ASK_PLAY;
        }
    }
}

/* append the decision slot i stops at to its list (0: placements, 1: leads) */
static void pose_decision(const Rules *r, Slot *rw, const BSlot *bw, int64_t i, int64_t kind,
                          int64_t code, int64_t flags, int64_t lm, const int64_t *m2,
                          const uint64_t *sd, const Outputs *o) {
    int64_t seat = rw->to_move, dec = rw->hb[H_DECISION];
    int64_t li = kind == ASK_PLAY ? 0 : 1, j = o->nd[li];
    o->nd[li] = j + 1;
    int64_t *cw = o->cd + (li * o->B + j) * CDW;
    cw[CD_SLOT] = i;
    cw[CD_KEY] = (int64_t)decision_key(seat_key(rw, sd, seat), dec);
    cw[CD_DEC] = dec;
    cw[CD_SEAT] = seat;
    cw[CD_HAND] = (int64_t)rw->hands[seat];
    cw[CD_FLAGS] = code >= 0 ? bw->cflag : flags;
    cw[CD_PHASE] = code >= 0 ? code : (rw->phase == AFTERDRAW ? PH_AFTER : PH_PLAY);
    cw[CD_LEAD] = lm;
    for (int s = 0; s < 4; s++) cw[CD_VOIDS + s] = rw->voids[s];
    if (li == 0)
        for (int k = 0; k < r->npos; k++) {
            o->cvals[j * r->npos + k] = rw->vals[k];
            o->cmasks[j * r->npos + k] = m2[k];
        }
    rw->hb[H_DECISION] = dec + 1;
    rw->ask = kind;
}

/* the strategies' choices of the last round (chosen, in list order) to their slots */
static int64_t take_choices(Slot *st, const Outputs *o) {
    for (int li = 0; li < 2; li++) {
        for (int64_t j = 0; j < o->nd[li]; j++) {
            int64_t slot = o->cd[(li * o->B + j) * CDW + CD_SLOT];
            if (slot < 0 || slot >= o->B) return CORE_BAD_STATE;
            st[slot].act = o->chosen[li * o->B + j];
        }
        o->nd[li] = 0;
    }
    return 0;
}

/* Advance slot i to its next decision with a choice for a strategy in Python (or to idle);
 * the decisions of seats with a compiled policy are taken on the way. Returns -1 when done,
 * i when the hand record buffer is full (flush and resume here), -2 - i for an illegal
 * action. */
static int64_t advance_slot(const Rules *r, Slot *rw, BSlot *bw, int64_t i, const Inputs *in,
                            const Outputs *o) {
    int64_t kind = rw->ask, a = rw->act, lm = 0, code = -1, flags = 0;
    int64_t m2[6] = {0, 0, 0, 0, 0, 0};
    Log log = {NULL, 0}, *lg = NULL; /* the slot's row of the histories, where kept */
    if (o->hw > 0) {
        log.ev = o->hist + i * o->hw;
        log.cap = o->hw - 1;
        lg = &log;
    }
    if (kind != ASK_NONE) { /* the action a strategy in Python chose */
        if (!legal_act(r, rw, bw, kind, a, rw->to_move)) return -2 - i;
        rw->ask = ASK_NONE;
    }
    for (;;) {
        if (kind != ASK_NONE) /* play the chosen action (one call site: one inlined copy) */
            code = answer(r, rw, bw, kind, a, m2, lg);
        kind = next_decision(r, rw, bw, &code, &lm, m2, &flags, lg);
        if (kind == ASK_NONE) { /* the hand is over, or the slot waits for a deal */
            if (!r->unit_hand && o->nrec[0] >= o->cap) return i; /* flush, then resume */
            int first = 1;
            if (rw->phase != START) first = end_hand(r, rw, o);
            if (first) {
                if (!next_match(r, rw, in)) return -1;
            } else {
                rw->hand_idx += 1;
            }
            if (deal(r, rw, bw, first, in, lg)) return CORE_BAD_STATE;
            continue;
        }
        int64_t policy = in->policy[rw->to_move];
        if (policy == POL_PYTHON) {
            pose_decision(r, rw, bw, i, kind, code, flags, lm, m2, in->sd, o);
            return -1;
        }
        uint64_t key = 0; /* the decision's key: only random reads one */
        if (policy == POL_random) key = decision_key(seat_key(rw, in->sd, rw->to_move), rw->hb[H_DECISION]);
        const int64_t *weights = in->policy + 4 + rw->to_move * LEARN_FEATURES;
        a = policy_decide(r, in->rules, rw, bw, policy, weights, key, kind, lm, m2, flags);
        rw->hb[H_DECISION] += 1;
    }
}

/* how many slots ahead advance_slots asks for a history row (kept for strategies in Python) */
enum { HIST_AHEAD = 4 };

/* every active slot from start on to its next decision (inlined whole into each shape) */
static inline int64_t advance_slots(const Rules *r, const Inputs *in, Slot *st, BSlot *bst,
                                    int64_t B, const Outputs *o, int64_t start) {
    for (int64_t i = start; i < B; i++) {
        Slot *rw = &st[i];
        if (o->hw > 0 && i + HIST_AHEAD < B) /* (a later slot's history row: a miss hidden) */
            DS_PREFETCH(o->hist + (i + HIST_AHEAD) * o->hw);
        if (!rw->active) continue; /* (its queue position: checked by check_slots, then
                                    * set by next_match) */
        int64_t res = advance_slot(r, rw, &bst[r->blind ? i : 0], i, in, o);
        if (res != -1) return res;
    }
    return -1;
}

/* Shapes: the structural knobs of the commonest rules fixed at build time. Each shape is
 * the whole turn loop compiled once more (flatten) with those knobs as constants, so the
 * compiler drops the other layouts' branches and unrolls the loops over seats and open
 * positions; every other knob is read at run time. A shape's rules are those whose knobs
 * already have the fixed values, so it plays exactly what the general loop plays. */
static inline int line_shape(const Rules *r) { /* a LINE of two ends, no blind, no options */
    return r->npos == 2 && !r->spinner && !r->single_end && !r->blind && !r->may_draw &&
           !r->bergen_voluntary && !r->inline_single && !r->start_tile && !r->block_any;
}

static inline void fix_line(Rules *k, int64_t P) {
    k->P = P;
    k->npos = 2;
    k->spinner = k->single_end = k->blind = k->may_draw = k->bergen_voluntary = 0;
    k->inline_single = k->start_tile = k->block_any = 0;
}

/* blind's rows on a LINE (§3): its options (optional play, optional draw, face-up doubles,
 * the starting tile of all_tiles with 3 seats) stay run-time knobs */
static inline int blind_shape(const Rules *r) {
    return r->npos == 2 && !r->spinner && !r->single_end && r->blind && !r->may_draw &&
           !r->bergen_voluntary && !r->inline_single;
}

static inline void fix_blind(Rules *k, int64_t P) {
    k->P = P;
    k->npos = 2;
    k->blind = 1;
    k->spinner = k->single_end = k->may_draw = k->bergen_voluntary = k->inline_single = 0;
}

/* The loop of one shape and seat count, e.g. advance_line2: fix_<kind> makes its knobs
 * constants, flatten inlines the whole loop under them. A sanitized build (CI's ASan/UBSan
 * run, DOMINOSIM_SANITIZE) leaves the loop out of line: the same source is checked, and the
 * build takes a fraction of the time. */
#ifdef DOMINOSIM_SANITIZE
#define SHAPE_INLINE
#else
#define SHAPE_INLINE DS_FLATTEN
#endif
#define SHAPE(kind, P_)                                                                     \
    SHAPE_INLINE static int64_t advance_##kind##P_(                                         \
        const Rules *r, const Inputs *in, Slot *st, BSlot *bst, int64_t B, const Outputs *o, \
        int64_t start) {                                                                    \
        Rules k = *r;                                                                       \
        fix_##kind(&k, P_);                                                                 \
        return advance_slots(&k, in, st, bst, B, o, start);                                 \
    }
SHAPE(line, 2)
SHAPE(line, 3)
SHAPE(line, 4)
SHAPE(blind, 2)
SHAPE(blind, 3)
SHAPE(blind, 4)
#undef SHAPE

typedef int64_t (*Loop)(const Rules *, const Inputs *, Slot *, BSlot *, int64_t, const Outputs *,
                        int64_t);
/* by seat count, 2 to 4 (core_rules refuses others) */
static const Loop LINE_LOOPS[3] = {advance_line2, advance_line3, advance_line4};
static const Loop BLIND_LOOPS[3] = {advance_blind2, advance_blind3, advance_blind4};

int64_t core_advance(const Rules *r, const Inputs *given, Slot *st, BSlot *bst, int64_t B,
                     const Outputs *o, int64_t start) {
    if (start == 0) {
        int64_t bad = take_choices(st, o);
        if (bad) return bad;
    }
    Inputs inputs = *given;
    const Inputs *in = &inputs;
    inputs.rules = r;
    if (line_shape(r)) return LINE_LOOPS[r->P - 2](r, in, st, bst, B, o, start);
    if (blind_shape(r)) return BLIND_LOOPS[r->P - 2](r, in, st, bst, B, o, start);
    return advance_slots(r, in, st, bst, B, o, start);
}

/* ------------------------------------------------------------------------------------------
 * the state a caller hands in, checked once (from_positions and tests build it in Python)
 * ---------------------------------------------------------------------------------------- */
static int in_range(int64_t x, int64_t lo, int64_t hi) { return x >= lo && x <= hi; }

static int slot_ok(const Rules *r, const Slot *rw, const BSlot *bw) {
    if (!in_range(rw->to_move, 0, r->P - 1) || !in_range(rw->leader, -1, r->P - 1)) return 0;
    if (!in_range(rw->lead_tile, -1, 27) || !in_range(rw->hb[H_FIRST], -1, 27)) return 0;
    if (!in_range(rw->hb[H_SP], 0, 28) || !in_range(rw->hb[H_SEND], 0, 28)) return 0;
    if (!in_range(rw->hb[H_SPIN], -1, 6) || !in_range(rw->hb[H_COV], 0, 15)) return 0;
    if (!in_range(rw->ask, ASK_NONE, ASK_PLAY) || !in_range(rw->hand_idx, 0, INT32_MAX)) return 0;
    if (!in_range(rw->phase, LEAD, BOFFER) || (rw->hb[H_NTABLE] == 1 && rw->hb[H_FIRST] < 0))
        return 0;
    if (rw->hb[H_SP] > rw->hb[H_SEND] && !r->blind) return 0;
    for (int k = 0; k < 6; k++)
        if (!in_range(rw->vals[k], -1, 6)) return 0;
    for (int k = 0; k < 4; k++)
        if (!in_range(rw->armv[k], -1, 6) || !in_range(rw->prev[k], -1, 3)) return 0;
    for (int j = 0; j < 28; j++) /* (the tiles already drawn may read -1) */
        if (!in_range(rw->stock[j], j < rw->hb[H_SP] ? -1 : 0, 27)) return 0;
    if (!r->blind) return 1;
    for (int s = 0; s < r->P; s++) {
        if (!in_range(bw->head[s], 0, RB - 1) || !in_range(bw->span[s], 0, RB)) return 0;
        for (int k = 0; k < RB; k++)
            if (!in_range(bw->buf[s][k], -1, 27)) return 0;
    }
    return in_range(bw->turn_phase, T_START, T_CONT) && in_range(bw->dtile, -1, 27);
}

/* the index of the first active slot whose state is out of range, or -1 (nq: the queue
 * length, which bounds a slot's queue position) */
int64_t core_check_slots(const Rules *r, const Slot *st, const BSlot *bst, int64_t B,
                         int64_t nq) {
    for (int64_t i = 0; i < B; i++) {
        if (!st[i].active) continue;
        if (!in_range(st[i].qidx, 0, nq - 1)) return i;
        if (st[i].phase != START && !slot_ok(r, &st[i], &bst[r->blind ? i : 0])) return i;
    }
    return -1;
}

/* Deal the first hand of each slot's match (Slot.match; the slot's other fields as a new
 * match has them) as advance deals it, and stop before its first turn: the deals the solver
 * solves. Returns -1, or the index of a slot no seat can lead. */
int64_t core_deal(const Rules *r, const Inputs *in, Slot *st, BSlot *bst, int64_t B) {
    for (int64_t i = 0; i < B; i++) {
        st[i].hand_idx = 0;
        if (deal(r, &st[i], &bst[r->blind ? i : 0], 1, in, NULL)) return i;
    }
    return -1;
}

/* the perfect-information solver (core_solve), compiled once */
#include "_solver.h"

/* ------------------------------------------------------------------------------------------
 * Legal.uniform and heaviest's line loop (strategies' helpers)
 * ---------------------------------------------------------------------------------------- */
/* A uniformly random placement per decision (no flags, no along actions): the k-th in
 * canonical order, k = below(key, count). Returns 1 when a row has no legal placement or
 * a value out of range. */
/* the same for two slots (LINE, SINGLE_END): one comparison picks the slot */
static int uniform_two(const int64_t *values, const int64_t *masks, const StridedU64 *keys,
                       int64_t n, int64_t *out) {
    for (int64_t j = 0; j < n; j++) {
        int64_t m0 = masks[2 * j], m1 = masks[2 * j + 1], v0 = values[2 * j], v1 = values[2 * j + 1];
        if ((uint64_t)(m0 | m1) > 127 || (uint64_t)(v0 + 1) > 7 || (uint64_t)(v1 + 1) > 7) return 1;
        int64_t c0 = POPC7[m0], c = c0 + POPC7[m1];
        if (c == 0) return 1;
        int64_t k = below(strided_u64(keys, j), c), p = k >= c0;
        int64_t m = p ? m1 : m0, v = p ? v1 : v0;
        if (v < 0) return 1;
        out[j] = (int64_t)TILE_AT[v][SELECT7[m][k - (p ? c0 : 0)]] * 6 + p;
    }
    return 0;
}

int core_uniform_slots(const int64_t *values, const int64_t *masks, int64_t K,
                       const StridedU64 *keys, int64_t n, int64_t *out) {
    if (K == 2) return uniform_two(values, masks, keys, n, out);
    for (int64_t j = 0; j < n; j++) {
        const int64_t *v = values + j * K, *m = masks + j * K;
        int64_t c = 0;
        for (int64_t p = 0; p < K; p++) {
            if (m[p] < 0 || m[p] > 127 || v[p] < -1 || v[p] > 6) return 1;
            c += POPC7[m[p]];
        }
        if (c == 0) return 1;
        int64_t k = below(strided_u64(keys, j), c), p = 0;
        while (k >= POPC7[m[p]]) k -= POPC7[m[p++]];
        if (v[p] < 0) return 1;
        out[j] = (int64_t)TILE_AT[v[p]][SELECT7[m[p]][k]] * 6 + p;
    }
    return 0;
}

int core_uniform_lead(const int64_t *lead, const StridedU64 *keys, int64_t n, int64_t *out) {
    for (int64_t j = 0; j < n; j++) {
        int64_t m = lead[j];
        if (m <= 0 || m >= (INT64_C(1) << 28)) return 1;
        out[j] = select28(m, below(strided_u64(keys, j), popc28(m))) * 6;
    }
    return 0;
}

/* Legal.arrays: one decision's legal actions in canonical order (engine/legal.py), written as
 * the row of `act` (codes) and the rows of `info` (INFO planes of n * W int8 each: tile,
 * position, pips, double, along; -1, -1, 0, 0, 0 for draw, pass and stop); the rest of the row
 * is padding (-1 and -1, -1, 0, 0, 0). */

typedef struct {
    int64_t *act;  /* the row's codes */
    int8_t *info;  /* the row's first info plane */
    int64_t plane; /* n * W: the distance between two planes */
    int64_t W, c;  /* the row's width, the actions written */
} ArrayRow;

static int row_put(ArrayRow *row, int64_t code) {
    if (row->c >= row->W) return 1;
    int64_t j = row->c++;
    row->act[j] = code;
    for (int k = 0; k < INFO_PLANES; k++) row->info[k * row->plane + j] = ACT_INFO[code][k];
    return 0;
}

/* the placements of one decision: per slot its tiles, then its double laid along */
static int row_places(ArrayRow *row, const int64_t *v, const int64_t *m, int64_t K, int along) {
    for (int64_t p = 0; p < K; p++) {
        if ((uint64_t)m[p] > 127 || v[p] < -1 || v[p] > 6 || (v[p] < 0 && m[p] != 0)) return 1;
        for (int k = 0; k < POPC7[m[p]]; k++)
            if (row_put(row, (int64_t)TILE_AT[v[p]][SELECT7[m[p]][k]] * 6 + p)) return 1;
        if (along && v[p] >= 0 && (m[p] >> v[p] & 1) &&
            row_put(row, A_ALONG + (int64_t)TILE_AT[v[p]][v[p]] * 6 + p))
            return 1;
    }
    return 0;
}

/* the lead's tiles in index order, then its doubles laid along */
static int row_lead(ArrayRow *row, int64_t lead, int along) {
    if (lead < 0 || lead >= (INT64_C(1) << 28)) return 1;
    for (int64_t t = 0; t < 28; t++)
        if ((lead >> t & 1) && row_put(row, t * 6)) return 1;
    for (int64_t t = 0; along && t < 28; t++)
        if ((lead & DOUBLES28) >> t & 1 && row_put(row, A_ALONG + t * 6)) return 1;
    return 0;
}

/* Returns 1 on a value out of range or a decision with more than W legal actions. The padding
 * (-1, and the info past a stop) is written first, a plane at a time. */
int core_legal_arrays(const int64_t *values, const int64_t *masks, int64_t K, const int64_t *lead,
                      int is_lead, const int64_t *flags, int along, int64_t n, int64_t W,
                      int64_t *act, int8_t *info) {
    for (int64_t j = 0; j < n * W; j++) act[j] = -1;
    for (int k = 0; k < INFO_PLANES; k++)
        memset(info + k * n * W, ACT_INFO[A_STOP + 1][k], (size_t)(n * W));
    for (int64_t i = 0; i < n; i++) {
        ArrayRow row = {act + i * W, info + i * W, n * W, W, 0};
        int err = is_lead ? row_lead(&row, lead[i], along)
                          : row_places(&row, values + i * K, masks + i * K, K, along);
        if (err || (uint64_t)flags[i] > (F_DRAW | F_PASS | F_STOP)) return 1;
        if (((flags[i] & F_DRAW) && row_put(&row, A_DRAW)) ||
            ((flags[i] & F_PASS) && row_put(&row, A_PASS)) ||
            ((flags[i] & F_STOP) && row_put(&row, A_STOP)))
            return 1;
    }
    return 0;
}

/* LegalArrays.best: per row the action (act [n, W]) of the highest of its first count[i]
 * scores (the first among equals), -1 for an empty row. Returns 1 on a count out of 0..W. */
int core_best(const int64_t *score, const int64_t *count, const int64_t *act, int64_t n,
              int64_t W, int64_t *out) {
    for (int64_t i = 0; i < n; i++) {
        const int64_t *s = score + i * W;
        int64_t c = count[i], best = 0;
        if (c < 0 || c > W) return 1;
        for (int64_t j = 1; j < c; j++)
            if (s[j] > s[best]) best = j;
        out[i] = c > 0 ? act[i * W + best] : -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * In-play points of placements, as game/scoring.py's placement_points defines them (its
 * pure-Python definition, `points_by_definition`, is the reference the tests hold these to):
 * LegalArrays.points (core_legal_points) and the per-decision Observation's points table
 * (core_points_tables, read by placement_points). PT_UNDEFINED where the definition raises
 * (a position not open, a tile that does not fit it): the table leaves such an entry to the
 * definition (PT_TABLE_NONE), a legal action never meets one.
 * ---------------------------------------------------------------------------------------- */
#define PT_UNDEFINED (-1)

/* the decision's open ends (row i of the inputs) */
typedef struct {
    const int64_t *v;
    const int8_t *d, *a;
    int64_t K, spinner, covered;
    int none_open, table_empty;
} PtEnds;

static int pt_ends(const PointsIn *in, int64_t i, PtEnds *e) {
    e->v = in->values + i * in->K;
    e->d = in->doubles + i * in->K;
    e->a = in->along + i * in->K;
    e->K = in->K;
    e->spinner = in->spinner[i];
    e->covered = in->covered[i];
    e->table_empty = in->table[i] == 0;
    e->none_open = 1;
    if (e->spinner < -1 || e->spinner > 6 || e->covered < 0 || e->covered > 15) return 1;
    for (int64_t p = 0; p < e->K; p++) {
        if (e->v[p] < -1 || e->v[p] > 6) return 1;
        if (e->v[p] >= 0) e->none_open = 0;
    }
    return 0;
}

/* the spinner's own share of the end count with k arms counted (§1.11, §11.8) */
static int64_t pt_spinner_share(int how, int64_t v, int k) {
    if (how & PT_SNIFF) return k <= 2 ? 2 * v : (k == 3 ? v : 0);
    return k <= 1 ? 2 * v : 0;
}

/* the end count before a spinner exists: tile t (outer half w, a double if dbl, laid along if
 * along) placed at p; a first double on a spinner layout becomes the spinner */
static int64_t pt_before_spinner(int how, const PtEnds *e, int64_t p, int64_t w, int dbl,
                                    int along) {
    if ((how & PT_SPINNER) && dbl) {
        int64_t o = p == 0 ? 1 : 0; /* the other end: R for L, else L */
        if (o >= e->K || e->v[o] < 0) return PT_UNDEFINED;
        return e->v[o] * (e->d[o] && !e->a[o] ? 2 : 1) + pt_spinner_share(how, e->v[p], 1);
    }
    int64_t c = w * (dbl && !((how & PT_ALONG) && along) ? 2 : 1);
    for (int64_t q = 0; q < e->K; q++)
        if (q != p && e->v[q] >= 0) c += e->v[q] * (e->d[q] && !e->a[q] ? 2 : 1);
    return c;
}

/* the end count once the spinner exists: its covered arms (W E N S), the new end counted */
static int64_t pt_with_spinner(int how, const PtEnds *e, int64_t p, int64_t w, int dbl) {
    int64_t c = w * (dbl ? 2 : 1);
    int k = 1;
    for (int64_t q = 2; q < e->K; q++)
        if (q != p && e->v[q] >= 0 && (e->covered >> (q - 2) & 1)) {
            c += e->v[q] * (e->d[q] ? 2 : 1);
            k++;
        }
    return c + pt_spinner_share(how, e->spinner, k);
}

/* the end count after placement t at p (scoring.end_count_after) */
static int64_t pt_end_count(int how, const PtEnds *e, int t, int64_t p, int along) {
    int64_t lo = TILE_LOW[t], hi = TILE_HIGH[t];
    if (e->none_open && e->table_empty) return lo + hi; /* the lead */
    if (p >= e->K || e->v[p] < 0 || (lo != e->v[p] && hi != e->v[p])) return PT_UNDEFINED;
    int64_t w = lo == e->v[p] ? hi : lo;
    if (e->spinner < 0) return pt_before_spinner(how, e, p, w, IS_DBL[t], along);
    return pt_with_spinner(how, e, p, w, IS_DBL[t]);
}

/* bergen's headers (§4.8): both ends alike after the placement, 3 with a double among them */
static int64_t pt_bergen(const PtEnds *e, int t, int64_t p) {
    if (e->none_open) return IS_DBL[t] ? 2 : 0;
    int64_t lo = TILE_LOW[t], hi = TILE_HIGH[t];
    if (p >= e->K || e->v[p] < 0 || (lo != e->v[p] && hi != e->v[p])) return PT_UNDEFINED;
    if (e->K < 2 || e->v[0] < 0 || e->v[1] < 0) return PT_UNDEFINED;
    int64_t w = lo == e->v[p] ? hi : lo;
    int64_t v1 = p == 0 ? w : e->v[0], v2 = p == 1 ? w : e->v[1];
    int d1 = p == 0 ? IS_DBL[t] : e->d[0] != 0, d2 = p == 1 ? IS_DBL[t] : e->d[1] != 0;
    return v1 != v2 ? 0 : (d1 || d2 ? 3 : 2);
}

/* the in-play points of end count c (§5.8, §6.8, §11.8; no target cap); the divisors are
 * constants, so no division instruction */
static int64_t pt_count_points(int scoring, int64_t c) {
    if (c <= 0) return 0;
    if (scoring == SC_THREES) return c % 3 ? 0 : c / 3;
    if (c % 5) return 0;
    return scoring == SC_MUGGINS ? c : c / 5;
}

/* the points of placement a (0 <= a < A_DRAW) */
static int64_t pt_points_of(int how, const PtEnds *e, int64_t a) {
    int t = ACT_INFO[a][INFO_TILE];
    int64_t p = ACT_INFO[a][INFO_POS];
    int scoring = how & PT_KIND;
    if (scoring == SC_NONE) return 0;
    if (scoring == SC_BERGEN) return pt_bergen(e, t, p);
    int64_t c = pt_end_count(how, e, t, p, ACT_INFO[a][INFO_ALONG]);
    return c == PT_UNDEFINED ? PT_UNDEFINED : pt_count_points(scoring, c);
}

static int pt_in_ok(const PointsIn *in) {
    int kind = in->how & PT_KIND;
    return in->K >= 1 && in->K <= 6 && kind >= SC_NONE && kind <= SC_BERGEN &&
           (in->how & ~(PT_KIND | PT_SPINNER | PT_ALONG | PT_SNIFF)) == 0;
}

/* LegalArrays.points: the points of act [n, W] (0 for draw, pass, stop and the padding -1).
 * Returns 1 on a value out of range, 2 on a placement whose points are undefined. */
int core_legal_points(const PointsIn *in, const int64_t *act, int64_t n, int64_t W,
                      int64_t *out) {
    if (!pt_in_ok(in)) return 1;
    for (int64_t i = 0; i < n; i++) {
        PtEnds e;
        if (pt_ends(in, i, &e)) return 1;
        for (int64_t j = 0; j < W; j++) {
            int64_t a = act[i * W + j], pts = 0;
            if (a < -1 || a > A_STOP) return 1;
            if (a >= 0 && a < A_DRAW) pts = pt_points_of(in->how, &e, a);
            if (pts == PT_UNDEFINED) return 2;
            out[i * W + j] = pts;
        }
    }
    return 0;
}

/* one entry of a points table: PT_TABLE_NONE where undefined (or too large for a byte) */
static uint8_t pt_table_entry(int how, const PtEnds *e, int64_t a) {
    int64_t pts = pt_points_of(how, e, a);
    return pts < 0 || pts >= PT_TABLE_NONE ? PT_TABLE_NONE : (uint8_t)pts;
}

/* a points table with no open position (the lead): each code of a tile, at any position,
 * across or along, scores as the tile's first code (the definition reads neither) */
static void pt_lead_table(int how, const PtEnds *e, uint8_t *row) {
    for (int64_t t = 0; t < 28; t++) {
        uint8_t entry = pt_table_entry(how, e, t * 6);
        for (int64_t p = 0; p < 6; p++) row[t * 6 + p] = row[A_ALONG + t * 6 + p] = entry;
    }
}

/* The per-decision Observation's points table: row i of out ([n, A_DRAW] bytes) holds, per
 * placement code, its points (PT_TABLE_NONE where the definition is left to answer: a
 * position not open, a tile that does not fit it). Returns 1 on a value out of range. */
int core_points_tables(const PointsIn *in, int64_t n, uint8_t *out) {
    if (!pt_in_ok(in)) return 1;
    for (int64_t i = 0; i < n; i++) {
        PtEnds e;
        uint8_t *row = out + i * A_DRAW;
        if (pt_ends(in, i, &e)) return 1;
        memset(row, PT_TABLE_NONE, A_DRAW);
        if (e.none_open) {
            pt_lead_table(in->how, &e, row);
            continue;
        }
        for (int64_t p = 0; p < e.K; p++)
            for (int w = 0; e.v[p] >= 0 && w < 7; w++) {
                int64_t a = (int64_t)TILE_AT[e.v[p]][w] * 6 + p;
                row[a] = pt_table_entry(in->how, &e, a);
                /* (laid along differs only for a double, counted once, before a spinner) */
                int differs = (in->how & PT_ALONG) && w == e.v[p] && e.spinner < 0;
                row[a + A_ALONG] = differs ? pt_table_entry(in->how, &e, a + A_ALONG) : row[a];
            }
    }
    return 0;
}

/* A hand-history code as seat `seat` sees it: the tile of another seat's draw, look or tile
 * sent back cleared to EV_NO_TILE, unless a double sent back lies face up (face_up_doubles,
 * blind's blind_unplayable_double_face_up, §15). */
static uint16_t seen_code(unsigned code, int64_t seat, int face_up_doubles) {
    unsigned kind = code >> EV_KIND_SHIFT, who = code >> EV_SEAT_SHIFT & 7;
    unsigned tile = code >> EV_TILE_SHIFT & 31;
    int hidden = kind == EV_DRAW || kind == EV_LOOK || kind == EV_TO_BACK;
    if (face_up_doubles && kind == EV_TO_BACK && tile < 28 && IS_DBL[tile]) hidden = 0;
    if (hidden && (int64_t)who != seat) code |= (unsigned)EV_NO_TILE << EV_TILE_SHIFT;
    return (uint16_t)code;
}

/* Observation.history per decision: row i of out ([n, W]) is slot g[i]'s hand history (hist
 * [slots, H]: the count, then the codes) as seat seats[i] sees it (seen_code), padded with
 * zeros past its count (the buffer's stale codes, an earlier hand's, are not copied). Returns
 * 1 on a slot, a seat or a count out of range. */
int core_seat_history(const uint16_t *hist, int64_t slots, int64_t H, const int64_t *g,
                      const int64_t *seats, int face_up_doubles, int64_t n, int64_t W,
                      uint16_t *out) {
    for (int64_t i = 0; i < n; i++) {
        if (g[i] < 0 || g[i] >= slots || seats[i] < 0 || seats[i] >= EV_NO_SEAT) return 1;
        const uint16_t *row = hist + g[i] * H;
        uint16_t *o = out + i * W;
        int64_t c = row[0];
        if (c >= W || c >= H) return 1;
        o[0] = (uint16_t)c;
        for (int64_t j = 1; j <= c; j++) o[j] = seen_code(row[j], seats[i], face_up_doubles);
        for (int64_t j = c + 1; j < W; j++) o[j] = 0;
    }
    return 0;
}

/* the value of one gathered field at p: an int64 (GF_INT64), an int8 (GF_INT8) or the tile
 * count of a packed hand (GF_COUNT: the hand itself is not copied) */
static int64_t gathered(const uint8_t *p, int64_t width) {
    if (width == GF_INT8) {
        int8_t b;
        memcpy(&b, p, 1);
        return b;
    }
    uint64_t u;
    memcpy(&u, p, 8);
    return width == GF_COUNT ? count_of(u) : (int64_t)u;
}

/* out[i, k] ([n, K]) = the field at byte offset offs[k] of record g[i] (records: nrec records
 * of size bytes), as widths[k] says (GF_INT64, GF_INT8, GF_COUNT), as int64: one pass over the
 * asked slots for the batch Observation's public fields. Returns 1 on a slot, an offset or a
 * width out of range. */
int core_gather_fields(const uint8_t *records, int64_t nrec, int64_t size, const int64_t *g,
                       int64_t n, const int64_t *offs, const int64_t *widths, int64_t K,
                       int64_t *out) {
    for (int64_t k = 0; k < K; k++) {
        int64_t bytes = widths[k] == GF_INT8 ? 1 : 8;
        if ((widths[k] != GF_INT8 && widths[k] != GF_INT64 && widths[k] != GF_COUNT) ||
            offs[k] < 0 || offs[k] > size - bytes)
            return 1;
    }
    for (int64_t i = 0; i < n; i++) {
        if (g[i] < 0 || g[i] >= nrec) return 1;
        const uint8_t *rec = records + g[i] * size;
        for (int64_t k = 0; k < K; k++) out[i * K + k] = gathered(rec + offs[k], widths[k]);
    }
    return 0;
}

/* heaviest's choice per decision on a LINE of two slots (-1: no placement); the voids of the
 * opponents count, not the partner's (seat + 2 where partnership). Returns 1 on a value out
 * of range. */
int core_heaviest(const int64_t *values, const int64_t *masks, const int64_t *lead, int is_lead,
                  const StridedU64 *hands, const Strided2 *voids, const Strided1 *seat,
                  int partnership, int64_t n, int64_t *out) {
    for (int64_t j = 0; j < n; j++) {
        int64_t cv = 0, me = strided1(seat, j), partner = partnership ? (me + 2) % 4 : -1;
        if (me < 0 || me >= voids->n1) return 1;
        for (int64_t s = 0; s < voids->n1; s++) {
            int64_t vm = strided2(voids, j, s);
            if ((uint64_t)vm > 127) return 1;
            cv += s != me && s != partner ? SPREAD[vm] : 0;
        }
        HandView hv = hand_view(strided_u64(hands, j), cv);
        if (is_lead) {
            if ((uint64_t)lead[j] >= (UINT64_C(1) << 28)) return 1;
            out[j] = heaviest_lead(&hv, lead[j]);
            continue;
        }
        const int64_t *v = values + 2 * j, *m = masks + 2 * j;
        if ((uint64_t)(v[0] + 1) > 7 || (uint64_t)(v[1] + 1) > 7 || (uint64_t)(m[0] | m[1]) > 127)
            return 1;
        out[j] = heaviest_line(&hv, (int)v[0], (int)v[1], (int)m[0], (int)m[1]);
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * mc's hidden deals (strategies/mc.py: _draw and _one_deal are the readable definition)
 * ---------------------------------------------------------------------------------------- */
/* the unseen tiles' positions in key order for sample j, try a: a stable sort of the keys
 * key(key, j, a, tile) (seeding.key_np), smallest first */
static void key_order(uint64_t h0, int64_t j, int64_t a, const int64_t *unseen, int64_t U,
                      int64_t *order) {
    uint64_t prio[28], ha = sm(sm(h0 ^ (uint64_t)j) ^ (uint64_t)a);
    for (int64_t i = 0; i < U; i++) {
        uint64_t p = sm(ha ^ (uint64_t)unseen[i]);
        int64_t k = i;
        for (; k > 0 && prio[k - 1] > p; k--) { /* insertion: equal keys keep index order */
            prio[k] = prio[k - 1];
            order[k] = order[k - 1];
        }
        prio[k] = p;
        order[k] = i;
    }
}

/* One try: each seat of seats (in that order) takes the first free tiles in key order that
 * carry none of its void values; the rest, in key order, is the stock. 0 when a seat cannot
 * get its count. */
static int deal_try(const int64_t *unseen, const int64_t *order, int64_t U, const DealAsk *ask,
                    uint64_t *hands, int8_t *stock) {
    int64_t taken = 0; /* bits: positions in unseen */
    for (int64_t q = 0; q < ask->nseats; q++) {
        int64_t s = ask->seats[q], got = 0, allowed = ~FIT28[ask->voids[q]];
        uint64_t h = 0;
        for (int64_t i = 0; i < U && got < ask->need[q]; i++) {
            int64_t u = order[i], t = unseen[u];
            if (((taken >> u) & 1) || !((allowed >> t) & 1)) continue;
            taken |= INT64_C(1) << u;
            h |= PACK[t];
            got++;
        }
        if (got < ask->need[q]) return 0;
        hands[s] = h;
    }
    int64_t n = 0;
    for (int64_t i = 0; i < U; i++)
        if (!((taken >> order[i]) & 1)) stock[28 - ask->k + n++] = (int8_t)unseen[order[i]];
    return n == ask->k;
}

/* Up to S deals of the unseen tiles (sorted tile indices) for the seats of ask, each from
 * the first of `tries` tries that works: hands [S, P] (the seats' columns written), stock
 * [S, 28] (the last k entries written), ok [S]. Returns 1 on an argument out of range. */
int core_sample_deals(uint64_t key, int64_t S, int64_t tries, const int64_t *unseen, int64_t U,
                      const DealAsk *ask, int64_t P, uint64_t *hands, int8_t *stock, int8_t *ok) {
    int64_t total = ask->k;
    if (U > 28 || ask->k < 0 || ask->k > 28 || ask->nseats > 4) return 1;
    for (int64_t i = 0; i < U; i++)
        if (!in_range(unseen[i], 0, 27) || (i > 0 && unseen[i] <= unseen[i - 1])) return 1;
    for (int64_t q = 0; q < ask->nseats; q++) {
        if (!in_range(ask->seats[q], 0, P - 1) || !in_range(ask->voids[q], 0, 127) ||
            !in_range(ask->need[q], 0, U))
            return 1;
        total += ask->need[q];
    }
    if (total != U) return 1;
    uint64_t h0 = sm(key);
    int64_t order[28];
    for (int64_t j = 0; j < S; j++) {
        ok[j] = 0;
        for (int64_t a = 0; a < tries && !ok[j]; a++) {
            key_order(h0, j, a, unseen, U, order);
            ok[j] = (int8_t)deal_try(unseen, order, U, ask, hands + j * P, stock + j * 28);
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * pimc's inference (strategies/mc.py: infer_events builds the events, infer_logw_py is the
 * readable definition): the log-likelihood of each sampled deal under a model of the other
 * seats' play
 * ---------------------------------------------------------------------------------------- */
/* the 28-bit tile mask of a packed hand */
static int64_t tiles_of_packed(uint64_t h) {
    int64_t m = 0;
    for (int t = 0; t < 28; t++)
        if ((h & PACK[t]) == PACK[t]) m |= INT64_C(1) << t;
    return m;
}

/* The log-likelihood of one event on one deal: the seat's hand then (its sampled hand and
 * the tiles it placed from that event on), the tiles of it that fit, the chance the model
 * gives the tile played: weight[tile] / the sum of weight over those tiles. */
static double event_loglik(int64_t hand, const int64_t *e, const double *weight) {
    int64_t cand = (hand | e[IE_BACK]) & e[IE_FIT];
    double sum = 0.0;
    for (int t = 0; t < 28; t++)
        if ((cand >> t) & 1) sum += weight[t];
    return log(weight[e[IE_TILE]]) - log(sum);
}

/* an event's row is in range: its seat, its tile, among its back and fit tiles, and
 * positive, finite weights */
static int infer_event_ok(const int64_t *e, int64_t P, const double *weight) {
    const int64_t all = (INT64_C(1) << 28) - 1;
    if (!in_range(e[IE_SEAT], 0, P - 1) || !in_range(e[IE_TILE], 0, 27) ||
        !in_range(e[IE_BACK], 0, all) || !in_range(e[IE_FIT], 0, all) ||
        !((e[IE_BACK] & e[IE_FIT]) >> e[IE_TILE] & 1))
        return 0;
    for (int t = 0; t < 28; t++)
        if (!(weight[t] > 0.0 && weight[t] <= DBL_MAX)) return 0; /* (NaN fails both) */
    return 1;
}

/* out[j]: the sum over the E events (rows of ev [E, IE_COLS]) of their log-likelihood on
 * deal j (hands [n, P], packed), each event's weights a row of weight [E, 28]. Returns 1 on
 * an argument out of range. */
int core_infer_logw(const uint64_t *hands, int64_t n, int64_t P, const int64_t *ev, int64_t E,
                    const double *weight, double *out) {
    if (P < 1 || P > 4) return 1;
    for (int64_t e = 0; e < E; e++)
        if (!infer_event_ok(ev + e * IE_COLS, P, weight + e * 28)) return 1;
    for (int64_t j = 0; j < n; j++) {
        double s = 0.0;
        for (int64_t e = 0; e < E; e++) {
            const int64_t *x = ev + e * IE_COLS;
            s += event_loglik(tiles_of_packed(hands[j * P + x[IE_SEAT]]), x, weight + e * 28);
        }
        out[j] = s;
    }
    return 0;
}
