/*
 * Computer players (see ai.h): the table of levels, and the calls that go
 * through it.
 */
#include "engine/ai/ai_internal.h"

#include <string.h>
#include <strings.h>

/* The levels (ai_levels.h). */
static const struct ai_level_row levels[] = {
#define AI_LEVEL(name, budget, key, decide) {{name, budget, key}, decide},
#include "engine/ai/ai_levels.h"
#undef AI_LEVEL
};

#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))
_Static_assert(NLEVELS <= AI_LEVEL_MAX, "raise AI_LEVEL_MAX");

int ai_level_count(void)
{
    return NLEVELS;
}

const struct ai_level_info *ai_level_get(int level)
{
    return level >= 0 && level < NLEVELS ? &levels[level].info : NULL;
}

const char *ai_level_name(int level)
{
    return level >= 0 && level < NLEVELS ? levels[level].info.name : NULL;
}

int ai_level_find(const char *name)
{
    for (int i = 0; i < NLEVELS; i++)
        if (strcasecmp(levels[i].info.name, name) == 0)
            return i;
    return -1;
}

int ai_default_budget(int level)
{
    return level >= 0 && level < NLEVELS ? levels[level].info.budget : 0;
}

int ai_decide_budget(int level, const struct engine_view *v,
                     struct engine_prng *rng, int budget,
                     struct engine_action *a)
{
    return ai_decide_flags(level, v, rng, budget, 0, a);
}

int ai_decide_flags(int level, const struct engine_view *v,
                    struct engine_prng *rng, int budget, int flags,
                    struct engine_action *a)
{
    return ai_decide_table(level, v, rng, budget, flags, NULL, a);
}

int ai_decide_table(int level, const struct engine_view *v,
                    struct engine_prng *rng, int budget, int flags,
                    const struct ai_table *t, struct engine_action *a)
{
    const struct ai_level_row *row =
        &levels[level >= 0 && level < NLEVELS ? level : AI_RANDOM];
    if (budget <= 0 || row->info.budget == 0)
        budget = row->info.budget;
    memset(a, 0, sizeof *a);
    a->seat = (uint8_t)v->seat;
    if (v->phase == ENGINE_PHASE_MOON) {
        if (v->moon_best < 0)
            return -1; /* not the shooter */
        a->kind = ENGINE_ACT_MOON;
        /* the searching levels choose by the game's objective */
        a->moon =
            (uint8_t)(row->info.budget > 0 && !(flags & AI_EVAL_POINTS)
                          ? ai_moon_choice(v, flags & AI_MOON_NEAR,
                                           flags & AI_TABLE_BLIND ? NULL : t)
                          : v->moon_best);
        return 0;
    }
    return row->decide(v, rng, budget, flags, a);
}

int ai_decide(int level, const struct engine_view *v, struct engine_prng *rng,
              struct engine_action *a)
{
    return ai_decide_budget(level, v, rng, 0, a);
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
