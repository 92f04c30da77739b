/*
 * Tests of bot/common/err.h: the message goes into the buffer (cut to
 * fit), a NULL buffer is fine, -1 comes back and errno is kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "bot/common/err.h"

static void test_err_set_writes_and_returns_minus_one(void **state)
{
    (void)state;
    char err[64];
    assert_int_equal(err_set(err, sizeof err, "%s: %d", "key", 7), -1);
    assert_string_equal(err, "key: 7");
}

static void test_err_set_cuts_to_the_buffer(void **state)
{
    (void)state;
    char err[4] = "zzz";
    assert_int_equal(err_set(err, sizeof err, "%s", "abcdef"), -1);
    assert_string_equal(err, "abc");
}

static void test_err_set_takes_no_buffer(void **state)
{
    (void)state;
    assert_int_equal(err_set(NULL, 0, "%s", "nobody reads this"), -1);
    char err[1] = {'z'};
    assert_int_equal(err_set(err, 0, "%s", "nor this"), -1);
    assert_int_equal(err[0], 'z');
}

static void test_err_set_keeps_errno(void **state)
{
    (void)state;
    char err[8];
    errno = ENOENT;
    err_set(err, sizeof err, "%s", "x");
    assert_int_equal(errno, ENOENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err_set_writes_and_returns_minus_one),
        cmocka_unit_test(test_err_set_cuts_to_the_buffer),
        cmocka_unit_test(test_err_set_takes_no_buffer),
        cmocka_unit_test(test_err_set_keeps_errno),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
