/*
 * The thinking worker: computer decisions that take milliseconds (the
 * searching levels, ai.h) run on worker threads (one unless configured),
 * off the event loop, so that a table whose computer players think never
 * delays anyone's replies.
 *
 * The loop thread submits a job: a self-contained copy of what the
 * decision needs (the game, its rules, the seat, the level, the budget and
 * a PRNG state). The worker builds the seat's view from its copy and
 * decides; the result comes back to the loop through a loop_waker, and
 * the callback runs on the loop thread, in a loop turn of its own. Whether the
 * result still applies (the table exists, its game is where the job left it) is
 * the caller's to check.
 *
 * Not thread-safe itself: every function is for the loop thread.
 */
#ifndef HEARTS_BOT_THINK_H
#define HEARTS_BOT_THINK_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "bot/common/loop.h"

struct think;

/* What a job asks: a table's decision (ai_decide_budget), or what the
 * search thinks of every choice of the seat (ai_explain: a hint, one
 * position of a review). Explaining waits while any decision waits: a
 * table's own computer players come first. */
enum think_kind { THINK_DECIDE, THINK_EXPLAIN };

/* What a decision needs, copied: nothing in it points anywhere (the
 * worker points game.rules at its own copy of rules). */
struct think_job {
    uint64_t id; /* the caller's, handed back in the result */
    enum think_kind kind;
    int level;  /* ai.h */
    int budget; /* ai_decide_budget's: 0 for the level's default */
    int seat;
    struct engine_rules rules;
    struct engine_game game;
    struct engine_prng rng;
    /* THINK_DECIDE: what the level is told of the seats (ai_table) */
    struct ai_table table;
    /* THINK_EXPLAIN: the seat's own pass, weighed too (kind 0: none) */
    struct engine_action also;
};

struct think_result {
    uint64_t id;
    enum think_kind kind;
    /* DECIDE: ai_decide_budget's: 0 and action, or -1 (nothing to do);
     * EXPLAIN: ai_explain's: how many choices, or -1 */
    int rc;
    struct engine_action action;
    struct ai_choice choices[AI_EXPLAIN_MAX];
};

/* Called on the loop thread with each result; may submit more jobs. */
typedef void (*think_done_fn)(void *ctx, const struct think_result *r);

/* The most worker threads one think runs. */
#define THINK_MAX_WORKERS 8

/* A worker delivering results to fn through the loop l. Starts the thread;
 * aborts if out of memory or if the thread or pipe cannot be made. */
struct think *think_new(struct loop *l, think_done_fn fn, void *ctx);

/* The same with `workers` threads (1 to THINK_MAX_WORKERS) taking jobs
 * from the one queue, so that a long decision holds up only one of them. */
struct think *think_new_workers(struct loop *l, think_done_fn fn, void *ctx,
                                int workers);

/* Queues a copy of *job. Decisions are started in the order submitted,
 * and explanations likewise, each only while no decision waits; with one
 * worker they also finish in that order. */
void think_submit(struct think *th, const struct think_job *job);

/* How many jobs are submitted and not yet delivered. */
int think_pending(const struct think *th);

/* Stops the worker (a decision under way finishes first), joins it, drops
 * what is pending undelivered, stops watching the loop. NULL is a no-op. */
void think_free(struct think *th);

/*
 * Test only (tests/unit/bot): a function the worker calls with each job
 * before deciding, to make decisions slow or wait for a test's signal;
 * NULL (the default, and the bot's) for none. Set it while no worker
 * runs. While set, think_offloads counts every level as slow.
 */
typedef void (*think_hook_fn)(const struct think_job *job);
void think_test_hook(think_hook_fn fn);

/* Test and benchmark only: while on, think_submit decides at once on the
 * caller's thread (the loop) and only the delivery waits for the loop, as
 * if there were no worker: what the loop's blocking was before it. */
void think_test_inline(bool on);

/* Whether a decision of this level with this budget goes to the worker:
 * a level that searches (ai_default_budget > 0, or a budget is set), or
 * any level under the test hook. The others take microseconds and are
 * decided on the loop. */
bool think_offloads(int level, int budget);

#endif
