/*
 * Helpers shared by the engine's source files and nothing else: bit tricks
 * on card sets and multisets, and the names tables.
 */
#ifndef HEARTS_ENGINE_INTERNAL_H
#define HEARTS_ENGINE_INTERNAL_H

#include "engine/engine.h"

#define ENGINE_HEARTS_MASK ENGINE_SUIT_MASK(ENGINE_HEARTS)

static inline int bits_count(uint64_t x)
{
#if defined(__POPCNT__)
    return __builtin_popcountll(x);
#else
    /* without the instruction, inline bit-slicing beats libgcc's call */
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) +
        ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
#endif
}

static inline int bits_low(uint64_t x)
{
    return __builtin_ctzll(x);
}

static inline int bits_high(uint64_t x)
{
    return 63 - __builtin_clzll(x);
}

/* The k-th lowest set bit of x (k < popcount(x)). */
static inline int bits_nth(uint64_t x, unsigned k)
{
#if defined(__BMI2__)
    return __builtin_ctzll(__builtin_ia32_pdep_di(UINT64_C(1) << k, x));
#else
    while (k--)
        x &= x - 1;
    return __builtin_ctzll(x);
#endif
}

/* A uniform integer below bound (at most 2^16), from 16 random bits x:
 * Lemire's bounded integer, exact at this width (a biased product draws
 * again, from the top 16 bits of the next 64 bits). For the random passes,
 * the playouts and the sampler's plain deal, which use a 64-bit draw for
 * several choices. */
static inline uint32_t engine_below_16(struct engine_prng *rng, uint32_t x,
                                       uint32_t bound)
{
    uint32_t m = x * bound;
    if ((m & 0xffff) < bound) {
        uint32_t threshold = (0x10000 - bound) % bound;
        while ((m & 0xffff) < threshold)
            m = (uint32_t)(engine_prng_next(rng) >> 48) * bound;
    }
    return m >> 16;
}

/* A uniformly chosen card of a non-empty set, from 16 random bits x. */
static inline int engine_pick_16(struct engine_prng *rng, uint32_t x,
                                 uint64_t set)
{
    return bits_nth(set, engine_below_16(rng, x, (uint32_t)bits_count(set)));
}

/* Random numbers 16 bits at a time, four to a 64-bit draw, for random
 * passes, playouts and the sampler's plain deal: Lemire's bounded integer is
 * exact at any width (a biased product draws again, from fresh bits), and with
 * at most 64 cards to choose from it draws again less than once in a thousand
 * picks. */
struct quarter_draws {
    uint64_t bits;
    int left;
};

/* The next 16 random bits. */
static inline uint32_t engine_quarter(struct engine_prng *rng,
                                      struct quarter_draws *q)
{
    if (q->left == 0) {
        q->bits = engine_prng_next(rng);
        q->left = 4;
    }
    uint32_t x = (uint32_t)(q->bits & 0xffff);
    q->bits >>= 16;
    q->left--;
    return x;
}

/* A uniformly chosen card of a non-empty set. */
static inline int bits_random(struct engine_prng *rng, uint64_t set)
{
    return bits_nth(set, engine_prng_below(rng, (uint32_t)bits_count(set)));
}

/* `k` cards of a hand chosen uniformly (with two decks each copy is a
 * card of its own), into cards[]. */
void engine_random_cards(struct engine_prng *rng, struct engine_cards h, int k,
                         uint8_t *cards);

/* Adds one copy of a card to a multiset. */
static inline void cards_add(struct engine_cards *s, int card)
{
    uint64_t b = ENGINE_BIT(card);
    s->two |= s->one & b;
    s->one |= b;
}

/* Removes one copy; the card must be there. */
static inline void cards_remove(struct engine_cards *s, int card)
{
    uint64_t b = ENGINE_BIT(card);
    if (s->two & b)
        s->two &= ~b;
    else
        s->one &= ~b;
}

/* How many copies of card the multiset holds (0, 1, 2). */
static inline int cards_has(const struct engine_cards *s, int card)
{
    uint64_t b = ENGINE_BIT(card);
    return ((s->one & b) != 0) + ((s->two & b) != 0);
}

/* Adds a whole multiset; copies beyond two cannot occur in a game. */
static inline void cards_merge(struct engine_cards *s,
                               const struct engine_cards *t)
{
    uint64_t both = s->one & t->one;
    s->two |= t->two | both;
    s->one |= t->one;
}

/* The points of a set of distinct cards under the rules. */
static inline int set_points(const struct engine_rules *r, uint64_t set)
{
    int p = 0;
    for (int k = 0; k < r->nclasses; k++)
        p += r->class_value[k] * bits_count(set & r->class_mask[k]);
    return p;
}

/* The points of a multiset of cards under the rules. */
static inline int cards_points(const struct engine_rules *r,
                               const struct engine_cards *c)
{
    int p = 0;
    for (int k = 0; k < r->nclasses; k++)
        p += r->class_value[k] * (bits_count(c->one & r->class_mask[k]) +
                                  bits_count(c->two & r->class_mask[k]));
    return p;
}

/* What an error names besides its code: the fields of engine_error, the
 * words as pointers (NULL: none). */
struct engine_fail {
    enum engine_error_code code;
    int option, preset, card, n1, n2, n3;
    const char *word, *near;
};

/* Fills an optional error (NULL: nothing), cutting the words to fit. */
void engine_fail(struct engine_error *err, struct engine_fail f);
/* FAIL(err, .code = ENGINE_ERR_..., .word = w, ...) */
#define FAIL(err, ...) engine_fail((err), (struct engine_fail){__VA_ARGS__})

/* Emits an event to an optional sink. */
#define EMIT(sink, g, ...)                                                     \
    do {                                                                       \
        if (sink) {                                                            \
            struct engine_event ev_ = {__VA_ARGS__};                           \
            (sink)->emit((sink)->ctx, (g), &ev_);                              \
        }                                                                      \
    } while (0)

/* The nearest of `count` names (NULL-terminated or counted) to word. */
const char *engine_nearest(const char *word, const char *const *names,
                           int count);

/* The name of a pass direction ("left"). */
const char *engine_pass_dir_name(int dir);

/* ---- The play step, shared by game.c and the searching levels ---------- */

/*
 * The legal leads from hand h. `forced` is the first lead's forced card
 * (before any card of the hand is played) or ENGINE_NO_CARD. Pure, so
 * that the checked play and the playout loop share one rule.
 */
static inline uint64_t engine_lead_from(const struct engine_rules *r,
                                        uint64_t h, int forced,
                                        bool first_trick, bool broken)
{
    if (forced != ENGINE_NO_CARD)
        return ENGINE_BIT(forced);
    uint64_t c = h;
    if (r->hearts_lead == ENGINE_HEARTS_BROKEN && !broken) {
        uint64_t other = h & ~ENGINE_HEARTS_MASK;
        if (other &&
            !(other == ENGINE_BIT(ENGINE_QS) && r->lead_hearts_over_queen))
            c = other;
    }
    if ((r->special & ENGINE_SPECIAL_FIRST_TRICK) && first_trick) {
        uint64_t clean = c & ~r->penalty;
        if (clean)
            c = clean;
    }
    return c;
}

/*
 * The options that narrow a follower's choice c (first_trick_points,
 * dump_queen); `led` is the suit led, `on_trick` the cards on the trick.
 */
static inline uint64_t engine_follow_from(const struct engine_rules *r,
                                          uint64_t c, bool void_in_led,
                                          bool first_trick, uint64_t led,
                                          uint64_t on_trick)
{
    if ((r->special & ENGINE_SPECIAL_FIRST_TRICK) && first_trick) {
        uint64_t clean = c & ~r->penalty;
        if (clean)
            c = clean;
    }
    if ((r->special & ENGINE_SPECIAL_DUMP_QUEEN) &&
        (c & ENGINE_BIT(ENGINE_QS))) {
        bool safe = void_in_led;
        if (!safe && led == ENGINE_SUIT_MASK(ENGINE_SPADES))
            safe = (on_trick &
                    (ENGINE_BIT(ENGINE_AS) | ENGINE_BIT(ENGINE_KS))) != 0;
        if (safe)
            c = ENGINE_BIT(ENGINE_QS);
    }
    return c;
}

/* The legal plays of the seat to play; the phase must be PLAY. */
static inline uint64_t engine_legal_now(const struct engine_game *g)
{
    uint64_t h = g->hand[g->turn].one;
    if (g->trick_len == 0)
        return engine_lead_from(g->rules, h,
                                g->nplays == 0 ? g->lead_card : ENGINE_NO_CARD,
                                g->trick_no == 0, g->hearts_broken);
    uint64_t follow = h & g->led_mask;
    uint64_t c = follow ? follow : h;
    if (g->rules->special &
        (ENGINE_SPECIAL_FIRST_TRICK | ENGINE_SPECIAL_DUMP_QUEEN))
        c = engine_follow_from(g->rules, c, follow == 0, g->trick_no == 0,
                               g->led_mask, g->trick_cards);
    return c;
}

/* The end of a complete trick: its winner takes it, and the hand goes on
 * or is scored (game.c). */
void engine_trick_end(struct engine_game *g, const struct engine_sink *sink);

/* Domino: the turn passes to the next seat still in the hand after s,
 * which draws until it can follow (game.c). */
void engine_domino_turn(struct engine_game *g, int s,
                        const struct engine_sink *sink);

/* Plays a card seat s holds and may play: the one step every play takes,
 * checked (engine_play) or not (the playouts of engine_playout and of the
 * searching levels). Inline so that a NULL sink and the plain rules fold
 * away in a playout loop. */
static inline __attribute__((always_inline)) void
engine_play_step(struct engine_game *g, int s, int card,
                 const struct engine_sink *sink)
{
    const struct engine_rules *r = g->rules;
    const uint32_t special = r->special;
    const uint64_t b = ENGINE_BIT(card);
    const int i = g->trick_len;
    const int np = g->nplays;
    if (r->decks == 1)
        g->hand[s].one &= ~b;
    else
        cards_remove(&g->hand[s], card);
    g->trick_len = (uint8_t)(i + 1);
    g->trick[i] = (uint8_t)card;
    g->trick_seat[i] = (uint8_t)s;
    g->trick_cards |= b;
    g->plays[np] = (uint8_t)card;
    g->play_seat[np] = (uint8_t)s;
    g->nplays = (uint16_t)(np + 1);
    g->hearts_broken |= (b & r->breaks) != 0;
    if (i == 0) {
        g->win_card = (uint8_t)card;
        g->win_seat = (uint8_t)s;
        g->led_mask = ENGINE_SUIT_MASK(engine_card_suit(card));
    } else if (b & g->led_mask) {
        if (card > g->win_card) {
            g->win_card = (uint8_t)card;
            g->win_seat = (uint8_t)s;
        }
    } else {
        g->voids[s] |= (uint8_t)(1u << engine_card_suit(g->trick[0]));
    }
    EMIT(sink, g, .kind = ENGINE_EV_PLAYED, .seat = s, .card = card);
    if (i + 1 == g->trick_size) {
        engine_trick_end(g, sink);
        return;
    }
    if (special & ENGINE_SPECIAL_DOMINO) {
        engine_domino_turn(g, s, sink);
    } else {
        g->turn = (uint8_t)(s + 1 == g->n ? 0 : s + 1);
    }
}

#endif
