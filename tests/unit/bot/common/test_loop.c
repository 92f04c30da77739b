/*
 * Tests of bot/common/loop.c: timers fire in time order and once, cancelled
 * ones never, descriptors are dispatched when ready, watches and timers may
 * change inside callbacks, before-sleep hooks run every round, and a
 * waker poked from another thread runs its callback on the loop's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "bot/common/loop.h"

struct trace {
    char order[64];
    int n;
    uint64_t cancel_me;
    int hooks;
    int reads;
};

static void mark(struct loop *l, void *ctx, char c)
{
    (void)l;
    struct trace *t = ctx;
    t->order[t->n++] = c;
    t->order[t->n] = '\0';
}

static void fire_a(struct loop *l, void *ctx)
{
    mark(l, ctx, 'a');
}

static void fire_b(struct loop *l, void *ctx)
{
    mark(l, ctx, 'b');
}

static void fire_c(struct loop *l, void *ctx)
{
    mark(l, ctx, 'c');
}

static void stop(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

static void test_loop_timer_order_and_cancel(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct trace t = {0};
    loop_timer(l, 30, fire_c, &t);
    loop_timer(l, 10, fire_a, &t);
    uint64_t dead = loop_timer(l, 20, fire_b, &t);
    loop_timer(l, 20, fire_b, &t);
    loop_cancel(l, dead);
    loop_cancel(l, 0);
    loop_cancel(l, 999); /* unknown ids are ignored */
    loop_timer(l, 50, stop, NULL);
    int64_t t0 = loop_now(l);
    assert_int_equal(loop_run(l), 0);
    assert_string_equal(t.order, "abc");
    assert_true(loop_now(l) - t0 >= 50);
    loop_free(l);
}

/* A timer that re-arms itself at 0 ms must not starve the rest. */
static void rearm(struct loop *l, void *ctx)
{
    struct trace *t = ctx;
    if (t->n < 60) {
        mark(l, ctx, 'r');
        loop_timer(l, 0, rearm, ctx);
    }
}

static void count_hook(struct loop *l, void *ctx)
{
    (void)l;
    ((struct trace *)ctx)->hooks++;
}

static void test_loop_rearming_timer_and_hooks_each_round(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct trace t = {0};
    loop_before_sleep(l, count_hook, &t);
    loop_timer(l, 0, rearm, &t);
    loop_timer(l, 20, stop, NULL);
    loop_run(l);
    assert_true(t.n > 1);
    /* one hook call per round, and a round per re-armed timer */
    assert_true(t.hooks >= t.n);
    loop_free(l);
}

static void on_read(struct loop *l, int fd, int events, void *ctx)
{
    struct trace *t = ctx;
    assert_true(events & LOOP_READ);
    char buf[16];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0)
        t->reads += (int)n;
    /* unwatching inside the callback is allowed */
    loop_unwatch(l, fd);
    loop_stop(l);
}

static void test_loop_watch_dispatches_readable(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct trace t = {0};
    int p[2];
    assert_int_equal(pipe(p), 0);
    loop_watch(l, p[0], LOOP_READ, on_read, &t);
    assert_int_equal(write(p[1], "abc", 3), 3);
    loop_timer(l, 1000, stop, NULL); /* a safety net */
    loop_run(l);
    assert_int_equal(t.reads, 3);
    close(p[0]);
    close(p[1]);
    loop_free(l);
}

static void on_write(struct loop *l, int fd, int events, void *ctx)
{
    (void)fd;
    struct trace *t = ctx;
    if (events & LOOP_WRITE)
        mark(l, t, 'w');
    loop_stop(l);
}

static void test_loop_watch_write_and_replace(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct trace t = {0};
    int p[2];
    assert_int_equal(pipe(p), 0);
    /* a second watch of the same fd replaces the first */
    loop_watch(l, p[1], LOOP_READ, on_read, &t);
    loop_watch(l, p[1], LOOP_WRITE, on_write, &t);
    loop_timer(l, 1000, stop, NULL);
    loop_run(l);
    assert_string_equal(t.order, "w");
    assert_int_equal(t.reads, 0);
    close(p[0]);
    close(p[1]);
    loop_free(l);
}

/* The fd number of a watch removed in this round, reused at once by a
 * new watch: the new one must not get the old one's readiness. */
struct reuse {
    int x;
    int stale_calls;
};

static void new_watch(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)fd;
    (void)events;
    ((struct reuse *)ctx)->stale_calls++;
}

static void first_in_round(struct loop *l, int fd, int events, void *ctx)
{
    (void)fd;
    (void)events;
    struct reuse *r = ctx;
    loop_unwatch(l, fd);
    loop_unwatch(l, r->x);
    loop_watch(l, r->x, LOOP_READ, new_watch, r);
    loop_timer(l, 0, stop, NULL);
}

static void test_loop_reused_fd_gets_no_stale_readiness(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    int y[2], x[2];
    assert_int_equal(pipe(y), 0);
    assert_int_equal(pipe(x), 0);
    struct reuse r = {.x = x[0]};
    loop_watch(l, y[0], LOOP_READ, first_in_round, &r);
    loop_watch(l, x[0], LOOP_READ, on_read, NULL);
    assert_int_equal(write(y[1], "y", 1), 1);
    assert_int_equal(write(x[1], "x", 1), 1);
    loop_run(l);
    assert_int_equal(r.stale_calls, 0);
    for (int i = 0; i < 2; i++) {
        close(y[i]);
        close(x[i]);
    }
    loop_free(l);
}

static void counting_hook(struct loop *l, void *ctx)
{
    (void)l;
    (*(int *)ctx)++;
}

static void test_loop_remove_hook(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    int a = 0, b = 0;
    loop_before_sleep(l, counting_hook, &a);
    loop_before_sleep(l, counting_hook, &b);
    loop_remove_hook(l, counting_hook, &a);
    loop_remove_hook(l, counting_hook, &a); /* twice: a no-op */
    loop_timer(l, 5, stop, NULL);
    loop_run(l);
    assert_int_equal(a, 0);
    assert_true(b > 0);
    loop_free(l);
}

static void must_not_fire(struct loop *l, void *ctx)
{
    (void)l;
    (*(int *)ctx)++;
}

/* Each new timer is earlier than the last, so every one moves up the heap
 * when added: the id returned must still be its own. */
static void test_loop_timer_id_survives_heap_moves(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    int fired = 0, kept = 0;
    uint64_t ids[32];
    for (int i = 0; i < 32; i++)
        ids[i] = loop_timer(l, 100 - i, must_not_fire, &fired);
    loop_timer(l, 1, must_not_fire, &kept);
    for (int i = 0; i < 32; i++)
        loop_cancel(l, ids[i]);
    loop_timer(l, 150, stop, NULL);
    loop_run(l);
    assert_int_equal(fired, 0);
    assert_int_equal(kept, 1);
    loop_free(l);
}

/* ---- Wakers ------------------------------------------------------------- */

struct woken {
    struct loop_waker *w;
    pthread_t loop_thread;
    int calls;
    int pokes; /* the poking thread's */
};

static void on_woken(struct loop *l, void *ctx)
{
    struct woken *k = ctx;
    assert_true(pthread_equal(pthread_self(), k->loop_thread));
    k->calls++;
    loop_stop(l);
}

static void *poke_many(void *arg)
{
    struct woken *k = arg;
    for (; k->pokes < 1000; k->pokes++)
        loop_waker_poke(k->w);
    return NULL;
}

/* A thousand pokes from another thread, before the loop runs: the
 * callback runs on the loop thread, and the pokes are all taken (a loop
 * that is not poked again does not call it again). */
static void test_loop_waker_wakes_the_loop_thread(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct woken k = {.loop_thread = pthread_self()};
    k.w = loop_waker_new(l, on_woken, &k);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, poke_many, &k), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    loop_timer(l, 5000, stop, NULL);
    loop_run(l);
    assert_true(k.calls >= 1);
    int calls = k.calls;
    loop_timer(l, 30, stop, NULL);
    loop_run(l);
    assert_int_equal(k.calls, calls);
    loop_waker_free(k.w);
    loop_waker_free(NULL);
    loop_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_timer_order_and_cancel),
        cmocka_unit_test(test_loop_rearming_timer_and_hooks_each_round),
        cmocka_unit_test(test_loop_watch_dispatches_readable),
        cmocka_unit_test(test_loop_watch_write_and_replace),
        cmocka_unit_test(test_loop_reused_fd_gets_no_stale_readiness),
        cmocka_unit_test(test_loop_remove_hook),
        cmocka_unit_test(test_loop_timer_id_survives_heap_moves),
        cmocka_unit_test(test_loop_waker_wakes_the_loop_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
