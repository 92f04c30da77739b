/*
 * Tests of the thinking worker (bot/think.c): results come back on the
 * loop, one per job, in order, with the decision the same job gives on the
 * loop thread; a seat with nothing to do gets -1; jobs still pending when
 * the worker is freed are dropped without a callback (and without a leak
 * under ASan); a decision under way does not hold up the loop; the level
 * is told the job's table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/ai/ai.h"
#include "engine/engine.h"
#include "bot/common/loop.h"
#include "bot/think.h"
#include "tests/support/scenario.h"

#define MAX_RESULTS 64

static struct think_result results[MAX_RESULTS];
static int nresults;

static void collect(void *ctx, const struct think_result *r)
{
    struct loop *l = ctx;
    assert_true(nresults < MAX_RESULTS);
    results[nresults++] = *r;
    (void)l;
}

static void stop_loop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

/* Runs the loop until `want` results are in (or 5 s). */
static void run_until(struct loop *l, int want)
{
    for (int i = 0; i < 500 && nresults < want; i++) {
        loop_timer(l, 10, stop_loop, NULL);
        loop_run(l);
    }
}

/* A standard game just dealt with a fixed seed, in its passing phase. */
static void dealt(struct think_job *j, uint64_t seed)
{
    memset(j, 0, sizeof *j);
    assert_int_equal(engine_rules_init(&j->rules, "standard", NULL), 0);
    assert_int_equal(engine_rules_finish(&j->rules, NULL), 0);
    engine_game_init(&j->game, &j->rules, seed, 0);
    engine_deal(&j->game, NULL);
    j->level = AI_EASY;
    engine_prng_seed(&j->rng, seed * 7 + 1);
}

static int setup(void **state)
{
    (void)state;
    nresults = 0;
    think_test_hook(NULL);
    think_test_inline(false);
    return 0;
}

static void test_think_results_in_order_as_on_the_loop(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job jobs[8];
    for (int i = 0; i < 8; i++) {
        dealt(&jobs[i], 100 + (uint64_t)i);
        jobs[i].id = 1000 + (uint64_t)i;
        jobs[i].seat = i % 4;
        think_submit(th, &jobs[i]);
    }
    assert_int_equal(think_pending(th), 8);
    run_until(l, 8);
    assert_int_equal(nresults, 8);
    assert_int_equal(think_pending(th), 0);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(results[i].id, 1000 + (uint64_t)i);
        assert_int_equal(results[i].rc, 0);
        /* the same decision as on this thread, from the same copy */
        struct think_job *j = &jobs[i];
        j->game.rules = &j->rules;
        struct engine_view v;
        engine_view_make(&j->game, j->seat, &v);
        struct engine_action want;
        assert_int_equal(
            ai_decide_budget(j->level, &v, &j->rng, j->budget, &want), 0);
        assert_memory_equal(&results[i].action, &want, sizeof want);
        /* and the engine takes it */
        struct engine_refusal_detail d;
        assert_int_equal(engine_act(&j->game, &results[i].action, NULL, &d),
                         ENGINE_OK);
    }
    think_free(th);
    loop_free(l);
}

static void test_think_nothing_to_do_is_minus_one(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job j;
    dealt(&j, 5);
    j.id = 7;
    j.seat = 2;
    /* seat 2 has passed: it may not act again */
    j.game.rules = &j.rules;
    struct engine_view v;
    engine_view_make(&j.game, 2, &v);
    struct engine_action a;
    assert_int_equal(ai_decide(AI_EASY, &v, &j.rng, &a), 0);
    struct engine_refusal_detail d;
    assert_int_equal(engine_act(&j.game, &a, NULL, &d), ENGINE_OK);
    j.game.rules = NULL; /* the worker points it at its own copy */
    think_submit(th, &j);
    run_until(l, 1);
    assert_int_equal(nresults, 1);
    assert_int_equal(results[0].id, 7);
    assert_int_equal(results[0].rc, -1);
    think_free(th);
    loop_free(l);
}

/* A slow decision: 100 ms, counting the ones that ran. */
static int slow_ran;
static void slow(const struct think_job *j)
{
    (void)j;
    struct timespec ts = {0, 100 * 1000 * 1000};
    nanosleep(&ts, NULL);
    __atomic_add_fetch(&slow_ran, 1, __ATOMIC_SEQ_CST);
}

static void test_think_free_drops_pending_jobs(void **state)
{
    (void)state;
    slow_ran = 0;
    think_test_hook(slow);
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job j;
    dealt(&j, 9);
    for (int i = 0; i < 5; i++) {
        j.id = (uint64_t)i + 1;
        think_submit(th, &j);
    }
    think_free(th); /* at most the one under way finishes */
    assert_true(__atomic_load_n(&slow_ran, __ATOMIC_SEQ_CST) <= 1);
    /* nothing is delivered after: the pipe is no longer watched */
    loop_timer(l, 20, stop_loop, NULL);
    loop_run(l);
    assert_int_equal(nresults, 0);
    loop_free(l);
    think_test_hook(NULL);
}

/* A decision that waits for the test's word (at most 2 s): whether the
 * loop turns while it waits is then no matter of timing. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static bool gate_open;

static void gated(const struct think_job *j)
{
    (void)j;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 2;
    pthread_mutex_lock(&gate_mu);
    while (!gate_open &&
           pthread_cond_timedwait(&gate_cv, &gate_mu, &until) == 0)
        ;
    pthread_mutex_unlock(&gate_mu);
}

static void set_gate(bool open)
{
    pthread_mutex_lock(&gate_mu);
    gate_open = open;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
}

/* Timers of the loop fire while a decision is under way (the fifth lets
 * it finish); inline (no worker) none can. */
static int ticks;
static void tick(struct loop *l, void *ctx)
{
    (void)l;
    if (nresults == 0)
        ticks++;
    if (ctx)
        set_gate(true);
}

static int loop_turns_during_a_decision(bool inline_)
{
    ticks = 0;
    nresults = 0;
    set_gate(false);
    think_test_hook(gated);
    think_test_inline(inline_);
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job j;
    dealt(&j, 11);
    j.id = 1;
    think_submit(th, &j);
    for (int i = 1; i <= 5; i++)
        loop_timer(l, 10 * i, tick, i == 5 ? l : NULL);
    run_until(l, 1);
    assert_int_equal(nresults, 1);
    think_free(th);
    loop_free(l);
    think_test_hook(NULL);
    think_test_inline(false);
    return ticks;
}

static void test_think_loop_goes_on_while_deciding(void **state)
{
    (void)state;
    assert_int_equal(loop_turns_during_a_decision(false), 5);
    assert_int_equal(loop_turns_during_a_decision(true), 0);
}

/* Only the job with id 1 waits at the gate. */
static void gated_first(const struct think_job *j)
{
    if (j->id == 1)
        gated(j);
}

/* With two workers a decision held at the gate holds up only its own
 * thread: the job submitted after it comes back first. */
static void test_think_two_workers(void **state)
{
    (void)state;
    set_gate(false);
    think_test_hook(gated_first);
    struct loop *l = loop_new();
    struct think *th = think_new_workers(l, collect, l, 2);
    struct think_job j;
    dealt(&j, 13);
    j.id = 1;
    think_submit(th, &j);
    j.id = 2;
    think_submit(th, &j);
    run_until(l, 1);
    assert_int_equal(nresults, 1);
    assert_int_equal(results[0].id, 2);
    set_gate(true);
    run_until(l, 2);
    assert_int_equal(nresults, 2);
    assert_int_equal(results[1].id, 1);
    assert_memory_equal(&results[0].action, &results[1].action,
                        sizeof results[0].action);
    think_free(th);
    loop_free(l);
    think_test_hook(NULL);
}

/* Explanations wait while any decision waits: with the one worker held
 * on a first job, an explanation submitted before a decision comes back
 * after it, with what ai_explain gives on the loop thread. */
static void test_think_decisions_before_explanations(void **state)
{
    (void)state;
    set_gate(false);
    think_test_hook(gated_first);
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job j;
    dealt(&j, 17);
    j.id = 1;
    think_submit(th, &j);
    struct think_job e = j;
    e.id = 2;
    e.kind = THINK_EXPLAIN;
    e.budget = 300;
    think_submit(th, &e);
    j.id = 3;
    think_submit(th, &j);
    assert_int_equal(think_pending(th), 3);
    set_gate(true);
    run_until(l, 3);
    assert_int_equal(nresults, 3);
    assert_int_equal(results[0].id, 1);
    assert_int_equal(results[1].id, 3);
    assert_int_equal(results[2].id, 2);
    assert_int_equal(results[2].kind, THINK_EXPLAIN);
    /* the same explanation on the loop thread */
    struct engine_view v;
    struct ai_choice c[AI_EXPLAIN_MAX];
    e.game.rules = &e.rules;
    engine_view_make(&e.game, e.seat, &v);
    int n = ai_explain(&v, &e.rng, e.budget, NULL, c, AI_EXPLAIN_MAX);
    assert_true(n > 1);
    assert_int_equal(results[2].rc, n);
    for (int i = 0; i < n; i++) {
        assert_memory_equal(&results[2].choices[i].action, &c[i].action,
                            sizeof c[i].action);
        assert_true(results[2].choices[i].points == c[i].points);
    }
    think_free(th);
    loop_free(l);
    think_test_hook(NULL);
}

/* The worker tells the level the job's table: under partners, seat 0's
 * team (ahead 50 to 40) has shot the moon; told that it is two hard
 * against two easy it keeps the game long (26 off itself), told nothing
 * it ends it sooner (26 to the others). */
static void test_think_tells_the_table(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct think *th = think_new(l, collect, l);
    struct think_job j;
    memset(&j, 0, sizeof j);
    sc_rules(&j.rules, "standard pass_count=0 partners=team_score", 4);
    const int32_t totals[4] = {50, 40, 50, 40};
    sc_shoot_with_clubs(&j.game, &j.rules, totals);
    j.level = AI_HARD;
    j.seat = 0;
    j.id = 1;
    think_submit(th, &j);
    int hard = ai_level_rating(AI_HARD, NULL);
    int easy = ai_level_rating(AI_EASY, NULL);
    j.table = (struct ai_table){{hard, easy, hard, easy}};
    j.id = 2;
    think_submit(th, &j);
    run_until(l, 2);
    assert_int_equal(nresults, 2);
    assert_int_equal(results[0].rc, 0);
    assert_int_equal(results[0].action.kind, ENGINE_ACT_MOON);
    assert_int_equal(results[0].action.moon, ENGINE_MOON_ADD_OTHERS);
    assert_int_equal(results[1].rc, 0);
    assert_int_equal(results[1].action.moon, ENGINE_MOON_SUBTRACT);
    think_free(th);
    loop_free(l);
}

static void test_think_offloads(void **state)
{
    (void)state;
    assert_false(think_offloads(AI_EASY, 0));
    assert_false(think_offloads(AI_RANDOM, 0));
    assert_true(think_offloads(AI_EASY, 100)); /* a budget means search */
    think_test_hook(slow);
    assert_true(think_offloads(AI_EASY, 0));
    think_test_hook(NULL);
    think_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_think_results_in_order_as_on_the_loop,
                               setup),
        cmocka_unit_test_setup(test_think_nothing_to_do_is_minus_one, setup),
        cmocka_unit_test_setup(test_think_free_drops_pending_jobs, setup),
        cmocka_unit_test_setup(test_think_loop_goes_on_while_deciding, setup),
        cmocka_unit_test_setup(test_think_two_workers, setup),
        cmocka_unit_test_setup(test_think_decisions_before_explanations, setup),
        cmocka_unit_test_setup(test_think_offloads, setup),
        cmocka_unit_test_setup(test_think_tells_the_table, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
