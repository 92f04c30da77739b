/*
 * Tests of bot/common/utf8.c: strict decoding (no overlong forms, no
 * surrogates, nothing past U+10FFFF), the maximal invalid subpart, cuts
 * and trims that never split a character.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "bot/common/utf8.h"

static void test_utf8_decode_takes_every_length(void **state)
{
    (void)state;
    uint32_t cp;
    assert_int_equal(utf8_decode("A", 1, &cp), 1);
    assert_int_equal(cp, 'A');
    assert_int_equal(utf8_decode("\xC3\xA9", 2, &cp), 2);
    assert_int_equal(cp, 0xE9);
    assert_int_equal(utf8_decode("\xE2\x99\xA5", 3, &cp), 3);
    assert_int_equal(cp, 0x2665);
    assert_int_equal(utf8_decode("\xF0\x9F\x82\xA1", 4, &cp), 4);
    assert_int_equal(cp, 0x1F0A1);
    assert_int_equal(utf8_decode("\xF4\x8F\xBF\xBF", 4, NULL), 4);
}

static void test_utf8_decode_refuses_what_rfc3629_refuses(void **state)
{
    (void)state;
    uint32_t cp = 7;
    assert_int_equal(utf8_decode("\xC0\xAF", 2, &cp), 0);         /* overlong */
    assert_int_equal(utf8_decode("\xE0\x80\xAF", 3, &cp), 0);     /* overlong */
    assert_int_equal(utf8_decode("\xF0\x80\x80\xAF", 4, &cp), 0); /* overlong */
    assert_int_equal(utf8_decode("\xED\xA0\x80", 3, &cp), 0); /* surrogate */
    assert_int_equal(utf8_decode("\xF4\x90\x80\x80", 4, &cp), 0); /* > max */
    assert_int_equal(utf8_decode("\xF5\x80\x80\x80", 4, &cp), 0);
    assert_int_equal(utf8_decode("\x80", 1, &cp), 0);
    assert_int_equal(utf8_decode("\xE2\x99", 2, &cp), 0); /* torn */
    assert_int_equal(utf8_decode("\xE2\x41\xA5", 3, &cp), 0);
    assert_int_equal(utf8_decode("", 0, &cp), 0);
    assert_int_equal(cp, 7);
}

static void test_utf8_bad_len_is_the_maximal_invalid_subpart(void **state)
{
    (void)state;
    assert_int_equal(utf8_bad_len("\x80", 1), 1);
    assert_int_equal(utf8_bad_len("\xC0\xAF", 2), 1);
    assert_int_equal(utf8_bad_len("\xE2\x99", 2), 2);
    assert_int_equal(utf8_bad_len("\xE2\x99"
                                  "A",
                                  3),
                     2);
    assert_int_equal(utf8_bad_len("\xF0\x9F\x82"
                                  "A",
                                  4),
                     3);
    assert_int_equal(utf8_bad_len("\xED\xA0\x80", 3), 1);
    assert_int_equal(utf8_bad_len("\xC3\xA9", 2), 2);
}

static void test_utf8_encode_round_trips(void **state)
{
    (void)state;
    const uint32_t cps[] = {0,     0x41,   0x7F,   0x80,    0x7FF,
                            0x800, 0xFFFD, 0xFFFF, 0x10000, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        char buf[UTF8_MAX];
        uint32_t back;
        size_t n = utf8_encode(cps[i], buf);
        assert_true(n >= 1 && n <= 4);
        assert_int_equal(utf8_decode(buf, n, &back), n);
        assert_int_equal(back, cps[i]);
    }
    char buf[UTF8_MAX];
    assert_int_equal(utf8_encode(0xD800, buf), 0);
    assert_int_equal(utf8_encode(0x110000, buf), 0);
}

static void test_utf8_valid_names_the_first_bad_byte(void **state)
{
    (void)state;
    size_t bad = 99;
    assert_true(utf8_valid("", 0, &bad));
    assert_true(utf8_valid("h\xC3\xA9llo \xE2\x99\xA5", 10, &bad));
    assert_int_equal(bad, 99);
    assert_false(utf8_valid("ab\xFF"
                            "c",
                            4, &bad));
    assert_int_equal(bad, 2);
    assert_false(utf8_valid("ab\xE2\x99", 4, NULL));
}

static void test_utf8_count_counts_characters(void **state)
{
    (void)state;
    assert_int_equal(utf8_count("", 0), 0);
    assert_int_equal(utf8_count("abc", 3), 3);
    assert_int_equal(utf8_count("\xE2\x99\xA5\xC3\xA9x", 6), 3);
    /* a torn sequence is one U+FFFD, a stray byte another */
    static const char torn[] = {'\xE2', '\x99', 'a', '\x80'};
    assert_int_equal(utf8_count(torn, sizeof torn), 3);
}

static void test_utf8_cut_never_splits_a_character(void **state)
{
    (void)state;
    const char *s = "a\xE2\x99\xA5"
                    "b"; /* a ♥ b */
    assert_int_equal(utf8_cut(s, 5, 0), 0);
    assert_int_equal(utf8_cut(s, 5, 1), 1);
    assert_int_equal(utf8_cut(s, 5, 2), 1);
    assert_int_equal(utf8_cut(s, 5, 3), 1);
    assert_int_equal(utf8_cut(s, 5, 4), 4);
    assert_int_equal(utf8_cut(s, 5, 5), 5);
    assert_int_equal(utf8_cut(s, 5, 50), 5);
    /* not UTF-8: cut where asked */
    assert_int_equal(utf8_cut("\x80\x80\x80\x80\x80", 5, 4), 4);
}

static void test_utf8_trim_drops_a_torn_last_character(void **state)
{
    (void)state;
    assert_int_equal(utf8_trim("", 0), 0);
    assert_int_equal(utf8_trim("ab", 2), 2);
    assert_int_equal(utf8_trim("a\xE2\x99\xA5", 4), 4);
    assert_int_equal(utf8_trim("a\xE2\x99", 3), 1);
    assert_int_equal(utf8_trim("a\xE2", 2), 1);
    assert_int_equal(utf8_trim("a\xF0\x9F\x82", 4), 1);
    assert_int_equal(utf8_trim("\xC3", 1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_utf8_decode_takes_every_length),
        cmocka_unit_test(test_utf8_decode_refuses_what_rfc3629_refuses),
        cmocka_unit_test(test_utf8_bad_len_is_the_maximal_invalid_subpart),
        cmocka_unit_test(test_utf8_encode_round_trips),
        cmocka_unit_test(test_utf8_valid_names_the_first_bad_byte),
        cmocka_unit_test(test_utf8_count_counts_characters),
        cmocka_unit_test(test_utf8_cut_never_splits_a_character),
        cmocka_unit_test(test_utf8_trim_drops_a_torn_last_character),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
