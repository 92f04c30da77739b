/*
 * One game of Hearts: dealing, passing, the play of the tricks under every
 * play option, trick resolution (ordinary, joker, cancellation), the stock
 * variants, and the flow from hand to hand. Scoring is in score.c.
 *
 * The play loop is the inner loop of simulating computer players, so the
 * ordinary case (one deck, no joker, no stock) takes the short path: one
 * test of rules->special decides whether anything unusual applies.
 */
#include "engine/engine.h"
#include "engine/internal.h"
#include "engine/score.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static inline int next_seat(const struct engine_game *g, int seat)
{
    return seat + 1 == g->n ? 0 : seat + 1;
}

/* Lemire's bounded integer from 32 random bits, drawing afresh (the high
 * half of the next 64 bits) only in the rare case of a biased product. */
static inline uint32_t below_from(struct engine_prng *p, uint32_t x,
                                  uint32_t bound)
{
    uint64_t m = (uint64_t)x * bound;
    if ((uint32_t)m < bound) {
        uint32_t threshold = (uint32_t)(-bound) % bound;
        while ((uint32_t)m < threshold)
            m = (engine_prng_next(p) >> 32) * (uint64_t)bound;
    }
    return (uint32_t)(m >> 32);
}

/* Next seat clockwise still in the hand (domino drops players out). */
static int next_in(const struct engine_game *g, int seat)
{
    for (int i = 0; i < g->n; i++) {
        seat = next_seat(g, seat);
        if (g->in_mask >> seat & 1)
            return seat;
    }
    return seat;
}

void engine_game_init(struct engine_game *g, const struct engine_rules *r,
                      uint64_t seed, int dealer)
{
    memset(g, 0, sizeof *g);
    g->rules = r;
    g->n = (uint8_t)r->players;
    engine_prng_seed(&g->rng, seed);
    g->dealer = (uint8_t)(dealer >= 0 && dealer < r->players ? dealer : 0);
    g->phase = ENGINE_PHASE_DEAL;
    g->moon_applied = ENGINE_MOON_OFF;
    g->lead_card = ENGINE_NO_CARD;
    g->rest_taker = ENGINE_NO_CARD;
}

/* ---- Starting the play ------------------------------------------------ */

/* Who leads the first trick, and with which card if one is forced. */
static void first_lead(struct engine_game *g)
{
    const struct engine_rules *r = g->rules;
    int left = next_seat(g, g->dealer);
    g->lead_card = ENGINE_NO_CARD;
    g->leader = (uint8_t)left;
    if (r->first_lead != ENGINE_LEAD_TWO_CLUBS)
        return;
    const uint64_t clubs = ENGINE_SUIT_MASK(ENGINE_CLUBS);
    uint64_t held = 0;
    for (int s = 0; s < g->n; s++)
        held |= g->hand[s].one & clubs;
    if (!held)
        return; /* nobody holds a club: left of the dealer leads anything */
    int card;
    if ((held & ENGINE_BIT(ENGINE_2C)) ||
        r->lowest_club_fallback == ENGINE_FALLBACK_HOLDER_OF_LOWEST) {
        card = bits_low(held);
    } else {
        /* first_left_with_clubs: the first seat left of the dealer holding
         * a club leads its lowest club */
        int s = left;
        while (!(g->hand[s].one & clubs))
            s = next_seat(g, s);
        g->leader = (uint8_t)s;
        g->lead_card = (uint8_t)bits_low(g->hand[s].one & clubs);
        return;
    }
    /* the first holder clockwise from the dealer's left (two decks may
     * hold two) */
    int s = left;
    while (!(g->hand[s].one & ENGINE_BIT(card)))
        s = next_seat(g, s);
    g->leader = (uint8_t)s;
    g->lead_card = (uint8_t)card;
}

static void start_trick(struct engine_game *g)
{
    g->trick_len = 0;
    g->trick_cards = 0;
    g->turn = g->leader;
    g->trick_size = (g->rules->special & ENGINE_SPECIAL_DOMINO)
                        ? (uint8_t)bits_count(g->in_mask)
                        : g->n;
}

static void begin_play(struct engine_game *g)
{
    g->phase = ENGINE_PHASE_PLAY;
    first_lead(g);
    start_trick(g);
}

/* ---- Dealing ---------------------------------------------------------- */

static const char *const dir_text[] = {"left",    "right", "across", "hold",
                                       "scatter", "left2", "right2"};

const char *engine_pass_dir_name(int dir)
{
    return dir >= 0 && dir <= ENGINE_PASS_RIGHT2 ? dir_text[dir] : "?";
}

/* Starts a hand from g->deal. `built`, if not NULL, holds the hands of
 * a one-deck deal already, by position from the dealer's left. */
static void deal_cards(struct engine_game *g, const struct engine_sink *sink,
                       const uint64_t *built)
{
    const struct engine_rules *r = g->rules;
    int n = g->n;
    int dealt = n * r->hand_size;
    /* the seats in play only: a whole-array memset here compiles to a
     * slow-starting string store, every hand */
    for (int s = 0; s < n; s++) {
        g->taken[s].one = g->taken[s].two = 0;
        g->hand_points[s] = 0;
        g->tricks[s] = 0;
        g->voids[s] = 0;
        g->nreceived[s] = 0;
    }
    g->aside.one = g->aside.two = 0;
    g->aside_tricks = 0;
    g->hand_no++;
    g->trick_no = 0;
    g->trick_len = 0;
    g->nplays = 0;
    g->hearts_broken = 0;
    g->passed_mask = 0;
    g->blind_mask = 0;
    g->ndiscard = 0;
    g->moon_applied = ENGINE_MOON_OFF;
    g->rest_taker = ENGINE_NO_CARD;
    g->in_mask = (uint16_t)((1u << n) - 1);

    int seat = next_seat(g, g->dealer);
    if (built) {
        for (int j = 0; j < n; j++) {
            g->hand[seat].one = built[j];
            g->hand[seat].two = 0;
            seat = next_seat(g, seat);
        }
    } else if (r->decks == 1) {
        /* card k goes to the k-th seat clockwise from the dealer's left
         * (every seat's hand is assigned here) */
        for (int j = 0; j < n; j++) {
            uint64_t m = 0;
            for (int k = j; k < dealt; k += n)
                m |= ENGINE_BIT(g->deal[k]);
            g->hand[seat].one = m;
            g->hand[seat].two = 0;
            seat = next_seat(g, seat);
        }
    } else {
        for (int s = 0; s < n; s++)
            g->hand[s].one = g->hand[s].two = 0;
        for (int k = 0; k < dealt; k++) {
            cards_add(&g->hand[seat], g->deal[k]);
            seat = next_seat(g, seat);
        }
    }
    g->rest_len = (uint8_t)(g->deal_len - dealt);
    g->rest_pos = 0;
    g->rest_owner_pending =
        (r->special & ENGINE_SPECIAL_KITTY) && g->rest_len > 0;
    if (r->pass_count > 0)
        g->pass_dir =
            r->pass_cycle[(g->hand_no - 1) % (unsigned)r->pass_cycle_len];
    else
        g->pass_dir = ENGINE_PASS_HOLD;
    /* the phase first, so that whoever hears of the deal sees the hand
     * as it stands: passing, or who leads */
    if (g->pass_dir == ENGINE_PASS_HOLD)
        begin_play(g);
    else
        g->phase = ENGINE_PHASE_PASS;
    EMIT(sink, g, .kind = ENGINE_EV_DEALT, .seat = g->dealer,
         .value = g->pass_dir);
}

int engine_deal(struct engine_game *g, const struct engine_sink *sink)
{
    if (g->phase != ENGINE_PHASE_DEAL)
        return -1;
    const struct engine_rules *r = g->rules;
    if (g->hand_no > 0)
        g->dealer = (uint8_t)next_seat(g, g->dealer);
    /* Fisher-Yates from the top of the canonical pack, two swaps per
     * 64-bit draw (the high half picks j for i, the low half for i - 1),
     * as docs/engine.md documents so that deals can be reproduced from the
     * seed. Position i is final once swapped, so a one-deck deal builds
     * the hands as it goes: card i goes to the (i mod n)-th seat from the
     * dealer's left. */
    const int len = r->deck_len, n = g->n, dealt = n * r->hand_size;
    uint8_t *d = g->deal;
    memcpy(d, r->deck, (size_t)len);
    struct engine_prng rng = g->rng;
    uint64_t built[ENGINE_MAX_PLAYERS] = {0};
    /* the rest (kitty, widow, stock) first: no hand to build */
    int i = len - 1;
    for (; i >= dealt && i > 0; i -= 2) {
        uint64_t x = engine_prng_next(&rng);
        int j = (int)below_from(&rng, (uint32_t)(x >> 32), (uint32_t)i + 1);
        uint8_t t = d[j];
        d[j] = d[i];
        d[i] = t;
        if (i > 1) {
            j = (int)below_from(&rng, (uint32_t)x, (uint32_t)i);
            t = d[j];
            d[j] = d[i - 1];
            d[i - 1] = t;
            if (i - 1 < dealt) {
                /* the pair straddled the last dealt card */
                built[(i - 1) % n] |= ENGINE_BIT(t);
            }
        }
    }
    for (int pos = i % n; i > 0; i -= 2) {
        uint64_t x = engine_prng_next(&rng);
        int j = (int)below_from(&rng, (uint32_t)(x >> 32), (uint32_t)i + 1);
        uint8_t t = d[j];
        d[j] = d[i];
        d[i] = t;
        built[pos] |= ENGINE_BIT(t);
        pos = pos == 0 ? n - 1 : pos - 1;
        if (i > 1) {
            j = (int)below_from(&rng, (uint32_t)x, (uint32_t)i);
            t = d[j];
            d[j] = d[i - 1];
            d[i - 1] = t;
            built[pos] |= ENGINE_BIT(t);
            pos = pos == 0 ? n - 1 : pos - 1;
        }
    }
    if (dealt > 0)
        built[0] |= ENGINE_BIT(d[0]);
    g->rng = rng;
    g->deal_len = (uint8_t)len;
    deal_cards(g, sink, r->decks == 1 ? built : NULL);
    return 0;
}

int engine_deal_given(struct engine_game *g, int dealer, const uint8_t *cards,
                      int len, const struct engine_sink *sink,
                      struct engine_error *err)
{
    const struct engine_rules *r = g->rules;
    if (g->phase != ENGINE_PHASE_DEAL) {
        FAIL(err, .code = ENGINE_ERR_DEAL_PHASE);
        return -1;
    }
    if (dealer < 0 || dealer >= g->n) {
        FAIL(err, .code = ENGINE_ERR_DEAL_DEALER, .n1 = dealer);
        return -1;
    }
    if (len != r->deck_len) {
        FAIL(err, .code = ENGINE_ERR_DEAL_LENGTH, .n1 = r->deck_len, .n2 = len);
        return -1;
    }
    uint8_t count[64] = {0};
    for (int i = 0; i < len; i++) {
        int c = cards[i];
        if (c >= 64 || !(r->in_play & ENGINE_BIT(c))) {
            FAIL(err, .code = ENGINE_ERR_DEAL_NOT_IN_PACK, .card = c);
            return -1;
        }
        if (++count[c] > r->decks) {
            FAIL(err, .code = ENGINE_ERR_DEAL_TWICE, .card = c);
            return -1;
        }
    }
    g->dealer = (uint8_t)dealer;
    memcpy(g->deal, cards, (size_t)len);
    g->deal_len = (uint8_t)len;
    deal_cards(g, sink, NULL);
    return 0;
}

/* ---- Passing ---------------------------------------------------------- */

int engine_scatter_target(int n, int k, int seat, int i)
{
    int each = n > 1 ? k / (n - 1) : 0;
    return each < 1 ? -1 : (seat + 1 + i / each) % n;
}

int engine_pass_target(const struct engine_game *g, int seat, int dir)
{
    int n = g->n;
    int off;
    switch (dir) {
    case ENGINE_PASS_LEFT:
        off = 1;
        break;
    case ENGINE_PASS_RIGHT:
        off = n - 1;
        break;
    case ENGINE_PASS_ACROSS:
        off = n % 2 ? 2 : n / 2;
        break;
    case ENGINE_PASS_LEFT2:
        off = 2;
        break;
    case ENGINE_PASS_RIGHT2:
        off = n - 2;
        break;
    default:
        return seat;
    }
    assert(n >= 2);
    off = (off % n + n) % n;
    if (off == 0)
        off = 1; /* two players: every direction is the other player */
    return (seat + off) % n;
}

int engine_pass_count(const struct engine_game *g, int seat,
                      bool *blind_allowed)
{
    bool blind = false;
    int count = 0;
    if (g->phase == ENGINE_PHASE_PASS && seat >= 0 && seat < g->n &&
        !(g->passed_mask >> seat & 1)) {
        count = g->rules->pass_count;
        blind = g->rules->pass_blind && g->pass_dir != ENGINE_PASS_SCATTER;
    }
    if (blind_allowed)
        *blind_allowed = blind;
    return count;
}

/* Moves the chosen cards once every seat has chosen. */
static void exchange(struct engine_game *g, const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    int n = g->n, k = r->pass_count;
    if (r->decks == 1 && !g->blind_mask && g->pass_dir != ENGINE_PASS_SCATTER) {
        /* the common case, as masks: everyone gives k cards to one seat */
        int off = engine_pass_target(g, 0, g->pass_dir);
        uint64_t give[ENGINE_MAX_PLAYERS];
        for (int s = 0; s < n; s++) {
            uint64_t m = 0;
            for (int i = 0; i < k; i++)
                m |= ENGINE_BIT(g->pass_cards[s][i]);
            give[s] = m;
            g->hand[s].one &= ~m;
        }
        for (int s = 0, to = off; s < n; s++, to = to + 1 == n ? 0 : to + 1) {
            g->hand[to].one |= give[s];
            /* the whole row in one move: past k it is never read */
            memcpy(g->received[to], g->pass_cards[s], sizeof g->received[to]);
            g->nreceived[to] = (uint8_t)k;
        }
        EMIT(sink, g, .kind = ENGINE_EV_PASSED, .value = g->pass_dir);
        begin_play(g);
        return;
    }
    struct engine_cards add[ENGINE_MAX_PLAYERS];
    memset(add, 0, sizeof add);
    for (int s = 0; s < n; s++) {
        if (g->blind_mask >> s & 1)
            continue;
        for (int i = 0; i < k; i++)
            cards_remove(&g->hand[s], g->pass_cards[s][i]);
    }
    if (g->pass_dir == ENGINE_PASS_SCATTER) {
        assert(n >= 2);
        for (int s = 0; s < n; s++) {
            for (int i = 0; i < k; i++) {
                int to = engine_scatter_target(n, k, s, i);
                assert(to >= 0);
                cards_add(&add[to], g->pass_cards[s][i]);
                g->received[to][g->nreceived[to]++] = g->pass_cards[s][i];
            }
        }
    } else {
        for (int s = 0; s < n; s++) {
            if (g->blind_mask >> s & 1)
                continue;
            /* the cards travel on through seats that pass blind */
            int to = engine_pass_target(g, s, g->pass_dir);
            while ((g->blind_mask >> to & 1) && to != s) {
                memcpy(g->pass_cards[to], g->pass_cards[s], (size_t)k);
                to = engine_pass_target(g, to, g->pass_dir);
            }
            for (int i = 0; i < k; i++) {
                cards_add(&add[to], g->pass_cards[s][i]);
                g->received[to][i] = g->pass_cards[s][i];
            }
            g->nreceived[to] = (uint8_t)k;
        }
    }
    for (int s = 0; s < n; s++)
        cards_merge(&g->hand[s], &add[s]);
    EMIT(sink, g, .kind = ENGINE_EV_PASSED, .value = g->pass_dir);
    begin_play(g);
}

static enum engine_refusal check_cards(const struct engine_game *g, int seat,
                                       const uint8_t *cards, int ncards,
                                       struct engine_refusal_detail *d)
{
    struct engine_cards left = g->hand[seat];
    for (int i = 0; i < ncards; i++) {
        int c = cards[i];
        if (!engine_card_valid(c) || !(g->rules->in_play & ENGINE_BIT(c))) {
            d->card = c;
            return ENGINE_REFUSE_BAD_CARD;
        }
        if (!cards_has(&left, c)) {
            d->card = c;
            return cards_has(&g->hand[seat], c) ? ENGINE_REFUSE_DUPLICATE_CARD
                                                : ENGINE_REFUSE_NOT_IN_HAND;
        }
        cards_remove(&left, c);
    }
    return ENGINE_OK;
}

static enum engine_refusal act_pass(struct engine_game *g,
                                    const struct engine_action *a,
                                    const struct engine_sink *sink,
                                    struct engine_refusal_detail *d)
{
    int s = a->seat;
    if (g->passed_mask >> s & 1)
        return ENGINE_REFUSE_ALREADY_PASSED;
    bool blind_ok;
    int k = engine_pass_count(g, s, &blind_ok);
    if (a->kind == ENGINE_ACT_PASS_BLIND) {
        if (!blind_ok)
            return ENGINE_REFUSE_BLIND_NOT_ALLOWED;
        g->blind_mask |= (uint16_t)(1u << s);
        memset(g->pass_cards[s], ENGINE_NO_CARD, sizeof g->pass_cards[s]);
    } else {
        if (a->ncards != k) {
            d->count = k;
            return ENGINE_REFUSE_PASS_COUNT;
        }
        enum engine_refusal why = check_cards(g, s, a->cards, k, d);
        if (why)
            return why;
        memcpy(g->pass_cards[s], a->cards, (size_t)k);
    }
    g->passed_mask |= (uint16_t)(1u << s);
    EMIT(sink, g, .kind = ENGINE_EV_PASS_CHOSEN, .seat = s,
         .value = a->kind == ENGINE_ACT_PASS_BLIND);
    if (g->passed_mask == (1u << g->n) - 1)
        exchange(g, sink);
    return ENGINE_OK;
}

/* ---- Legal plays ------------------------------------------------------ */

static uint64_t trick_mask(const struct engine_game *g)
{
    return g->trick_cards;
}

static uint64_t lead_legal(const struct engine_game *g, uint64_t h)
{
    return engine_lead_from(g->rules, h,
                            g->nplays == 0 ? g->lead_card : ENGINE_NO_CARD,
                            g->trick_no == 0, g->hearts_broken);
}

uint64_t engine_legal_plays(const struct engine_game *g)
{
    if (g->phase != ENGINE_PHASE_PLAY)
        return 0;
    return engine_legal_now(g);
}

/* Why `card` (held, but not legal) may not be played now. */
static enum engine_refusal explain(const struct engine_game *g, int card,
                                   struct engine_refusal_detail *d)
{
    const struct engine_rules *r = g->rules;
    uint64_t h = g->hand[g->turn].one;
    uint64_t b = ENGINE_BIT(card);
    if (g->trick_len == 0) {
        if (g->nplays == 0 && g->lead_card != ENGINE_NO_CARD) {
            d->card = g->lead_card;
            return ENGINE_REFUSE_MUST_LEAD_CARD;
        }
        uint64_t other = h & ~ENGINE_HEARTS_MASK;
        if ((b & ENGINE_HEARTS_MASK) && !g->hearts_broken && other &&
            r->hearts_lead == ENGINE_HEARTS_BROKEN) {
            if (other == ENGINE_BIT(ENGINE_QS)) {
                d->card = ENGINE_QS;
                return ENGINE_REFUSE_MUST_LEAD_QUEEN;
            }
            return ENGINE_REFUSE_HEARTS_NOT_BROKEN;
        }
        return ENGINE_REFUSE_FIRST_TRICK_POINTS;
    }
    int led = engine_card_suit(g->trick[0]);
    if ((h & ENGINE_SUIT_MASK(led)) && !(b & ENGINE_SUIT_MASK(led))) {
        d->suit = led;
        return ENGINE_REFUSE_MUST_FOLLOW;
    }
    uint64_t legal = engine_legal_plays(g);
    if (legal == ENGINE_BIT(ENGINE_QS) &&
        (r->special & ENGINE_SPECIAL_DUMP_QUEEN)) {
        d->card = ENGINE_QS;
        return ENGINE_REFUSE_MUST_DUMP_QUEEN;
    }
    return ENGINE_REFUSE_FIRST_TRICK_POINTS;
}

/* ---- Tricks ----------------------------------------------------------- */

/* Domino: a seat that cannot follow draws until it can or the stock is
 * out. */
static void domino_draw(struct engine_game *g, const struct engine_sink *sink)
{
    int s = g->turn;
    uint64_t led = ENGINE_SUIT_MASK(engine_card_suit(g->trick[0]));
    while (!(g->hand[s].one & led) && g->rest_pos < g->rest_len) {
        int c = g->deal[g->deal_len - g->rest_len + g->rest_pos++];
        cards_add(&g->hand[s], c);
        EMIT(sink, g, .kind = ENGINE_EV_DRAWN, .seat = s, .card = c);
    }
}

static void draw_one(struct engine_game *g, int seat,
                     const struct engine_sink *sink)
{
    if (g->rest_pos >= g->rest_len)
        return;
    int c = g->deal[g->deal_len - g->rest_len + g->rest_pos++];
    cards_add(&g->hand[seat], c);
    EMIT(sink, g, .kind = ENGINE_EV_DRAWN, .seat = seat, .card = c);
}

/* The winning seat of the complete trick, or ENGINE_NO_SEAT. */
static int trick_winner(const struct engine_game *g)
{
    const struct engine_rules *r = g->rules;
    int led = engine_card_suit(g->trick[0]);
    if (r->special & ENGINE_SPECIAL_CANCEL) {
        uint64_t once = 0, twice = 0;
        for (int i = 0; i < g->trick_len; i++) {
            uint64_t b = ENGINE_BIT(g->trick[i]);
            twice |= once & b;
            once |= b;
        }
        uint64_t live = once & ~twice & ENGINE_SUIT_MASK(led);
        if (!live)
            return ENGINE_NO_SEAT;
        int best = bits_high(live);
        for (int i = 0; i < g->trick_len; i++)
            if (g->trick[i] == best)
                return g->trick_seat[i];
        return ENGINE_NO_SEAT;
    }
    if (r->special & ENGINE_SPECIAL_JOKER) {
        uint64_t m = trick_mask(g);
        if (m & ENGINE_BIT(ENGINE_JOKER)) {
            /* the joker wins unless a heart above it (J, Q, K, A) is on
             * the trick; then the highest heart does */
            uint64_t high = m & ENGINE_SUIT_MASK(ENGINE_HEARTS) &
                            ~ENGINE_BIT(ENGINE_JOKER) &
                            ~((ENGINE_BIT(ENGINE_JH)) - 1);
            int best = high ? bits_high(high) : ENGINE_JOKER;
            for (int i = 0; i < g->trick_len; i++)
                if (g->trick[i] == best)
                    return g->trick_seat[i];
        }
    }
    return g->win_seat;
}

static int rest_points(const struct engine_game *g)
{
    int p = 0;
    const uint8_t *rest = g->deal + g->deal_len - g->rest_len;
    for (int i = 0; i < g->rest_len; i++)
        p += g->rules->points[rest[i]];
    return p;
}

/* Hands the rest (kitty, widow, leftovers) to the trick's winner if the
 * rules say this trick earns it. */
static void take_rest(struct engine_game *g, int w,
                      const struct engine_cards *tc,
                      const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    if (r->odd_cards == ENGINE_ODD_KITTY_FIRST_POINT &&
        !((tc->one | tc->two) & r->penalty))
        return;
    g->rest_owner_pending = 0;
    g->rest_taker = (uint8_t)w;
    const uint8_t *rest = g->deal + g->deal_len - g->rest_len;
    struct engine_cards rc = {0, 0};
    for (int i = 0; i < g->rest_len; i++)
        cards_add(&rc, rest[i]);
    if (r->odd_cards == ENGINE_ODD_KITTY_EXCHANGE) {
        cards_merge(&g->hand[w], &rc);
        g->phase = ENGINE_PHASE_DISCARD;
        g->turn = (uint8_t)w;
    } else {
        cards_merge(&g->taken[w], &rc);
        if (r->odd_cards == ENGINE_ODD_FACEUP_LEFTOVER)
            g->hand_points[w] += rest_points(g);
    }
    EMIT(sink, g, .kind = ENGINE_EV_REST_TAKEN, .seat = w, .cards = rc.one,
         .cards2 = rc.two);
}

/* The end of a hand after this trick? Then score it. Otherwise the
 * winner (or the player after it, in Domino) leads on. */
static void after_trick(struct engine_game *g, int w,
                        const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    bool over;
    if (r->special & ENGINE_SPECIAL_TWO_HANDED) {
        if (w != ENGINE_NO_SEAT) {
            draw_one(g, w, sink);
            draw_one(g, next_seat(g, w), sink);
        }
        over = !g->hand[g->leader].one;
    } else if (r->special & ENGINE_SPECIAL_DOMINO) {
        for (int s = 0; s < g->n; s++) {
            if ((g->in_mask >> s & 1) && !g->hand[s].one) {
                g->in_mask &= (uint16_t) ~(1u << s);
                EMIT(sink, g, .kind = ENGINE_EV_OUT, .seat = s);
            }
        }
        over = bits_count(g->in_mask) <= 1;
        if (!over && !(g->in_mask >> g->leader & 1))
            g->leader = (uint8_t)next_in(g, g->leader);
    } else {
        over = g->trick_no == r->hand_size;
    }
    if (over) {
        engine_score_hand(g, sink);
        return;
    }
    if (g->phase == ENGINE_PHASE_PLAY)
        start_trick(g);
}

static void finish_trick(struct engine_game *g, const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    int w = (r->special & (ENGINE_SPECIAL_CANCEL | ENGINE_SPECIAL_JOKER))
                ? trick_winner(g)
                : g->win_seat;
    struct engine_cards tc = {g->trick_cards, 0};
    if (r->decks == 2) {
        tc.one = 0;
        for (int i = 0; i < g->trick_len; i++)
            cards_add(&tc, g->trick[i]);
    }
    g->trick_no++;
    g->trick_len = 0;
    g->trick_cards = 0;
    if (w == ENGINE_NO_SEAT) {
        /* cancelled: set aside for the next trick's winner; the leader
         * leads again */
        cards_merge(&g->aside, &tc);
        g->aside_tricks++;
        EMIT(sink, g, .kind = ENGINE_EV_TRICK, .seat = ENGINE_NO_SEAT,
             .cards = tc.one, .cards2 = tc.two);
        after_trick(g, w, sink);
        return;
    }
    if (g->aside.one) {
        cards_merge(&tc, &g->aside);
        g->aside.one = g->aside.two = 0;
    }
    if (r->decks == 1)
        g->taken[w].one |= tc.one;
    else
        cards_merge(&g->taken[w], &tc);
    int pts = cards_points(r, &tc);
    g->hand_points[w] += pts;
    /* set-aside tricks count as taken by whoever collects them (the sun) */
    g->tricks[w] += (uint8_t)(1 + g->aside_tricks);
    g->aside_tricks = 0;
    g->leader = (uint8_t)w;
    EMIT(sink, g, .kind = ENGINE_EV_TRICK, .seat = w, .cards = tc.one,
         .cards2 = tc.two, .value = pts);
    if (g->rest_owner_pending)
        take_rest(g, w, &tc, sink);
    after_trick(g, w, sink);
}

/* The end of a trick under plain rules (one deck, no joker, no stock, no
 * kitty waiting): the highest card of the suit led takes it. */
static void plain_trick_end(struct engine_game *g,
                            const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    int w = g->win_seat;
    uint64_t tc = g->trick_cards;
    int pts = set_points(r, tc);
    g->taken[w].one |= tc;
    g->tricks[w]++;
    g->hand_points[w] += pts;
    g->leader = (uint8_t)w;
    g->trick_no++;
    g->trick_len = 0;
    g->trick_cards = 0;
    EMIT(sink, g, .kind = ENGINE_EV_TRICK, .seat = w, .cards = tc,
         .value = pts);
    if (g->trick_no == r->hand_size) {
        engine_score_hand(g, sink);
        return;
    }
    g->turn = (uint8_t)w;
}

void engine_trick_end(struct engine_game *g, const struct engine_sink *sink)
{
    if ((g->rules->special & ENGINE_SPECIAL_TRICK_END) || g->rest_owner_pending)
        finish_trick(g, sink);
    else
        plain_trick_end(g, sink);
}

void engine_domino_turn(struct engine_game *g, int s,
                        const struct engine_sink *sink)
{
    g->turn = (uint8_t)next_in(g, s);
    domino_draw(g, sink);
}

/* Why a card that is not in the hand (or no card) cannot be played. */
static enum engine_refusal not_held(const struct engine_game *g, int card,
                                    struct engine_refusal_detail *d)
{
    d->card = card;
    if (card < 0 || card >= 64 || !(g->rules->in_play & ENGINE_BIT(card)))
        return ENGINE_REFUSE_BAD_CARD;
    return ENGINE_REFUSE_NOT_IN_HAND;
}

/* The play loop's inner step: checks and plays one card of the seat to
 * play. The common case (following or leading under plain rules) costs a
 * few instructions; anything unusual takes the slower exact paths. */
static enum engine_refusal act_play(struct engine_game *g, int card,
                                    const struct engine_sink *sink,
                                    struct engine_refusal_detail *d)
{
    const struct engine_rules *r = g->rules;
    int s = g->turn;
    uint64_t h = g->hand[s].one;
    uint64_t b = (unsigned)card < 64 ? ENGINE_BIT(card) : 0;
    if (!(h & b))
        return not_held(g, card, d);
    int i = g->trick_len;
    if (i == 0) {
        if (!(lead_legal(g, h) & b))
            return explain(g, card, d);
    } else {
        uint64_t follow = h & g->led_mask;
        if (follow && !(follow & b)) {
            d->suit = engine_card_suit(g->trick[0]);
            return ENGINE_REFUSE_MUST_FOLLOW;
        }
        if ((r->special &
             (ENGINE_SPECIAL_FIRST_TRICK | ENGINE_SPECIAL_DUMP_QUEEN)) &&
            !(engine_legal_plays(g) & b))
            return explain(g, card, d);
    }

    engine_play_step(g, s, card, sink);
    return ENGINE_OK;
}

static enum engine_refusal act_discard(struct engine_game *g,
                                       const struct engine_action *a,
                                       const struct engine_sink *sink,
                                       struct engine_refusal_detail *d)
{
    int s = g->turn;
    int k = g->rest_len;
    if (a->ncards != k) {
        d->count = k;
        return ENGINE_REFUSE_PASS_COUNT;
    }
    enum engine_refusal why = check_cards(g, s, a->cards, k, d);
    if (why)
        return why;
    struct engine_cards dc = {0, 0};
    for (int i = 0; i < k; i++) {
        cards_remove(&g->hand[s], a->cards[i]);
        cards_add(&dc, a->cards[i]);
        g->discard[i] = a->cards[i];
    }
    g->ndiscard = (uint8_t)k;
    cards_merge(&g->taken[s], &dc);
    EMIT(sink, g, .kind = ENGINE_EV_DISCARDED, .seat = s, .cards = dc.one,
         .cards2 = dc.two);
    g->phase = ENGINE_PHASE_PLAY;
    if (!g->hand[s].one) {
        engine_score_hand(g, sink);
        return ENGINE_OK;
    }
    start_trick(g);
    return ENGINE_OK;
}

enum engine_refusal engine_act(struct engine_game *g,
                               const struct engine_action *a,
                               const struct engine_sink *sink,
                               struct engine_refusal_detail *detail)
{
    struct engine_refusal_detail dummy = {0, 0, 0, 0};
    struct engine_refusal_detail *d = detail ? detail : &dummy;
    d->seat = ENGINE_NO_SEAT;
    d->card = ENGINE_NO_CARD;
    d->suit = -1;
    d->count = 0;
    if (a->seat >= g->n)
        return ENGINE_REFUSE_BAD_ACTION;
    switch (a->kind) {
    case ENGINE_ACT_PASS:
    case ENGINE_ACT_PASS_BLIND:
        if (g->phase != ENGINE_PHASE_PASS)
            return ENGINE_REFUSE_WRONG_PHASE;
        if (a->kind == ENGINE_ACT_PASS && a->ncards > ENGINE_MAX_ACT_CARDS)
            return ENGINE_REFUSE_BAD_ACTION;
        return act_pass(g, a, sink, d);
    case ENGINE_ACT_PLAY:
        if (g->phase != ENGINE_PHASE_PLAY)
            return ENGINE_REFUSE_WRONG_PHASE;
        if (a->seat != g->turn) {
            d->seat = g->turn;
            return ENGINE_REFUSE_NOT_YOUR_TURN;
        }
        return act_play(g, a->cards[0], sink, d);
    case ENGINE_ACT_DISCARD:
        if (g->phase != ENGINE_PHASE_DISCARD)
            return ENGINE_REFUSE_WRONG_PHASE;
        if (a->seat != g->turn) {
            d->seat = g->turn;
            return ENGINE_REFUSE_NOT_YOUR_TURN;
        }
        if (a->ncards > ENGINE_MAX_ACT_CARDS)
            return ENGINE_REFUSE_BAD_ACTION;
        return act_discard(g, a, sink, d);
    case ENGINE_ACT_MOON:
        if (g->phase != ENGINE_PHASE_MOON)
            return ENGINE_REFUSE_WRONG_PHASE;
        if (a->seat != g->turn) {
            d->seat = g->turn;
            return ENGINE_REFUSE_NOT_SHOOTER;
        }
        if (a->moon != ENGINE_MOON_SUBTRACT &&
            a->moon != ENGINE_MOON_ADD_OTHERS)
            return ENGINE_REFUSE_BAD_MOON_CHOICE;
        engine_score_moon_choice(g, a->moon, sink);
        return ENGINE_OK;
    }
    return ENGINE_REFUSE_BAD_ACTION;
}

enum engine_refusal engine_play(struct engine_game *g, int card,
                                const struct engine_sink *sink,
                                struct engine_refusal_detail *detail)
{
    struct engine_refusal_detail dummy = {0, 0, 0, 0};
    struct engine_refusal_detail *d = detail ? detail : &dummy;
    if (g->phase != ENGINE_PHASE_PLAY)
        return ENGINE_REFUSE_WRONG_PHASE;
    return act_play(g, card, sink, d);
}

/* ---- Simulation ------------------------------------------------------- */

void engine_random_cards(struct engine_prng *rng, struct engine_cards h, int k,
                         uint8_t *cards)
{
    for (int i = 0; i < k; i++) {
        uint32_t ones = (uint32_t)bits_count(h.one);
        uint32_t pick =
            engine_prng_below(rng, ones + (uint32_t)bits_count(h.two));
        int c =
            pick < ones ? bits_nth(h.one, pick) : bits_nth(h.two, pick - ones);
        cards[i] = (uint8_t)c;
        cards_remove(&h, c);
    }
}

void engine_pass_random(struct engine_game *g, struct engine_prng *rng,
                        const struct engine_sink *sink)
{
    if (g->phase != ENGINE_PHASE_PASS)
        return;
    const int k = g->rules->pass_count, decks = g->rules->decks;
    struct engine_prng local = *rng;
    struct quarter_draws q = {0, 0};
    for (int s = 0; s < g->n; s++) {
        if (g->passed_mask >> s & 1)
            continue;
        if (decks == 1) {
            uint64_t h = g->hand[s].one;
            for (int i = 0; i < k; i++) {
                int c = engine_pick_16(&local, engine_quarter(&local, &q), h);
                h &= ~ENGINE_BIT(c);
                g->pass_cards[s][i] = (uint8_t)c;
            }
        } else {
            engine_random_cards(&local, g->hand[s], k, g->pass_cards[s]);
        }
        g->passed_mask |= (uint16_t)(1u << s);
        EMIT(sink, g, .kind = ENGINE_EV_PASS_CHOSEN, .seat = s);
    }
    *rng = local;
    exchange(g, sink);
}

/* What the playout loop knows of the hand: the hands in play, and the
 * trick being played. */
struct loop_state {
    uint64_t hand[ENGINE_MAX_PLAYERS];
    uint64_t led;      /* the suit led */
    uint64_t win;      /* the winning card, as a bit */
    uint64_t on_trick; /* the cards on the trick */
    int win_seat;
    int np; /* plays so far */
    uint8_t led_suit;
    bool broken;
};

/* Seat s plays a card of `legal` chosen from 16 random bits x; returns
 * it. */
static inline __attribute__((always_inline)) int
take_card(struct engine_game *g, struct loop_state *t, int s, uint32_t x,
          uint64_t legal, struct engine_prng *rng)
{
    int card = engine_pick_16(rng, x, legal);
    t->hand[s] &= ~ENGINE_BIT(card);
    g->plays[t->np] = (uint8_t)card;
    g->play_seat[t->np] = (uint8_t)s;
    t->np++;
    return card;
}

/* The playout's lead by seat s, from 16 random bits x. */
static inline __attribute__((always_inline)) void
lead_card(struct engine_game *g, struct loop_state *t, int s, uint32_t x,
          bool first_trick, struct engine_prng *rng)
{
    uint64_t legal = engine_lead_from(g->rules, t->hand[s], ENGINE_NO_CARD,
                                      first_trick, t->broken);
    int card = take_card(g, t, s, x, legal, rng);
    uint64_t b = ENGINE_BIT(card);
    t->led = ENGINE_SUIT_MASK(engine_card_suit(card));
    t->led_suit = (uint8_t)(1u << engine_card_suit(card));
    t->win = t->on_trick = b;
    t->win_seat = s;
}

/* The playout's card by seat s after the lead: the winner is the highest
 * card of the suit led, compared as bits (one test for following and
 * winning). */
static inline __attribute__((always_inline)) void
follow_card(struct engine_game *g, struct loop_state *t, int s, uint32_t x,
            bool first_trick, struct engine_prng *rng, const bool narrow)
{
    uint64_t h = t->hand[s];
    uint64_t follow = h & t->led;
    uint64_t legal = follow ? follow : h;
    if (narrow)
        legal = engine_follow_from(g->rules, legal, follow == 0, first_trick,
                                   t->led, t->on_trick);
    uint64_t b = ENGINE_BIT(take_card(g, t, s, x, legal, rng));
    if ((b & t->led) > t->win) {
        t->win = b;
        t->win_seat = s;
    }
    if (!follow)
        g->voids[s] |= t->led_suit;
    t->on_trick |= b;
}

/* The end of the playout's trick: the winner takes it and leads. Hearts
 * are broken, for the next lead, by the cards of a finished trick. */
static inline __attribute__((always_inline)) int
end_trick(struct engine_game *g, struct loop_state *t)
{
    g->taken[t->win_seat].one |= t->on_trick;
    g->tricks[t->win_seat]++;
    t->broken |= (t->on_trick & g->rules->breaks) != 0;
    return t->win_seat;
}

/*
 * The playout loop for plain trick rules (one deck, no joker, no stock, no
 * kitty): the state that changes every card lives in locals, so the
 * compiler keeps it in registers, and is written back once. A trick is a
 * lead and then the followers, so the loop never asks which it is; with
 * four players (the common game) every whole trick is one 64-bit draw, 16
 * bits a card, and its four cards are played without a loop. The legal
 * plays come from the same engine_lead_from/engine_follow_from as engine_play,
 * and the unit tests check that a playout and the checked plays of the same
 * cards leave identical games. `narrow` is a constant in each instance, so the
 * plain rules pay nothing for first_trick_points and dump_queen.
 */
static inline __attribute__((always_inline)) void
playout_loop(struct engine_game *g, struct engine_prng *rngp, const bool narrow)
{
    const struct engine_rules *r = g->rules;
    const int n = g->n, size = r->hand_size;
    struct engine_prng rng = *rngp;
    struct quarter_draws q = {0, 0};
    struct loop_state t;
    uint8_t next[ENGINE_MAX_PLAYERS];
    for (int s = 0; s < n; s++) {
        t.hand[s] = g->hand[s].one;
        next[s] = (uint8_t)(s + 1 == n ? 0 : s + 1);
    }
    int turn = g->turn, pos = g->trick_len;
    int tricks_left = size - g->trick_no;
    t.np = g->nplays;
    t.win_seat = g->win_seat;
    t.win = pos ? ENGINE_BIT(g->win_card) : 0;
    t.broken = g->hearts_broken;
    t.led = g->led_mask;
    t.on_trick = pos ? g->trick_cards : 0;
    t.led_suit = pos ? (uint8_t)(1u << engine_card_suit(g->trick[0])) : 0;
    /* any number of players, and the rest of a trick begun */
    while (tricks_left > 0 && (pos > 0 || n != 4)) {
        if (pos == 0) {
            lead_card(g, &t, turn, engine_quarter(&rng, &q),
                      tricks_left == size, &rng);
            turn = next[turn];
            pos = 1;
        }
        for (; pos < n; pos++) {
            // cppcheck-suppress uninitvar ; hand[0..n) is filled above
            follow_card(g, &t, turn, engine_quarter(&rng, &q),
                        tricks_left == size, &rng, narrow);
            turn = next[turn];
        }
        turn = end_trick(g, &t);
        tricks_left--;
        pos = 0;
    }
    /* four players, whole tricks */
    while (tricks_left > 0) {
        uint64_t x = engine_prng_next(&rng);
        bool first = tricks_left == size;
        lead_card(g, &t, turn, (uint32_t)x & 0xffff, first, &rng);
        follow_card(g, &t, (turn + 1) & 3, (uint32_t)(x >> 16) & 0xffff, first,
                    &rng, narrow);
        follow_card(g, &t, (turn + 2) & 3, (uint32_t)(x >> 32) & 0xffff, first,
                    &rng, narrow);
        follow_card(g, &t, (turn + 3) & 3, (uint32_t)(x >> 48), first, &rng,
                    narrow);
        turn = end_trick(g, &t);
        tricks_left--;
    }
    /* what the loop left for the end: the hands, the last trick as it
     * lay, and the points each seat took (public, for views) */
    const int np = t.np;
    for (int s = 0; s < n; s++) {
        g->hand[s].one = t.hand[s];
        g->hand_points[s] = set_points(r, g->taken[s].one);
    }
    memcpy(g->trick, g->plays + np - n, (size_t)n);
    memcpy(g->trick_seat, g->play_seat + np - n, (size_t)n);
    g->turn = g->leader = (uint8_t)turn;
    g->trick_len = 0;
    g->trick_cards = 0;
    g->nplays = (uint16_t)np;
    g->trick_no = (uint8_t)size;
    g->win_card = (uint8_t)bits_low(t.win);
    g->win_seat = (uint8_t)t.win_seat;
    g->led_mask = t.led;
    g->hearts_broken = t.broken;
    *rngp = rng;
    engine_score_hand_counted(g, NULL);
}

static void playout_plain(struct engine_game *g, struct engine_prng *rng)
{
    /* the forced first lead (2C) is the checked path's business */
    if (g->nplays == 0 && g->lead_card != ENGINE_NO_CARD)
        engine_play_step(g, g->turn, g->lead_card, NULL);
    if (g->rules->special &
        (ENGINE_SPECIAL_FIRST_TRICK | ENGINE_SPECIAL_DUMP_QUEEN))
        playout_loop(g, rng, true);
    else
        playout_loop(g, rng, false);
}

void engine_playout(struct engine_game *g, struct engine_prng *rng)
{
    if (g->phase == ENGINE_PHASE_PLAY &&
        !(g->rules->special &
          (ENGINE_SPECIAL_TRICK_END | ENGINE_SPECIAL_KITTY)))
        playout_plain(g, rng);
    for (;;) {
        /* a local copy of the generator stays in registers */
        struct engine_prng local = *rng;
        while (g->phase == ENGINE_PHASE_PLAY)
            engine_play_step(g, g->turn,
                             bits_random(&local, engine_legal_now(g)), NULL);
        *rng = local;
        if (g->phase == ENGINE_PHASE_DISCARD) {
            struct engine_action a = {.kind = ENGINE_ACT_DISCARD,
                                      .seat = g->turn,
                                      .ncards = g->rest_len};
            engine_random_cards(rng, g->hand[g->turn], g->rest_len, a.cards);
            act_discard(g, &a, NULL, &(struct engine_refusal_detail){0});
        } else if (g->phase == ENGINE_PHASE_MOON) {
            engine_score_moon_choice(g, engine_moon_default(g), NULL);
        } else {
            return;
        }
    }
}

/* ---- Reading ---------------------------------------------------------- */

int engine_turn(const struct engine_game *g)
{
    switch (g->phase) {
    case ENGINE_PHASE_PLAY:
    case ENGINE_PHASE_DISCARD:
    case ENGINE_PHASE_MOON:
        return g->turn;
    default:
        return ENGINE_NO_SEAT;
    }
}

bool engine_may_act(const struct engine_game *g, int seat)
{
    if (seat < 0 || seat >= g->n)
        return false;
    if (g->phase == ENGINE_PHASE_PASS)
        return !(g->passed_mask >> seat & 1);
    return engine_turn(g) == seat;
}

int engine_discard_count(const struct engine_game *g)
{
    return g->phase == ENGINE_PHASE_DISCARD ? g->rest_len : 0;
}

struct engine_cards engine_hand(const struct engine_game *g, int seat)
{
    struct engine_cards none = {0, 0};
    return seat >= 0 && seat < g->n ? g->hand[seat] : none;
}

int engine_passed_cards(const struct engine_game *g, int seat, uint8_t *cards)
{
    if (seat < 0 || seat >= g->n || !(g->passed_mask >> seat & 1))
        return 0;
    int k = g->rules->pass_count;
    if (g->pass_cards[seat][0] == ENGINE_NO_CARD)
        return 0; /* blind, and nothing reached it */
    memcpy(cards, g->pass_cards[seat], (size_t)k);
    return k;
}

int engine_received_cards(const struct engine_game *g, int seat, uint8_t *cards)
{
    if (seat < 0 || seat >= g->n)
        return 0;
    memcpy(cards, g->received[seat], g->nreceived[seat]);
    return g->nreceived[seat];
}

const uint8_t *engine_deal_order(const struct engine_game *g, int *len)
{
    *len = g->deal_len;
    return g->deal;
}

const uint8_t *engine_rest(const struct engine_game *g, int *len)
{
    *len = g->rest_len;
    return g->deal + g->deal_len - g->rest_len;
}
