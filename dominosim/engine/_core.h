/* The compiled core of the batch engine: its records, codes and entry points.
 *
 * Slot and BSlot are the C side of the numpy dtypes kernel.SLOT and kernel.BSLOT (aligned
 * records, fields in the same order); the module checks their offsets and sizes against the
 * dtypes at import (kernel.check_layout) and refuses to run on a mismatch.
 */
#ifndef DOMINOSIM_CORE_H
#define DOMINOSIM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "_port.h"

/* ---- codes shared with kernel.py (all of them listed in SHARED_CODES, below) ---- */
enum { LEAD = 0, TURN = 1, MAYDRAW = 2, AFTERDRAW = 3, DONE = 4, START = 5, BOFFER = 6 };
enum { DOMINO = 0, BLOCKED = 1, TARGET = 2 };
enum { ASK_NONE = 0, ASK_LEAD = 1, ASK_PLAY = 2 };
/* blind (§3.7): where a turn stands (BSlot.turn_phase) */
enum { T_START, T_FRONT, T_BACK, T_BACK_DECLINED, T_DRAWQ, T_DRAWN, T_ODRAWQ, T_OPLAY, T_CONT };
enum { F_DRAW = 1, F_PASS = 2, F_STOP = 4 };                 /* a decision's flags */
enum { PH_PLAY, PH_FRONT, PH_DRAWN, PH_CONT, PH_AFTER };       /* its phase name */
enum { A_ALONG = 168, A_DRAW = 336, A_PASS = 337, A_STOP = 338 }; /* action codes */
enum { RB = 32 };                                               /* blind's row ring size */
enum { GF_INT8 = 1, GF_INT64 = 8, GF_COUNT = 16 }; /* core_gather_fields' widths */
/* rows of the per-hand block Slot.hb (arrays.SlotArrays names them) */
enum {
    H_ATTEMPT, H_SP, H_SEND, H_SPIN, H_COV, H_NTABLE, H_FIRST, H_TABLE, H_DECISION,
    H_LAST, H_LENGTH, H_TURNS, H_DRAWS, H_PASSES, H_REASON, H_FISH, H_WINNER, H_OUT, H_COUNT
};
enum { P_LEADER, P_WINNER, P_OUT, P_FISH };                     /* rows of Slot.prev */
/* columns of a decision's row (kernel.CD_*) */
enum { CD_SLOT, CD_KEY, CD_DEC, CD_SEAT, CD_HAND, CD_FLAGS, CD_PHASE, CD_LEAD, CD_VOIDS,
       CDW = CD_VOIDS + 4 };
/* the hand / match record columns before the per-side ones, by name (kernel.HREC and
 * kernel.MREC are these names, read from the core; HREC_HEAD, MREC_HEAD: how many) */
#define HREC_COLUMNS(X)                                                                      \
    X(match_id) X(hand_index) X(leader) X(end_reason) X(fish_maker) X(winner) X(went_out)    \
    X(hand_length) X(turns) X(draws) X(passes) X(redeals)
#define MREC_COLUMNS(X) X(match_id) X(winner) X(hands) X(dry) X(losers)
#define HREC_ENUM(name) HR_##name,
#define MREC_ENUM(name) MR_##name,
enum { HREC_COLUMNS(HREC_ENUM) HREC_HEAD };
enum { MREC_COLUMNS(MREC_ENUM) MREC_HEAD };
#undef HREC_ENUM
#undef MREC_ENUM
extern const char *const HREC_NAMES[HREC_HEAD];
extern const char *const MREC_NAMES[MREC_HEAD];
/* knob values (kernel.py's tables of the same names) */
enum { SC_NONE, SC_FIVES, SC_THREES, SC_MUGGINS, SC_BERGEN };
enum { ST_PIPS, ST_BERGEN, ST_BOOK, ST_SNIFF, ST_MUGGINS, ST_KOZEL, ST_PENALTIES };
enum { ME_RACE, ME_ONE_HAND, ME_KOZEL };
enum { DM_NONE, DM_ONE, DM_UNTIL_PLAYABLE }; /* draw_mode (blind's rows: DM_NONE and blind) */
enum { LF_LOT, LF_PRIORITY };                /* lead_first: by lot, by the priority list */
enum { LL_AS_FIRST, LL_NEXT, LL_WINNER_ELSE_LOT, LL_WINNER_ELSE_FIRST, LL_WINNER_ELSE_NEXT,
       LL_OUT_ELSE_LOT, LL_OUT_ELSE_FISHMAKER, LL_LOT };
enum { HV_CTRL = 64, HV_VOID = 16 }; /* heaviest's score packing (strategies/heaviest.py) */
/* a hand's public history (Observation.history, RULES §1.3): per slot a row of 16-bit
 * events, its first item the number written; an event packs its tile (EV_NO_TILE: none),
 * position (L R W E N S; EV_NO_POS), laid along, seat (EV_NO_SEAT: the starting tile) and kind */
enum { EV_PLACE, EV_DRAW, EV_PASS, EV_LOOK, EV_TO_BACK, EV_OPEN, EV_STOP, EV_START };
enum { EV_TILE_SHIFT = 0, EV_POS_SHIFT = 5, EV_ALONG_SHIFT = 8, EV_SEAT_SHIFT = 9,
       EV_KIND_SHIFT = 12, EV_NO_TILE = 31, EV_NO_POS = 7, EV_NO_SEAT = 7,
       EV_OVERFLOW = 0xFFFF };
typedef struct {
    uint16_t *ev; /* ev[0]: the events written (EV_OVERFLOW: past the bound); ev[1..cap] */
    int64_t cap;
} Log;
/* the result of advance for a state it refuses (a field or index out of range) */
#define CORE_BAD_STATE (-(INT64_C(1) << 40))

/* ---- the records of one game slot: the fields of each, listed once ----
 * X(type, name, dims): dims SLOT_DIM0 (one value), SLOT_DIM1(n) or SLOT_DIM2(n, m). The
 * structs are declared from these lists, and layout() exports each field's name, offset,
 * item kind and size and shape from them, of which kernel.py makes its numpy records
 * (kernel.SLOT, kernel.BSLOT): the one layout of the records, C's. */
#define SLOT_DIM0
#define SLOT_DIM1(n) [n]
#define SLOT_DIM2(n, m) [n][m]

/* one game slot (kernel.SLOT) */
#define SLOT_FIELDS(X)                                                                        \
    X(uint64_t, hands, SLOT_DIM1(4)) /* packed hands per seat (a-b: bits 8a+b and 8b+a) */    \
    X(int64_t, vals, SLOT_DIM1(6))   /* open values per position (L R W E N S), -1 closed */  \
    X(int64_t, hb, SLOT_DIM1(H_COUNT))                                                        \
    X(int64_t, phase, SLOT_DIM0)                                                              \
    X(int64_t, to_move, SLOT_DIM0)                                                            \
    X(int64_t, leader, SLOT_DIM0)                                                             \
    X(int64_t, lead_tile, SLOT_DIM0)                                                          \
    X(int64_t, ask, SLOT_DIM0)                                                                \
    X(int64_t, act, SLOT_DIM0)                                                                \
    X(int8_t, over, SLOT_DIM0)                                                                \
    X(int8_t, target_hit, SLOT_DIM0)                                                          \
    X(int8_t, active, SLOT_DIM0)                                                              \
    X(int8_t, dry, SLOT_DIM0)                                                                 \
    X(int8_t, dbl, SLOT_DIM1(6))  /* the open end is a double */                              \
    X(int8_t, armd, SLOT_DIM1(4)) /* the spinner's arms: a double at the end */               \
    X(int8_t, alg, SLOT_DIM1(6))  /* the open end is a double laid along (inline_double_...) */ \
    X(int8_t, stock, SLOT_DIM1(28))                                                           \
    X(int64_t, armv, SLOT_DIM1(4))                                                            \
    X(int64_t, match, SLOT_DIM0)                                                              \
    X(int64_t, hand_idx, SLOT_DIM0)                                                           \
    X(uint64_t, skeys, SLOT_DIM1(4)) /* per seat: its secret key of this hand (SipHash) */    \
    X(int64_t, qidx, SLOT_DIM0)                                                               \
    X(int64_t, pot, SLOT_DIM0)                                                                \
    X(int64_t, eggs, SLOT_DIM0)                                                               \
    X(int64_t, losers, SLOT_DIM0)                                                             \
    X(int64_t, scores, SLOT_DIM1(4))                                                          \
    X(int64_t, points, SLOT_DIM1(4))                                                          \
    X(int64_t, penalties, SLOT_DIM1(4))                                                       \
    X(int64_t, voids, SLOT_DIM1(4))                                                           \
    X(int64_t, end_pips, SLOT_DIM1(4))                                                        \
    X(int64_t, end_values, SLOT_DIM1(4)) /* hand values: kozel's §14.12, else the pips */     \
    X(int64_t, written, SLOT_DIM1(4))                                                         \
    X(int64_t, pending, SLOT_DIM1(4))                                                         \
    X(int64_t, prev, SLOT_DIM1(4))                                                            \
    X(int64_t, prev_pips, SLOT_DIM1(4))

/* blind's rows of one slot (kernel.BSLOT): the turn's sub-phase, the tile looked at, the
 * flags; per seat its row's ring of tiles */
#define BSLOT_FIELDS(X)                                                                       \
    X(int64_t, turn_phase, SLOT_DIM0)                                                         \
    X(int64_t, dtile, SLOT_DIM0)                                                              \
    X(int64_t, cflag, SLOT_DIM0)                                                              \
    X(int64_t, head, SLOT_DIM1(4))                                                            \
    X(int64_t, span, SLOT_DIM1(4))                                                            \
    X(int64_t, known, SLOT_DIM1(4))                                                           \
    X(int64_t, face_up, SLOT_DIM0)                                                            \
    X(int8_t, opened, SLOT_DIM1(4))                                                           \
    X(int8_t, buf, SLOT_DIM2(4, RB))

#define SLOT_DECLARE(type, name, dims) type name dims;
typedef struct {
    SLOT_FIELDS(SLOT_DECLARE)
} Slot;
typedef struct {
    BSLOT_FIELDS(SLOT_DECLARE)
} BSlot;

/* ---- the rule knobs, in kernel._KNOBS order ---- */
#define KNOBS(X)                                                                              \
    X(P) X(S) X(hand_size) X(single_end) X(draw_mode) X(limit) X(scoring)                     \
    X(failed_turn_penalty) X(penalty_per_miss) X(lead_first) X(lead_later) X(settlement)      \
    X(domino_bonus) X(partnership) X(target) X(check_only) X(match_end) X(hands_per_match)    \
    X(fewest_tiles) X(bergen_1pt) X(bergen_cap) X(muggins_no_rounding)                        \
    X(muggins_block_per_opponent) X(fish_sum_only) X(fish_diff) X(kozel_redeal)               \
    X(lone_00_value) X(lone_66_value) X(eggs_double) X(fish_maker_takes_all) X(dry_goat)      \
    X(kozel_positive) X(unit_hand) X(npoints) X(spinner) X(us_sniff) X(open_all_four)         \
    X(npos) X(blind) X(blind_play_optional) X(blind_draw_optional) X(blind_face_up)           \
    X(start_tile) X(block_any) X(may_draw) X(bergen_voluntary) X(inline_single)

#define KNOB_ENUM(name) K_##name,
enum { KNOBS(KNOB_ENUM) K_COUNT };
#undef KNOB_ENUM

typedef struct {
#define KNOB_FIELD(name) int64_t name;
    KNOBS(KNOB_FIELD)
#undef KNOB_FIELD
} Rules;

extern const char *const KNOB_NAMES[K_COUNT];

/* ---- the compiled policies (_policy.h), by code: kernel.POLICIES in this order ----
 * POL_PYTHON: the seat's strategy is asked in Python, through Strategy.choose */
#define POLICIES(X)                                                                           \
    X(random) X(heaviest) X(greedy) X(doubles_first) X(suit_keeper) X(blocker) X(learned)
#define POLICY_ENUM(name) POL_##name,
enum { POL_PYTHON = -1, POLICIES(POLICY_ENUM) POL_COUNT };
#undef POLICY_ENUM
/* the seats' policy table (advance's policy argument, kernel.policy_table): a code per seat,
 * then per seat the weights of its learned policy (strategies/learned.py's FEATURES, in that
 * order; zeros for the other policies), each within +-LEARN_WEIGHT_MAX */
enum { LEARN_FEATURES = 12, POLICY_TABLE = 4 + 4 * LEARN_FEATURES };
#define LEARN_WEIGHT_MAX (INT64_C(1) << 24)
extern const char *const POLICY_NAMES[POL_COUNT];

/* ---- what advance reads and writes besides the slots ---- */
typedef struct {
    const uint64_t *sd;   /* [4] hash prefixes of the deal and the lot; the strategies'
                           * SipHash key (k0, k1) */
    const int64_t *prio;  /* first-leader priority list of tiles */
    int64_t nprio;
    const int64_t *htmpl; /* the per-hand block's values at a deal */
    int64_t nhtmpl;
    const int64_t *queue; /* the match ids */
    int64_t nq;
    int64_t *qpos;        /* [1] the next queue position */
    const int64_t *policy; /* [POLICY_TABLE]: per seat its compiled policy (POL_*) or
                            * POL_PYTHON, then the learned policies' weights */
    const Rules *rules;    /* the rules as given, for the policies compiled once (a shape's
                            * constant copy must not escape the shape, or it stops being
                            * constant); core_advance sets it */
} Inputs;

typedef struct {
    int64_t B;       /* game slots (rows of each decision list) */
    int64_t *nd;     /* [2] decisions per list (0 placements, 1 leads) */
    int64_t *cd;     /* [2, B, CDW] decision rows */
    int64_t *chosen;   /* [2, B] the strategies' choices, in list order */
    int64_t *cvals;  /* [B, npos] a placement's open values */
    int64_t *cmasks; /* [B, npos] and its slot masks */
    int32_t *hdir;   /* [cols, nq] hand records by queue position (unit hand) */
    int32_t *hrec;   /* [cols, cap] hand records, in the order hands end (unit match) */
    int64_t cap;
    int32_t *mdir;   /* [cols, nq] match records by queue position */
    int64_t nq;
    int64_t *nrec;   /* [1] rows of hrec used */
    uint16_t *hist;  /* [B, hw] the hands' public histories (hw 0: none kept) */
    int64_t hw;
} Outputs;

/* ---- strided views (columns of another array, as strategies hand them in) ---- */
typedef struct {
    const char *buf;
    int64_t n, stride;
} StridedU64;
typedef StridedU64 Strided1;
typedef struct {
    const char *buf;
    int64_t n0, n1, s0, s1;
} Strided2;

static inline uint64_t strided_u64(const StridedU64 *a, int64_t i) {
    return *(const uint64_t *)(a->buf + i * a->stride);
}
static inline int64_t strided1(const Strided1 *a, int64_t i) {
    return *(const int64_t *)(a->buf + i * a->stride);
}
static inline int64_t strided2(const Strided2 *a, int64_t i, int64_t j) {
    return *(const int64_t *)(a->buf + i * a->s0 + j * a->s1);
}

/* ---- mc's hidden deals: the seats to deal to, in order, with their counts and void masks ---- */
typedef struct {
    int64_t nseats, k;  /* k: the stock's size */
    int64_t seats[4], need[4], voids[4];
} DealAsk;

/* ---- entry points ---- */
void core_init_tables(void);
uint64_t core_siphash24(uint64_t k0, uint64_t k1, const uint8_t *p, size_t n);
const char *core_rules(const int64_t *knobs, Rules *r);
int64_t core_check_slots(const Rules *r, const Slot *st, const BSlot *bst, int64_t B,
                         int64_t nq);
int64_t core_advance(const Rules *r, const Inputs *in, Slot *st, BSlot *bst, int64_t B,
                     const Outputs *o, int64_t start);
int core_uniform_slots(const int64_t *values, const int64_t *masks, int64_t K,
                       const StridedU64 *keys, int64_t n, int64_t *out);
int core_uniform_lead(const int64_t *lead, const StridedU64 *keys, int64_t n, int64_t *out);
int core_legal_arrays(const int64_t *values, const int64_t *masks, int64_t K, const int64_t *lead,
                      int is_lead, const int64_t *flags, int along, int64_t n, int64_t W,
                      int64_t *act, int8_t *info);
int core_best(const int64_t *score, const int64_t *count, const int64_t *act, int64_t n,
              int64_t W, int64_t *out);
/* in-play points (scoring.placement_points): the inputs, one row per decision; how: the
 * scoring (SC_*, the PT_KIND bits) with the layout and counting options */
enum { PT_KIND = 7, PT_SPINNER = 8, PT_ALONG = 16, PT_SNIFF = 32, PT_TABLE_NONE = 255 };
typedef struct {
    const int64_t *values; /* [n, K] open values, -1 closed */
    const int8_t *doubles; /* [n, K] formed by a double */
    const int8_t *along;   /* [n, K] laid along */
    int64_t K;
    const int64_t *spinner, *covered, *table; /* [n]: -1 none; W E N S bits; 28-bit mask */
    int how;
} PointsIn;
int core_legal_points(const PointsIn *in, const int64_t *act, int64_t n, int64_t W,
                      int64_t *out);
int core_points_tables(const PointsIn *in, int64_t n, uint8_t *out);
int core_gather_fields(const uint8_t *records, int64_t nrec, int64_t size, const int64_t *g,
                       int64_t n, const int64_t *offs, const int64_t *widths, int64_t K,
                       int64_t *out);
int core_seat_history(const uint16_t *hist, int64_t slots, int64_t H, const int64_t *g,
                      const int64_t *seats, int face_up_doubles, int64_t n, int64_t W,
                      uint16_t *out);
int core_heaviest(const int64_t *values, const int64_t *masks, const int64_t *lead, int is_lead,
                  const StridedU64 *hands, const Strided2 *voids, const Strided1 *seat,
                  int partnership, int64_t n, int64_t *out);

int core_sample_deals(uint64_t key, int64_t S, int64_t tries, const int64_t *unseen, int64_t U,
                      const DealAsk *ask, int64_t P, uint64_t *hands, int8_t *stock, int8_t *ok);
/* pimc's inference: an event's columns (the seat, the tile it placed, the 28-bit masks of the
 * tiles it placed from then on and of the tiles that fitted then) */
enum { IE_SEAT, IE_TILE, IE_BACK, IE_FIT, IE_COLS };
int core_infer_logw(const uint64_t *hands, int64_t n, int64_t P, const int64_t *ev, int64_t E,
                    const double *weight, double *out);

int64_t core_deal(const Rules *r, const Inputs *in, Slot *st, BSlot *bst, int64_t B);

/* the perfect-information solver (_solver.h): a row of out per position, these columns */
enum { SV_VALUE, SV_WIN, SV_ACTION, SV_SOLVED, SV_NODES, SV_SEAT, SV_OPTIMAL, SV_COLS };
/* core_solve_actions: the most legal actions of a decision, a row of its outputs (the most
 * placements, 6 positions x 8, and the three flags; _solver.h checks it) */
enum { SV_ACTS = 6 * 8 + 3 };

/* ---- every code kernel.py shares with the core, by name: the one place their values are
 * written. constants() exports them; kernel.py reads each one from there (a name missing
 * here, or one here that kernel.py neither reads nor checks, fails its import). ---- */
#define SHARED_CODES(X)                                                                      \
    X(LEAD) X(TURN) X(MAYDRAW) X(AFTERDRAW) X(DONE) X(START) X(BOFFER)                       \
    X(DOMINO) X(BLOCKED) X(TARGET) X(ASK_NONE) X(ASK_LEAD) X(ASK_PLAY)                       \
    X(T_START) X(T_FRONT) X(T_BACK) X(T_BACK_DECLINED) X(T_DRAWQ) X(T_DRAWN) X(T_ODRAWQ)      \
    X(T_OPLAY) X(T_CONT) X(F_DRAW) X(F_PASS) X(F_STOP)                                       \
    X(PH_PLAY) X(PH_FRONT) X(PH_DRAWN) X(PH_CONT) X(PH_AFTER)                                 \
    X(A_ALONG) X(A_DRAW) X(A_PASS) X(A_STOP) X(RB) X(GF_INT8) X(GF_INT64) X(GF_COUNT)        \
    X(H_ATTEMPT) X(H_SP) X(H_SEND) X(H_SPIN) X(H_COV) X(H_NTABLE) X(H_FIRST) X(H_TABLE)       \
    X(H_DECISION) X(H_LAST) X(H_LENGTH) X(H_TURNS) X(H_DRAWS) X(H_PASSES) X(H_REASON)         \
    X(H_FISH) X(H_WINNER) X(H_OUT) X(H_COUNT) X(P_LEADER) X(P_WINNER) X(P_OUT) X(P_FISH)      \
    X(CD_SLOT) X(CD_KEY) X(CD_DEC) X(CD_SEAT) X(CD_HAND) X(CD_FLAGS) X(CD_PHASE) X(CD_LEAD)   \
    X(CD_VOIDS) X(CDW) X(HREC_HEAD) X(MREC_HEAD)                                              \
    X(SC_NONE) X(SC_FIVES) X(SC_THREES) X(SC_MUGGINS) X(SC_BERGEN)                            \
    X(PT_KIND) X(PT_SPINNER) X(PT_ALONG) X(PT_SNIFF) X(PT_TABLE_NONE)                        \
    X(ST_PIPS) X(ST_BERGEN) X(ST_BOOK) X(ST_SNIFF) X(ST_MUGGINS) X(ST_KOZEL) X(ST_PENALTIES)  \
    X(ME_RACE) X(ME_ONE_HAND) X(ME_KOZEL) X(DM_NONE) X(DM_ONE) X(DM_UNTIL_PLAYABLE)           \
    X(LF_LOT) X(LF_PRIORITY)                                                                  \
    X(LL_AS_FIRST) X(LL_NEXT) X(LL_WINNER_ELSE_LOT) X(LL_WINNER_ELSE_FIRST)                   \
    X(LL_WINNER_ELSE_NEXT) X(LL_OUT_ELSE_LOT) X(LL_OUT_ELSE_FISHMAKER) X(LL_LOT)              \
    X(HV_CTRL) X(HV_VOID) X(POL_PYTHON) X(LEARN_FEATURES) X(POLICY_TABLE)                      \
    X(SV_VALUE) X(SV_WIN) X(SV_ACTION) X(SV_SOLVED) X(SV_NODES) X(SV_SEAT) X(SV_OPTIMAL)      \
    X(SV_COLS) X(SV_ACTS)                                                                     \
    X(EV_PLACE) X(EV_DRAW) X(EV_PASS) X(EV_LOOK) X(EV_TO_BACK) X(EV_OPEN) X(EV_STOP)         \
    X(EV_START) X(EV_TILE_SHIFT) X(EV_POS_SHIFT) X(EV_ALONG_SHIFT) X(EV_SEAT_SHIFT)          \
    X(EV_KIND_SHIFT) X(EV_NO_TILE) X(EV_NO_POS) X(EV_NO_SEAT) X(EV_OVERFLOW)                   \
    X(IE_SEAT) X(IE_TILE) X(IE_BACK) X(IE_FIT) X(IE_COLS)
int64_t core_solve(const Rules *r, const Slot *st, const BSlot *bst, int64_t n,
                   const int64_t *seats, const int64_t *chosen, int64_t budget, int plain,
                   int64_t *out);

int64_t core_leaf_values(const Rules *r, const Slot *st, int64_t n, int64_t seat, int64_t *out);

int64_t core_solve_actions(const Rules *r, const Slot *st, const BSlot *bst, int64_t n,
                           int64_t budget, const int64_t *policy, int64_t *acts, int64_t *vals,
                           int64_t *count);

int core_decide(const Rules *r, int64_t policy, const int64_t *weights, const Slot *st,
                const BSlot *bst, int64_t B, const int64_t *slots, const int64_t *decs,
                int64_t n, int is_lead, const int64_t *lead, const int64_t *masks,
                const int64_t *flags, int64_t *out);

#endif
