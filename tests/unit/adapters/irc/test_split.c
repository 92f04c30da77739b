/*
 * Tests of adapters/irc/split.c: every line fits with the server's prefix,
 * no cut lands inside a UTF-8 sequence or a colour escape, spaces are
 * preferred, CR is dropped and LF splits, and bad targets are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/split.h"

struct lines {
    char *v[256];
    int n;
};

static void collect(void *ctx, const char *line)
{
    struct lines *l = ctx;
    assert_true(l->n < 256);
    l->v[l->n] = strdup(line);
    assert_non_null(l->v[l->n]);
    l->n++;
}

static void lines_free(struct lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}

/* Whether s[0..len) is whole UTF-8: every sequence complete, none cut. */
static int utf8_whole(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        size_t n = p[i] < 0x80    ? 1
                   : p[i] >= 0xF0 ? 4
                   : p[i] >= 0xE0 ? 3
                   : p[i] >= 0xC0 ? 2
                                  : 0;
        if (n == 0 || i + n > len)
            return 0;
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
        i += n;
    }
    return 1;
}

/* The text of a "PRIVMSG target :text" line. */
static const char *text_of(const char *line)
{
    const char *p = strstr(line, " :");
    assert_non_null(p);
    return p + 2;
}

static char *repeat(const char *unit, int times)
{
    size_t n = strlen(unit);
    char *s = malloc(n * (size_t)times + 1);
    assert_non_null(s);
    for (int i = 0; i < times; i++)
        memcpy(s + n * (size_t)i, unit, n);
    s[n * (size_t)times] = '\0';
    return s;
}

static void test_ircad_split_lines_never_exceed_limit(void **state)
{
    (void)state;
    /* units that make long texts with cuts in awkward places */
    const char *units[] = {
        "a",
        "word ",
        "\xF0\x9F\x82\xA1",         /* playing card ace: 4 bytes */
        "\xE2\x99\xA5 ",            /* heart suit and a space */
        "\xE2\x99\xA0\xE2\x99\xA3", /* spade, club */
        "\xE6\xBC\xA2\xE5\xAD\x97", /* CJK */
        "\x03"
        "04,01Q\xE2\x99\xA5", /* coloured card */
        "x\xF0\x9F\x98\x80",  /* 1 + 4 bytes: shifts the phase */
        "\x04"
        "FF0000,00FF00K", /* hex colour */
    };
    const char *targets[] = {"#hearts", "somebody",
                             "#a-much-longer-channel-name-for-testing"};
    for (size_t t = 0; t < sizeof targets / sizeof *targets; t++) {
        for (size_t u = 0; u < sizeof units / sizeof *units; u++) {
            char *text = repeat(units[u], 700);
            struct lines l = {0};
            int n = ircad_split("PRIVMSG", targets[t], text, collect, &l);
            assert_int_equal(n, l.n);
            assert_true(n > 1);
            size_t total = 0;
            for (int i = 0; i < l.n; i++) {
                size_t len = strlen(l.v[i]);
                /* the relayed line: prefix + line + CR LF */
                assert_true(IRCAD_PREFIX_RESERVE + len + 2 <= IRCAD_LINE_MAX);
                const char *body = text_of(l.v[i]);
                assert_true(strlen(body) > 0);
                assert_true(utf8_whole(body, strlen(body)));
                total += strlen(body);
            }
            /* nothing lost but the spaces cut at */
            size_t spaces = 0;
            for (const char *p = text; *p; p++)
                spaces += *p == ' ';
            assert_true(total <= strlen(text));
            assert_true(total + spaces >= strlen(text));
            lines_free(&l);
            free(text);
        }
    }
}

static void test_ircad_split_cut_emoji_at_boundary(void **state)
{
    (void)state;
    /* the 4-byte sequence starts at 1, 2 and 3 bytes before the limit */
    for (size_t before = 1; before <= 3; before++) {
        char s[64];
        size_t max = 20;
        size_t start = max - before;
        memset(s, 'a', start);
        memcpy(s + start, "\xF0\x9F\x82\xA1", 4);
        memset(s + start + 4, 'b', 10);
        size_t len = start + 14;
        size_t skip;
        size_t cut = ircad_split_cut(s, len, max, &skip);
        assert_int_equal(cut, start);
        assert_int_equal(skip, 0);
        assert_true(utf8_whole(s, cut));
    }
}

static void test_ircad_split_cut_suits_and_cjk(void **state)
{
    (void)state;
    const struct {
        const char *unit;
        size_t unit_len;
    } cases[] = {
        {"\xE2\x99\xA5", 3},     /* heart suit */
        {"\xE2\x99\xA6", 3},     /* diamond suit */
        {"\xE6\xBC\xA2", 3},     /* CJK */
        {"\xC3\xA9", 2},         /* e acute */
        {"\xF0\x9F\x83\x8F", 4}, /* joker card */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *s = repeat(cases[c].unit, 40);
        size_t len = strlen(s);
        for (size_t max = 16; max < 60; max++) {
            size_t skip;
            size_t cut = ircad_split_cut(s, len, max, &skip);
            assert_true(cut <= max);
            assert_true(cut > 0);
            assert_int_equal(cut % cases[c].unit_len, 0);
        }
        free(s);
    }
}

static void test_ircad_split_cut_prefers_space(void **state)
{
    (void)state;
    const char *s = "the quick brown fox jumps over the lazy dog again";
    size_t skip;
    size_t cut = ircad_split_cut(s, strlen(s), 24, &skip);
    /* "the quick brown fox" ends at 19; "jumps" would cross 24 */
    assert_int_equal(cut, 19);
    assert_int_equal(skip, 1);
    /* no space in the last quarter: a hard cut at the limit */
    const char *t = "abcdefghijklmnopqrstuvwxyz0123456789";
    cut = ircad_split_cut(t, strlen(t), 20, &skip);
    assert_int_equal(cut, 20);
    assert_int_equal(skip, 0);
}

static void test_ircad_split_cut_keeps_colour_escape(void **state)
{
    (void)state;
    /* \x03 12,04 sits across the limit at every offset */
    for (size_t off = 1; off <= 6; off++) {
        char s[64];
        size_t max = 20;
        size_t start = max - off;
        memset(s, 'a', start);
        memcpy(s + start,
               "\x03"
               "12,04XYZXYZXYZ",
               15);
        size_t len = start + 15;
        size_t skip;
        size_t cut = ircad_split_cut(s, len, max, &skip);
        /* the escape is 6 bytes: it ends at start + 6 */
        if (start + 6 <= max)
            assert_int_equal(cut, max);
        else
            assert_int_equal(cut, start);
    }
    /* a comma not followed by a digit is text: the escape ends before
     * it, so a cut there is fine; followed by a digit it is part of it */
    const char *t = "aaaaaaaaaaaaaaaaa\x03"
                    "4,xyzxyz";
    const char *u = "aaaaaaaaaaaaaaaaa\x03"
                    "4,5xyzxyz";
    size_t skip;
    assert_int_equal(ircad_split_cut(t, strlen(t), 19, &skip), 19);
    assert_int_equal(ircad_split_cut(u, strlen(u), 19, &skip), 17);
}

static void test_ircad_split_strips_cr_and_splits_lf(void **state)
{
    (void)state;
    struct lines l = {0};
    int n = ircad_split("PRIVMSG", "#c", "one\r\ntwo\rthree\n\nfour\n", collect,
                        &l);
    assert_int_equal(n, 3);
    assert_string_equal(l.v[0], "PRIVMSG #c :one");
    assert_string_equal(l.v[1], "PRIVMSG #c :twothree");
    assert_string_equal(l.v[2], "PRIVMSG #c :four");
    for (int i = 0; i < l.n; i++) {
        assert_null(strchr(l.v[i], '\r'));
        assert_null(strchr(l.v[i], '\n'));
    }
    lines_free(&l);
}

static void test_ircad_split_empty_text_sends_nothing(void **state)
{
    (void)state;
    struct lines l = {0};
    assert_int_equal(ircad_split("PRIVMSG", "#c", "", collect, &l), 0);
    assert_int_equal(ircad_split("PRIVMSG", "#c", "\n\r\n", collect, &l), 0);
    assert_int_equal(ircad_split("PRIVMSG", "#c", NULL, collect, &l), 0);
    assert_int_equal(l.n, 0);
}

static void test_ircad_split_refuses_bad_target(void **state)
{
    (void)state;
    struct lines l = {0};
    assert_int_equal(ircad_split("PRIVMSG", "#a b", "hi", collect, &l), -1);
    assert_int_equal(ircad_split("PRIVMSG", "nick\r\nQUIT", "hi", collect, &l),
                     -1);
    assert_int_equal(ircad_split("PRIVMSG", "", "hi", collect, &l), -1);
    assert_int_equal(ircad_split("PRIVMSG", NULL, "hi", collect, &l), -1);
    assert_int_equal(l.n, 0);
}

static void test_ircad_target_valid_table(void **state)
{
    (void)state;
    const struct {
        const char *target;
        bool ok;
    } cases[] = {
        {"#hearts", true},  {"&local", true}, {"alice", true},
        {"[away]|x", true}, {"", false},      {" #x", false},
        {"#x y", false},    {"#x,#y", false}, {":alice", false},
        {"a\x01", false},   {"a\x7f", false}, {"a\tb", false},
        {"a\rb", false},    {"a\nb", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_int_equal(ircad_target_valid(cases[i].target), cases[i].ok);
    assert_false(ircad_target_valid(NULL));
    char *longname = repeat("x", IRCAD_TARGET_MAX + 1);
    assert_false(ircad_target_valid(longname));
    longname[IRCAD_TARGET_MAX] = '\0';
    assert_true(ircad_target_valid(longname));
    free(longname);
}

static void test_ircad_split_budget_counts_prefix(void **state)
{
    (void)state;
    /* 512 - 100 - "PRIVMSG #hearts :" (17) - CR LF (2) */
    assert_int_equal(ircad_split_budget("PRIVMSG", "#hearts"), 393);
}

static void test_ircad_sanitize_strips_and_cuts(void **state)
{
    (void)state;
    char out[16];
    assert_int_equal(ircad_sanitize(out, sizeof out, "bye\r\nnow"), 6);
    assert_string_equal(out, "byenow");
    /* 13 x + a 3-byte heart would need 16 bytes plus NUL: dropped whole */
    assert_int_equal(
        ircad_sanitize(out, sizeof out, "xxxxxxxxxxxxx\xE2\x99\xA5"), 13);
    assert_string_equal(out, "xxxxxxxxxxxxx");
    assert_int_equal(ircad_sanitize(out, sizeof out, NULL), 0);
    assert_string_equal(out, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_split_lines_never_exceed_limit),
        cmocka_unit_test(test_ircad_split_cut_emoji_at_boundary),
        cmocka_unit_test(test_ircad_split_cut_suits_and_cjk),
        cmocka_unit_test(test_ircad_split_cut_prefers_space),
        cmocka_unit_test(test_ircad_split_cut_keeps_colour_escape),
        cmocka_unit_test(test_ircad_split_strips_cr_and_splits_lf),
        cmocka_unit_test(test_ircad_split_empty_text_sends_nothing),
        cmocka_unit_test(test_ircad_split_refuses_bad_target),
        cmocka_unit_test(test_ircad_target_valid_table),
        cmocka_unit_test(test_ircad_split_budget_counts_prefix),
        cmocka_unit_test(test_ircad_sanitize_strips_and_cuts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
