/*
 * Tests of the per-person answer limit (bot/manager/limit.c) on a fake clock:
 * the burst, the pace after it, one warning per flood, repeats answered once,
 * people kept apart, and a bounded table under a flood of identities; a
 * room's memory of the answers it heard; hints nobody asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>

#include "bot/manager/limit.h"

static const struct limit_rules rules = {
    .burst = 3, .interval_ms = 2000, .quiet_ms = 30000};

static void test_limit_check_burst_then_pace(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    char text[16];
    int64_t now = 1000;
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "x%d", i);
        assert_int_equal(limit_check(l, &rules, "net", "a@h", text, now),
                         LIMIT_ANSWER);
    }
    /* dry: one warning, then silence */
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "y1", now),
                     LIMIT_WARN);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "y2", now + 100),
                     LIMIT_QUIET);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "y3", now + 1900),
                     LIMIT_QUIET);
    /* one answer per interval */
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "y4", now + 2000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "y5", now + 2100),
                     LIMIT_QUIET);
    /* a full bucket again: a burst, and a new warning after it */
    now += 60000;
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text, "z%d", i);
        assert_int_equal(limit_check(l, &rules, "net", "a@h", text, now),
                         LIMIT_ANSWER);
    }
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "z9", now),
                     LIMIT_WARN);
    limit_free(l);
}

static void test_limit_check_repeat_answered_once(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "help", 0),
                     LIMIT_ANSWER);
    /* the same text, steadily, stays quiet past the quiet time */
    for (int64_t t = 5000; t <= 60000; t += 5000)
        assert_int_equal(limit_check(l, &rules, "net", "a@h", "help", t),
                         LIMIT_QUIET);
    /* other text is answered; the repeat after a pause too */
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "status", 61000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "help", 62000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "help", 93000),
                     LIMIT_ANSWER);
    limit_free(l);
}

static void test_limit_check_people_apart(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    const char *texts[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        limit_check(l, &rules, "net", "a@h", texts[i], i);
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "d", 10), LIMIT_WARN);
    /* another identity, or the same one on another network */
    assert_int_equal(limit_check(l, &rules, "net", "b@h", "c", 10),
                     LIMIT_ANSWER);
    assert_int_equal(limit_check(l, &rules, "other", "a@h", "c", 10),
                     LIMIT_ANSWER);
    limit_free(l);
}

static void test_limit_check_no_limit(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    struct limit_rules none = {.burst = 1, .interval_ms = 0, .quiet_ms = 0};
    for (int i = 0; i < 100; i++)
        assert_int_equal(limit_check(l, &none, "net", "a@h", "help", i),
                         LIMIT_ANSWER);
    limit_free(l);
}

static void test_limit_check_bounded_under_many_people(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    /* a@h floods itself dry, then 10,000 others come by */
    for (int i = 0; i < 5; i++)
        limit_check(l, &rules, "net", "a@h", i % 2 ? "p" : "q", 0);
    char id[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(id, sizeof id, "n%d@h", i);
        assert_int_equal(limit_check(l, &rules, "net", id, "x", 1 + i),
                         LIMIT_ANSWER);
    }
    assert_int_equal(limit_people(l), LIMIT_PEOPLE);
    limit_free(l);
}

static void test_limit_shared_burst_then_pace(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    for (int i = 0; i < 4; i++)
        assert_true(limit_shared(l, 4, 10000, 5000));
    assert_false(limit_shared(l, 4, 10000, 5000));
    assert_false(limit_shared(l, 4, 10000, 14999));
    assert_true(limit_shared(l, 4, 10000, 15000));
    assert_false(limit_shared(l, 4, 10000, 15001));
    /* no limit */
    for (int i = 0; i < 100; i++)
        assert_true(limit_shared(l, 1, 0, 15001));
    limit_free(l);
}

/* Dropped by the shared bucket, each person is told once (the telling
 * costs a token the bucket may owe, at most one more burst), and told
 * again only after the bucket was full again. */
static void test_limit_shared_for_tells_once(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    for (int i = 0; i < 2; i++)
        assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 0),
                         LIMIT_ANSWER);
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 0),
                     LIMIT_WARN);
    for (int i = 0; i < 5; i++)
        assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 100 + i),
                         LIMIT_QUIET);
    /* another person is told too, once; a third finds the debt full */
    assert_int_equal(limit_shared_for(l, "net", "b@h", 2, 10000, 200),
                     LIMIT_WARN);
    assert_int_equal(limit_shared_for(l, "net", "b@h", 2, 10000, 300),
                     LIMIT_QUIET);
    assert_int_equal(limit_shared_for(l, "net", "c@h", 2, 10000, 300),
                     LIMIT_QUIET);
    /* the same id on another network is another person */
    assert_int_equal(limit_shared_for(l, "other", "a@h", 2, 10000, 300),
                     LIMIT_QUIET);
    /* a token back: answered, and not told again while the flood lasts */
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 30000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 30001),
                     LIMIT_QUIET);
    /* the bucket full again: a new flood is told anew */
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 100000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 100000),
                     LIMIT_ANSWER);
    assert_int_equal(limit_shared_for(l, "net", "a@h", 2, 10000, 100000),
                     LIMIT_WARN);
    /* no limit */
    for (int i = 0; i < 100; i++)
        assert_int_equal(limit_shared_for(l, "net", "a@h", 1, 0, 100001),
                         LIMIT_ANSWER);
    limit_free(l);
}

/* A room hears an answer once within the window, whatever was said in
 * between; another answer is heard at once; the window runs from the
 * first time, and the oldest answer makes room for a new one. */
static void test_limit_echo_heard_once_within_the_window(void **state)
{
    (void)state;
    struct limit_echo e = {0};
    assert_false(limit_echo_heard(&e, "bob: 3 games", 30000, 0));
    assert_true(limit_echo_heard(&e, "bob: 3 games", 30000, 1000));
    assert_false(limit_echo_heard(&e, "alice: 2 games", 30000, 8000));
    assert_true(limit_echo_heard(&e, "bob: 3 games", 30000, 29999));
    assert_true(limit_echo_heard(&e, "alice: 2 games", 30000, 9000));
    /* asking again did not stretch it */
    assert_false(limit_echo_heard(&e, "bob: 3 games", 30000, 30000));
    assert_true(limit_echo_heard(&e, "bob: 3 games", 30000, 30001));
    /* LIMIT_ECHO_KEEP other answers push the oldest out */
    char text[32];
    for (int i = 0; i < LIMIT_ECHO_KEEP; i++) {
        snprintf(text, sizeof text, "answer %d", i);
        assert_false(limit_echo_heard(&e, text, 30000, 31000 + i));
    }
    assert_false(limit_echo_heard(&e, "bob: 3 games", 30000, 32000));
    assert_true(limit_echo_heard(&e, "answer 7", 30000, 32001));
    /* a window of 0 hears nothing twice */
    struct limit_echo none = {0};
    assert_false(limit_echo_heard(&none, "x", 0, 5));
    assert_false(limit_echo_heard(&none, "x", 0, 5));
}

/* A hint nobody asked for: one a person every interval, people apart. */
static void test_limit_hint_once_an_interval(void **state)
{
    (void)state;
    struct limit *l = limit_new();
    assert_true(limit_hint(l, "net", "a@h", 300000, 0));
    assert_false(limit_hint(l, "net", "a@h", 300000, 1000));
    assert_true(limit_hint(l, "net", "b@h", 300000, 1000));
    assert_true(limit_hint(l, "other", "a@h", 300000, 1000));
    assert_false(limit_hint(l, "net", "a@h", 300000, 299999));
    assert_true(limit_hint(l, "net", "a@h", 300000, 300000));
    /* the answer limit is apart from it */
    assert_int_equal(limit_check(l, &rules, "net", "a@h", "x", 300001),
                     LIMIT_ANSWER);
    assert_false(limit_hint(l, "net", "a@h", 300000, 300002));
    limit_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limit_check_burst_then_pace),
        cmocka_unit_test(test_limit_check_repeat_answered_once),
        cmocka_unit_test(test_limit_check_people_apart),
        cmocka_unit_test(test_limit_check_no_limit),
        cmocka_unit_test(test_limit_check_bounded_under_many_people),
        cmocka_unit_test(test_limit_shared_burst_then_pace),
        cmocka_unit_test(test_limit_shared_for_tells_once),
        cmocka_unit_test(test_limit_echo_heard_once_within_the_window),
        cmocka_unit_test(test_limit_hint_once_an_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
