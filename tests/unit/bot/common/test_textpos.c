/*
 * Tests of bot/common/textpos.c: lines and columns from 1, columns in
 * characters of UTF-8 text, and "PATH:LINE:COL: message" cut to fit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "bot/common/textpos.h"

static void where(const char *text, size_t pos, int want_line, int want_col)
{
    int line = 0, col = 0;
    textpos_where(text, strlen(text), pos, &line, &col);
    assert_int_equal(line, want_line);
    assert_int_equal(col, want_col);
}

static void test_textpos_lines_and_columns(void **state)
{
    (void)state;
    const char *t = "ab\ncd\n\nx";
    where(t, 0, 1, 1);
    where(t, 1, 1, 2);
    where(t, 2, 1, 3); /* the newline itself ends line 1 */
    where(t, 3, 2, 1);
    where(t, 4, 2, 2);
    where(t, 6, 3, 1);
    where(t, 7, 4, 1);
    where(t, 8, 4, 2); /* the end */
    where("", 0, 1, 1);
}

static void test_textpos_columns_in_characters(void **state)
{
    (void)state;
    /* "é" is 2 bytes, "€" 3, "😀" 4: each one column */
    const char *t = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80z";
    where(t, 2, 1, 2);
    where(t, 5, 1, 3);
    where(t, 9, 1, 4);
    where(t, 10, 1, 5);
    /* in the middle of a character: its continuation bytes add nothing */
    where(t, 1, 1, 2);
    where(t, 4, 1, 3);
    /* a stray lead byte counts as a character */
    where("\xff\xfe"
          "a",
          2, 1, 3);
    /* a tab is one column */
    where("\t=", 1, 1, 2);
}

static void test_textpos_past_the_end(void **state)
{
    (void)state;
    int line, col;
    textpos_where("a\nb", 3, 100, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 2);
    /* len bounds the count, not a NUL */
    textpos_where("a\nb\nc", 2, 5, &line, &col);
    assert_int_equal(line, 2);
    assert_int_equal(col, 1);
}

__attribute__((format(printf, 5, 6))) static void
pos_fail(char *err, size_t errlen, const char *text, size_t pos,
         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    textpos_vfail(err, errlen, "bot.toml", text, strlen(text), pos, fmt, ap);
    va_end(ap);
}

static void test_textpos_vfail(void **state)
{
    (void)state;
    char err[128];
    pos_fail(err, sizeof err, "x = 1\ny = \xc3\xa9!", 10, "bad %s %d", "value",
             7);
    assert_string_equal(err, "bot.toml:2:5: bad value 7");

    /* cut to fit, always ended */
    char small[12];
    pos_fail(small, sizeof small, "abc", 1, "long message");
    assert_string_equal(small, "bot.toml:1:");
    char tiny[4];
    pos_fail(tiny, sizeof tiny, "abc", 1, "x");
    assert_string_equal(tiny, "bot");

    /* no buffer: nothing written, nothing crashes */
    pos_fail(NULL, 10, "abc", 1, "x");
    char untouched[4] = "zzz";
    pos_fail(untouched, 0, "abc", 1, "x");
    assert_string_equal(untouched, "zzz");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_textpos_lines_and_columns),
        cmocka_unit_test(test_textpos_columns_in_characters),
        cmocka_unit_test(test_textpos_past_the_end),
        cmocka_unit_test(test_textpos_vfail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
