/*
 * What the computer-player levels share inside the hearts_ai library and
 * nothing else: each level's decision function, called by ai_decide (ai.c)
 * once it has filled the action's seat and answered a moon choice itself.
 */
#ifndef HEARTS_AI_INTERNAL_H
#define HEARTS_AI_INTERNAL_H

#include "engine/ai/ai.h"

/*
 * The easy level (ai_easy.c): decides the pass, play or discard of the
 * view's seat into *a (kind, ncards, cards; the caller has zeroed *a and set
 * the seat). Returns 0, or -1 if the seat has nothing to do. Deterministic:
 * rng is not drawn from.
 */
int ai_easy_decide(const struct engine_view *v, struct engine_prng *rng,
                   struct engine_action *a);

/*
 * Easy's pass of k cards from the view's hand at the PASS phase, the most
 * wanted gone first, into *a (k up to ENGINE_MAX_ACT_CARDS, and may exceed
 * the pass count: the searching levels draw candidate passes from it).
 * Returns 0, or -1 if k cards cannot be chosen.
 */
int ai_easy_pass_order(const struct engine_view *v, int k,
                       struct engine_action *a);

/*
 * The searching levels (ai_search.c): the play decided by Monte Carlo
 * playouts of sampled deals, `budget` playouts in all; the pass likewise
 * over candidate passes with AI_PASS_FACTOR times the budget (easy's when
 * that is too few to tell them apart, or the rules pass blind or use two
 * decks); discards as easy's. Deterministic under rng.
 */
#define AI_NORMAL_BUDGET 100
#define AI_HARD_BUDGET 6000
#define AI_PASS_FACTOR 3
int ai_search_decide(const struct engine_view *v, struct engine_prng *rng,
                     int budget, struct engine_action *a);

#endif
