/*
 * Computer players. A player is a function of what its seat may know (an
 * engine_view: its hand and the public history), never of other hands, so
 * a computer player cannot cheat even by accident. Randomness comes from
 * the caller's PRNG; the same view and PRNG state give the same action.
 *
 * The levels are the rows of one table (ai.c): "random" (uniform over
 * legal actions; for tests and benchmarks, ai_random.c), "easy" (the usual
 * advice of the rules texts: pass dangerous cards, duck, dump the QS and
 * high hearts when void, avoid points, take the bonus card when safe;
 * ai_easy.c), and "normal" and "hard", which search by Monte Carlo
 * playouts (ai_search.c) with a small and a large budget. A new level is
 * its own file and one row of the table (ai_levels.h); callers find it by
 * name and list the levels with ai_level_count and ai_level_get.
 */
#ifndef HEARTS_AI_H
#define HEARTS_AI_H

#include "engine/engine.h"

/* The levels that code names, by their row in the table. A level no code
 * names needs no constant: it is found by name (ai_level_find). */
enum ai_level { AI_RANDOM, AI_EASY, AI_NORMAL, AI_HARD };

/* The table holds at most this many levels (for arrays by level). */
#define AI_LEVEL_MAX 16

/* What a caller may know of a level. */
struct ai_level_info {
    const char *name; /* "hard": the word in configs and commands */
    int budget;       /* its own playouts per decision; 0: it does not search */
    /* the config key that sets its playouts ("hard_playouts"), or NULL
     * for a level that does not search */
    const char *playouts_key;
};

/* How many levels there are (rows 0 to count - 1). */
int ai_level_count(void);

/* The level in row `level`, or NULL if there is none. */
const struct ai_level_info *ai_level_get(int level);

/* "random", "easy", "normal", "hard"; NULL for a bad level. */
const char *ai_level_name(int level);

/* The level named (case-insensitive), or -1. */
int ai_level_find(const char *name);

/*
 * Decides the action of the view's seat: a pass (or blind pass), a play,
 * a discard or a moon choice, whichever the phase asks of it. Returns 0 and
 * fills *a (always an action the engine accepts), or -1 if the seat has
 * nothing to do now. A level out of range plays as "random". Does not
 * allocate; may be called from a callback.
 */
int ai_decide(int level, const struct engine_view *v, struct engine_prng *rng,
              struct engine_action *a);

/* Shorthand: builds the seat's view of g and decides. */
int ai_act_for(int level, const struct engine_game *g, int seat,
               struct engine_prng *rng, struct engine_action *a);

/*
 * The levels that search spend a budget per decision: a number of
 * playouts, not time, so that a decision is the same under the same seed
 * on any machine. ai_default_budget is a level's own (0 for a level that
 * does not search); ai_decide_budget is ai_decide with `budget` playouts
 * (0: the level's default; ignored by a level that does not search),
 * what the bot uses with the config's budgets. A searching decision takes
 * milliseconds: the bot runs it off its loop.
 */
int ai_default_budget(int level);
int ai_decide_budget(int level, const struct engine_view *v,
                     struct engine_prng *rng, int budget,
                     struct engine_action *a);

/*
 * Variants of a level, bits of the `flags` of ai_decide_flags (0: the
 * level as it is), for measuring the searching levels against what they
 * were. A level ignores the bits it does not know, so a variant is only
 * worth naming for the levels it changes (hearts-sim's --seats
 * hard/points). AI_EVAL_POINTS: playouts are valued by the hand's points
 * alone, not by the game's objective. AI_MOON_BLIND: the playouts never
 * shoot or stop a moon, and the samples do not give a side that may
 * shoot its high cards. AI_GAME_ALWAYS: near the game's end the objective
 * is valued whoever leads, not only while the seat's side has the lowest
 * total (the levels' way until 2026-12-02). AI_MOON_NEAR: the moon choice
 * goes by the objective only near the game's end, as the play does, and
 * is the engine's before (measured: it gives up games on standard and
 * omnibus, and under partners at a table of equals; it wins some only for
 * a side far the stronger, docs/engine.md). AI_PLAYOUT_RANDOM: the
 * playouts play uniformly random legal cards (engine_playout) instead of
 * the playout policy: the engine's random playout on the search's own
 * path, what hearts-sim bench --search --random counts, and what the
 * policy is worth (hard/randomplay). AI_TABLE_BLIND: the table's ratings
 * (ai_decide_table) are not told to the level, as if it had none
 * (hard/untold).
 */
#define AI_EVAL_POINTS 1
#define AI_MOON_BLIND 2
#define AI_GAME_ALWAYS 4
#define AI_MOON_NEAR 8
#define AI_PLAYOUT_RANDOM 16
#define AI_TABLE_BLIND 32

/* ai_decide_budget with the variant bits `flags` (ai_decide_budget is
 * this with 0). */
int ai_decide_flags(int level, const struct engine_view *v,
                    struct engine_prng *rng, int budget, int flags,
                    struct engine_action *a);

/*
 * What a computer player may be told of its table beyond its view: how
 * strong each seat is, as a rating on the levels' scale (ai_level_rating:
 * easy is 1500), 0 where it is not known (a person: people are rated
 * among people, on a scale not comparable with the levels'). A rating
 * outside AI_RATING_MIN to AI_RATING_MAX counts as unknown.
 *
 * Only the searching levels' moon choice under partners uses it: with
 * two sides the gap after a moon is the same either way it is scored,
 * and adding 26 to the others only shortens the game, which a side
 * leading now wants unless it is expected to gain on the other over the
 * hands left. Without ratings it takes the sides as alike, which is
 * right at a table of equals and loses games for a side far the
 * stronger (docs/engine.md, "Partners: the sides' strength").
 */
#define AI_RATING_MIN 1
#define AI_RATING_MAX 4000

struct ai_table {
    int rating[ENGINE_MAX_PLAYERS];
};

/* ai_decide_flags told the table t (NULL: nothing; ai_decide_flags is
 * this with NULL). */
int ai_decide_table(int level, const struct engine_view *v,
                    struct engine_prng *rng, int budget, int flags,
                    const struct ai_table *t, struct engine_action *a);

/*
 * A seat's margin in the hand just scored (g->points): the mean points of
 * the other side less the mean points of its own (its team under
 * partnerships). What the searching levels value in a hand, and what
 * hearts-sim play reports as a level's margin.
 */
double ai_hand_margin(const struct engine_game *g, int seat);

/*
 * A level's measured strength: its rating from the round robin of the
 * levels (hearts-sim roundrobin, docs/engine.md), on a scale where easy is
 * 1500 and 400 more means ten times the odds of winning a game; *se (if
 * not NULL) its standard error. 0 for a level not measured.
 */
int ai_level_rating(int level, int *se);

/*
 * What the search thinks of each choice (ai_explain.c), for hints and
 * reviews: at the view's turn to play, every legal card; at its pass,
 * the candidate passes the search weighs, and `also` (a pass of the
 * seat's own) if it is none of them. Each is evaluated as the searching
 * levels do, over sampled deals of the unseen cards played out by their
 * playout policy, every choice on the same deals and with the same
 * playout luck, `budget` playouts in all (0: hard's); deterministic under
 * rng. `points` is the seat's expected points in this hand as the rules
 * score them (a moon, the bonus card), its team's under partnerships.
 * Without `also` (a hint): fills out (up to max) fewest points first and
 * returns how many. With `also` (a review: the seat's own play or pass,
 * NULL: none), a second look: the best choice and `also` are weighed
 * again, alone, on fresh deals (a quarter of the budget more), and out
 * holds those two, the best first (or the best alone when `also` is it),
 * so that the difference of their points is what `also` cost, free of the
 * luck that made the best the least of many noisy figures, with its
 * standard error over the second look's deals (`se`). -1 if the seat
 * has no such decision now, or under rules the pass search does not model
 * (blind passing, two decks).
 */
struct ai_choice {
    struct engine_action action; /* a play or a pass */
    double points;
    double first; /* the first look's points (with `also`; else points) */
    double se;    /* `also`'s, second: the standard error of its points
                   * less the best's (else 0) */
};

/* The most choices ai_explain gives: a hand's cards, or the candidate
 * passes and one more. */
#define AI_EXPLAIN_MAX 64

int ai_explain(const struct engine_view *v, struct engine_prng *rng, int budget,
               const struct engine_action *also, struct ai_choice *out,
               int max);

#endif
