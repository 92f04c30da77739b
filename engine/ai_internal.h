/*
 * What the computer-player levels share inside the hearts_ai library and
 * nothing else: each level's decision function, called by ai_decide (ai.c)
 * once it has filled the action's seat and answered a moon choice itself.
 */
#ifndef HEARTS_AI_INTERNAL_H
#define HEARTS_AI_INTERNAL_H

#include "ai.h"

/*
 * The easy level (ai_easy.c): decides the pass, play or discard of the
 * view's seat into *a (kind, ncards, cards; the caller has zeroed *a and set
 * the seat). Returns 0, or -1 if the seat has nothing to do. Deterministic:
 * rng is not drawn from.
 */
int ai_easy_decide(const struct engine_view *v, struct engine_prng *rng,
                   struct engine_action *a);

/*
 * The searching levels (ai_search.c): the play decided by Monte Carlo
 * playouts of sampled deals, `budget` playouts in all; passes and discards
 * as easy's. Deterministic under rng.
 */
#define AI_NORMAL_BUDGET 100
#define AI_HARD_BUDGET 6000
int ai_search_decide(const struct engine_view *v, struct engine_prng *rng,
                     int budget, struct engine_action *a);

#endif
