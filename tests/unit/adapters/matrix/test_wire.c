/*
 * What goes over the wire (adapters/matrix/wire.c): URL encoding, one
 * field of a JSON answer, the shapes of tokens and room names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"

static void test_printf_formats_into_a_new_string(void **state)
{
    (void)state;
    char *s = mx_printf("/rooms/%s/send/%d", "!r", 42);
    assert_string_equal(s, "/rooms/!r/send/42");
    free(s);
}

static void test_url_encode_keeps_unreserved_and_escapes_the_rest(void **state)
{
    (void)state;
    char *s = mx_url_encode("aZ09-._~");
    assert_string_equal(s, "aZ09-._~");
    free(s);
    s = mx_url_encode("!room:hs.org/x y?#@%");
    assert_string_equal(s, "%21room%3Ahs.org%2Fx%20y%3F%23%40%25");
    free(s);
    /* UTF-8 byte by byte, upper-case hex */
    s = mx_url_encode("\xc3\xa9");
    assert_string_equal(s, "%C3%A9");
    free(s);
    s = mx_url_encode("");
    assert_string_equal(s, "");
    free(s);
}

static bool any(const char *s)
{
    (void)s;
    return true;
}

static void test_body_string_takes_a_string_field_that_passes(void **state)
{
    (void)state;
    const char *b = "{\"room_id\":\"!a:hs\",\"n\":3}";
    char *s = mx_body_string(b, strlen(b), "room_id", mx_is_room_id);
    assert_string_equal(s, "!a:hs");
    free(s);
    /* missing, not a string, refused by ok */
    assert_null(mx_body_string(b, strlen(b), "other", any));
    assert_null(mx_body_string(b, strlen(b), "n", any));
    assert_null(mx_body_string(b, strlen(b), "room_id", mx_is_user_id));
}

static void test_body_string_refuses_what_is_no_object(void **state)
{
    (void)state;
    const char *arr = "[\"room_id\"]";
    assert_null(mx_body_string(arr, strlen(arr), "room_id", any));
    const char *junk = "not json";
    assert_null(mx_body_string(junk, strlen(junk), "room_id", any));
    assert_null(mx_body_string("", 0, "room_id", any));
    /* only len bytes are read */
    const char *b = "{\"a\":\"x\"}trailing";
    char *s = mx_body_string(b, 9, "a", any);
    assert_string_equal(s, "x");
    free(s);
}

static void test_body_string_refuses_a_nul_inside(void **state)
{
    (void)state;
    const char *b = "{\"access_token\":\"ab\\u0000cd\"}";
    assert_null(mx_body_string(b, strlen(b), "access_token", any));
}

static void test_word_is_printable_ascii_without_spaces(void **state)
{
    (void)state;
    assert_true(mx_is_word("syt_abc.DEF-123"));
    assert_true(mx_is_word("!"));
    assert_false(mx_is_word(""));
    assert_false(mx_is_word("a b"));
    assert_false(mx_is_word("a\tb"));
    assert_false(mx_is_word("a\x7f"));
    assert_false(mx_is_word("\xc3\xa9"));
    char s[1026];
    memset(s, 'a', 1024);
    s[1024] = '\0';
    assert_true(mx_is_word(s));
    s[1024] = 'a';
    s[1025] = '\0';
    assert_false(mx_is_word(s));
}

static void test_name_is_utf8_without_control_characters(void **state)
{
    (void)state;
    assert_true(mx_is_name("Card Club \xe2\x99\xa5"));
    assert_true(mx_is_name(""));
    assert_false(mx_is_name("two\nlines"));
    assert_false(mx_is_name("del\x7f"));
    assert_false(mx_is_name("bad \xc3"));
    char s[MX_NAME_MAX + 2];
    memset(s, 'n', MX_NAME_MAX);
    s[MX_NAME_MAX] = '\0';
    assert_true(mx_is_name(s));
    s[MX_NAME_MAX] = 'n';
    s[MX_NAME_MAX + 1] = '\0';
    assert_false(mx_is_name(s));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printf_formats_into_a_new_string),
        cmocka_unit_test(test_url_encode_keeps_unreserved_and_escapes_the_rest),
        cmocka_unit_test(test_body_string_takes_a_string_field_that_passes),
        cmocka_unit_test(test_body_string_refuses_what_is_no_object),
        cmocka_unit_test(test_body_string_refuses_a_nul_inside),
        cmocka_unit_test(test_word_is_printable_ascii_without_spaces),
        cmocka_unit_test(test_name_is_utf8_without_control_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
