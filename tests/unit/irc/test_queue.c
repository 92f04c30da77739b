/*
 * Tests of adapters/irc/queue.c with a fake clock and a fake connection:
 * the token bucket's burst and pace, priority order, keep-alive first, the
 * byte cap dropping LOW first, and a full output buffer keeping order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue.h"

/* A fake connection: records what it was given; refuses (FULL) when
 * `full_at` equals the number of lines accepted so far. */
struct fake {
    char sent[32][128];
    int n;
    int full_at;
    int calls;
};

static int fake_send(void *ctx, const char *line)
{
    struct fake *f = ctx;
    f->calls++;
    if (f->n == f->full_at)
        return IRCAD_FULL;
    assert_true(f->n < 32);
    snprintf(f->sent[f->n++], sizeof f->sent[0], "%s", line);
    return IRCAD_SENT;
}

static void test_ircad_bucket_take_burst_then_interval(void **state)
{
    (void)state;
    struct ircad_bucket b;
    ircad_bucket_init(&b, 4, 1100, 1000);
    for (int i = 0; i < 4; i++)
        assert_true(ircad_bucket_take(&b, 1000));
    assert_false(ircad_bucket_take(&b, 1000));
    assert_int_equal(ircad_bucket_wait(&b, 1000), 1100);
    assert_false(ircad_bucket_take(&b, 2099));
    assert_int_equal(ircad_bucket_wait(&b, 2099), 1);
    assert_true(ircad_bucket_take(&b, 2100));
    assert_false(ircad_bucket_take(&b, 2100));
    assert_true(ircad_bucket_take(&b, 3200));
    /* two intervals at once give two tokens */
    assert_true(ircad_bucket_take(&b, 5400));
    assert_true(ircad_bucket_take(&b, 5400));
    assert_false(ircad_bucket_take(&b, 5400));
    /* a long silence refills to the burst, not beyond */
    int got = 0;
    while (ircad_bucket_take(&b, 100000))
        got++;
    assert_int_equal(got, 4);
}

static void test_ircad_bucket_take_interval_counts_from_first_use(void **state)
{
    (void)state;
    struct ircad_bucket b;
    ircad_bucket_init(&b, 2, 1000, 0);
    /* idle and full for a while: the refill clock starts at the first take */
    assert_true(ircad_bucket_take(&b, 50000));
    assert_true(ircad_bucket_take(&b, 50000));
    assert_false(ircad_bucket_take(&b, 50999));
    assert_true(ircad_bucket_take(&b, 51000));
}

static void test_ircad_queue_flush_priorities_order(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "low1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "normal1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "high1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "normal2"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_URGENT, "PING :k"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "high2"), 0);
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    assert_int_equal(ircad_queue_flush(&q, 0, IRCAD_LOW, fake_send, &f, &wait),
                     IRCAD_FLUSH_EMPTY);
    const char *want[] = {"PING :k", "high1",   "high2",
                          "normal1", "normal2", "low1"};
    assert_int_equal(f.n, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(f.sent[i], want[i]);
    assert_true(ircad_queue_empty(&q));
}

/* A steady stream of prompts (HIGH) must not starve the channel's lines
 * (NORMAL): a waiting NORMAL line goes after IRCAD_FAIR_TURN HIGH ones. */
static void test_ircad_queue_flush_high_does_not_starve_normal(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 100, 1000, 65536, 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "trick"), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "prompt"), 0);
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    ircad_queue_flush(&q, 0, IRCAD_LOW, fake_send, &f, &wait);
    assert_int_equal(f.n, 11);
    for (int i = 0; i < 11; i++)
        assert_string_equal(f.sent[i],
                            i == IRCAD_FAIR_TURN ? "trick" : "prompt");
}

static void test_ircad_queue_flush_paces_and_puts_ping_first(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1100, 1 << 20, 0);
    char line[32];
    for (int i = 0; i < 10; i++) {
        snprintf(line, sizeof line, "PRIVMSG #c :%d", i);
        ircad_queue_push(&q, IRCAD_NORMAL, line);
    }
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    /* the burst */
    assert_int_equal(ircad_queue_flush(&q, 0, IRCAD_LOW, fake_send, &f, &wait),
                     IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 4);
    assert_int_equal(wait, 1100);
    /* nothing more before the interval */
    assert_int_equal(
        ircad_queue_flush(&q, 1099, IRCAD_LOW, fake_send, &f, &wait),
        IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 4);
    /* a keep-alive PING queued behind ten lines goes out next */
    ircad_queue_push(&q, IRCAD_URGENT, "PING :keepalive");
    assert_int_equal(
        ircad_queue_flush(&q, 1100, IRCAD_LOW, fake_send, &f, &wait),
        IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 5);
    assert_string_equal(f.sent[4], "PING :keepalive");
    /* then one line per interval, in order */
    ircad_queue_flush(&q, 2200, IRCAD_LOW, fake_send, &f, &wait);
    ircad_queue_flush(&q, 3300, IRCAD_LOW, fake_send, &f, &wait);
    assert_int_equal(f.n, 7);
    assert_string_equal(f.sent[5], "PRIVMSG #c :4");
    assert_string_equal(f.sent[6], "PRIVMSG #c :5");
    ircad_queue_clear(&q);
}

static void test_ircad_queue_flush_only_urgent_before_registration(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_HIGH, "PRIVMSG #c :hello");
    ircad_queue_push(&q, IRCAD_URGENT, "NICK other_");
    struct fake f = {.full_at = -1};
    int64_t wait;
    assert_int_equal(
        ircad_queue_flush(&q, 0, IRCAD_URGENT, fake_send, &f, &wait),
        IRCAD_FLUSH_EMPTY);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.sent[0], "NICK other_");
    assert_false(ircad_queue_empty(&q));
    assert_string_equal(ircad_queue_front(&q, IRCAD_LOW), "PRIVMSG #c :hello");
    ircad_queue_clear(&q);
}

static void test_ircad_queue_push_cap_drops_low_first(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 40, 0);
    /* 3 LOW lines of 10 bytes: 30 of 40 */
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "low-aaaaa1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "low-aaaaa2"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "low-aaaaa3"), 0);
    /* NORMAL 20 bytes: 50 > 40, the newest LOW goes */
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "normal-aaaaaaaaaaa1"),
                     1);
    assert_int_equal(q.bytes, 39);
    /* a LOW line cannot push out anything: refused */
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "low-aaaaa4"), -1);
    /* NORMAL 20 bytes again: both remaining LOW lines go */
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "normal-aaaaaaaaaaa2"),
                     2);
    /* no room and nothing lower: the new NORMAL line is refused */
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "normal-3"), -1);
    /* URGENT is never refused */
    assert_int_equal(ircad_queue_push(&q, IRCAD_URGENT, "PING :k"), 0);
    struct fake f = {.full_at = -1};
    int64_t wait;
    ircad_queue_flush(&q, 0, IRCAD_LOW, fake_send, &f, &wait);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.sent[0], "PING :k");
    assert_string_equal(f.sent[1], "normal-aaaaaaaaaaa1");
    assert_string_equal(f.sent[2], "normal-aaaaaaaaaaa2");
}

static void test_ircad_queue_flush_full_buffer_keeps_order(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "A");
    ircad_queue_push(&q, IRCAD_NORMAL, "B");
    ircad_queue_push(&q, IRCAD_NORMAL, "C");
    /* the connection takes A, then its buffer is full (NOMEM) */
    struct fake f = {.full_at = 1};
    int64_t wait;
    assert_int_equal(ircad_queue_flush(&q, 0, IRCAD_LOW, fake_send, &f, &wait),
                     IRCAD_FLUSH_FULL);
    assert_int_equal(f.n, 1);
    /* B stays first and cost no token: 3 tokens are left */
    assert_string_equal(ircad_queue_front(&q, IRCAD_LOW), "B");
    assert_int_equal(q.bucket.tokens, 3);
    /* a HIGH line queued meanwhile still goes first on the retry */
    ircad_queue_push(&q, IRCAD_HIGH, "H");
    f.full_at = -1;
    assert_int_equal(ircad_queue_flush(&q, 5, IRCAD_LOW, fake_send, &f, &wait),
                     IRCAD_FLUSH_EMPTY);
    assert_int_equal(f.n, 4);
    assert_string_equal(f.sent[1], "H");
    assert_string_equal(f.sent[2], "B");
    assert_string_equal(f.sent[3], "C");
}

static void test_ircad_queue_clear_prio_drops_one_level(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_URGENT, "JOIN #old");
    ircad_queue_push(&q, IRCAD_NORMAL, "PRIVMSG #c :kept");
    ircad_queue_clear_prio(&q, IRCAD_URGENT);
    assert_string_equal(ircad_queue_front(&q, IRCAD_LOW), "PRIVMSG #c :kept");
    assert_int_equal(q.bytes, strlen("PRIVMSG #c :kept"));
    ircad_queue_clear(&q);
    assert_true(ircad_queue_empty(&q));
    assert_int_equal(q.bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_bucket_take_burst_then_interval),
        cmocka_unit_test(test_ircad_bucket_take_interval_counts_from_first_use),
        cmocka_unit_test(test_ircad_queue_flush_priorities_order),
        cmocka_unit_test(test_ircad_queue_flush_high_does_not_starve_normal),
        cmocka_unit_test(test_ircad_queue_flush_paces_and_puts_ping_first),
        cmocka_unit_test(
            test_ircad_queue_flush_only_urgent_before_registration),
        cmocka_unit_test(test_ircad_queue_push_cap_drops_low_first),
        cmocka_unit_test(test_ircad_queue_flush_full_buffer_keeps_order),
        cmocka_unit_test(test_ircad_queue_clear_prio_drops_one_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
