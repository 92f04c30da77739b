/*
 * Tests of storage/record/record_common.c: the words the record's writer,
 * reader and replay share.
 */
#include "storage/record/record_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static void test_record_dir_names_follow_the_engine(void **state)
{
    (void)state;
    assert_string_equal(record_dir_names[ENGINE_PASS_LEFT], "left");
    assert_string_equal(record_dir_names[ENGINE_PASS_RIGHT], "right");
    assert_string_equal(record_dir_names[ENGINE_PASS_ACROSS], "across");
    assert_string_equal(record_dir_names[ENGINE_PASS_HOLD], "hold");
    assert_string_equal(record_dir_names[ENGINE_PASS_SCATTER], "scatter");
    assert_string_equal(record_dir_names[ENGINE_PASS_LEFT2], "left2");
    assert_string_equal(record_dir_names[ENGINE_PASS_RIGHT2], "right2");
}

static void test_record_integer_text_whole_numbers_only(void **state)
{
    (void)state;
    long long v = 0;
    assert_true(record_integer_text("50", &v));
    assert_int_equal(v, 50);
    assert_true(record_integer_text("-10", &v));
    assert_int_equal(v, -10);
    assert_false(record_integer_text("", &v));
    assert_false(record_integer_text("+1", &v));
    assert_false(record_integer_text("1.5", &v));
    assert_false(record_integer_text("on", &v));
    assert_false(record_integer_text("left,right", &v));
    assert_false(record_integer_text("KS:10", &v));
}

static void test_record_strndup_copies_n_bytes(void **state)
{
    (void)state;
    char *p = record_strndup("ann\0bob", 3);
    assert_string_equal(p, "ann");
    free(p);
    p = record_strndup("", 0);
    assert_string_equal(p, "");
    free(p);
}

static void test_record_fail_optional_buffer(void **state)
{
    (void)state;
    char err[8];
    record_fail(NULL, 0, "nothing %d", 1);
    memset(err, 'x', sizeof err);
    record_fail(err, 0, "nothing %d", 1);
    assert_int_equal(err[0], 'x');
    record_fail(err, sizeof err, "hand %d: too long", 12);
    assert_string_equal(err, "hand 12");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_dir_names_follow_the_engine),
        cmocka_unit_test(test_record_integer_text_whole_numbers_only),
        cmocka_unit_test(test_record_strndup_copies_n_bytes),
        cmocka_unit_test(test_record_fail_optional_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
