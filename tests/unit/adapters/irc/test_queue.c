/*
 * Tests of adapters/irc/queue.c with a fake clock and a fake connection:
 * the token bucket's burst and pace, priority order across destinations
 * and none within one, round-robin fairness (a flood of replies, a busy
 * table), keep-alive first, the byte cap dropping LOW first, tagged lines
 * reported when sent or dropped, and a full output buffer keeping order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/queue.h"

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

static void test_bucket_take_burst_then_interval(void **state)
{
    (void)state;
    struct bucket b;
    bucket_init(&b, 4, 1100, 1000);
    for (int i = 0; i < 4; i++)
        assert_true(bucket_take(&b, 1000));
    assert_false(bucket_take(&b, 1000));
    assert_int_equal(bucket_wait(&b, 1000), 1100);
    assert_false(bucket_take(&b, 2099));
    assert_int_equal(bucket_wait(&b, 2099), 1);
    assert_true(bucket_take(&b, 2100));
    assert_false(bucket_take(&b, 2100));
    assert_true(bucket_take(&b, 3200));
    /* two intervals at once give two tokens */
    assert_true(bucket_take(&b, 5400));
    assert_true(bucket_take(&b, 5400));
    assert_false(bucket_take(&b, 5400));
    /* a long silence refills to the burst, not beyond */
    int got = 0;
    while (bucket_take(&b, 100000))
        got++;
    assert_int_equal(got, 4);
}

static void test_bucket_take_interval_counts_from_first_use(void **state)
{
    (void)state;
    struct bucket b;
    bucket_init(&b, 2, 1000, 0);
    /* idle and full for a while: the refill clock starts at the first take */
    assert_true(bucket_take(&b, 50000));
    assert_true(bucket_take(&b, 50000));
    assert_false(bucket_take(&b, 50999));
    assert_true(bucket_take(&b, 51000));
}

/* Flushes everything at `now` with no pacing in the way. */
static enum ircad_flush flush_all(struct ircad_queue *q, int64_t now,
                                  struct fake *f)
{
    int64_t wait = 0;
    return ircad_queue_flush(q, now, true, fake_send, NULL, f, &wait);
}

static void test_ircad_queue_flush_priorities_order(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "carol", "low1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "#c", "normal1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "alice", "high1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "#c", "normal2"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_URGENT, NULL, "PING :k"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "alice", "high2"), 0);
    struct fake f = {.full_at = -1};
    assert_int_equal(flush_all(&q, 0, &f), IRCAD_FLUSH_EMPTY);
    const char *want[] = {"PING :k", "high1",   "high2",
                          "normal1", "normal2", "low1"};
    assert_int_equal(f.n, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(f.sent[i], want[i]);
    assert_true(ircad_queue_empty(&q));
}

/* Lines to one destination keep their order whatever their priorities:
 * the deal queued before the prompt arrives first. */
static void test_ircad_queue_flush_same_target_never_reordered(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "trick");
    ircad_queue_push(&q, IRCAD_LOW, "alice", "help");
    ircad_queue_push(&q, IRCAD_NORMAL, "alice", "deal");
    ircad_queue_push(&q, IRCAD_HIGH, "alice", "prompt");
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 4);
    /* alice's FIFO ranks by the prompt in it, and keeps its order */
    assert_string_equal(f.sent[0], "help");
    assert_string_equal(f.sent[1], "deal");
    assert_string_equal(f.sent[2], "prompt");
    assert_string_equal(f.sent[3], "trick");
}

/* A steady stream of prompts (HIGH) must not starve the channel's lines
 * (NORMAL): a waiting NORMAL line goes after IRCAD_FAIR_TURN HIGH ones. */
static void test_ircad_queue_flush_high_does_not_starve_normal(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 100, 1000, 65536, 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "#c", "trick"), 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ircad_queue_push(&q, IRCAD_HIGH, "alice", "prompt"),
                         0);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 11);
    for (int i = 0; i < 11; i++)
        assert_string_equal(f.sent[i],
                            i == IRCAD_FAIR_TURN ? "trick" : "prompt");
}

/* One person's flood of replies shares the line with a table's channel at
 * the same priority: with the fake clock at one line a second, the
 * table's line queued behind 30 replies goes out within two seconds (the
 * one shared queue sent it after all 30). */
static void
test_ircad_queue_flush_flood_of_replies_does_not_delay_table(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 1, 1000, 1 << 20, 0);
    for (int i = 0; i < 30; i++)
        ircad_queue_push(&q, IRCAD_NORMAL, "spammer", "reply");
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    int64_t now = 0;
    assert_int_equal(
        ircad_queue_flush(&q, now, true, fake_send, NULL, &f, &wait),
        IRCAD_FLUSH_WAIT);
    ircad_queue_push(&q, IRCAD_NORMAL, "#table", "trick");
    ircad_queue_push(&q, IRCAD_NORMAL, "#table", "scores");
    int64_t trick_at = -1, scores_at = -1;
    while (f.n < 32 && now < 100000) {
        now += wait;
        ircad_queue_flush(&q, now, true, fake_send, NULL, &f, &wait);
        for (int i = 0; i < f.n; i++) {
            if (trick_at < 0 && strcmp(f.sent[i], "trick") == 0)
                trick_at = now;
            if (scores_at < 0 && strcmp(f.sent[i], "scores") == 0)
                scores_at = now;
        }
    }
    assert_int_equal(f.n, 32);
    assert_in_range(trick_at, 1000, 2000);
    assert_in_range(scores_at, trick_at + 1000, trick_at + 2000);
}

/* Two tables, one busy: the quiet one's line does not wait for the busy
 * one's backlog; and chatter (LOW) to a third destination waits until the
 * game lines of others have had their turns, but not for ever. */
static void test_ircad_queue_flush_round_robin_between_tables(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 100, 1000, 1 << 20, 0);
    for (int i = 0; i < 20; i++)
        ircad_queue_push(&q, IRCAD_NORMAL, "#busy", "busy");
    ircad_queue_push(&q, IRCAD_LOW, "nosy", "help");
    ircad_queue_push(&q, IRCAD_NORMAL, "#quiet", "quiet");
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 22);
    /* #busy first (it was first in the round), then #quiet at once */
    assert_string_equal(f.sent[0], "busy");
    assert_string_equal(f.sent[1], "quiet");
    /* the LOW line ages ahead of the remaining backlog: one level below
     * it, it goes after IRCAD_FAIR_TURN lines of others, not after all 20 */
    int help_at = -1;
    for (int i = 0; i < f.n; i++)
        if (strcmp(f.sent[i], "help") == 0)
            help_at = i;
    assert_int_equal(help_at, IRCAD_FAIR_TURN);
}

static void test_ircad_queue_flush_paces_and_puts_ping_first(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1100, 1 << 20, 0);
    char line[32];
    for (int i = 0; i < 10; i++) {
        snprintf(line, sizeof line, "PRIVMSG #c :%d", i);
        ircad_queue_push(&q, IRCAD_NORMAL, "#c", line);
    }
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    /* the burst */
    assert_int_equal(ircad_queue_flush(&q, 0, true, fake_send, NULL, &f, &wait),
                     IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 4);
    assert_int_equal(wait, 1100);
    /* nothing more before the interval */
    assert_int_equal(
        ircad_queue_flush(&q, 1099, true, fake_send, NULL, &f, &wait),
        IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 4);
    /* a keep-alive PING queued behind ten lines goes out next */
    ircad_queue_push(&q, IRCAD_URGENT, NULL, "PING :keepalive");
    assert_int_equal(
        ircad_queue_flush(&q, 1100, true, fake_send, NULL, &f, &wait),
        IRCAD_FLUSH_WAIT);
    assert_int_equal(f.n, 5);
    assert_string_equal(f.sent[4], "PING :keepalive");
    /* then one line per interval, in order */
    ircad_queue_flush(&q, 2200, true, fake_send, NULL, &f, &wait);
    ircad_queue_flush(&q, 3300, true, fake_send, NULL, &f, &wait);
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
    ircad_queue_push(&q, IRCAD_HIGH, "#c", "PRIVMSG #c :hello");
    ircad_queue_push(&q, IRCAD_URGENT, NULL, "NICK other_");
    struct fake f = {.full_at = -1};
    int64_t wait;
    assert_int_equal(
        ircad_queue_flush(&q, 0, false, fake_send, NULL, &f, &wait),
        IRCAD_FLUSH_EMPTY);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.sent[0], "NICK other_");
    assert_false(ircad_queue_empty(&q));
    assert_string_equal(ircad_queue_front(&q, true), "PRIVMSG #c :hello");
    ircad_queue_clear(&q);
}

static uint64_t dropped_cookies[8];
static int ndropped;

static void note_dropped(void *ctx, uint64_t cookie)
{
    (void)ctx;
    if (ndropped < 8)
        dropped_cookies[ndropped++] = cookie;
}

static void test_ircad_queue_push_cap_drops_low_first(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 40, 0);
    ndropped = 0;
    q.dropped = note_dropped;
    /* 3 LOW lines of 10 bytes: 30 of 40 */
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "a", "low-aaaaa1"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "b", "low-aaaaa2"), 0);
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "a", "low-aaaaa3"), 0);
    assert_true(ircad_queue_tag_last(&q, 7, true));
    /* NORMAL 20 bytes: 50 > 40, the newest LOW goes (its cookie told) */
    assert_int_equal(
        ircad_queue_push(&q, IRCAD_NORMAL, "a", "normal-aaaaaaaaaaa1"), 1);
    assert_int_equal(q.bytes, 39);
    assert_int_equal(ndropped, 1);
    assert_int_equal(dropped_cookies[0], 7);
    assert_int_equal(ircad_queue_pending(&q, "a"), 2);
    /* a LOW line cannot push out anything: refused, nothing to tag */
    assert_int_equal(ircad_queue_push(&q, IRCAD_LOW, "c", "low-aaaaa4"), -1);
    assert_false(ircad_queue_tag_last(&q, 8, true));
    /* NORMAL 20 bytes again: both remaining LOW lines go */
    assert_int_equal(
        ircad_queue_push(&q, IRCAD_NORMAL, "b", "normal-aaaaaaaaaaa2"), 2);
    assert_int_equal(ircad_queue_pending(&q, "a"), 1);
    /* no room and nothing lower: the new NORMAL line is refused */
    assert_int_equal(ircad_queue_push(&q, IRCAD_NORMAL, "a", "normal-3"), -1);
    /* URGENT is never refused */
    assert_int_equal(ircad_queue_push(&q, IRCAD_URGENT, NULL, "PING :k"), 0);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 3);
    assert_string_equal(f.sent[0], "PING :k");
    assert_string_equal(f.sent[1], "normal-aaaaaaaaaaa1");
    assert_string_equal(f.sent[2], "normal-aaaaaaaaaaa2");
    assert_true(ircad_queue_empty(&q));
    assert_int_equal(q.bytes, 0);
}

static uint64_t sent_cookies[8];
static int nsent_cookies;
static int lines_when_told;

static void note_sent(void *ctx, uint64_t cookie)
{
    struct fake *f = ctx;
    lines_when_told = f->n;
    if (nsent_cookies < 8)
        sent_cookies[nsent_cookies++] = cookie;
}

/* A tagged line is reported once it has gone, not before. */
static void test_ircad_queue_flush_reports_tagged_line_sent(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 1, 1000, 4096, 0);
    nsent_cookies = 0;
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "backlog");
    ircad_queue_push(&q, IRCAD_HIGH, "bob", "prompt part 1");
    ircad_queue_push(&q, IRCAD_HIGH, "bob", "prompt part 2");
    assert_true(ircad_queue_tag_last(&q, 42, false));
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    ircad_queue_flush(&q, 0, true, fake_send, note_sent, &f, &wait);
    ircad_queue_flush(&q, 1000, true, fake_send, note_sent, &f, &wait);
    assert_int_equal(f.n, 2);
    assert_int_equal(nsent_cookies, 0);
    ircad_queue_flush(&q, 2000, true, fake_send, note_sent, &f, &wait);
    assert_int_equal(nsent_cookies, 1);
    assert_int_equal(sent_cookies[0], 42);
    assert_int_equal(lines_when_told, 3);
}

/* A whole text still waiting can be taken back, silently; a part of a
 * longer text, or a line already sent, cannot. */
static void test_ircad_queue_retract(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 1, 1000, 4096, 0);
    nsent_cookies = 0;
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "sent first");
    assert_true(ircad_queue_tag_last(&q, 1, true));
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "you received");
    assert_true(ircad_queue_tag_last(&q, 2, true));
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "long part 1");
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "long part 2");
    assert_true(ircad_queue_tag_last(&q, 3, false));
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    ircad_queue_flush(&q, 0, true, fake_send, note_sent, &f, &wait);
    assert_int_equal(f.n, 1);
    assert_false(ircad_queue_retract(&q, 1)); /* gone already */
    assert_false(ircad_queue_retract(&q, 3)); /* part of a text */
    assert_false(ircad_queue_retract(&q, 0));
    assert_true(ircad_queue_retract(&q, 2));
    assert_false(ircad_queue_retract(&q, 2)); /* once */
    assert_int_equal(ircad_queue_pending(&q, "bob"), 2);
    for (int64_t now = 1000; now <= 4000; now += 1000)
        ircad_queue_flush(&q, now, true, fake_send, note_sent, &f, &wait);
    assert_int_equal(f.n, 3);
    assert_int_equal(nsent_cookies, 2); /* 1 and 3: never 2 */
    assert_int_equal(sent_cookies[0], 1);
    assert_int_equal(sent_cookies[1], 3);
}

static void test_ircad_queue_flush_full_buffer_keeps_order(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 4, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "A");
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "B");
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "C");
    /* the connection takes A, then its buffer is full (NOMEM) */
    struct fake f = {.full_at = 1};
    assert_int_equal(flush_all(&q, 0, &f), IRCAD_FLUSH_FULL);
    assert_int_equal(f.n, 1);
    /* B stays first and cost no token: 3 tokens are left */
    assert_string_equal(ircad_queue_front(&q, true), "B");
    assert_int_equal(q.bucket.tokens, 3);
    /* a HIGH line to someone else queued meanwhile goes first on the
     * retry */
    ircad_queue_push(&q, IRCAD_HIGH, "alice", "H");
    f.full_at = -1;
    assert_int_equal(flush_all(&q, 5, &f), IRCAD_FLUSH_EMPTY);
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
    ircad_queue_push(&q, IRCAD_URGENT, NULL, "JOIN #old");
    ircad_queue_push(&q, IRCAD_LOW, "#c", "PRIVMSG #c :help");
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "PRIVMSG #c :kept");
    ircad_queue_clear_prio(&q, IRCAD_URGENT);
    ircad_queue_clear_prio(&q, IRCAD_LOW);
    assert_string_equal(ircad_queue_front(&q, true), "PRIVMSG #c :kept");
    assert_int_equal(q.bytes, strlen("PRIVMSG #c :kept"));
    assert_int_equal(ircad_queue_pending(&q, "#c"), 1);
    ircad_queue_clear(&q);
    assert_true(ircad_queue_empty(&q));
    assert_int_equal(q.bytes, 0);
    assert_int_equal(ircad_queue_pending(&q, "#c"), 0);
}

/* A nick change: what waited for the old nick is written to the new one,
 * in order, tags kept, and nothing is left for whoever takes the old. */
static void test_ircad_queue_retarget_follows_nick(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "p4", "PRIVMSG p4 :deal");
    ircad_queue_push(&q, IRCAD_HIGH, "p4", "PRIVMSG p4 :prompt");
    assert_true(ircad_queue_tag_last(&q, 7, true));
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "PRIVMSG #c :trick");
    assert_int_equal(ircad_queue_retarget(&q, "p4", "p4_", "P4_"), 2);
    assert_int_equal(ircad_queue_pending(&q, "p4"), 0);
    assert_int_equal(ircad_queue_pending(&q, "p4_"), 2);
    /* a line for the new holder of "p4" is not mixed with them */
    ircad_queue_push(&q, IRCAD_HIGH, "p4", "PRIVMSG p4 :hello mal");
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    ircad_queue_flush(&q, 0, true, fake_send, NULL, &f, &wait);
    assert_int_equal(f.n, 4);
    int deal = -1, prompt = -1;
    for (int i = 0; i < f.n; i++) {
        if (strcmp(f.sent[i], "PRIVMSG P4_ :deal") == 0)
            deal = i;
        else if (strcmp(f.sent[i], "PRIVMSG P4_ :prompt") == 0)
            prompt = i;
        else
            assert_true(strcmp(f.sent[i], "PRIVMSG #c :trick") == 0 ||
                        strcmp(f.sent[i], "PRIVMSG p4 :hello mal") == 0);
    }
    assert_true(deal >= 0 && prompt > deal);
    assert_true(ircad_queue_empty(&q));
    assert_int_equal(q.bytes, 0);
}

/* The tag of a line moved with it: reported when it is written. */
static void test_ircad_queue_retarget_keeps_tag(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_HIGH, "ann", "PRIVMSG ann :your turn");
    assert_true(ircad_queue_tag_last(&q, 42, true));
    ircad_queue_retarget(&q, "ann", "annie", "annie");
    /* still retractable as a whole text, under its new name */
    ircad_queue_push(&q, IRCAD_HIGH, "annie", "PRIVMSG annie :more");
    assert_true(ircad_queue_tag_last(&q, 43, true));
    assert_true(ircad_queue_retract(&q, 43));
    struct fake f = {.full_at = -1};
    int64_t wait = 0;
    nsent_cookies = 0;
    ircad_queue_flush(&q, 0, true, fake_send, note_sent, &f, &wait);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.sent[0], "PRIVMSG annie :your turn");
    assert_int_equal(nsent_cookies, 1);
    assert_int_equal(sent_cookies[0], 42);
}

/* The three-way swap a->tmp, b->a, tmp->b: each person's lines reach
 * them under the nick they end with, never the other. */
static void test_ircad_queue_retarget_three_way_swap(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "a", "PRIVMSG a :for ann 1");
    ircad_queue_push(&q, IRCAD_NORMAL, "b", "PRIVMSG b :for bob 1");
    ircad_queue_push(&q, IRCAD_HIGH, "a", "PRIVMSG a :for ann 2");
    assert_int_equal(ircad_queue_retarget(&q, "a", "tmp", "tmp"), 2);
    assert_int_equal(ircad_queue_retarget(&q, "b", "a", "a"), 1);
    assert_int_equal(ircad_queue_retarget(&q, "tmp", "b", "b"), 2);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 3);
    int ann1 = -1, ann2 = -1;
    for (int i = 0; i < f.n; i++) {
        if (strcmp(f.sent[i], "PRIVMSG b :for ann 1") == 0)
            ann1 = i;
        else if (strcmp(f.sent[i], "PRIVMSG b :for ann 2") == 0)
            ann2 = i;
        else
            assert_string_equal(f.sent[i], "PRIVMSG a :for bob 1");
    }
    assert_true(ann1 >= 0 && ann2 > ann1);
}

/* Lines already waiting for the new name merge with the moved ones in
 * the order they were pushed; the longer claim on a turn is kept. */
static void test_ircad_queue_retarget_merges_in_push_order(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "x", "PRIVMSG x :1");
    ircad_queue_push(&q, IRCAD_NORMAL, "y", "PRIVMSG y :2");
    ircad_queue_push(&q, IRCAD_NORMAL, "x", "PRIVMSG x :3");
    ircad_queue_push(&q, IRCAD_LOW, "y", "PRIVMSG y :4");
    ircad_queue_push(&q, IRCAD_NORMAL, "x", "PRIVMSG x :5");
    assert_int_equal(ircad_queue_retarget(&q, "x", "y", "Y"), 5);
    assert_int_equal(ircad_queue_pending(&q, "x"), 0);
    assert_int_equal(ircad_queue_pending(&q, "y"), 5);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 5);
    for (int i = 0; i < 5; i++) {
        char want[32];
        snprintf(want, sizeof want, "PRIVMSG Y :%d", i + 1);
        assert_string_equal(f.sent[i], want);
    }
    assert_true(ircad_queue_empty(&q));
}

/* A change of case only renames the lines in place. */
static void test_ircad_queue_retarget_same_key_renames(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "PRIVMSG bob :hi");
    assert_int_equal(ircad_queue_retarget(&q, "bob", "bob", "BOB"), 1);
    assert_int_equal(ircad_queue_retarget(&q, "nobody", "z", "z"), 0);
    assert_int_equal(ircad_queue_retarget(&q, "bob", "b", "bad name"), 0);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.sent[0], "PRIVMSG BOB :hi");
}

/* A line with no name to rewrite is dropped, not sent to the old name. */
static void test_ircad_queue_retarget_drops_unaddressable(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ndropped = 0;
    q.dropped = note_dropped;
    ircad_queue_push(&q, IRCAD_NORMAL, "bob", "junk");
    assert_true(ircad_queue_tag_last(&q, 5, true));
    assert_int_equal(ircad_queue_retarget(&q, "bob", "rob", "rob"), 0);
    assert_true(ircad_queue_empty(&q));
    assert_int_equal(ndropped, 1);
    assert_int_equal(dropped_cookies[0], 5);
}

/* A person who left: their lines go, reported, and nobody else's. */
static void test_ircad_queue_drop_target(void **state)
{
    (void)state;
    struct ircad_queue q;
    ircad_queue_init(&q, 10, 1000, 4096, 0);
    ndropped = 0;
    q.dropped = note_dropped;
    ircad_queue_push(&q, IRCAD_NORMAL, "p4", "PRIVMSG p4 :deal");
    ircad_queue_push(&q, IRCAD_HIGH, "p4", "PRIVMSG p4 :prompt");
    assert_true(ircad_queue_tag_last(&q, 9, true));
    ircad_queue_push(&q, IRCAD_NORMAL, "#c", "PRIVMSG #c :trick");
    assert_int_equal(ircad_queue_drop_target(&q, "p4"), 2);
    assert_int_equal(ircad_queue_drop_target(&q, "p4"), 0);
    assert_int_equal(ndropped, 1);
    assert_int_equal(dropped_cookies[0], 9);
    struct fake f = {.full_at = -1};
    flush_all(&q, 0, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.sent[0], "PRIVMSG #c :trick");
    assert_int_equal(q.bytes, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bucket_take_burst_then_interval),
        cmocka_unit_test(test_bucket_take_interval_counts_from_first_use),
        cmocka_unit_test(test_ircad_queue_flush_priorities_order),
        cmocka_unit_test(test_ircad_queue_flush_same_target_never_reordered),
        cmocka_unit_test(test_ircad_queue_flush_high_does_not_starve_normal),
        cmocka_unit_test(
            test_ircad_queue_flush_flood_of_replies_does_not_delay_table),
        cmocka_unit_test(test_ircad_queue_flush_round_robin_between_tables),
        cmocka_unit_test(test_ircad_queue_flush_reports_tagged_line_sent),
        cmocka_unit_test(test_ircad_queue_flush_paces_and_puts_ping_first),
        cmocka_unit_test(
            test_ircad_queue_flush_only_urgent_before_registration),
        cmocka_unit_test(test_ircad_queue_push_cap_drops_low_first),
        cmocka_unit_test(test_ircad_queue_retract),
        cmocka_unit_test(test_ircad_queue_flush_full_buffer_keeps_order),
        cmocka_unit_test(test_ircad_queue_clear_prio_drops_one_level),
        cmocka_unit_test(test_ircad_queue_retarget_follows_nick),
        cmocka_unit_test(test_ircad_queue_retarget_keeps_tag),
        cmocka_unit_test(test_ircad_queue_retarget_three_way_swap),
        cmocka_unit_test(test_ircad_queue_retarget_merges_in_push_order),
        cmocka_unit_test(test_ircad_queue_retarget_same_key_renames),
        cmocka_unit_test(test_ircad_queue_retarget_drops_unaddressable),
        cmocka_unit_test(test_ircad_queue_drop_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
