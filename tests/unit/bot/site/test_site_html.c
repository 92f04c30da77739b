/*
 * The site's HTML helpers (bot/site/site_html.c): names escaped for text
 * and attributes, bidi controls dropped, controls and bad UTF-8 replaced,
 * long names cut; URL segments; data directory names decoded for
 * display; cards as text; every page's head with its CSP.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/site/site_internal.h"
#include "engine/engine.h"

static char *text_of(const char *s, size_t max)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_html_text(&sb, s, max);
    char *t = strbuf_take(&sb);
    return t ? t : strdup("");
}

static void test_text_escapes_markup_and_quotes(void **state)
{
    (void)state;
    char *t = text_of("<script>alert(1)</script> \"x\" 'y' a&b", 0);
    assert_string_equal(t,
                        "&lt;script&gt;alert(1)&lt;/script&gt; &quot;x&quot; "
                        "&#39;y&#39; a&amp;b");
    free(t);
    t = text_of("\"onmouseover=alert(1) x=\"", 0);
    assert_string_equal(t, "&quot;onmouseover=alert(1) x=&quot;");
    free(t);
}

static void test_text_drops_bidi_and_replaces_controls(void **state)
{
    (void)state;
    /* RLO, LRO, LRI, PDI, RLM, ALM: gone */
    char *t = text_of("a\xE2\x80\xAE"
                      "b\xE2\x80\xAD"
                      "c\xE2\x81\xA6"
                      "d\xE2\x81\xA9"
                      "e\xE2\x80\x8F"
                      "f\xD8\x9C"
                      "g",
                      0);
    assert_string_equal(t, "abcdefg");
    free(t);
    /* a newline, a bell, DEL, a C1 control, the line separator */
    t = text_of("a\nb\x07"
                "c\x7F"
                "d\xC2\x85"
                "e\xE2\x80\xA8"
                "f",
                0);
    assert_string_equal(t, "a\xEF\xBF\xBD"
                           "b\xEF\xBF\xBD"
                           "c\xEF\xBF\xBD"
                           "d\xEF\xBF\xBD"
                           "e\xEF\xBF\xBD"
                           "f");
    free(t);
    /* bad UTF-8: one U+FFFD per maximal bad part */
    t = text_of("a\xFF"
                "b\xE2\x82"
                "c",
                0);
    assert_string_equal(t, "a\xEF\xBF\xBD"
                           "b\xEF\xBF\xBD"
                           "c");
    free(t);
    /* other scripts stay */
    t = text_of("Zoë Ωμέγα 名前 \xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D", 0);
    assert_string_equal(t, "Zoë Ωμέγα 名前 \xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D");
    free(t);
}

static void test_long_names_are_cut_by_characters(void **state)
{
    (void)state;
    char name[1300];
    memset(name, 'W', 400);
    name[400] = '\0';
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_html_name(&sb, name);
    char expect[100];
    snprintf(expect, sizeof expect, "<bdi>%.*s…</bdi>", SITE_NAME_CHARS, name);
    assert_string_equal(sb.buf, expect);
    strbuf_free(&sb);
    /* 400 three-byte characters: cut at a whole one */
    name[0] = '\0';
    for (int i = 0; i < 400; i++)
        strcat(name, "名");
    char *t = text_of(name, 5);
    assert_string_equal(t, "名名名名名…");
    free(t);
    char cut[64];
    site_text_cut(name, 3, cut, sizeof cut);
    assert_string_equal(cut, "名名名…");
    site_text_cut("short", 32, cut, sizeof cut);
    assert_string_equal(cut, "short");
    /* a short name is not cut */
    t = text_of("<b>", 3);
    assert_string_equal(t, "&lt;b&gt;");
    free(t);
}

static void test_url_segments(void **state)
{
    (void)state;
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_url_segment(&sb, "%23hearts");
    strbuf_addc(&sb, '|');
    site_url_segment(&sb, "a b/\"<>?#:~x_y-z.html");
    assert_string_equal(sb.buf,
                        "%2523hearts|a%20b%2F%22%3C%3E%3F%23%3A~x_y-z.html");
    strbuf_free(&sb);
}

static void test_folder_names_decoded_for_display(void **state)
{
    (void)state;
    char *d = site_name_decode("%23hearts");
    assert_string_equal(d, "#hearts");
    free(d);
    d = site_name_decode("%00");
    assert_string_equal(d, "");
    free(d);
    char enc[FILE_NAME_MAX + 1];
    char room[300];
    memset(room, 'x', 299);
    room[299] = '\0';
    file_name_encode(room, enc, sizeof enc);
    d = site_name_decode(enc);
    assert_non_null(strstr(d, "…"));
    assert_true(strlen(d) < 130);
    free(d);
    /* a bad escape is kept as it is */
    d = site_name_decode("%Zq%4");
    assert_string_equal(d, "%Zq%4");
    free(d);
}

static void test_cards_are_text_with_their_suit(void **state)
{
    (void)state;
    int qs, th, two_c;
    assert_int_equal(engine_card_parse("QS", 2, &qs), 0);
    assert_int_equal(engine_card_parse("TH", 2, &th), 0);
    assert_int_equal(engine_card_parse("2C", 2, &two_c), 0);
    uint8_t v[] = {(uint8_t)two_c, (uint8_t)th, (uint8_t)qs};
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_html_cards(&sb, v, 3);
    assert_string_equal(sb.buf, "2♣ <span class=r>10♥</span> Q♠");
    strbuf_free(&sb);
    assert_true(site_card_red(th));
    assert_false(site_card_red(qs));
}

static void test_head_has_the_policy_and_escapes_the_title(void **state)
{
    (void)state;
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_html_head(&sb, "../", "<x>", NULL, false);
    site_html_foot(&sb, "../");
    assert_non_null(strstr(sb.buf, "<html lang=\"en\">"));
    assert_non_null(strstr(sb.buf, "content=\"default-src 'none'; style-src "
                                   "'self'; script-src 'self'; img-src 'self' "
                                   "data:; base-uri 'none'; form-action "
                                   "'none'\""));
    assert_non_null(strstr(sb.buf, "<title>&lt;x&gt;</title>"));
    assert_non_null(strstr(sb.buf, "<h1>&lt;x&gt;</h1>"));
    assert_non_null(strstr(sb.buf, "href=\"../site.css\""));
    assert_null(strstr(sb.buf, "<script"));
    strbuf_free(&sb);
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    site_html_head(&sb, "../../../", "t", "<bdi>h</bdi>", true);
    assert_non_null(
        strstr(sb.buf, "<script src=\"../../../replay.js\" defer></script>"));
    assert_non_null(strstr(sb.buf, "<h1><bdi>h</bdi></h1>"));
    strbuf_free(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_escapes_markup_and_quotes),
        cmocka_unit_test(test_text_drops_bidi_and_replaces_controls),
        cmocka_unit_test(test_long_names_are_cut_by_characters),
        cmocka_unit_test(test_url_segments),
        cmocka_unit_test(test_folder_names_decoded_for_display),
        cmocka_unit_test(test_cards_are_text_with_their_suit),
        cmocka_unit_test(test_head_has_the_policy_and_escapes_the_title),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
