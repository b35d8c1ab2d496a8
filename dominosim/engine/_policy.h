/* The built-in strategies as compiled policies (docs/strategies.md, "Compiled policies").
 *
 * Included once, by _core.c, after its tables and helpers: a policy decides a slot's pending
 * decision inside the turn loop, so a batch whose seats are all compiled policies plays to
 * the end without returning to Python. Each policy is the C twin of its strategy file in
 * strategies/ (random.py, heaviest.py, greedy.py, doubles_first.py, suit_keeper.py,
 * blocker.py, learned.py), whose choose_one is the specification: the same Observation (the seat's view
 * of the slot, built here as the engine's BatchObservation builds it), the same legal actions
 * in the same canonical order, the same ranking, the same tie-breaks (the first of the best),
 * the same fallback, and for random the same addressed key. tests/test_policies.py checks
 * every policy against its file, record for record and decision for decision.
 *
 * A ranking is one integer: the terms of the file's key tuple packed from the most
 * significant down, each in a field wide enough for its largest value.
 */

enum { MAX_PLACES = 6 * 8 }; /* 6 positions x (7 across + 1 along); leads: 28 + 7 */

/* what a seat sees of a slot at a decision (observe.Observation's fields the policies read) */
typedef struct {
    int64_t seat, partner; /* partner -1 without partnership */
    int64_t hand;          /* 28-bit own tiles (in blind only the row tiles it has seen) */
    uint64_t counts;       /* byte v: how many of those tiles carry value v (value_counts) */
    int64_t held;          /* tiles the seat holds (obs.counts[seat]) */
    int nopen;             /* open positions, in position order */
    int pos[6];
    int64_t val[6];
    int8_t dbl[6], alg[6];
    int64_t spin, cov;     /* the spinner's value (-1 none), its covered arms W E N S */
    int64_t table;         /* 28-bit tiles on the table */
    const int64_t *voids;  /* per seat, 7-bit value masks */
} View;


/* byte v: the number of tiles of the packed hand h carrying value v (a SWAR popcount of each
 * byte: byte v of a packed hand holds the other halves of its tiles carrying v) */
static inline uint64_t value_counts(uint64_t h) {
    uint64_t x = h - ((h >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    return (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
}

static inline int count_at(uint64_t counts, int64_t v) { return (int)((counts >> (8 * v)) & 0xFF); }


static void make_view(const Rules *r, const Slot *rw, const BSlot *bw, View *vw) {
    int64_t seat = rw->to_move;
    vw->seat = seat;
    vw->partner = r->partnership ? (seat + 2) % 4 : -1;
    int64_t own = mask28(rw->hands[seat]);
    if (r->blind) /* §3.2: only the row tiles looked at (all of them once the row is open) */
        own &= bw->opened[seat] ? INT64_C(0xFFFFFFF) : bw->known[seat];
    vw->hand = own;
    uint64_t packed = rw->hands[seat];
    if (r->blind) {
        packed = 0;
        for (int64_t m = own; m; m &= m - 1) packed |= PACK[DS_CTZ64(m)];
    }
    vw->counts = value_counts(packed);
    vw->held = count_of(rw->hands[seat]);
    vw->nopen = 0;
    for (int k = 0; k < r->npos; k++)
        if (rw->vals[k] >= 0) {
            int j = vw->nopen++;
            vw->pos[j] = k;
            vw->val[j] = rw->vals[k];
            vw->dbl[j] = rw->dbl[k];
            vw->alg[j] = rw->alg[k];
        }
    vw->spin = rw->hb[H_SPIN];
    vw->cov = rw->hb[H_COV];
    vw->table = rw->hb[H_TABLE];
    vw->voids = rw->voids;
}

/* ------------------------------------------------------------------------------------------
 * the legal actions of a decision, in canonical order (docs/design.md: position, across
 * before along, tile; then draw, pass, stop), as Legal.action_at lists them
 * ---------------------------------------------------------------------------------------- */
static int legal_leads(const Rules *r, int64_t lm, int16_t *out) {
    int n = 0;
    for (int t = 0; t < 28; t++)
        if ((lm >> t) & 1) out[n++] = (int16_t)(t * 6);
    if (r->inline_single)
        for (int t = 0; t < 28; t++)
            if (((lm & DOUBLES28) >> t) & 1) out[n++] = (int16_t)(A_ALONG + t * 6);
    return n;
}

static int legal_places(const Rules *r, const Slot *rw, const int64_t *m2, int16_t *out) {
    int n = 0;
    for (int k = 0; k < r->npos; k++) {
        int64_t v = rw->vals[k], m = m2[k];
        if (v < 0 || m == 0) continue;
        for (int w = 0; w < 7; w++)
            if ((m >> w) & 1) out[n++] = (int16_t)(TILE_AT[v][w] * 6 + k);
        if (r->inline_single && ((m >> v) & 1)) out[n++] = (int16_t)(A_ALONG + TILE_AT[v][v] * 6 + k);
    }
    return n;
}

/* ------------------------------------------------------------------------------------------
 * the one-move lookahead of scoring.py: ends_after, end_count_after, placement_points
 * ---------------------------------------------------------------------------------------- */
typedef struct {
    int64_t t, lo, hi, pid, along; /* the tile, its halves, the position, laid along */
    int j;                         /* the position's index among the open ones (-1: lead) */
} Move;

/* the index among the open positions of position id pid (-1: not open) */
static inline int open_index(const View *vw, int64_t pid) {
    for (int i = 0; i < vw->nopen; i++)
        if (vw->pos[i] == pid) return i;
    return -1;
}

static inline Move move_of(const View *vw, int64_t a) {
    Move mv;
    mv.along = a >= A_ALONG;
    int64_t base = mv.along ? a - A_ALONG : a;
    mv.t = base / 6;
    mv.pid = base % 6;
    mv.lo = TILE_LOW[mv.t];
    mv.hi = TILE_HIGH[mv.t];
    mv.j = open_index(vw, mv.pid);
    return mv;
}

static inline int64_t other_half(const Move *mv, int64_t v) { return mv->lo + mv->hi - v; }

/* scoring.ends_after: the open end values after the move (returns how many) */
static int ends_after(const Rules *r, const View *vw, const Move *mv, int64_t *ends) {
    if (vw->nopen == 0) {
        ends[0] = mv->lo;
        ends[1] = mv->hi;
        return 2;
    }
    int n = vw->nopen;
    for (int i = 0; i < n; i++) ends[i] = vw->val[i];
    if (mv->j >= 0) {
        int64_t v = vw->val[mv->j];
        ends[mv->j] = other_half(mv, v);
        if (r->spinner && vw->spin < 0 && mv->lo == mv->hi) ends[n++] = v; /* the far side */
    }
    return n;
}

static inline int64_t value_mask(const int64_t *ends, int n) {
    int64_t m = 0;
    for (int i = 0; i < n; i++) m |= INT64_C(1) << ends[i];
    return m;
}

static inline int64_t spinner_share(const Rules *r, int64_t v, int k) {
    if (r->us_sniff) return k <= 2 ? 2 * v : (k == 3 ? v : 0);
    return k <= 1 ? 2 * v : 0;
}

static inline int64_t end_value(int64_t v, int dbl, int along) {
    return dbl && !along ? 2 * v : v;
}

/* scoring.end_count_after, on a layout without a spinner yet */
static int64_t count_no_spinner(const Rules *r, const View *vw, const Move *mv) {
    int64_t v = vw->val[mv->j], w = other_half(mv, v);
    int d = mv->lo == mv->hi;
    if (r->spinner && d) { /* the first double becomes the spinner, W covered (§1.9) */
        int o = open_index(vw, mv->pid == 0 ? 1 : 0);
        int64_t c_other = o < 0 ? 0 : end_value(vw->val[o], vw->dbl[o], vw->alg[o]);
        return c_other + spinner_share(r, v, 1);
    }
    int64_t c = 0;
    for (int i = 0; i < vw->nopen; i++)
        if (i == mv->j)
            c += end_value(w, d, r->inline_single && mv->along && d);
        else
            c += end_value(vw->val[i], vw->dbl[i], vw->alg[i]);
    return c;
}

/* scoring.end_count_after around a spinner: the covered arms and the arm played on */
static int64_t count_spinner(const Rules *r, const View *vw, const Move *mv) {
    int64_t v = vw->val[mv->j], c = 0;
    int k = 0;
    for (int i = 0; i < vw->nopen; i++) {
        int p = vw->pos[i];
        int covered = p >= 2 && ((vw->cov >> (p - 2)) & 1);
        if (i == mv->j) {
            c += end_value(other_half(mv, v), mv->lo == mv->hi, 0);
            k++;
        } else if (covered) {
            c += end_value(vw->val[i], vw->dbl[i], 0);
            k++;
        }
    }
    return c + spinner_share(r, vw->spin, k);
}

static int64_t end_count_after(const Rules *r, const View *vw, const Move *mv) {
    if (vw->nopen == 0 && vw->table == 0) return mv->lo + mv->hi; /* the lead */
    if (mv->j < 0) return 0; /* (a placement is always on an open position) */
    if (vw->spin < 0) return count_no_spinner(r, vw, mv);
    return count_spinner(r, vw, mv);
}

/* bergen's headers (§4.8): the ends L and R showing one value */
static int64_t bergen_points(const View *vw, const Move *mv) {
    if (vw->nopen == 0) return IS_DBL[mv->t] ? 2 : 0;
    int64_t v[2] = {-1, -1};
    int d[2] = {0, 0};
    for (int i = 0; i < vw->nopen; i++)
        if (vw->pos[i] < 2) {
            v[vw->pos[i]] = vw->val[i];
            d[vw->pos[i]] = vw->dbl[i];
        }
    if (mv->pid < 2) {
        v[mv->pid] = other_half(mv, v[mv->pid]);
        d[mv->pid] = IS_DBL[mv->t];
    }
    return v[0] != v[1] ? 0 : (d[0] || d[1] ? 3 : 2);
}

/* the in-play points of an end count c (fives, threes, muggins; constant divisors) */
static inline int64_t count_points(const Rules *r, int64_t c) {
    if (c <= 0) return 0;
    switch (r->scoring) {
    case SC_THREES: return c % 3 ? 0 : c / 3;
    case SC_MUGGINS: return c % 5 ? 0 : c;
    default: return c % 5 ? 0 : c / 5;
    }
}

/* scoring.placement_points: the in-play points the move would score (no target cap) */
static int64_t placement_points(const Rules *r, const View *vw, const Move *mv) {
    if (r->scoring == SC_NONE) return 0;
    if (r->scoring == SC_BERGEN) return bergen_points(vw, mv);
    return count_points(r, end_count_after(r, vw, mv));
}

/* ------------------------------------------------------------------------------------------
 * the rankings (each the key tuple of its strategy file, packed)
 * ---------------------------------------------------------------------------------------- */
/* tiles.nondouble_key: the pip sum, then the high half (7 bits) */
static inline int64_t weight(const Move *mv) { return (mv->lo + mv->hi) * 8 + mv->hi; }

/* heaviest.heaviest_key: pips, double, control, the opponents' void ends (17 bits) */
static int64_t heaviest_rank(const Rules *r, const View *vw, const Move *mv) {
    int64_t ends[8];
    int n = ends_after(r, vw, mv, ends);
    int64_t rest = vw->hand & ~(INT64_C(1) << mv->t);
    int64_t control = popc28(rest & FIT28[value_mask(ends, n)]);
    int64_t voids = 0;
    for (int s = 0; s < r->P; s++) /* opponents only: not the seat, not its partner */
        if (s != vw->seat && s != vw->partner)
            for (int i = 0; i < n; i++) voids += (vw->voids[s] >> ends[i]) & 1;
    return (((mv->lo + mv->hi) * 2 + (mv->lo == mv->hi)) * 64 + control) * 64 + voids;
}

/* greedy: the in-play points, then heaviest's key (17 bits). A move whose points cannot
 * beat the best rank so far is not ranked further (-1). */
static int64_t greedy_rank(const Rules *r, const View *vw, const Move *mv, int64_t best) {
    int64_t head = placement_points(r, vw, mv) * (INT64_C(1) << 17);
    if (head + (INT64_C(1) << 17) - 1 <= best) return -1;
    return head + heaviest_rank(r, vw, mv);
}

/* doubles_first: a double, the in-play points (below 2^12), the weight (-1: not a double
 * where the best so far is one) */
static int64_t doubles_first_rank(const Rules *r, const View *vw, const Move *mv, int64_t best) {
    int64_t head = (mv->lo == mv->hi) * (INT64_C(1) << 12);
    if ((head + (INT64_C(1) << 12)) * 128 - 1 <= best) return -1;
    return (head + placement_points(r, vw, mv)) * 128 + weight(mv);
}

/* suit_keeper._longest_suit: the value on most of the hand's tiles (ties: the higher), -1
 * for an empty hand */
static int64_t longest_suit(const View *vw) {
    if (!vw->hand) return -1;
    int64_t best = 0, most = -1;
    for (int v = 0; v < 7; v++) {
        int c = count_at(vw->counts, v);
        if (c >= most) {
            most = c;
            best = v;
        }
    }
    return best;
}

/* whether the move keeps every tile of the longest suit (a double of it keeps the end) */
static inline int keeps_suit(const Move *mv, int64_t suit) {
    return (suit != mv->lo && suit != mv->hi) || mv->lo == mv->hi;
}

/* suit_keeper: the in-play points, keeping the suit, control, the weight (-1: the points
 * and keeping cannot beat the best rank so far) */
static int64_t suit_keeper_rank(const Rules *r, const View *vw, const Move *mv, int64_t suit,
                                int64_t best) {
    int64_t head = (placement_points(r, vw, mv) * 2 + keeps_suit(mv, suit)) * (64 * 128);
    if (head + 64 * 128 - 1 <= best) return -1;
    int64_t ends[8];
    int n = ends_after(r, vw, mv, ends);
    int64_t control = 0; /* the tiles left carrying each end (the placed one is not left) */
    int held_t = (vw->hand >> mv->t) & 1;
    for (int i = 0; i < n; i++)
        control += count_at(vw->counts, ends[i]) - (held_t && (mv->lo == ends[i] || mv->hi == ends[i]));
    return head + control * 128 + weight(mv);
}

/* whether seat s is known to lack every value of the mask vals */
static inline int lacks_all(const View *vw, int64_t s, int64_t vals) {
    return s >= 0 && vals != 0 && (vals & ~vw->voids[s]) == 0;
}

/* blocker._block_terms of the ends: next opponent blocked, opponents blocked, partner not
 * blocked, opponent-void hits (9 bits; TERMS_NEXT the first term's) */
enum { TERMS_NEXT = 1 << 8, RANK_NEXT = TERMS_NEXT << 15 }; /* in block_terms, blocker_rank */
static int64_t block_terms(const Rules *r, const View *vw, const int64_t *ends, int n) {
    int64_t vals = value_mask(ends, n), me = vw->seat, partner = vw->partner;
    int64_t nxt = next_seat(me, r->P), next_blocked = 0, blocked = 0, hits = 0;
    for (int s = 0; s < r->P; s++) {
        if (s == me || s == partner) continue;
        int lacks = lacks_all(vw, s, vals);
        blocked += lacks;
        if (s == nxt) next_blocked = lacks;
        for (int i = 0; i < n; i++) hits += (vw->voids[s] >> ends[i]) & 1;
    }
    int partner_free = !lacks_all(vw, partner, vals);
    return ((next_blocked * 4 + blocked) * 2 + partner_free) * 32 + hits;
}

/* blocker: the block terms, the in-play points, the weight (-1: the terms cannot beat the
 * best rank so far) */
static int64_t blocker_rank(const Rules *r, const View *vw, const Move *mv, int64_t best) {
    int64_t ends[8];
    int n = ends_after(r, vw, mv, ends);
    int64_t head = block_terms(r, vw, ends, n) * (256 * 128);
    if (head + 256 * 128 - 1 <= best) return -1;
    return head + placement_points(r, vw, mv) * 128 + weight(mv);
}

/* ------------------------------------------------------------------------------------------
 * learned (strategies/learned.py, whose features() is the specification): a move's rank is
 * the weighted sum of its features, the weights a model file's integers
 * ---------------------------------------------------------------------------------------- */
enum {
    LF_PIPS, LF_DOUBLE, LF_POINTS, LF_CONTROL, LF_VOID_HITS, LF_BLOCKED, LF_NEXT_BLOCKED,
    LF_PARTNER_BLOCKED, LF_KEEPS_SUIT, LF_UNSEEN_FIT, LF_PIPS_HELD, LF_THREAT, LF_COUNT
};
typedef char learn_features_match[(int)LF_COUNT == (int)LEARN_FEATURES ? 1 : -1];

/* the two open ends of a LINE after the move: their values, and whether a double laid across
 * forms each (it counts both halves, §1.11) */
static void line_ends_after(const View *vw, const Move *mv, int64_t *val, int *across) {
    int d = mv->lo == mv->hi && !mv->along;
    if (vw->nopen == 0) { /* the lead shows both halves */
        val[0] = mv->lo;
        val[1] = mv->hi;
        across[0] = across[1] = d;
        return;
    }
    for (int i = 0; i < vw->nopen; i++) {
        val[i] = vw->val[i];
        across[i] = vw->dbl[i] && !vw->alg[i];
    }
    val[mv->j] = other_half(mv, vw->val[mv->j]);
    across[mv->j] = d;
}

/* the most points an answer on an end showing v scores with an unseen tile, the other end
 * counting o (its value other, formed by a double laid across: oa): only the answers whose
 * count can score are looked at (x = other in bergen, x = -o mod m and the double else) */
static inline int64_t end_threat(const Rules *r, int64_t v, int64_t other, int oa, int64_t unseen) {
    int64_t o = oa ? 2 * other : other, best = 0;
    if (r->scoring == SC_BERGEN) /* a header: the answer shows the other end's value */
        return (unseen >> TILE_AT[v][other]) & 1 ? (other == v || oa ? 3 : 2) : 0;
    int threes = r->scoring == SC_THREES; /* (constant divisors: no division) */
    int64_t m = threes ? 3 : 5, first = threes ? (3 - o % 3) % 3 : (5 - o % 5) % 5;
    for (int64_t x = first; x < 7; x += m)
        if (x != v && ((unseen >> TILE_AT[v][x]) & 1) && count_points(r, o + x) > best)
            best = count_points(r, o + x);
    if (((unseen >> TILE_AT[v][v]) & 1) && count_points(r, o + 2 * v) > best)
        best = count_points(r, o + 2 * v);
    return best;
}

/* the most in-play points the next seat could score by answering on one end of a LINE with
 * an unseen tile laid across (0 on other layouts and without in-play points) */
static int64_t reply_threat(const Rules *r, const View *vw, const Move *mv, int64_t unseen) {
    if (r->scoring == SC_NONE || r->npos != 2 || r->spinner || r->single_end) return 0;
    if (vw->nopen != 0 && (vw->nopen != 2 || mv->j < 0)) return 0; /* (j: a legal placement's) */
    int64_t val[2];
    int across[2];
    line_ends_after(vw, mv, val, across);
    int64_t a = end_threat(r, val[0], val[1], across[1], unseen);
    int64_t b = end_threat(r, val[1], val[0], across[0], unseen);
    return a > b ? a : b;
}

/* what the features read of a decision, the same for each of its moves */
typedef struct {
    int64_t unseen;          /* tiles neither in the hand nor on the table */
    int64_t suit, nxt;       /* the hand's longest suit, the seat to move next */
    int nopp;                /* the opponents (not the seat, not its partner) */
    int64_t opp[3];
} LearnView;

static void learn_view(const Rules *r, const View *vw, LearnView *lv) {
    lv->unseen = INT64_C(0xFFFFFFF) & ~vw->hand & ~vw->table;
    lv->suit = longest_suit(vw);
    lv->nxt = next_seat(vw->seat, r->P);
    lv->nopp = 0;
    for (int s = 0; s < r->P; s++)
        if (s != vw->seat && s != vw->partner) lv->opp[lv->nopp++] = s;
}

/* learned.features: the move's features, in LF_* order */
static void learned_features(const Rules *r, const View *vw, const LearnView *lv,
                             const Move *mv, int64_t *f) {
    int64_t ends[8];
    int n = ends_after(r, vw, mv, ends);
    int64_t vals = value_mask(ends, n), tbit = INT64_C(1) << mv->t;
    int64_t unseen = lv->unseen & ~tbit, hits = 0, blocked = 0, next_blocked = 0;
    for (int k = 0; k < lv->nopp; k++) {
        int64_t s = lv->opp[k];
        for (int i = 0; i < n; i++) hits += (vw->voids[s] >> ends[i]) & 1;
        int lacks = lacks_all(vw, s, vals);
        blocked += lacks;
        if (s == lv->nxt) next_blocked = lacks;
    }
    f[LF_PIPS] = mv->lo + mv->hi;
    f[LF_DOUBLE] = mv->lo == mv->hi;
    f[LF_POINTS] = placement_points(r, vw, mv);
    f[LF_CONTROL] = popc28(vw->hand & ~tbit & FIT28[vals]);
    f[LF_VOID_HITS] = hits;
    f[LF_BLOCKED] = blocked;
    f[LF_NEXT_BLOCKED] = next_blocked;
    f[LF_PARTNER_BLOCKED] = lacks_all(vw, vw->partner, vals);
    f[LF_KEEPS_SUIT] = keeps_suit(mv, lv->suit);
    f[LF_UNSEEN_FIT] = popc28(unseen & FIT28[vals]);
    f[LF_PIPS_HELD] = (mv->lo + mv->hi) * vw->held;
    f[LF_THREAT] = 0; /* (learned_best adds it where it can change the choice) */
}

/* the largest threat a LINE of the rules allows (two ends of at most 12 each: a count of 24) */
static inline int64_t threat_max(const Rules *r) {
    switch (r->scoring) {
    case SC_NONE: return 0;
    case SC_BERGEN: return 3;
    case SC_THREES: return 8;
    case SC_MUGGINS: return 20;
    default: return 4;
    }
}

/* the move's threat feature (the tiles unseen: neither in hand, on the table nor the move's) */
static inline int64_t move_threat(const Rules *r, const View *vw, const LearnView *lv,
                                  const Move *mv) {
    return reply_threat(r, vw, mv, lv->unseen & ~(INT64_C(1) << mv->t));
}

/* the first of the best placements by the weighted sum of their features (index into acts):
 * every feature but the threat first; then the threat (the costliest) for the move ranked
 * highest so far, and for the others only where it can still make them the best (branch and
 * bound: the same choice) */
static int learned_best(const Rules *r, const View *vw, const int16_t *acts, int nplace,
                        const int64_t *w) {
    int64_t part[MAX_PLACES], f[LEARN_FEATURES], wt = w[LF_THREAT];
    int64_t most = wt > 0 ? wt * threat_max(r) : 0;
    Move mv[MAX_PLACES];
    LearnView lv;
    learn_view(r, vw, &lv);
    int top = 0;
    for (int i = 0; i < nplace; i++) {
        mv[i] = move_of(vw, acts[i]);
        learned_features(r, vw, &lv, &mv[i], f);
        part[i] = 0;
        for (int k = 0; k < LEARN_FEATURES; k++) part[i] += w[k] * f[k];
        if (part[i] > part[top]) top = i;
    }
    if (wt == 0) return top;
    int best = top;
    int64_t best_rank = part[top] + wt * move_threat(r, vw, &lv, &mv[top]);
    for (int i = 0; i < nplace; i++) {
        int64_t bound = part[i] + most;
        if (i == top || bound < best_rank || (bound == best_rank && i > best)) continue;
        int64_t rank = part[i] + wt * move_threat(r, vw, &lv, &mv[i]);
        if (rank > best_rank || (rank == best_rank && i < best)) {
            best_rank = rank;
            best = i;
        }
    }
    return best;
}

/* the move's rank under the policy (-1 where it cannot beat best, the best rank so far) */
static int64_t rank_of(const Rules *r, int64_t policy, const View *vw, const Move *mv,
                       int64_t suit, int64_t best) {
    switch (policy) {
    case POL_heaviest: return heaviest_rank(r, vw, mv);
    case POL_greedy: return greedy_rank(r, vw, mv, best);
    case POL_doubles_first: return doubles_first_rank(r, vw, mv, best);
    case POL_suit_keeper: return suit_keeper_rank(r, vw, mv, suit, best);
    default: return blocker_rank(r, vw, mv, best);
    }
}

/* ------------------------------------------------------------------------------------------
 * heaviest on a LINE of two ends (not blind): the same ranking, counted on the packed hand
 * (also kernel.heaviest, which strategies/heaviest.py's batch choose calls)
 * ---------------------------------------------------------------------------------------- */
/* heaviest's scores (strategies/heaviest.py line_score) pack (pips, double, control, the
 * opponents' void ends) into one integer. Per decision, what they read of the hand is its
 * bytes (byte v: the other halves of its tiles carrying v) and their bit counts, all seven at
 * once (a SWAR popcount, byte by byte), and the opponents' voids as a 4-bit count per value */
typedef struct {
    uint64_t hand, counts; /* counts: byte v holds the number of tiles carrying v */
    int64_t voids;
} HandView;

static inline HandView hand_view(uint64_t h, int64_t cv) {
    HandView hv = {h, value_counts(h), cv};
    return hv;
}

/* the score of placing tile t leaving the open ends e0 (the tile's outer half) and e1 */
static inline int heaviest_score(const HandView *hv, int t, int e0, int e1) {
    int c0 = count_at(hv->counts, e0), c1 = count_at(hv->counts, e1);
    int both = (int)((hv->hand >> (8 * e0 + e1)) & 1); /* the tile e0-e1, counted once */
    int control = c0 - 1 + (e1 != e0 ? c1 - both : 0); /* (less the placed tile itself) */
    int nv = (int)(((hv->voids >> (4 * e0)) & 15) + ((hv->voids >> (4 * e1)) & 15));
    return ((TILE_PIPS[t] * 2 + IS_DBL[t]) * HV_CTRL + control) * HV_VOID + nv;
}

static int64_t heaviest_lead(const HandView *hv, int64_t m) {
    int best = -1;
    int64_t choice = -1;
    while (m) {
        int t = DS_CTZ64(m);
        m &= m - 1;
        int score = heaviest_score(hv, t, TILE_LOW[t], TILE_HIGH[t]);
        if (score > best) {
            best = score;
            choice = (int64_t)t * 6;
        }
    }
    return choice;
}

/* the placements on slot p (open value v; the other end q, -1 closed): tile v-w leaves the
 * ends w and q (w twice where q is closed); what depends on q is read once per slot */
static inline void heaviest_slot(const HandView *hv, int p, int v, int q, int m, int *best,
                                 int64_t *choice) {
    int cq = q >= 0 ? count_at(hv->counts, q) : 0;
    int vq = q >= 0 ? (int)((hv->voids >> (4 * q)) & 15) : 0;
    while (m) {
        int w = DS_CTZ32(m), t = TILE_AT[v][w];
        m &= m - 1;
        int c0 = count_at(hv->counts, w), vw = (int)((hv->voids >> (4 * w)) & 15);
        int control = c0 - 1, nv = vw + (q >= 0 ? vq : vw);
        if (q >= 0 && q != w) control += cq - (int)((hv->hand >> (8 * w + q)) & 1);
        int score = ((TILE_PIPS[t] * 2 + IS_DBL[t]) * HV_CTRL + control) * HV_VOID + nv;
        if (score > *best) {
            *best = score;
            *choice = (int64_t)t * 6 + p;
        }
    }
}

static int64_t heaviest_line(const HandView *hv, int v0, int v1, int m0, int m1) {
    int best = -1;
    int64_t choice = -1; /* slot 0 then slot 1, ascending other half: the canonical order */
    if (v0 >= 0) heaviest_slot(hv, 0, v0, v1, m0, &best, &choice);
    if (v1 >= 0) heaviest_slot(hv, 1, v1, v0, m1, &best, &choice);
    return choice;
}

/* ------------------------------------------------------------------------------------------
 * deciding
 * ---------------------------------------------------------------------------------------- */
/* the first of the best placements by the policy's ranking (index into acts) */
static int best_placement(const Rules *r, int64_t policy, const View *vw, const int16_t *acts,
                          int nplace, int64_t suit, int64_t *best_rank) {
    int best = 0;
    *best_rank = -1;
    for (int i = 0; i < nplace; i++) {
        Move mv = move_of(vw, acts[i]);
        int64_t k = rank_of(r, policy, vw, &mv, suit, *best_rank);
        if (k > *best_rank) {
            *best_rank = k;
            best = i;
        }
    }
    return best;
}

/* blind's open phase (§3.7b): whether the policy stops instead of placing its best tile */
static int stops(const Rules *r, int64_t policy, const View *vw, int64_t a, int64_t rank,
                 int64_t suit) {
    if (policy == POL_suit_keeper) {
        Move mv = move_of(vw, a);
        return !keeps_suit(&mv, suit) && vw->held != 1;
    }
    if (policy == POL_blocker && vw->held > 1) {
        int64_t ends[6];
        for (int i = 0; i < vw->nopen; i++) ends[i] = vw->val[i];
        int64_t now = block_terms(r, vw, ends, vw->nopen);
        return (now & TERMS_NEXT) && !(rank & RANK_NEXT); /* keep the next opponent blocked */
    }
    return 0;
}

/* the k-th flag action of the flags (draw, pass, stop in that order) */
static inline int64_t kth_flag(int64_t flags, int64_t k) {
    static const int16_t codes[3] = {A_DRAW, A_PASS, A_STOP};
    for (int j = 0; j < 3; j++)
        if ((flags >> j) & 1) {
            if (k == 0) return codes[j];
            k--;
        }
    return -1;
}

/* the k-th legal action in canonical order (Legal.action_at), without listing them */
static inline int64_t kth_action(const Rules *r, const Slot *rw, int64_t kind, int64_t lm,
                                 const int64_t *m2, int64_t flags, int64_t k) {
    if (kind == ASK_LEAD) {
        int64_t c = popc28(lm);
        if (k < c) return select28(lm, k) * 6;
        k -= c;
        int64_t dl = r->inline_single ? lm & DOUBLES28 : 0, cd = popc28(dl);
        if (k < cd) return A_ALONG + select28(dl, k) * 6;
        return kth_flag(flags, k - cd);
    }
    for (int p = 0; p < r->npos; p++) {
        int64_t v = rw->vals[p], m = m2[p], c = POPC7[m];
        if (v < 0) continue;
        if (k < c) return TILE_AT[v][SELECT7[m][k]] * 6 + p;
        k -= c;
        if (r->inline_single && ((m >> v) & 1)) {
            if (k == 0) return A_ALONG + TILE_AT[v][v] * 6 + p;
            k--;
        }
    }
    return kth_flag(flags, k);
}

/* strategies/random.py: legal[below(key, len(legal))], key the decision's addressed value */
static inline int64_t random_decide(const Rules *r, const Slot *rw, uint64_t key, int64_t kind,
                                    int64_t lm, const int64_t *m2, int64_t flags) {
    int64_t n = POPC7[flags];
    if (kind == ASK_LEAD)
        n += lead_count(r, lm);
    else
        for (int p = 0; p < r->npos; p++) {
            n += POPC7[m2[p]];
            if (r->inline_single && rw->vals[p] >= 0) n += (m2[p] >> rw->vals[p]) & 1;
        }
    return kth_action(r, rw, kind, lm, m2, flags, below(key, n));
}

/* heaviest on a LINE of two ends (heaviest_line), else the fallback of strategy.fallback */
static inline int64_t heaviest_decide(const Rules *r, const Slot *rw, int64_t kind, int64_t lm,
                                      const int64_t *m2, int64_t flags) {
    int64_t me = rw->to_move, partner = r->partnership ? (me + 2) % 4 : -1, cv = 0;
    for (int s = 0; s < r->P; s++) cv += s != me && s != partner ? SPREAD[rw->voids[s]] : 0;
    HandView hv = hand_view(rw->hands[me], cv);
    int64_t a = kind == ASK_LEAD ? heaviest_lead(&hv, lm)
                                 : heaviest_line(&hv, (int)rw->vals[0], (int)rw->vals[1],
                                                 (int)m2[0], (int)m2[1]);
    return a >= 0 ? a : kth_flag(flags, 0);
}

/* the ranked policies (every one but random), compiled once: not inlined into the shapes,
 * whose build time it would multiply; the call costs little beside the ranking */
DS_NOINLINE static int64_t ranked_decide(const Rules *r, const Slot *rw,
                                                       const BSlot *bw, int64_t policy,
                                                       const int16_t *acts, int nplace,
                                                       int64_t flags, const int64_t *weights) {
    if (nplace == 0) return kth_flag(flags, 0); /* strategy.fallback: draw, pass, stop */
    if (policy == POL_learned && nplace == 1) return acts[0]; /* (whatever the weights) */
    View vw;
    make_view(r, rw, bw, &vw);
    if (policy == POL_learned) return acts[learned_best(r, &vw, acts, nplace, weights)];
    int64_t suit = policy == POL_suit_keeper ? longest_suit(&vw) : -1, rank;
    int64_t a = acts[best_placement(r, policy, &vw, acts, nplace, suit, &rank)];
    if ((flags & F_STOP) && stops(r, policy, &vw, a, rank, suit)) return A_STOP;
    return a;
}

/* the action policy takes at slot rw's pending decision (kind, masks m2, lead mask lm,
 * flags; key: the decision's key, which only random reads): one of its legal actions. r: the
 * shape's rules; given: the same rules as given (in->rules), which the policies compiled
 * once read */
static inline int64_t policy_decide(const Rules *r, const Rules *given, const Slot *rw,
                                    const BSlot *bw, int64_t policy, const int64_t *weights,
                                    uint64_t key, int64_t kind, int64_t lm, const int64_t *m2,
                                    int64_t flags) {
    if (policy == POL_random) return random_decide(r, rw, key, kind, lm, m2, flags);
    if (policy == POL_greedy && r->scoring == SC_NONE) policy = POL_heaviest; /* (greedy.py) */
    if (policy == POL_heaviest && r->npos == 2 && !r->spinner && !r->single_end && !r->blind)
        return heaviest_decide(r, rw, kind, lm, m2, flags);
    int16_t acts[MAX_PLACES]; /* the legal placements; the flags come after them */
    int nplace = kind == ASK_LEAD ? legal_leads(r, lm, acts) : legal_places(r, rw, m2, acts);
    return ranked_decide(given, rw, bw, policy, acts, nplace, flags, weights);
}

/* core_decide (tests): the policy's choice at decisions already posed on slots st, row j
 * being slot slots[j] at decision number decs[j] with the legal actions of the lead mask
 * lead[j] (is_lead) or the slot masks masks[j], and the flags flags[j] (the key from the
 * seat's hand key, which posing the decision set). Returns 1 on an index or mask out of
 * range. */
int core_decide(const Rules *r, int64_t policy, const int64_t *weights, const Slot *st,
                const BSlot *bst, int64_t B, const int64_t *slots, const int64_t *decs,
                int64_t n, int is_lead, const int64_t *lead, const int64_t *masks,
                const int64_t *flags, int64_t *out) {
    if (policy < 0 || policy >= POL_COUNT) return 1;
    for (int k = 0; k < LEARN_FEATURES; k++)
        if (weights[k] < -LEARN_WEIGHT_MAX || weights[k] > LEARN_WEIGHT_MAX) return 1;
    for (int64_t j = 0; j < n; j++) {
        int64_t i = slots[j], m2[6] = {0, 0, 0, 0, 0, 0};
        if (i < 0 || i >= B || (uint64_t)flags[j] > 7) return 1;
        if (is_lead && (uint64_t)lead[j] >= (UINT64_C(1) << 28)) return 1;
        for (int k = 0; !is_lead && k < r->npos; k++) {
            m2[k] = masks[j * r->npos + k];
            if ((uint64_t)m2[k] > 127) return 1;
        }
        const Slot *rw = &st[i];
        if (rw->to_move < 0 || rw->to_move >= r->P) return 1;
        uint64_t key = decision_key(rw->skeys[rw->to_move], decs[j]);
        out[j] = policy_decide(r, r, rw, &bst[r->blind ? i : 0], policy, weights, key,
                               is_lead ? ASK_LEAD : ASK_PLAY, is_lead ? lead[j] : 0, m2,
                               flags[j]);
    }
    return 0;
}
