/*
 * Computer players. A player is a function of what its seat may know (an
 * engine_view: its hand and the public history), never of other hands, so
 * a computer player cannot cheat even by accident. Randomness comes from
 * the caller's PRNG; the same view and PRNG state give the same action.
 *
 * Levels: "random" (uniform over legal actions; for tests and benchmarks)
 * and "easy" (the usual advice of the rules texts: pass dangerous cards,
 * duck, dump the QS and high hearts when void, avoid points, take the
 * bonus card when safe). Stronger levels come later behind the same call.
 */
#ifndef HEARTS_AI_H
#define HEARTS_AI_H

#include "engine/engine.h"

enum ai_level { AI_RANDOM, AI_EASY, AI_NORMAL, AI_HARD, AI_LEVEL_COUNT };

/* "random", "easy", "normal", "hard"; NULL for a bad level. */
const char *ai_level_name(int level);

/* The level named (case-insensitive), or -1. */
int ai_level_find(const char *name);

/*
 * Decides the action of the view's seat: a pass (or blind pass), a play,
 * a discard or a moon choice, whichever the phase asks of it. Returns 0 and
 * fills *a (always an action the engine accepts), or -1 if the seat has
 * nothing to do now. Does not allocate; may be called from a callback.
 */
int ai_decide(int level, const struct engine_view *v, struct engine_prng *rng,
              struct engine_action *a);

/* Shorthand: builds the seat's view of g and decides. */
int ai_act_for(int level, const struct engine_game *g, int seat,
               struct engine_prng *rng, struct engine_action *a);

/*
 * The levels that search (issue 11) spend a budget per decision: a number
 * of playouts, not time, so that a decision is the same under the same
 * seed on any machine. ai_default_budget is a level's own (0 for a level
 * that does not search); ai_decide_budget is ai_decide with `budget`
 * playouts (0: the level's default), what the bot uses with the config's
 * budgets. A searching decision takes milliseconds: the bot runs it off
 * its loop.
 */
int ai_default_budget(int level);
int ai_decide_budget(int level, const struct engine_view *v,
                     struct engine_prng *rng, int budget,
                     struct engine_action *a);

#endif
