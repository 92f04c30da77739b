/*
 * The rate-limit model (adapters/matrix/pace.c), alone and against a
 * simulated Synapse bucket: Synapse 1.67's Ratelimiter.can_do_action with
 * its message limit's defaults (0.2 a second after a burst of 10), where
 * a room creation is charged for the request and again for the creator's
 * join, and a refusal counts nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/pace.h"

/* ---- a Synapse bucket, in milliseconds -------------------------------- */

struct bucket {
    double rate_per_ms, burst;
    double count;  /* actions since start */
    int64_t start; /* ms */
    bool used;
};

/* can_do_action: 0 when n fit (counted if update), else retry_after_ms. */
static int64_t bucket_check(struct bucket *b, int64_t now, int n, bool update)
{
    double count = b->used ? b->count : 0;
    int64_t start = b->used ? b->start : now;
    double level = count - (double)(now - start) * b->rate_per_ms;
    if (level < 0) {
        level = 0;
        count = 0;
        start = now;
    }
    bool fits = !(level > b->burst - n);
    if (fits)
        count += n;
    if (update) {
        b->count = count;
        b->start = start;
        b->used = true;
    }
    if (fits)
        return 0;
    double when = (double)start + (count - b->burst + 1) / b->rate_per_ms;
    int64_t wait = (int64_t)(when - (double)now);
    return wait > 0 ? wait : 0;
}

/* A send: checked first, counted when stored. */
static int64_t bucket_send(struct bucket *b, int64_t now)
{
    int64_t w = bucket_check(b, now, 1, false);
    return w ? w : bucket_check(b, now, 1, true);
}

/* A createRoom: the request counted, then the join's event counted. The
 * first may count though the second refuses (*charged). */
static int64_t bucket_create(struct bucket *b, int64_t now, bool *charged)
{
    *charged = false;
    int64_t w = bucket_check(b, now, 1, true);
    if (w)
        return w;
    *charged = true;
    return bucket_check(b, now, 1, true);
}

static struct bucket synapse(void)
{
    return (struct bucket){.rate_per_ms = 0.2 / 1000.0, .burst = 10};
}

/* ---- the model alone --------------------------------------------------- */

static void test_pace_open_until_refused(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    assert_false(p.limited);
    assert_int_equal(mx_pace_when(&p, 1, 1000), 1000);
    assert_int_equal(mx_pace_when(&p, 2, 1000), 1000);
    /* open: several at once */
    mx_pace_start(&p, 1, false, 1000);
    mx_pace_start(&p, 2, false, 1000);
    assert_int_equal(mx_pace_when(&p, 1, 1001), 1001);
    assert_false(mx_pace_accepted(&p, 1, false, 1000));
    /* the other is refused: one slot in 4900 ms, and one at a time */
    mx_pace_refused(&p, 4900, true, 1010);
    assert_true(p.limited);
    assert_int_equal(p.busy, 0);
    assert_int_equal(mx_pace_when(&p, 1, 1010),
                     1010 + 4900 + MX_PACE_MARGIN_MS);
    mx_pace_start(&p, 1, false, 6000);
    assert_int_equal(mx_pace_when(&p, 1, 6000), INT64_MAX);
    mx_pace_ended(&p);
    assert_true(mx_pace_when(&p, 1, 6000) < INT64_MAX);
}

static void test_pace_learns_the_interval_between_refusals(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    /* a refusal: one slot at 5000; the wait alone is all it teaches */
    mx_pace_start(&p, 1, false, 0);
    mx_pace_refused(&p, 5000, true, 0);
    assert_int_equal(p.interval, 5000);
    /* three accepted, then a refusal naming 15,900: 3 slots took
     * 5000 -> 21,000, so a slot takes 5,333 ms */
    for (int i = 0; i < 3; i++) {
        mx_pace_start(&p, 1, false, 5100 + i * 5000);
        mx_pace_accepted(&p, 1, false, 5100 + i * 5000);
    }
    mx_pace_start(&p, 1, false, 20100);
    mx_pace_refused(&p, 900, true, 20100);
    assert_int_equal(p.interval, 16000 / 3);
    assert_int_equal(mx_pace_when(&p, 1, 20100), 21000 + MX_PACE_MARGIN_MS);
    /* two slots wait a slot and a tenth more */
    assert_int_equal(mx_pace_when(&p, 2, 20100),
                     21000 + MX_PACE_MARGIN_MS + 5333 + 533);
}

static void
test_pace_in_flight_at_the_first_refusal_is_not_counted(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    /* open: three at once; one refused, the two others accepted after:
     * they were in the bucket before the refusal */
    for (int i = 0; i < 3; i++)
        mx_pace_start(&p, 1, false, 0);
    mx_pace_refused(&p, 4000, true, 1);
    assert_false(mx_pace_accepted(&p, 1, false, 0));
    assert_false(mx_pace_accepted(&p, 1, false, 0));
    assert_int_equal(p.charges, 0);
    /* one slot spent at 4100, the next refused at 8100 with 900 to go:
     * the bucket took 9000 - 4001 for one slot */
    mx_pace_start(&p, 1, false, 4100);
    mx_pace_accepted(&p, 1, false, 4100);
    mx_pace_start(&p, 1, false, 8100);
    mx_pace_refused(&p, 900, true, 8100);
    assert_int_equal(p.interval, 4999);
    /* a refusal tells what a probe would: none due for a period */
    assert_false(mx_pace_probe_due(&p, 8100 + MX_PACE_PROBE_MS - 1));
    assert_true(mx_pace_probe_due(&p, 8100 + MX_PACE_PROBE_MS));
}

static void
test_pace_a_creation_refused_teaches_only_a_first_guess(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    mx_pace_start(&p, 2, false, 0);
    mx_pace_refused(&p, 4000, false, 0);
    assert_int_equal(p.interval, 4000);
    assert_false(p.anchored);
    /* a second one does not move what was learned */
    mx_pace_start(&p, 2, false, 9000);
    mx_pace_refused(&p, 50, false, 9000);
    assert_int_equal(p.interval, 4000);
    assert_int_equal(mx_pace_when(&p, 1, 9000), 9050 + MX_PACE_MARGIN_MS);
}

static void test_pace_an_idle_gap_is_not_taken_for_a_slow_rate(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    mx_pace_start(&p, 1, false, 0);
    mx_pace_refused(&p, 5000, true, 0);
    mx_pace_start(&p, 1, false, 5100);
    mx_pace_accepted(&p, 1, false, 5100);
    /* ten minutes later, refused: one slot in ten minutes says nothing */
    mx_pace_start(&p, 1, false, 600000);
    mx_pace_refused(&p, 4000, true, 600000);
    assert_int_equal(p.interval, 5000);
}

static void test_pace_saves_up_at_most_a_burst(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    mx_pace_start(&p, 1, false, 0);
    mx_pace_refused(&p, 5000, true, 0);
    int64_t free_at = mx_pace_when(&p, 1, 0);
    /* a minute idle: MX_PACE_BURST slots at once, then one per interval */
    int64_t t = free_at + 60000;
    for (int i = 0; i < MX_PACE_BURST; i++) {
        assert_true(mx_pace_when(&p, 1, t) <= t);
        mx_pace_start(&p, 1, false, t);
        mx_pace_accepted(&p, 1, false, t);
    }
    assert_int_equal(mx_pace_when(&p, 1, t), t + 5000);
}

static void test_pace_probe_opens_when_the_limit_is_gone(void **state)
{
    (void)state;
    struct mx_pace p;
    mx_pace_init(&p);
    mx_pace_start(&p, 1, false, 0);
    mx_pace_refused(&p, 5000, true, 0);
    assert_false(mx_pace_probe_due(&p, MX_PACE_PROBE_MS - 1));
    assert_true(mx_pace_probe_due(&p, MX_PACE_PROBE_MS));
    /* refused, it teaches and the next one is a period later */
    mx_pace_start(&p, 1, true, MX_PACE_PROBE_MS);
    mx_pace_refused(&p, 3000, true, MX_PACE_PROBE_MS);
    assert_true(p.limited);
    assert_false(mx_pace_probe_due(&p, 2 * MX_PACE_PROBE_MS - 1));
    /* accepted: the pacer is open again, and forgets what it learned */
    mx_pace_start(&p, 1, true, 2 * MX_PACE_PROBE_MS);
    assert_true(mx_pace_accepted(&p, 1, true, 2 * MX_PACE_PROBE_MS));
    assert_false(p.limited);
    assert_int_equal(p.interval, 0);
    assert_int_equal(mx_pace_when(&p, 2, 2 * MX_PACE_PROBE_MS),
                     2 * MX_PACE_PROBE_MS);
}

/* ---- against Synapse's bucket ----------------------------------------- */

struct run {
    int sent, refused, created, create_refused, charged_refusals;
    int64_t end;
};

/*
 * A sender as the adapter is one: `actions` of them, every `every`-th a
 * room creation (0: none), each started at the pacer's time (or at once
 * as a probe when due), one at a time; a refused one is tried again.
 * The bucket starts full (the bot's burst spent elsewhere), or, with
 * `burst`, empty: the first 12 sends go at once while the pacer is open,
 * the refusals answered first (the others were in flight then).
 */
static struct run drive(int actions, int every, bool burst)
{
    struct bucket b = synapse();
    struct mx_pace p;
    mx_pace_init(&p);
    struct run r = {0};
    int64_t now = 0;
    int done = 0;
    if (burst) {
        int64_t waits[12];
        for (int i = 0; i < 12; i++) {
            mx_pace_start(&p, 1, false, now);
            waits[i] = bucket_send(&b, now + i);
        }
        /* the refusals' answers come back first */
        for (int i = 0; i < 12; i++)
            if (waits[i])
                mx_pace_refused(&p, waits[i], true, now + 12);
        for (int i = 0; i < 12; i++)
            if (!waits[i]) {
                mx_pace_accepted(&p, 1, false, now);
                done++;
                r.sent++;
            }
        now += 12;
    } else {
        for (int i = 0; i < 10; i++)
            bucket_send(&b, now);
    }
    while (done < actions) {
        bool create = every && done % every == every - 1;
        int cost = create ? 2 : 1;
        int64_t when = mx_pace_when(&p, cost, now);
        bool probe = false;
        if (when > now) {
            if (cost == 1 && mx_pace_probe_due(&p, now))
                probe = true;
            else
                now = when;
        }
        mx_pace_start(&p, cost, probe, now);
        int64_t wait;
        bool charged = false;
        if (create)
            wait = bucket_create(&b, now, &charged);
        else
            wait = bucket_send(&b, now);
        if (wait == 0) {
            mx_pace_accepted(&p, cost, probe, now);
            done++;
            if (create)
                r.created++;
            else
                r.sent++;
        } else {
            mx_pace_refused(&p, wait, !create, now);
            if (create) {
                r.create_refused++;
                r.charged_refusals += charged;
            } else if (!probe) {
                r.refused++;
            }
        }
        now += 3; /* the answer's round trip */
    }
    r.end = now;
    return r;
}

static void test_pace_sends_at_the_rate_and_seldom_hits_it(void **state)
{
    (void)state;
    struct run r = drive(200, 0, false);
    assert_int_equal(r.sent, 200);
    /* 200 slots at 0.2 a second take 1000 s: within 2% of it */
    assert_true(r.end >= 995000);
    assert_true(r.end <= 1020000);
    /* refused outside probes: learning, a handful */
    assert_true(r.refused <= 5);
}

static void test_pace_creations_wait_for_both_slots(void **state)
{
    (void)state;
    /* every fourth a room creation: never refused twice in a row, and
     * never charged for nothing after the first */
    struct run r = drive(120, 4, false);
    assert_int_equal(r.created, 30);
    assert_int_equal(r.sent, 90);
    assert_true(r.create_refused <= 2);
    assert_true(r.charged_refusals <= 1);
    /* 30 * 2 + 90 slots: 750 s at the rate, and within 5% of it */
    assert_true(r.end <= 787500);
}

static void test_pace_after_an_open_burst(void **state)
{
    (void)state;
    /* what a bot meets first: ten accepted at once, two refused; then the
     * interval is learned right and the rest go at the rate */
    struct run r = drive(210, 0, true);
    assert_int_equal(r.sent, 210);
    /* 200 after the burst: 1000 s at the rate, within 2% */
    assert_true(r.end <= 1020000);
    assert_true(r.refused <= 5);
}

static void test_pace_retry_at_retry_after_alone_livelocks(void **state)
{
    (void)state;
    /* what the bot did before the pacer: a creation tried again exactly
     * when the refusal said; the bucket never holds two slots */
    struct bucket b = synapse();
    int64_t now = 0;
    for (int i = 0; i < 10; i++)
        bucket_send(&b, now);
    int refused = 0;
    bool charged;
    for (int i = 0; i < 50; i++) {
        int64_t wait = bucket_create(&b, now, &charged);
        if (wait == 0)
            break;
        refused++;
        now += wait;
    }
    assert_int_equal(refused, 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pace_open_until_refused),
        cmocka_unit_test(test_pace_learns_the_interval_between_refusals),
        cmocka_unit_test(
            test_pace_a_creation_refused_teaches_only_a_first_guess),
        cmocka_unit_test(
            test_pace_in_flight_at_the_first_refusal_is_not_counted),
        cmocka_unit_test(test_pace_an_idle_gap_is_not_taken_for_a_slow_rate),
        cmocka_unit_test(test_pace_saves_up_at_most_a_burst),
        cmocka_unit_test(test_pace_probe_opens_when_the_limit_is_gone),
        cmocka_unit_test(test_pace_sends_at_the_rate_and_seldom_hits_it),
        cmocka_unit_test(test_pace_creations_wait_for_both_slots),
        cmocka_unit_test(test_pace_after_an_open_burst),
        cmocka_unit_test(test_pace_retry_at_retry_after_alone_livelocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
