/*
 * What the computer-player levels share inside the hearts_ai library and
 * nothing else: the row of the table of levels (ai.c) and each level's
 * decision function, called by ai_decide_budget once it has zeroed the
 * action, filled its seat and answered a moon choice itself.
 */
#ifndef HEARTS_AI_INTERNAL_H
#define HEARTS_AI_INTERNAL_H

#include "engine/ai/ai.h"

/*
 * A level's decision: the pass, play or discard of the view's seat into
 * *a (kind, ncards, cards; *a is zeroed and its seat set). `budget` is the
 * playouts to spend (the level's own unless the caller asked for others;
 * a level that does not search ignores it); `flags` the caller's AI_*
 * variant bits (ai.h; a level ignores those it does not know). Returns 0,
 * or -1 if the seat has nothing to do.
 */
typedef int ai_decide_fn(const struct engine_view *v, struct engine_prng *rng,
                         int budget, int flags, struct engine_action *a);

/* One row of the table of levels. */
struct ai_level_row {
    struct ai_level_info info;
    ai_decide_fn *decide;
};

/* Each level's decision, declared by its row (ai_levels.h). The random
 * level (ai_random.c) is uniform over the legal actions; the easy level
 * (ai_easy.c) is deterministic: rng is not drawn from, and budget is not
 * used. */
#define AI_LEVEL(name, budget, key, decide) ai_decide_fn decide;
#include "engine/ai/ai_levels.h"
#undef AI_LEVEL

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
#define AI_PASS_FACTOR 3

/*
 * The searching levels' objective (ai_search.c): the chance, from 0 to 1,
 * that seat's side wins the game from g's totals after a hand is scored:
 * exact when the game is over, else estimated from the totals, the target
 * and the points a hand of these rules deals out.
 */
double ai_win_chance(const struct engine_game *g, int seat);

/* The moon choice (ENGINE_MOON_SUBTRACT or _ADD_OTHERS) of the view's
 * shooter by the same objective: the choice that leaves its side the
 * better chance to win the game (exact where the choice ends the game);
 * where the two are alike, the engine's (v->moon_best); with near_only,
 * the engine's too before the game's end is near. Under partners, t's
 * ratings (NULL: none) tell it which side is expected to gain on the
 * other over the hands left. -1 if the view's seat is not choosing. */
int ai_moon_choice(const struct engine_view *v, bool near_only,
                   const struct ai_table *t);

/* The search's playout (ai_search.c), for ai_explain.c: plays the hand
 * in g to its end with the playout policy. */
void ai_search_playout(struct engine_game *g, struct engine_prng *rng);

/* The same, card by card through engine_play_step under any rules, never
 * the plain rules' loop: for the tests that compare the two. */
void ai_search_playout_steps(struct engine_game *g, struct engine_prng *rng);

/* Every seat of world but `seat` passes as easy would from its hand, as
 * the pass search has them do in each sampled deal; false if one cannot
 * (the world is not at a pass). */
bool ai_search_others_pass(struct engine_game *world, int seat,
                           struct engine_prng *rng);

/* The search's candidate passes at the view's pass: every subset of the
 * pass's size of the AI_PASS_POOL cards easy most wants gone, in easy's
 * order (at most AI_PASS_CANDIDATES); how many, or -1 under rules the
 * pass search does not model (blind passing, two decks) or when the
 * view has no pass to make. */
#define AI_PASS_POOL 7
#define AI_PASS_CANDIDATES 35
int ai_search_pass_candidates(const struct engine_view *v,
                              uint8_t out[][ENGINE_MAX_PASS]);

#endif
