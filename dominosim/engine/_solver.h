/* The perfect-information solver of a hand (docs/design.md, "The solver"; issue 20).
 *
 * Every hand and the stock order are visible: the "double-dummy" value of a position. The
 * search plays the core's own rules on copies of the core's own state (Slot, BSlot): a child
 * is the slot with one legal action applied as answer() applies it, run forward by
 * next_decision() through the forced moves to its next decision with two or more legal
 * actions, or to the hand's end, which settle_hand() settles as end_hand() does. Nothing is
 * recorded and nothing is dealt, so the solver cannot play other rules than the engine.
 *
 * The value of a position for a root seat: 2 * d + w, where d is the hand's points of the
 * root seat's side minus those of every other side together (negated where points are
 * penalties: two-lane, ladder, kozel without kozel_positive_scoring), and w is 1 when the root
 * side wins the hand; the root side maximises it, every other seat minimises it. With two
 * sides (2 players, or 4 in partnership) this is the exact value; with 3 or more sides it is
 * the paranoid bound (each seat against the rest together).
 *
 * Alpha-beta (fail-soft) with a transposition table: a fixed-size table of 16-byte entries
 * keyed by a 64-bit hash of everything the rest of the hand depends on (hands, open
 * positions, spinner, stock pointer, seat to move and turn phase, last placer, points,
 * scores and penalties so far, blind's rows), storing a bound and the best action. A search
 * that passes its node budget stops and marks the position unsolved: never a guess.
 */

enum { B_NONE, B_EXACT, B_LOWER, B_UPPER };           /* the bound of a table entry */
enum { SOLVE_MAX_DEPTH = 512, SOLVE_MAX_ACTS = SV_ACTS };
_Static_assert(SV_ACTS == MAX_PLACES + 3, "SV_ACTS: the placements and the three flags");
#define SOLVE_INF (INT32_C(1) << 30)
#define SOLVE_CAP (INT64_C(1) << 27) /* |d| is clamped there (no overflow of 2d + w) */

typedef struct {
    uint64_t key;
    int32_t value;
    int16_t best;
    int8_t bound;
    int8_t pad;
} TTEntry;

/* a decision as next_decision returns it */
typedef struct {
    int64_t kind, code, lm, flags;
    int64_t m2[6];
} Dec;

typedef struct {
    const Rules *r;
    int64_t root_side, lower_better;
    int64_t nodes, budget;
    int aborted;
    int plain; /* a plain minimax: no table, no pruning (tests check the search with it) */
    uint64_t salt; /* the hand's share of every key (deal_salt: one table serves a call) */
    TTEntry *tt;
    uint64_t mask;
    int64_t root_seat;
    /* NULL, or a policy table (POLICY_TABLE: kernel.policy_table; no random): a seat other
     * than the root seat with a compiled policy there is modelled as that policy, which sees
     * its own hand and the table only: at its decisions it plays the policy's action, where
     * every other seat searches (core_solve_actions; the partner's information, issue 47) */
    const int64_t *policy;
} Search;

/* the decision slot rw waits on (rw->ask, posed by advance), as next_decision returned it */
static void posed_decision(const Rules *r, const Slot *rw, const BSlot *bw, Dec *d) {
    int64_t seat = rw->to_move;
    d->kind = rw->ask;
    d->code = -1;
    d->lm = 0;
    d->flags = 0;
    for (int k = 0; k < 6; k++) d->m2[k] = 0;
    if (d->kind == ASK_LEAD) {
        d->lm = rw->lead_tile >= 0 ? (INT64_C(1) << rw->lead_tile) : mask28(rw->hands[seat]);
        return;
    }
    if (!r->blind) {
        play_masks(r, rw, seat, d->m2);
        d->flags = (r->may_draw || r->bergen_voluntary) ? turn_flags(rw) : 0;
        return;
    }
    int64_t tp = bw->turn_phase;
    d->flags = bw->cflag;
    if (tp == T_FRONT || tp == T_DRAWN)
        single_masks(rw, bw->dtile, d->m2);
    else if (tp == T_OPLAY || tp == T_CONT)
        play_masks(r, rw, seat, d->m2);
    /* (else draw or pass only: no placement) */
}

/* the legal actions of decision d in canonical order, flags last */
static int solve_actions(const Rules *r, const Slot *rw, const Dec *d, int16_t *acts) {
    int n = d->kind == ASK_LEAD ? legal_leads(r, d->lm, acts) : legal_places(r, rw, d->m2, acts);
    static const int16_t codes[3] = {A_DRAW, A_PASS, A_STOP};
    for (int j = 0; j < 3; j++)
        if ((d->flags >> j) & 1) acts[n++] = codes[j];
    return n;
}

/* Twin positions: open positions the rules treat alike, so that a tile placed on either
 * gives positions of the same value: the two ends of a line (not a single end; not blind's,
 * left as it is), and around a spinner the two arms W E, or N S: positions 2p and 2p + 1. */
static inline int twin_layout(const Rules *r) {
    return !r->blind && !r->single_end && (r->npos == 2 || r->spinner);
}

/* what each open position shows, one code each: its value, double, laid along; an arm also
 * its tile's value, double, and whether it is covered (twins showing the same: equal codes) */
static void open_codes(const Rules *r, const Slot *rw, uint64_t *code) {
    for (int k = 0; k < r->npos; k++) {
        code[k] = (uint64_t)((rw->vals[k] + 1) | (rw->dbl[k] != 0) << 3 | (rw->alg[k] != 0) << 4);
        if (k >= 2)
            code[k] |= (uint64_t)((rw->armv[k - 2] + 1) | (rw->armd[k - 2] != 0) << 3 |
                                  ((rw->hb[H_COV] >> (k - 2)) & 1) << 4)
                       << 5;
    }
}

/* the actions without the placements on an open twin that shows the same as the twin below
 * it (each has its twin there); returns how many are left */
static int drop_twins(const Rules *r, const Slot *rw, int16_t *acts, int n) {
    if (!twin_layout(r)) return n;
    uint64_t code[6];
    open_codes(r, rw, code);
    int same[6] = {0}, any = 0;
    for (int k = 1; k < r->npos; k += 2)
        any |= same[k] = rw->vals[k] >= 0 && code[k] == code[k - 1];
    if (!any) return n;
    int m = 0;
    for (int j = 0; j < n; j++)
        if (acts[j] >= A_DRAW || !same[(acts[j] % A_ALONG) % 6]) acts[m++] = acts[j];
    return m;
}

/* action a on the mirror image (flip, as open_word sets it): a placement on its twin */
static inline int16_t mirror_action(int16_t a, int flip) {
    if (!flip || a < 0 || a >= A_DRAW) return a;
    int k = (a % A_ALONG) % 6;
    if (!((flip >> (k / 2)) & 1)) return a;
    return (int16_t)(k % 2 == 0 ? a + 1 : a - 1);
}

/* Move ordering: the placements heaviest tile first (a heavy tile left in hand costs most
 * at a domino or a block), an insertion sort of the few actions; the flags stay last. */
static int order_key(int16_t a) {
    int t = (a % A_ALONG) / 6;
    return TILE_PIPS[t];
}

static void order_actions(int16_t *acts, int n) {
    for (int j = 1; j < n; j++) {
        int16_t a = acts[j];
        if (a >= A_DRAW) break;
        int w = order_key(a), k = j;
        while (k > 0 && order_key(acts[k - 1]) < w) {
            acts[k] = acts[k - 1];
            k--;
        }
        acts[k] = a;
    }
}

/* whether the hand's points are penalties (Rules.points_sense "lower") */
static inline int64_t points_lower(const Rules *r) {
    return (r->match_end == ME_ONE_HAND || r->match_end == ME_KOZEL) && !r->kozel_positive;
}

/* One step of the search on slot c (a copy): answer action a of a decision of kind `kind`
 * (ASK_NONE: none), then run forward to the next decision (*d), or to the hand's end
 * (returns 1; solve_settle settles it). The only place the solver calls the turn loop:
 * flattened (the rules inlined here as into a shape), so that the loop's functions keep one
 * call site each in the general loop, which inlines them (settle, called once a hand, is
 * left out of line: a shorter build). */
SHAPE_INLINE static int solve_step(const Rules *r, Slot *c, BSlot *cb, int64_t kind, int64_t a,
                                   Dec *d) {
    d->code = -1;
    d->lm = 0;
    d->flags = 0;
    for (int k = 0; k < 6; k++) d->m2[k] = 0;
    if (kind != ASK_NONE) d->code = answer(r, c, cb, kind, a, d->m2, NULL);
    d->kind = next_decision(r, c, cb, &d->code, &d->lm, d->m2, &d->flags, NULL);
    return d->kind == ASK_NONE && c->phase != START;
}

/* the hand over on slot c (solve_step returned 1), settled as end_hand settles it */
static void solve_settle(const Rules *r, Slot *c) {
    Tally ty = {{0}, {0}, {0}, {0}};
    settle_hand(r, c, &ty);
}

/* the value 2 d + w of a hand over and settled (slot rw) for side `side`: d its points
 * difference (lower_better: fewer points are better), clamped at SOLVE_CAP, w whether it won */
static int32_t side_value(const Rules *r, int64_t side, int64_t lower_better, const Slot *rw) {
    int64_t mine = 0, rest = 0;
    for (int s = 0; s < r->npoints; s++) {
        if (s == side)
            mine += rw->points[s];
        else
            rest += rw->points[s];
    }
    int64_t d = lower_better ? rest - mine : mine - rest;
    if (d > SOLVE_CAP) d = SOLVE_CAP;
    if (d < -SOLVE_CAP) d = -SOLVE_CAP;
    return (int32_t)(2 * d + (rw->hb[H_WINNER] == side));
}

/* the value of a hand over and settled, for the search's root side */
static int32_t leaf_value(const Search *sr, const Slot *rw) {
    return side_value(sr->r, sr->root_side, sr->lower_better, rw);
}

/* out[i]: the value 2 d + w for seat's side of the hand over and settled in st[i], as the
 * solver values its leaves (pimc's alpha-mu reads it). Returns -1, or the index of a slot
 * whose points are out of range (beyond +-2^40: their sums could overflow). */
int64_t core_leaf_values(const Rules *r, const Slot *st, int64_t n, int64_t seat, int64_t *out) {
    const int64_t bound = INT64_C(1) << 40;
    for (int64_t i = 0; i < n; i++)
        for (int s = 0; s < r->npoints; s++)
            if (!in_range(st[i].points[s], -bound, bound)) return i;
    for (int64_t i = 0; i < n; i++)
        out[i] = side_value(r, side_of(r, seat), points_lower(r), &st[i]);
    return -1;
}

static inline uint64_t mix(uint64_t h, uint64_t x) { return sm(h ^ x); }

/* 20 bits of a count (points, scores, penalties) */
static inline uint64_t bits20(int64_t x) { return (uint64_t)x & 0xFFFFF; }

/* The open positions in one word (open_codes), twins in canonical order: of two twins, the
 * one that shows less first, so that a position and its mirror image share a key; bit p of
 * *flip says that twins 2p, 2p + 1 were swapped (mirror_action maps an action between the
 * two). */
static uint64_t open_word(const Rules *r, const Slot *rw, int *flip) {
    uint64_t code[6], word = 0;
    open_codes(r, rw, code);
    *flip = 0;
    for (int k = 0; twin_layout(r) && k < r->npos; k += 2)
        if (code[k] > code[k + 1]) {
            uint64_t c = code[k];
            code[k] = code[k + 1];
            code[k + 1] = c;
            *flip |= 1 << (k / 2);
        }
    for (int k = 0; k < r->npos; k++) word |= code[k] << (k < 2 ? 5 * k : 10 * k - 10);
    return word;
}

/* the hash of everything the rest of the hand depends on that changes in the hand (what
 * does not, the stock's order above all, is in the hand's salt: deal_salt) */
static uint64_t state_key(const Rules *r, const Slot *rw, const BSlot *bw, const Dec *d,
                          int *flip) {
    uint64_t head = (uint64_t)rw->to_move | (uint64_t)d->kind << 3 | (uint64_t)rw->phase << 6 |
                    (uint64_t)(rw->hb[H_LAST] + 1) << 10 | (uint64_t)rw->hb[H_SP] << 14 |
                    (uint64_t)(rw->hb[H_SPIN] + 1) << 20 |
                    (uint64_t)(rw->hb[H_FIRST] + 1) << 28 | (uint64_t)(rw->lead_tile + 1) << 34 |
                    (uint64_t)d->flags << 40;
    uint64_t h = mix(0, head);
    for (int s = 0; s < r->P; s++) h = mix(h, rw->hands[s]);
    h = mix(h, open_word(r, rw, flip));
    for (int s = 0; s < 4; s++)
        h = mix(h, bits20(rw->points[s]) | bits20(rw->scores[s]) << 20 |
                       bits20(rw->penalties[s]) << 40);
    if (!r->blind) return h;
    h = mix(h, (uint64_t)bw->turn_phase | (uint64_t)(bw->dtile + 1) << 4 |
                   (uint64_t)bw->cflag << 9);
    for (int s = 0; s < r->P; s++) { /* the row, front to back (holes included) */
        uint64_t w = (uint64_t)bw->span[s] | (uint64_t)bw->opened[s] << 6;
        int shift = 7;
        for (int64_t j = 0; j < bw->span[s]; j++) {
            if (shift > 59) {
                h = mix(h, w);
                w = 0;
                shift = 0;
            }
            w |= (uint64_t)(bw->buf[s][(bw->head[s] + j) % RB] + 1) << shift;
            shift += 5;
        }
        h = mix(h, w);
    }
    return h;
}

/* The share of every key of a search for root side `side` from slot rw: what stays fixed
 * through a hand (the stock's order and end, the deal's ids, the pot and eggs carried in) and the root side, for whom the values are. Positions of one hand for one side share
 * it, so a later decision of a hand finds the entries an earlier one's search left. */
static uint64_t deal_salt(const Slot *rw, int64_t side) {
    uint64_t h = mix(UINT64_C(0x5EED), (uint64_t)side | (uint64_t)rw->hb[H_SEND] << 8);
    uint64_t w = 0;
    for (int k = 0; k < 28; k++) {
        w = w << 8 | (uint8_t)rw->stock[k];
        if (k % 8 == 7 || k == 27) {
            h = mix(h, w);
            w = 0;
        }
    }
    h = mix(h, (uint64_t)rw->match ^ (uint64_t)rw->hand_idx << 40);
    return mix(h, (uint64_t)rw->pot ^ (uint64_t)rw->eggs << 48);
}

static int32_t search_at(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d,
                         int32_t alpha, int32_t beta, int depth, int64_t *best_out);

/* the compiled policy that plays for the seat to move of a search (Search.policy), or
 * POL_PYTHON where the seat searches */
static int64_t modelled_policy(const Search *sr, int64_t seat) {
    if (!sr->policy || seat == sr->root_seat || seat < 0 || seat >= 4) return POL_PYTHON;
    return sr->policy[seat];
}

/* The share of the policy table in a key (zero where no seat is modelled): the root seat, the
 * modelled seats' codes and weights. A table that models a seat values positions otherwise
 * than the plain search, and otherwise for each root seat of a side: their keys differ. */
static uint64_t policy_salt(const Search *sr) {
    uint64_t h = 0;
    for (int64_t s = 0; s < 4; s++) {
        int64_t code = modelled_policy(sr, s);
        if (code == POL_PYTHON) continue;
        h = mix(h ^ UINT64_C(0x9011C7), (uint64_t)s | (uint64_t)code << 8 |
                                            (uint64_t)sr->root_seat << 16);
        for (int k = 0; k < LEARN_FEATURES; k++)
            h = mix(h, (uint64_t)sr->policy[4 + s * LEARN_FEATURES + k]);
    }
    return h;
}


/* the value of the child of decision d at slot rw by action a */
static int32_t search_child(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d, int64_t a,
                            int32_t alpha, int32_t beta, int depth) {
    Slot c = *rw;
    BSlot cb;
    if (sr->r->blind) cb = *bw;
    Dec cd;
    if (solve_step(sr->r, &c, &cb, d->kind, a, &cd)) { /* the hand is over */
        solve_settle(sr->r, &c);
        sr->nodes += 1;
        return leaf_value(sr, &c);
    }
    if (cd.kind != ASK_NONE) return search_at(sr, &c, &cb, &cd, alpha, beta, depth, NULL);
    sr->aborted = 1; /* (a slot waiting for a deal: not reached from a dealt hand) */
    return 0;
}

/* the value of decision d where the seat to move is modelled by its compiled policy: the
 * value of the child by the policy's action (one child, no table entry of its own) */
static int32_t policy_node(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d,
                           int64_t policy, int32_t alpha, int32_t beta, int depth,
                           int64_t *best_out) {
    const int64_t *weights = sr->policy + 4 + rw->to_move * LEARN_FEATURES;
    int64_t a = policy_decide(sr->r, sr->r, rw, bw, policy, weights, 0, d->kind, d->lm, d->m2,
                              d->flags);
    if (best_out) *best_out = a;
    return search_child(sr, rw, bw, d, a, alpha, beta, depth + 1);
}

/* a child's value within (alpha, beta): the first child (and every child of a plain
 * minimax) searched with the whole window, a later one first with a null window at the
 * bound the side to move must beat, searched again with the whole window only where it
 * beats it (principal variation search: the ordering usually puts the best child first) */
static int32_t child_value(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d, int64_t a,
                           int32_t alpha, int32_t beta, int depth, int maxing, int j) {
    if (j == 0 || sr->plain || beta - alpha <= 1)
        return search_child(sr, rw, bw, d, a, alpha, beta, depth);
    int32_t v = maxing ? search_child(sr, rw, bw, d, a, alpha, alpha + 1, depth)
                       : search_child(sr, rw, bw, d, a, beta - 1, beta, depth);
    if (sr->aborted || v <= alpha || v >= beta) return v; /* (a bound that settles it) */
    return search_child(sr, rw, bw, d, a, alpha, beta, depth);
}

/* the value of the decision d that slot rw stands at, within (alpha, beta) (fail-soft); the
 * best action in *best_out where asked */
static int32_t search_at(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d,
                         int32_t alpha, int32_t beta, int depth, int64_t *best_out) {
    const Rules *r = sr->r;
    sr->nodes += 1;
    if (sr->nodes > sr->budget || depth > SOLVE_MAX_DEPTH) {
        sr->aborted = 1;
        return 0;
    }
    int64_t policy = modelled_policy(sr, rw->to_move);
    if (policy != POL_PYTHON) /* (a modelled seat: the policy's action, no search) */
        return policy_node(sr, rw, bw, d, policy, alpha, beta, depth, best_out);
    int flip = 0;
    uint64_t key = sr->plain ? 0 : state_key(r, rw, bw, d, &flip) ^ sr->salt;
    TTEntry *e = &sr->tt[key & sr->mask];
    DS_PREFETCH(e); /* (the entry is read after the actions are listed) */
    int16_t acts[SOLVE_MAX_ACTS];
    int n = solve_actions(r, rw, d, acts);
    if (n < 1) { /* (next_decision stops only at two or more) */
        sr->aborted = 1;
        return 0;
    }
    if (!sr->plain) {
        n = drop_twins(r, rw, acts, n);
        order_actions(acts, n);
    }
    if (!sr->plain && e->bound != B_NONE && e->key == key) {
        int32_t v = e->value;
        int16_t eb = mirror_action(e->best, flip);
        if (e->bound == B_EXACT || (e->bound == B_LOWER && v >= beta) ||
            (e->bound == B_UPPER && v <= alpha)) {
            if (best_out) *best_out = eb;
            return v;
        }
        for (int j = 1; j < n; j++) /* the entry's best action first */
            if (acts[j] == eb) {
                acts[j] = acts[0];
                acts[0] = eb;
                break;
            }
    }
    int maxing = side_of(r, rw->to_move) == sr->root_side;
    int32_t best = maxing ? -SOLVE_INF : SOLVE_INF, a0 = alpha, b0 = beta;
    int16_t bm = acts[0];
    for (int j = 0; j < n; j++) {
        int32_t v = child_value(sr, rw, bw, d, acts[j], alpha, beta, depth + 1, maxing, j);
        if (sr->aborted) return 0;
        if (maxing ? v > best : v < best) {
            best = v;
            bm = acts[j];
        }
        if (sr->plain) continue;
        if (maxing && best > alpha) alpha = best;
        if (!maxing && best < beta) beta = best;
        if (alpha >= beta) break;
    }
    if (sr->plain) {
        if (best_out) *best_out = bm;
        return best;
    }
    e->key = key;
    e->value = best;
    e->best = mirror_action(bm, flip);
    e->bound = (int8_t)(best <= a0 ? B_UPPER : (best >= b0 ? B_LOWER : B_EXACT));
    if (best_out) *best_out = bm;
    return best;
}

/* the table's size: about two entries per node of the budget, 2^12 to 2^17 entries (2 MB:
 * one that stays in the cache is faster than a larger one, for about as many nodes) */
static uint64_t table_size(int64_t budget) {
    uint64_t n = UINT64_C(1) << 12;
    while (n < (UINT64_C(1) << 17) && (int64_t)n < 2 * budget) n <<= 1;
    return n;
}

/* whether action a at decision d (slot rw, the root seat to move) is worth the decision's
 * value v: a null-window search of its child (values are integers: a child worth at least v
 * is worth v); 1 yes, 0 no, -1 when the budget ran out or a is not legal there */
static int64_t action_optimal(Search *sr, const Slot *rw, const BSlot *bw, const Dec *d,
                              int64_t a, int32_t v) {
    int16_t acts[SOLVE_MAX_ACTS];
    int n = solve_actions(sr->r, rw, d, acts), legal = 0;
    for (int j = 0; j < n; j++) legal |= acts[j] == a;
    if (!legal) return -1;
    int32_t cv = search_child(sr, rw, bw, d, a, v - 1, v, 1);
    if (sr->aborted) return -1;
    return cv >= v;
}

/* whether position rw (blind's rows bw) can be solved: in play, its state in range (the
 * fish-maker's seat; blind's pending decision, its flags and tile; a blind turn stands
 * between its steps only at a posed decision) */
static int position_ok(const Rules *r, const Slot *rw, const BSlot *bw) {
    if (rw->phase == START || rw->phase == DONE || !slot_ok(r, rw, bw)) return 0;
    if (!in_range(rw->hb[H_LAST], -1, r->P - 1)) return 0;
    if (r->blind && rw->ask == ASK_NONE && bw->turn_phase != T_START) return 0; /* (no answer) */
    if (r->blind && rw->ask == ASK_PLAY) {
        int one = bw->turn_phase == T_FRONT || bw->turn_phase == T_DRAWN;
        if (!in_range(bw->cflag, 0, F_DRAW | F_PASS | F_STOP) || (one && bw->dtile < 0)) return 0;
    }
    return 1;
}

/* position i of st (blind's rows from bst) into the search's own copies c, cb */
static void load_position(const Rules *r, const Slot *st, const BSlot *bst, int64_t i, Slot *c,
                          BSlot *cb) {
    *c = st[i];
    memset(cb, 0, sizeof *cb);
    if (r->blind) *cb = bst[i];
}

/* Where slot c (a copy) stands: at a posed decision (its ask, cleared), or run forward to its
 * next decision with a choice. Returns 1 at a decision (*d), 0 when the hand ends first
 * (settled), -1 when the slot waits for a deal. */
static int root_decision(const Rules *r, Slot *c, BSlot *cb, Dec *d) {
    if (c->ask != ASK_NONE) {
        posed_decision(r, c, cb, d);
        c->ask = ASK_NONE;
        return 1;
    }
    if (solve_step(r, c, cb, ASK_NONE, -1, d)) {
        solve_settle(r, c);
        return 0;
    }
    return d->kind != ASK_NONE ? 1 : -1;
}

/* Solve positions st[0..n) (blind's rows bst[i]) for root seats seats[i] (-1: the seat to
 * move), each with at most `budget` nodes (plain: by a plain minimax, for tests); row i of
 * out (SV_COLS columns): value d, win w, best action (-1: no decision), solved, nodes, root
 * seat, and whether the action chosen[i] (chosen NULL or -1: none) is optimal there (1, 0;
 * -1: not asked, unsolved, or not legal; the root seat must be the seat to move). A slot
 * waiting on a posed decision (ask) is solved from it; any other from where it stands, run
 * forward. Returns -1, or the index of a position out of range, or -2 when the table cannot
 * be allocated. */
int64_t core_solve(const Rules *r, const Slot *st, const BSlot *bst, int64_t n,
                   const int64_t *seats, const int64_t *chosen, int64_t budget, int plain,
                   int64_t *out) {
    for (int64_t i = 0; i < n; i++)
        if (!in_range(seats[i], -1, r->P - 1) || !position_ok(r, &st[i], &bst[r->blind ? i : 0]))
            return i;
    uint64_t size = plain ? 1 : table_size(budget);
    TTEntry *tt = calloc(size, sizeof *tt);
    if (!tt) return -2;
    for (int64_t i = 0; i < n; i++) {
        Slot c;
        BSlot cb;
        load_position(r, st, bst, i, &c, &cb);
        int64_t seat = seats[i] >= 0 ? seats[i] : c.to_move, best = -1;
        Search sr = {r, side_of(r, seat), points_lower(r), 0, budget, 0, plain,
                     deal_salt(&c, side_of(r, seat)), tt, size - 1, seat, NULL};
        Dec d;
        int32_t v;
        int at = root_decision(r, &c, &cb, &d);
        if (at == 1) {
            v = search_at(&sr, &c, &cb, &d, -SOLVE_INF, SOLVE_INF, 0, &best);
        } else if (at == 0) {
            v = leaf_value(&sr, &c);
        } else { /* (refused above: a slot waiting for a deal) */
            sr.aborted = 1;
            v = 0;
        }
        int64_t *row = out + i * SV_COLS, pick = chosen ? chosen[i] : -1;
        int64_t w = ((v % 2) + 2) % 2;
        row[SV_VALUE] = sr.aborted ? 0 : (v - w) / 2;
        row[SV_WIN] = sr.aborted ? 0 : w;
        row[SV_ACTION] = sr.aborted ? -1 : best;
        row[SV_SOLVED] = !sr.aborted;
        row[SV_SEAT] = seat;
        row[SV_OPTIMAL] = -1;
        if (!sr.aborted && pick >= 0 && best >= 0 && side_of(r, c.to_move) == sr.root_side)
            row[SV_OPTIMAL] = pick == best ? 1 : action_optimal(&sr, &c, &cb, &d, pick, v);
        row[SV_NODES] = sr.nodes;
    }
    free(tt);
    return -1;
}

/* the index among acts[0..j) of the action on the twin below placement acts[j] where the two
 * twins show the same (the child is worth the same: drop_twins), or -1 */
static int twin_below(const Rules *r, const Slot *rw, const int16_t *acts, int j) {
    int16_t a = acts[j];
    if (!twin_layout(r) || a >= A_DRAW) return -1;
    int k = (a % A_ALONG) % 6;
    if (k % 2 == 0 || rw->vals[k] < 0) return -1;
    uint64_t code[6];
    open_codes(r, rw, code);
    if (code[k] != code[k - 1]) return -1;
    for (int i = 0; i < j; i++)
        if (acts[i] == a - 1) return i;
    return -1;
}

/* every legal action's value at decision d of slot c for the seat to move (its side the
 * root), each child searched with the whole window; 0, or -1 when the budget ran out */
static int value_actions(Search *sr, const Slot *c, const BSlot *cb, const Dec *d,
                         const int16_t *acts, int n, int64_t *vals) {
    for (int j = 0; j < n; j++) {
        int twin = twin_below(sr->r, c, acts, j);
        if (twin >= 0) {
            vals[j] = vals[twin];
            continue;
        }
        vals[j] = search_child(sr, c, cb, d, acts[j], -SOLVE_INF, SOLVE_INF, 1);
        if (sr->aborted) return -1;
    }
    return 0;
}

/* The value of every legal action at each position's decision, for the seat to move there
 * (its side the root; the paranoid bound with three or more sides; policy NULL, or a policy
 * table whose seats other than the one to move play their compiled policy: Search.policy):
 * row i of acts and vals
 * (SOLVE_MAX_ACTS columns each) holds the legal actions in canonical order (-1 after the
 * last) and each one's child value 2d + w; count[i] is how many there are, 0 where the hand
 * ends before a decision, -1 where the node budget (for all the position's actions together)
 * ran out: never a guess. Returns as core_solve. */
int64_t core_solve_actions(const Rules *r, const Slot *st, const BSlot *bst, int64_t n,
                           int64_t budget, const int64_t *policy, int64_t *acts, int64_t *vals,
                           int64_t *count) {
    for (int64_t i = 0; i < n; i++)
        if (!position_ok(r, &st[i], &bst[r->blind ? i : 0])) return i;
    uint64_t size = table_size(budget);
    TTEntry *tt = calloc(size, sizeof *tt);
    if (!tt) return -2;
    for (int64_t i = 0; i < n; i++) {
        Slot c;
        BSlot cb;
        load_position(r, st, bst, i, &c, &cb);
        int64_t *row_a = acts + i * SOLVE_MAX_ACTS, *row_v = vals + i * SOLVE_MAX_ACTS;
        for (int j = 0; j < SOLVE_MAX_ACTS; j++) row_a[j] = row_v[j] = -1;
        Dec d;
        int at = root_decision(r, &c, &cb, &d);
        count[i] = at == 1 ? 0 : (at == 0 ? 0 : -1);
        if (at != 1) continue;
        int64_t side = side_of(r, c.to_move);
        Search sr = {r, side, points_lower(r), 0, budget, 0, 0, deal_salt(&c, side), tt, size - 1,
                     c.to_move, policy};
        sr.salt ^= policy_salt(&sr);
        int16_t list[SOLVE_MAX_ACTS];
        int k = solve_actions(r, &c, &d, list);
        for (int j = 0; j < k; j++) row_a[j] = list[j];
        count[i] = value_actions(&sr, &c, &cb, &d, list, k, row_v) < 0 ? -1 : k;
    }
    free(tt);
    return -1;
}
