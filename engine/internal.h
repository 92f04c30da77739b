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

/* A uniformly chosen card of a non-empty set. */
static inline int bits_random(struct engine_prng *rng, uint64_t set)
{
    return bits_nth(set, engine_prng_below(rng, (uint32_t)bits_count(set)));
}

/*
 * Plays `card` for the seat to play in PLAY, as engine_play does but
 * without its checks, no events: the card must be one of
 * engine_legal_plays(g). For simulations that choose their own cards (the
 * searching levels' playouts); tests/unit/engine/test_playout.c checks it
 * against engine_play under every preset.
 */
void engine_play_unchecked(struct engine_game *g, int card);

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

#endif
