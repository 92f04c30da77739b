/*
 * Tests of adapters/irc/backoff.c: the delays double from the base up to
 * the cap, each within +-20% of its nominal value and never above the
 * cap, the jitter really varies, and a reset starts over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "adapters/irc/backoff.h"

static void test_ircad_backoff_next_sequence_and_cap(void **state)
{
    (void)state;
    const int64_t nominal[] = {1000,  2000,   4000,   8000,   16000,  32000,
                               64000, 128000, 256000, 300000, 300000, 300000};
    for (uint64_t seed = 1; seed <= 50; seed++) {
        struct ircad_backoff b;
        ircad_backoff_init(&b, 1000, 300000, seed);
        for (size_t i = 0; i < sizeof nominal / sizeof *nominal; i++) {
            int64_t d = ircad_backoff_next(&b);
            int64_t n = nominal[i];
            assert_true(d >= n - n / 5);
            assert_true(d <= n + n / 5);
            assert_true(d <= 300000);
        }
    }
}

static void test_ircad_backoff_next_jitter_varies(void **state)
{
    (void)state;
    /* the first delay over many seeds: spread over the +-20% window, not
     * stuck on one value or one side */
    int below = 0, above = 0;
    int64_t lo = 1000000, hi = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        struct ircad_backoff b;
        ircad_backoff_init(&b, 10000, 300000, seed);
        int64_t d = ircad_backoff_next(&b);
        below += d < 10000;
        above += d > 10000;
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    assert_true(below > 50);
    assert_true(above > 50);
    assert_true(lo >= 8000 && lo < 8500);
    assert_true(hi <= 12000 && hi > 11500);
}

static void test_ircad_backoff_reset_starts_over(void **state)
{
    (void)state;
    struct ircad_backoff b;
    ircad_backoff_init(&b, 1000, 300000, 7);
    for (int i = 0; i < 6; i++)
        ircad_backoff_next(&b);
    assert_true(ircad_backoff_next(&b) >= 51200);
    ircad_backoff_reset(&b);
    int64_t d = ircad_backoff_next(&b);
    assert_true(d >= 800 && d <= 1200);
}

static void test_ircad_backoff_next_same_seed_same_delays(void **state)
{
    (void)state;
    struct ircad_backoff a, b;
    ircad_backoff_init(&a, 1000, 300000, 42);
    ircad_backoff_init(&b, 1000, 300000, 42);
    for (int i = 0; i < 10; i++)
        assert_int_equal(ircad_backoff_next(&a), ircad_backoff_next(&b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_backoff_next_sequence_and_cap),
        cmocka_unit_test(test_ircad_backoff_next_jitter_varies),
        cmocka_unit_test(test_ircad_backoff_reset_starts_over),
        cmocka_unit_test(test_ircad_backoff_next_same_seed_same_delays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
