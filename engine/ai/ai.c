/*
 * Computer players (see ai.h). The random level lives here; the easy level
 * is in ai_easy.c.
 */
#include "engine/ai/ai_internal.h"
#include "engine/internal.h"

#include <string.h>
#include <strings.h>

static const char *const level_names[AI_LEVEL_COUNT] = {"random", "easy",
                                                        "normal", "hard"};

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

static int decide_random(const struct engine_view *v, struct engine_prng *rng,
                         struct engine_action *a)
{
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
    case AI_NORMAL:
    case AI_HARD:
        return ai_search_decide(v, rng, ai_default_budget(level), a);
    default:
        return decide_random(v, rng, a);
    }
}

int ai_default_budget(int level)
{
    switch (level) {
    case AI_NORMAL:
        return AI_NORMAL_BUDGET;
    case AI_HARD:
        return AI_HARD_BUDGET;
    default:
        return 0;
    }
}

int ai_decide_budget(int level, const struct engine_view *v,
                     struct engine_prng *rng, int budget,
                     struct engine_action *a)
{
    if (budget <= 0 || (level != AI_NORMAL && level != AI_HARD) ||
        v->phase == ENGINE_PHASE_MOON)
        return ai_decide(level, v, rng, a);
    memset(a, 0, sizeof *a);
    a->seat = (uint8_t)v->seat;
    return ai_search_decide(v, rng, budget, a);
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
