/*
 * The thinking worker (think.h): one or more threads, a queue of jobs in
 * and a queue of results out, each under one mutex held only to link or unlink
 * a node (never while deciding, never across a loop callback). The worker wakes
 * the loop with a loop_waker; the loop takes every finished result each
 * time it wakes.
 *
 * A node is allocated on the loop thread when the job is submitted and
 * freed there when its result is delivered: the worker allocates nothing.
 */
#include "bot/think.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ai/ai.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

struct think_node {
    struct think_node *next;
    struct think_job job;
    struct think_result result;
};

struct think {
    think_done_fn fn;
    void *ctx;
    pthread_t threads[THINK_MAX_WORKERS];
    int nthreads;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    bool stop;                             /* under mu */
    struct think_node *todo, **todo_end;   /* under mu: decisions */
    struct think_node *later, **later_end; /* under mu: explanations */
    struct think_node *done, **done_end;   /* under mu */
    int pending;                           /* loop thread only */
    struct loop_waker *waker;
};

static think_hook_fn test_hook;
static bool test_inline;

/* Atomic: a test may reset them while a worker it started still runs. */
static think_hook_fn hook(void)
{
    return __atomic_load_n(&test_hook, __ATOMIC_ACQUIRE);
}

void think_test_hook(think_hook_fn fn)
{
    __atomic_store_n(&test_hook, fn, __ATOMIC_RELEASE);
}

void think_test_inline(bool on)
{
    __atomic_store_n(&test_inline, on, __ATOMIC_RELEASE);
}

bool think_offloads(int level, int budget)
{
    return hook() || budget > 0 || ai_default_budget(level) > 0;
}

/* The decision, on the worker's copy. */
static void decide(struct think_node *n)
{
    struct think_job *j = &n->job;
    j->game.rules = &j->rules;
    think_hook_fn fn = hook();
    if (fn)
        fn(j);
    n->result.id = j->id;
    n->result.kind = j->kind;
    n->result.rc = -1;
    memset(&n->result.action, 0, sizeof n->result.action);
    if (!engine_may_act(&j->game, j->seat))
        return;
    struct engine_view v;
    engine_view_make(&j->game, j->seat, &v);
    if (j->kind == THINK_EXPLAIN)
        n->result.rc =
            ai_explain(&v, &j->rng, j->budget, j->also.kind ? &j->also : NULL,
                       n->result.choices, AI_EXPLAIN_MAX);
    else
        n->result.rc = ai_decide_table(j->level, &v, &j->rng, j->budget, 0,
                                       &j->table, &n->result.action);
}

/* A decided job joins the results, and the loop is woken. */
static void finished(struct think *th, struct think_node *n)
{
    pthread_mutex_lock(&th->mu);
    n->next = NULL;
    *th->done_end = n;
    th->done_end = &n->next;
    pthread_mutex_unlock(&th->mu);
    loop_waker_poke(th->waker);
}

static void *worker(void *arg)
{
    struct think *th = arg;
    pthread_mutex_lock(&th->mu);
    for (;;) {
        while (!th->stop && !th->todo && !th->later)
            pthread_cond_wait(&th->wake, &th->mu);
        if (th->stop)
            break;
        /* a table's decision before any explanation */
        struct think_node *n;
        if (th->todo) {
            n = th->todo;
            th->todo = n->next;
            if (!th->todo)
                th->todo_end = &th->todo;
        } else {
            n = th->later;
            th->later = n->next;
            if (!th->later)
                th->later_end = &th->later;
        }
        pthread_mutex_unlock(&th->mu);
        decide(n);
        finished(th, n);
        pthread_mutex_lock(&th->mu);
    }
    pthread_mutex_unlock(&th->mu);
    return NULL;
}

/* The loop: results are in. */
static void on_results(struct loop *l, void *ctx)
{
    (void)l;
    struct think *th = ctx;
    pthread_mutex_lock(&th->mu);
    struct think_node *n = th->done;
    th->done = NULL;
    th->done_end = &th->done;
    pthread_mutex_unlock(&th->mu);
    while (n) {
        struct think_node *next = n->next;
        th->pending--;
        th->fn(th->ctx, &n->result);
        free(n);
        n = next;
    }
}

struct think *think_new(struct loop *l, think_done_fn fn, void *ctx)
{
    return think_new_workers(l, fn, ctx, 1);
}

struct think *think_new_workers(struct loop *l, think_done_fn fn, void *ctx,
                                int workers)
{
    if (workers < 1)
        workers = 1;
    if (workers > THINK_MAX_WORKERS)
        workers = THINK_MAX_WORKERS;
    struct think *th = xcalloc(1, sizeof *th);
    th->fn = fn;
    th->ctx = ctx;
    th->todo_end = &th->todo;
    th->later_end = &th->later;
    th->done_end = &th->done;
    th->waker = loop_waker_new(l, on_results, th);
    pthread_mutex_init(&th->mu, NULL);
    pthread_cond_init(&th->wake, NULL);
    for (; th->nthreads < workers; th->nthreads++) {
        int rc = pthread_create(&th->threads[th->nthreads], NULL, worker, th);
        if (rc) {
            log_error("thinking worker: cannot start: %s", strerror(rc));
            abort();
        }
    }
    log_info("computer players think on %d worker thread%s", th->nthreads,
             th->nthreads == 1 ? "" : "s");
    return th;
}

void think_submit(struct think *th, const struct think_job *job)
{
    struct think_node *n = xcalloc(1, sizeof *n);
    n->job = *job;
    th->pending++;
    if (__atomic_load_n(&test_inline, __ATOMIC_ACQUIRE)) {
        decide(n);
        finished(th, n);
        return;
    }
    pthread_mutex_lock(&th->mu);
    if (job->kind == THINK_EXPLAIN) {
        *th->later_end = n;
        th->later_end = &n->next;
    } else {
        *th->todo_end = n;
        th->todo_end = &n->next;
    }
    pthread_cond_signal(&th->wake);
    pthread_mutex_unlock(&th->mu);
}

int think_pending(const struct think *th)
{
    return th->pending;
}

static void free_list(struct think_node *n)
{
    while (n) {
        struct think_node *next = n->next;
        free(n);
        n = next;
    }
}

void think_free(struct think *th)
{
    if (!th)
        return;
    pthread_mutex_lock(&th->mu);
    th->stop = true;
    pthread_cond_broadcast(&th->wake);
    pthread_mutex_unlock(&th->mu);
    for (int i = 0; i < th->nthreads; i++)
        pthread_join(th->threads[i], NULL);
    free_list(th->todo);
    free_list(th->later);
    free_list(th->done);
    loop_waker_free(th->waker);
    pthread_mutex_destroy(&th->mu);
    pthread_cond_destroy(&th->wake);
    free(th);
}
