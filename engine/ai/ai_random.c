/*
 * The random level (ai.h): uniform over the legal actions, for tests and
 * benchmarks.
 */
#include "engine/ai/ai_internal.h"
#include "engine/internal.h"

int ai_random_decide(const struct engine_view *v, struct engine_prng *rng,
                     int budget, int flags, struct engine_action *a)
{
    (void)budget;
    (void)flags;
    switch (v->phase) {
    case ENGINE_PHASE_PASS:
        if (v->pass_count == 0)
            return -1;
        a->kind = ENGINE_ACT_PASS;
        a->ncards = (uint8_t)v->pass_count;
        engine_random_cards(rng, v->hand, v->pass_count, a->cards);
        return 0;
    case ENGINE_PHASE_PLAY:
        if (!v->legal)
            return -1;
        a->kind = ENGINE_ACT_PLAY;
        a->ncards = 1;
        a->cards[0] = (uint8_t)bits_random(rng, v->legal);
        return 0;
    case ENGINE_PHASE_DISCARD:
        if (!v->discard_count)
            return -1;
        a->kind = ENGINE_ACT_DISCARD;
        a->ncards = (uint8_t)v->discard_count;
        engine_random_cards(rng, v->hand, v->discard_count, a->cards);
        return 0;
    default:
        return -1;
    }
}
