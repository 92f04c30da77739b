/*
 * Tests of storage/record/record_common.c: the words the record's writer,
 * reader and replay share.
 */
#include "storage/record/record_internal.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_dir_names_follow_the_engine),
        cmocka_unit_test(test_record_integer_text_whole_numbers_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
