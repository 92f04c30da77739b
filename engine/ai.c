/*
 * Computer players (see ai.h). The random level lives here; the easy level
 * is in ai_easy.c.
 */
#include "ai_internal.h"
#include "internal.h"

#include <string.h>
#include <strings.h>

static const char *const level_names[AI_LEVEL_COUNT] = {"random", "easy"};

const char *ai_level_name(int level)
{
    return level >= 0 && level < AI_LEVEL_COUNT ? level_names[level] : NULL;
}

int ai_level_find(const char *name)
{
    for (int i = 0; i < AI_LEVEL_COUNT; i++)
        if (strcasecmp(level_names[i], name) == 0)
            return i;
    return -1;
}

/* A uniformly chosen card of a non-empty set. */
static int random_card(struct engine_prng *rng, uint64_t set)
{
    uint32_t k = engine_prng_below(rng, (uint32_t)bits_count(set));
    while (k--)
        set &= set - 1;
    return bits_low(set);
}

/* `k` distinct cards of the hand, chosen uniformly (two decks: copies are
 * drawn as separate cards). */
static void random_cards(struct engine_prng *rng, struct engine_cards h, int k,
                         struct engine_action *a)
{
    a->ncards = (uint8_t)k;
    for (int i = 0; i < k; i++) {
        uint32_t total = (uint32_t)engine_cards_count(&h);
        uint32_t pick = engine_prng_below(rng, total);
        uint32_t ones = (uint32_t)bits_count(h.one);
        int c = pick < ones ? random_card(rng, h.one) : random_card(rng, h.two);
        a->cards[i] = (uint8_t)c;
        cards_remove(&h, c);
    }
}

static int decide_random(const struct engine_view *v, struct engine_prng *rng,
                         struct engine_action *a)
{
    switch (v->phase) {
    case ENGINE_PHASE_PASS:
        if (v->pass_count == 0)
            return -1;
        a->kind = ENGINE_ACT_PASS;
        random_cards(rng, v->hand, v->pass_count, a);
        return 0;
    case ENGINE_PHASE_PLAY:
        if (!v->legal)
            return -1;
        a->kind = ENGINE_ACT_PLAY;
        a->ncards = 1;
        a->cards[0] = (uint8_t)random_card(rng, v->legal);
        return 0;
    case ENGINE_PHASE_DISCARD:
        if (!v->discard_count)
            return -1;
        a->kind = ENGINE_ACT_DISCARD;
        random_cards(rng, v->hand, v->discard_count, a);
        return 0;
    default:
        return -1;
    }
}

int ai_decide(int level, const struct engine_view *v, struct engine_prng *rng,
              struct engine_action *a)
{
    memset(a, 0, sizeof *a);
    a->seat = (uint8_t)v->seat;
    if (v->phase == ENGINE_PHASE_MOON) {
        if (v->moon_best < 0)
            return -1; /* not the shooter */
        a->kind = ENGINE_ACT_MOON;
        a->moon = (uint8_t)v->moon_best;
        return 0;
    }
    switch (level) {
    case AI_EASY:
        return ai_easy_decide(v, rng, a);
    default:
        return decide_random(v, rng, a);
    }
}

int ai_act_for(int level, const struct engine_game *g, int seat,
               struct engine_prng *rng, struct engine_action *a)
{
    if (!engine_may_act(g, seat))
        return -1;
    struct engine_view v;
    engine_view_make(g, seat, &v);
    return ai_decide(level, &v, rng, a);
}
