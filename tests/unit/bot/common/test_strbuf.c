/*
 * Tests of bot/common/strbuf.c: a fixed or heap builder never overflows,
 * cuts at a character boundary, stays cut, takes whole atoms back,
 * always has room for a held closer, and counts a closer it cannot write.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/strbuf.h"

static void test_strbuf_fixed_appends_and_terminates(void **state)
{
    (void)state;
    char buf[32];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_string_equal(buf, "");
    assert_true(strbuf_addstr(&sb, "Q"));
    assert_true(strbuf_addc(&sb, '-'));
    assert_true(strbuf_addf(&sb, "%d:%s", 42, "x"));
    assert_true(strbuf_add(&sb, "yz!", 2));
    assert_true(strbuf_addrep(&sb, '.', 3));
    assert_string_equal(buf, "Q-42:xyz...");
    assert_int_equal(sb.len, 11);
    assert_int_equal(sb.need, 11);
    assert_false(sb.cut);
}

static void test_strbuf_fixed_cuts_at_a_character_and_stays_cut(void **state)
{
    (void)state;
    char buf[6] = "zzzzz";
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf); /* 5 bytes of text */
    assert_true(strbuf_addstr(&sb, "ab"));
    /* "c♥" is 4 bytes; 3 fit, but the heart would be split */
    assert_false(strbuf_addstr(&sb, "c\xE2\x99\xA5"));
    assert_string_equal(buf, "abc");
    assert_true(sb.cut);
    /* a byte would fit, but a text with a hole is worse than a short one */
    assert_false(strbuf_addstr(&sb, "d"));
    assert_string_equal(buf, "abc");
    assert_int_equal(sb.need, 7);
}

static void test_strbuf_addf_cuts_at_a_character(void **state)
{
    (void)state;
    char buf[5];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_false(strbuf_addf(&sb, "%s%s", "ab", "\xE2\x99\xA5"));
    assert_string_equal(buf, "ab");
    assert_true(sb.cut);
    assert_int_equal(sb.need, 5);
    assert_false(strbuf_addf(&sb, "%d", 1234));
    assert_int_equal(sb.need, 9);
}

static void test_strbuf_addf_formats_long_text(void **state)
{
    (void)state;
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    assert_true(strbuf_addf(&sb, "<%s>", big));
    assert_int_equal(sb.len, 1001);
    assert_int_equal(sb.buf[0], '<');
    assert_int_equal(sb.buf[1000], '>');
    char *s = strbuf_take(&sb);
    assert_int_equal(strlen(s), 1001);
    free(s);
    assert_null(sb.buf);
    assert_int_equal(sb.len, 0);
}

static void test_strbuf_heap_grows_up_to_its_cap(void **state)
{
    (void)state;
    struct strbuf sb;
    strbuf_init_heap(&sb, 100);
    for (int i = 0; i < 20; i++)
        assert_true(strbuf_addstr(&sb, "abcd"));
    assert_int_equal(sb.len, 80);
    assert_false(strbuf_addf(&sb, "%s", "0123456789abcdefghijklmnop"));
    assert_int_equal(sb.len, 100);
    assert_true(sb.cut);
    assert_true(sb.size <= 101);
    assert_int_equal(strlen(sb.buf), 100);
    strbuf_free(&sb);
    assert_null(sb.buf);
}

static void test_strbuf_take_of_nothing_is_an_empty_string(void **state)
{
    (void)state;
    struct strbuf sb;
    strbuf_init_heap(&sb, 10);
    char *s = strbuf_take(&sb);
    assert_string_equal(s, "");
    free(s);
}

static void test_strbuf_commit_takes_a_cut_atom_back(void **state)
{
    (void)state;
    char buf[10];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    struct strbuf_mark m = strbuf_mark(&sb);
    strbuf_addstr(&sb, "one ");
    strbuf_commit(&sb, m);
    assert_string_equal(buf, "one ");
    m = strbuf_mark(&sb);
    strbuf_addstr(&sb, "two");
    strbuf_addstr(&sb, "three");
    strbuf_commit(&sb, m);
    assert_string_equal(buf, "one ");
    assert_true(sb.cut);
    assert_int_equal(sb.need, 12);
}

static void test_strbuf_add_whole_is_all_or_nothing(void **state)
{
    (void)state;
    char buf[6];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_true(strbuf_add_whole(&sb, "abc", 3));
    assert_false(strbuf_add_whole(&sb, "def", 3));
    assert_string_equal(buf, "abc");
    assert_true(sb.cut);
}

static void test_strbuf_held_closer_always_fits(void **state)
{
    (void)state;
    char buf[6];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_true(strbuf_hold(&sb, 1));
    assert_false(strbuf_addstr(&sb, "abcdefgh"));
    assert_string_equal(buf, "abcd");
    strbuf_release(&sb, "!", 1);
    assert_string_equal(buf, "abcd!");
    assert_int_equal(sb.held, 0);
}

static void test_strbuf_commit_lets_go_of_what_a_cut_atom_held(void **state)
{
    (void)state;
    char buf[8];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    strbuf_addstr(&sb, "ab");
    struct strbuf_mark m = strbuf_mark(&sb);
    assert_true(strbuf_hold(&sb, 1)); /* a colour run opens */
    strbuf_addstr(&sb, "[red]");
    strbuf_addstr(&sb, "Q");
    strbuf_commit(&sb, m);
    assert_string_equal(buf, "ab");
    assert_int_equal(sb.held, 0);
    /* a whole atom keeps what it holds */
    strbuf_init(&sb, buf, sizeof buf);
    m = strbuf_mark(&sb);
    assert_true(strbuf_hold(&sb, 1));
    strbuf_addstr(&sb, "Q");
    strbuf_commit(&sb, m);
    assert_int_equal(sb.held, 1);
}

static void test_strbuf_open_holds_room_for_its_closer(void **state)
{
    (void)state;
    char buf[8];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf); /* 7 bytes of text */
    assert_true(strbuf_open(&sb, "<r>", 3, 1));
    assert_int_equal(sb.held, 1);
    assert_false(strbuf_addstr(&sb, "abcdef"));
    assert_string_equal(buf, "<r>abc");
    strbuf_release(&sb, "/", 1);
    assert_string_equal(buf, "<r>abc/");
    assert_int_equal(sb.held, 0);
    assert_int_equal(sb.need, 10);
}

static void test_strbuf_open_without_room_for_its_closer(void **state)
{
    (void)state;
    char buf[5];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf); /* 4 bytes of text */
    assert_true(strbuf_addstr(&sb, "a"));
    /* the opener alone would fit, not with the closer's byte */
    assert_false(strbuf_open(&sb, "<r>", 3, 1));
    assert_string_equal(buf, "a");
    assert_true(sb.cut);
    assert_int_equal(sb.held, 0);
    /* once cut, an opener is counted and not written */
    assert_false(strbuf_open(&sb, "<", 1, 1));
    assert_int_equal(sb.held, 0);
    assert_int_equal(sb.need, 5);
}

static void test_strbuf_release_of_a_run_never_opened(void **state)
{
    (void)state;
    char buf[8];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_true(strbuf_addstr(&sb, "abc"));
    /* an atom opens a run and is cut: the run is taken back with it */
    struct strbuf_mark m = strbuf_mark(&sb);
    assert_true(strbuf_open(&sb, "<r>", 3, 1));
    assert_false(strbuf_add_whole(&sb, "defg", 4));
    strbuf_commit(&sb, m);
    assert_int_equal(sb.held, 0);
    /* its closer is not written, and counts in the whole text */
    strbuf_release(&sb, "/", 1);
    assert_string_equal(buf, "abc");
    assert_int_equal(sb.need, 11);
}

static void test_strbuf_truncate_and_reset(void **state)
{
    (void)state;
    char buf[4];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    strbuf_addstr(&sb, "abcdef");
    assert_true(sb.cut);
    strbuf_truncate(&sb, 1);
    assert_false(sb.cut);
    assert_string_equal(buf, "a");
    assert_true(strbuf_addstr(&sb, "b"));
    strbuf_reset(&sb);
    assert_string_equal(buf, "");
    assert_int_equal(sb.need, 0);
}

static void test_strbuf_of_one_byte_holds_only_the_nul(void **state)
{
    (void)state;
    char buf[1] = {'x'};
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_false(strbuf_addf(&sb, "%s", "a"));
    assert_int_equal(buf[0], '\0');
    assert_true(sb.cut);
}

static void test_strbuf_of_no_bytes_only_measures(void **state)
{
    (void)state;
    struct strbuf sb;
    strbuf_init(&sb, NULL, 0);
    struct strbuf_mark m = strbuf_mark(&sb);
    assert_false(strbuf_open(&sb, "<r>", 3, 1));
    assert_false(strbuf_add_whole(&sb, "Q", 1));
    strbuf_release(&sb, "/", 1);
    strbuf_commit(&sb, m);
    assert_false(strbuf_addf(&sb, "%d", 42));
    assert_int_equal(sb.need, 7);
    assert_int_equal(sb.len, 0);
}

/* What an own writer may fill: the room left, less what is held, and
 * none once the builder was cut. */
static void test_strbuf_room_counts_held_and_cut(void **state)
{
    (void)state;
    char buf[10];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_int_equal(strbuf_room(&sb), 9);
    strbuf_addstr(&sb, "abc");
    assert_int_equal(strbuf_room(&sb), 6);
    assert_true(strbuf_hold(&sb, 2));
    assert_int_equal(strbuf_room(&sb), 4);
    assert_false(strbuf_addstr(&sb, "defgh"));
    assert_int_equal(strbuf_room(&sb), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strbuf_fixed_appends_and_terminates),
        cmocka_unit_test(test_strbuf_fixed_cuts_at_a_character_and_stays_cut),
        cmocka_unit_test(test_strbuf_addf_cuts_at_a_character),
        cmocka_unit_test(test_strbuf_addf_formats_long_text),
        cmocka_unit_test(test_strbuf_heap_grows_up_to_its_cap),
        cmocka_unit_test(test_strbuf_take_of_nothing_is_an_empty_string),
        cmocka_unit_test(test_strbuf_commit_takes_a_cut_atom_back),
        cmocka_unit_test(test_strbuf_add_whole_is_all_or_nothing),
        cmocka_unit_test(test_strbuf_commit_lets_go_of_what_a_cut_atom_held),
        cmocka_unit_test(test_strbuf_held_closer_always_fits),
        cmocka_unit_test(test_strbuf_open_holds_room_for_its_closer),
        cmocka_unit_test(test_strbuf_open_without_room_for_its_closer),
        cmocka_unit_test(test_strbuf_release_of_a_run_never_opened),
        cmocka_unit_test(test_strbuf_truncate_and_reset),
        cmocka_unit_test(test_strbuf_of_one_byte_holds_only_the_nul),
        cmocka_unit_test(test_strbuf_of_no_bytes_only_measures),
        cmocka_unit_test(test_strbuf_room_counts_held_and_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
