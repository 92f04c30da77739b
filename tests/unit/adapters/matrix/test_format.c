/*
 * The markup to Matrix rich text conversion (adapters/matrix/format.c):
 * the exact body and formatted_body of what the bot renders, mentions,
 * and hostile input: stray and unfinished markup, HTML in names, quotes
 * in user IDs, very long lines and bytes that are not UTF-8. Every HTML
 * result is checked to be balanced and made only of the allowed tags.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/format.h"

#define R "\x03\x30\x34" /* \x03 "04" */
#define X "\x0F"
#define B "\x02"
#define M "\x05"
#define C "\x1F"
#define P "\x01"

#define FONT "<font data-mx-color=\"" MX_RED "\" color=\"" MX_RED "\">"

/* The tags format.c may make, with whether each has an end tag. */
static const struct {
    const char *open, *close;
} allowed[] = {
    {FONT, "</font>"},       {"<b>", "</b>"},         {"<br>", NULL},
    {"<table>", "</table>"}, {"<thead>", "</thead>"}, {"<tbody>", "</tbody>"},
    {"<tr>", "</tr>"},       {"<th>", "</th>"},       {"<td>", "</td>"},
};

/* Only allowed tags, properly nested; no stray '<', '>' or '"' in text;
 * links only to matrix.to with a percent-encoded target. */
static void assert_html_sane(const char *html)
{
    const char *stack[64];
    int depth = 0;
    const char *p = html;
    while (*p) {
        if (*p == '>' || *p == '"' || *p == '\'')
            fail_msg("bare %c in text: %s", *p, html);
        if (*p != '<') {
            p++;
            continue;
        }
        if (strncmp(p, "<a href=\"https://matrix.to/#/", 29) == 0) {
            const char *q = p + 29;
            while (*q && *q != '"') {
                if (!strchr("-._~:@%", *q) && !(*q >= 'a' && *q <= 'z') &&
                    !(*q >= 'A' && *q <= 'Z') && !(*q >= '0' && *q <= '9'))
                    fail_msg("unescaped %c in a link: %s", *q, html);
                q++;
            }
            assert_true(q[0] == '"' && q[1] == '>');
            assert_true(depth < 64);
            stack[depth++] = "</a>";
            p = q + 2;
            continue;
        }
        if (strncmp(p, "</a>", 4) == 0) {
            assert_true(depth > 0);
            assert_string_equal(stack[--depth], "</a>");
            p += 4;
            continue;
        }
        bool known = false;
        for (size_t i = 0; i < sizeof allowed / sizeof *allowed && !known;
             i++) {
            size_t n = strlen(allowed[i].open);
            if (strncmp(p, allowed[i].open, n) == 0) {
                if (allowed[i].close) {
                    assert_true(depth < 64);
                    stack[depth++] = allowed[i].close;
                }
                p += n;
                known = true;
            } else if (allowed[i].close &&
                       strncmp(p, allowed[i].close, strlen(allowed[i].close)) ==
                           0) {
                if (depth == 0 || strcmp(stack[depth - 1], allowed[i].close))
                    fail_msg("unbalanced %s in %s", allowed[i].close, html);
                depth--;
                p += strlen(allowed[i].close);
                known = true;
            }
        }
        if (!known)
            fail_msg("unknown tag at '%.20s' in %s", p, html);
    }
    if (depth != 0)
        fail_msg("%d tags left open in %s", depth, html);
}

/* No control bytes in the body; valid UTF-8 is format.c's promise too. */
static void assert_body_clean(const char *body)
{
    for (const unsigned char *p = (const unsigned char *)body; *p; p++)
        if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
            fail_msg("control byte %02x in body", *p);
}

static struct mx_format f;

static void fmt(const char *text)
{
    mx_format_free(&f);
    mx_format(text, strlen(text), &f);
    assert_html_sane(f.html);
    assert_body_clean(f.body);
}

static int teardown(void **state)
{
    (void)state;
    mx_format_free(&f);
    return 0;
}

static void test_format_plain_text_is_escaped(void **state)
{
    (void)state;
    fmt("a <script>alert('x')</script> & \"b\"");
    assert_string_equal(f.body, "a <script>alert('x')</script> & \"b\"");
    assert_string_equal(f.html, "a &lt;script&gt;alert(&#39;x&#39;)&lt;/"
                                "script&gt; &amp; &quot;b&quot;");
    assert_int_equal(f.nmentions, 0);
}

static void test_format_lines_join(void **state)
{
    (void)state;
    fmt("one\ntwo\n\nfour\n");
    assert_string_equal(f.body, "one\ntwo\n\nfour");
    assert_string_equal(f.html, "one<br>two<br><br>four");
    fmt("");
    assert_string_equal(f.body, "");
    assert_string_equal(f.html, "");
}

static void test_format_red_and_bold(void **state)
{
    (void)state;
    fmt("Trick 5: carol " R "2♥" X ", dave 9♣ - " B "bob" B " takes it");
    assert_string_equal(f.body, "Trick 5: carol 2♥, dave 9♣ - bob takes it");
    assert_string_equal(f.html, "Trick 5: carol " FONT "2♥</font>, dave 9♣ - "
                                "<b>bob</b> takes it");
}

static void test_format_marked_cards(void **state)
{
    (void)state;
    fmt("♣ 2 " M "5" M "  " R "♦ " M "3" M " Q" X);
    assert_string_equal(f.body, "♣ 2 [5]  ♦ [3] Q");
    assert_string_equal(f.html, "♣ 2 <b>5</b>  " FONT "♦ <b>3</b> Q</font>");
}

static void test_format_score_table(void **state)
{
    (void)state;
    fmt("Scores:\n"
        " hand" C "  alice" C "  bob\n"
        "    1" C "      3" C "   13\n"
        "total" C "      3" C "   13\n"
        "Next hand.");
    assert_string_equal(f.body, "Scores:\n"
                                " hand  alice  bob\n"
                                "    1      3   13\n"
                                "total      3   13\n"
                                "Next hand.");
    assert_string_equal(f.html,
                        "Scores:<table><thead><tr><th>hand</th><th>alice</th>"
                        "<th>bob</th></tr></thead><tbody>"
                        "<tr><td>1</td><td>3</td><td>13</td></tr>"
                        "<tr><td>total</td><td>3</td><td>13</td></tr>"
                        "</tbody></table>Next hand.");
    /* two tables apart, a heading alone */
    fmt("a" C "  b\nx\nc" C "  d");
    assert_string_equal(f.html,
                        "<table><thead><tr><th>a</th><th>b</th></tr></thead>"
                        "<tbody></tbody></table>x<table><thead><tr><th>c</th>"
                        "<th>d</th></tr></thead><tbody></tbody></table>");
}

static void test_format_pills(void **state)
{
    (void)state;
    fmt("The table waits for " P "!@bob:hs" P "Bob B" P ", " P "!@carol:hs" P
        "carol" P " (30 s left).");
    assert_string_equal(f.body,
                        "The table waits for Bob B, carol (30 s left).");
    assert_string_equal(f.html,
                        "The table waits for <a href=\"https://matrix.to/#/"
                        "@bob:hs\">Bob B</a>, <a href=\"https://matrix.to/#/"
                        "@carol:hs\">carol</a> (30 s left).");
    assert_int_equal(f.nmentions, 2);
    assert_string_equal(f.mentions[0], "@bob:hs");
    assert_string_equal(f.mentions[1], "@carol:hs");
    /* quiet: a link, nobody notified; the same ID twice counts once */
    fmt(B P "@bob:hs" P "bob" P B " takes it " P "!@a:hs" P "a" P P "!@a:hs" P
            "a" P);
    assert_string_equal(f.body, "bob takes it aa");
    assert_string_equal(f.html, "<b><a href=\"https://matrix.to/#/@bob:hs\">"
                                "bob</a></b> takes it <a href=\"https://"
                                "matrix.to/#/@a:hs\">a</a><a href=\"https://"
                                "matrix.to/#/@a:hs\">a</a>");
    assert_int_equal(f.nmentions, 1);
}

static void test_format_pill_ids_are_escaped_or_refused(void **state)
{
    (void)state;
    /* quotes are printable ASCII, allowed in historical user IDs: the
     * link percent-encodes them */
    fmt(P "!@b\"><script>:hs" P "bob" P);
    assert_string_equal(f.html, "<a href=\"https://matrix.to/#/"
                                "@b%22%3E%3Cscript%3E:hs\">bob</a>");
    assert_string_equal(f.body, "bob");
    assert_int_equal(f.nmentions, 1);
    /* a space, no server, too long: no user ID, the name alone, nobody
     * notified */
    fmt(P "!@b b:hs" P "bob" P);
    assert_string_equal(f.html, "bob");
    assert_int_equal(f.nmentions, 0);
    char longid[400] = P "!@";
    memset(longid + 3, 'x', 300);
    strcpy(longid + 303, ":hs" P "bob" P);
    fmt(longid);
    assert_string_equal(f.html, "bob");
    assert_int_equal(f.nmentions, 0);
    assert_string_equal(f.html, "bob");
    fmt(P "!bob" P "bob" P);
    assert_string_equal(f.html, "bob");
    assert_int_equal(f.nmentions, 0);
    /* printable ASCII that HTML or a URL minds is percent-encoded */
    fmt(P "@b'&=/x:hs" P "<bob>" P);
    assert_string_equal(f.html, "<a href=\"https://matrix.to/#/"
                                "@b%27%26%3D%2Fx:hs\">&lt;bob&gt;</a>");
    /* an empty name shows the ID */
    fmt(P "@bob:hs" P P);
    assert_string_equal(f.body, "@bob:hs");
}

static void test_format_stray_markup_stays_balanced(void **state)
{
    (void)state;
    fmt(P "a");
    assert_string_equal(f.body, "a");
    fmt("x" P "@bob:hs" P "bob");
    assert_string_equal(f.body, "x@bob:hsbob");
    assert_string_equal(f.html, "x@bob:hsbob");
    fmt(P "!" P P P P P);
    fmt(B "bold without end\nnext");
    assert_string_equal(f.html, "<b>bold without end</b><br>next");
    fmt(M "Q\nnext");
    assert_string_equal(f.body, "[Q]\nnext");
    assert_string_equal(f.html, "<b>Q</b><br>next");
    fmt(R "red" B "both" X "none" B);
    assert_string_equal(f.html, FONT "red<b>both</b></font>none<b></b>");
    /* closed out of order: the inner one is closed and opened again */
    fmt(B "a" R "b" B "c" X);
    assert_string_equal(f.html, "<b>a" FONT "b</font></b>" FONT "c</font>");
    fmt(M "a" B "b" M "c" B);
    assert_string_equal(f.body, "[ab]c");
    assert_string_equal(f.html, "<b>a<b>b</b></b><b>c</b>");
    /* a colour that is not the markup's red, other controls */
    fmt("\x03"
        "12a\x03\x04\x06\x07\x1b[31mb\x7f\tc");
    assert_string_equal(f.body, "12a[31mb c");
    fmt(R R "x" X X);
    assert_string_equal(f.html, FONT "x</font>");
    /* markup split across cells closes within each cell */
    fmt(B "a" C "  b" B);
    assert_string_equal(f.html, "<table><thead><tr><th><b>a</b></th>"
                                "<th>b<b></b></th></tr></thead><tbody>"
                                "</tbody></table>");
}

static void test_format_not_utf8(void **state)
{
    (void)state;
    /* after the outbox it is UTF-8, but format.c does not rely on it */
    const char text[] = "a\xff"
                        "b\xe2\x99"
                        "c\xc0\xaf"
                        "d";
    mx_format_free(&f);
    mx_format(text, sizeof text - 1, &f);
    assert_string_equal(f.body, "a\xef\xbf\xbd"
                                "b\xef\xbf\xbd\xef\xbf\xbd"
                                "c"
                                "\xef\xbf\xbd\xef\xbf\xbd"
                                "d");
    /* NUL bytes inside are dropped */
    mx_format_free(&f);
    mx_format("a\0b", 3, &f);
    assert_string_equal(f.body, "ab");
}

static void test_format_long_hostile_lines(void **state)
{
    (void)state;
    /* 10 KB lines of every kind of markup, unfinished at the end */
    static const char *const pieces[] = {
        P,     "!", B, M, R, X, C, "<", "&", "\"", "@a:b", " ", "\xe2\x99\xa5",
        "\xff"};
    size_t npieces = sizeof pieces / sizeof *pieces;
    char *text = malloc(10300);
    assert_non_null(text);
    uint32_t seed = 12345;
    for (int round = 0; round < 50; round++) {
        size_t n = 0;
        while (n < 10240) {
            seed = seed * 1103515245u + 12345u;
            const char *p = pieces[(seed >> 16) % npieces];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
            if ((seed >> 8) % 97 == 0)
                text[n++] = '\n';
        }
        text[n] = '\0';
        fmt(text);
        assert_true(f.nmentions <= MX_MENTIONS_MAX);
    }
    free(text);
}

static void test_format_mentions_capped(void **state)
{
    (void)state;
    char text[4000];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, P "!@u%d:hs" P "u" P,
                              i);
    fmt(text);
    assert_int_equal(f.nmentions, MX_MENTIONS_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_format_plain_text_is_escaped),
        cmocka_unit_test(test_format_lines_join),
        cmocka_unit_test(test_format_red_and_bold),
        cmocka_unit_test(test_format_marked_cards),
        cmocka_unit_test(test_format_score_table),
        cmocka_unit_test(test_format_pills),
        cmocka_unit_test(test_format_pill_ids_are_escaped_or_refused),
        cmocka_unit_test(test_format_stray_markup_stays_balanced),
        cmocka_unit_test(test_format_not_utf8),
        cmocka_unit_test(test_format_long_hostile_lines),
        cmocka_unit_test(test_format_mentions_capped),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
