/*
 * A set of strings in an array (adapters/matrix/strset.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/strset.h"

static void test_set_adds_each_string_once_as_a_copy(void **state)
{
    (void)state;
    char **set = NULL;
    size_t n = 0;
    char room[] = "!a:hs";
    mx_set_add(&set, &n, room);
    mx_set_add(&set, &n, "!a:hs");
    mx_set_add(&set, &n, "!b:hs");
    assert_int_equal(n, 2);
    room[1] = 'z';
    assert_true(mx_set_has(set, n, "!a:hs"));
    assert_true(mx_set_has(set, n, "!b:hs"));
    assert_false(mx_set_has(set, n, "!z:hs"));
    mx_set_free(set, n);
}

static void test_set_deletes_what_is_there_and_ignores_the_rest(void **state)
{
    (void)state;
    char **set = NULL;
    size_t n = 0;
    mx_set_add(&set, &n, "a");
    mx_set_add(&set, &n, "b");
    mx_set_add(&set, &n, "c");
    mx_set_del(set, &n, "x");
    assert_int_equal(n, 3);
    mx_set_del(set, &n, "a");
    assert_int_equal(n, 2);
    assert_false(mx_set_has(set, n, "a"));
    assert_true(mx_set_has(set, n, "b"));
    assert_true(mx_set_has(set, n, "c"));
    mx_set_del(set, &n, "b");
    mx_set_del(set, &n, "c");
    assert_int_equal(n, 0);
    assert_false(mx_set_has(set, n, "c"));
    mx_set_free(set, n);
    /* an empty set */
    assert_false(mx_set_has(NULL, 0, "a"));
    mx_set_free(NULL, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_adds_each_string_once_as_a_copy),
        cmocka_unit_test(test_set_deletes_what_is_there_and_ignores_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
