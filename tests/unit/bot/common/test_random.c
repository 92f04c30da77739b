/*
 * Tests of bot/common/random.c: one seed, one sequence; bounded draws in
 * range and spread; a seed from the system.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "bot/common/random.h"

static void test_random_same_seed_same_numbers(void **state)
{
    (void)state;
    struct random_state a, b, c;
    random_init(&a, 42);
    random_init(&b, 42);
    random_init(&c, 43);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = random_next(&a);
        assert_true(x == random_next(&b));
        differ += x != random_next(&c);
    }
    assert_true(differ > 90);
}

static void test_random_below_stays_below_and_spreads(void **state)
{
    (void)state;
    struct random_state r;
    random_init(&r, 1);
    int seen[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint32_t v = random_below(&r, 7);
        assert_true(v < 7);
        seen[v]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(seen[i] > 800 && seen[i] < 1200);
    assert_int_equal(random_below(&r, 1), 0);
    assert_int_equal(random_below(&r, 0), 0);
}

static void test_random_os_seed_differs_between_calls(void **state)
{
    (void)state;
    int x = 0;
    /* 64 random bits twice the same: not in this universe */
    assert_true(random_os_seed(&x) != random_os_seed(&x));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_same_seed_same_numbers),
        cmocka_unit_test(test_random_below_stays_below_and_spreads),
        cmocka_unit_test(test_random_os_seed_differs_between_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
