/*
 * The message catalogue (bot/common/msg.c): placeholders, plurals, the
 * languages, and that every language has every message with the same
 * placeholders (the catalogue compiled from po/ by the build).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bot/common/msg.h"
#include "bot/common/msg_data.h"

static void test_msg_fills_named_placeholders(void **state)
{
    (void)state;
    char buf[128];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_true(msg_add(&sb, MSG_EN, "{who} plays {card}, {who} again",
                        MSG_S("card", "Q\xe2\x99\xa0"), MSG_S("who", "alice"),
                        MSG_END));
    assert_string_equal(buf, "alice plays Q\xe2\x99\xa0, alice again");
    strbuf_reset(&sb);
    msg_add(&sb, MSG_EN, "{n} points, {{literal}, {missing}, {bad name}, {",
            MSG_I("n", -26), MSG_END);
    assert_string_equal(buf, "-26 points, {literal}, {missing}, {bad name}, {");
}

static void test_msg_cuts_like_the_builder(void **state)
{
    (void)state;
    char buf[12];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_false(msg_add(&sb, MSG_EN, "hello {who}, welcome",
                         MSG_S("who", "\xc3\xa9\xc3\xa9\xc3\xa9"), MSG_END));
    assert_true(sb.cut);
    assert_string_equal(buf, "hello \xc3\xa9\xc3\xa9");
}

static void test_msg_english_plural_and_context(void **state)
{
    (void)state;
    char buf[64];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    msg_addn(&sb, MSG_EN, MN("{n} card", "{n} cards"), 1, MSG_I("n", 1),
             MSG_END);
    assert_string_equal(buf, "1 card");
    strbuf_reset(&sb);
    msg_addn(&sb, MSG_EN, MN("{n} card", "{n} cards"), 0, MSG_I("n", 0),
             MSG_END);
    assert_string_equal(buf, "0 cards");
    /* a context is the catalogue's, never shown */
    assert_string_equal(msg_template(MSG_EN, MC("some place", "Text")), "Text");
    /* a message no language has: English, in every language */
    for (int l = 0; l < msg_lang_count(); l++)
        assert_string_equal(msg_template(l, "not in the catalogue"),
                            "not in the catalogue");
    assert_string_equal(msg_template(-1, "x"), "x");
    assert_string_equal(msg_template(msg_lang_count(), "x"), "x");
}

static void test_msg_languages(void **state)
{
    (void)state;
    assert_true(msg_lang_count() >= 4);
    assert_string_equal(msg_lang_code(MSG_EN), "en");
    assert_string_equal(msg_lang_name(MSG_EN), "English");
    const char *want[][2] = {{"de", "Deutsch"},
                             {"fr", "Fran\xc3\xa7"
                                    "ais"},
                             {"es", "Espa\xc3\xb1ol"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        int l = msg_lang_find(want[i][0]);
        assert_true(l > 0);
        assert_string_equal(msg_lang_code(l), want[i][0]);
        assert_string_equal(msg_lang_name(l), want[i][1]);
        assert_int_equal(msg_lang_find(want[i][1]), l);
    }
    assert_int_equal(msg_lang_find("DE"), msg_lang_find("de"));
    assert_int_equal(msg_lang_find("english"), MSG_EN);
    assert_int_equal(msg_lang_find("xx"), -1);
    assert_int_equal(msg_lang_find(""), -1);
    assert_null(msg_lang_code(-1));
    assert_null(msg_lang_name(msg_lang_count()));
}

/* French uses the singular for 0 and 1, German and Spanish only for 1. */
static void test_msg_plural_rules_by_language(void **state)
{
    (void)state;
    int fr = msg_lang_find("fr"), de = msg_lang_find("de");
    assert_int_equal(msg_langs[fr].plural(0), 0);
    assert_int_equal(msg_langs[fr].plural(1), 0);
    assert_int_equal(msg_langs[fr].plural(2), 1);
    assert_int_equal(msg_langs[de].plural(0), 1);
    assert_int_equal(msg_langs[de].plural(1), 0);
    assert_int_equal(msg_langs[de].plural(26), 1);
}

/* ---- Every language complete ----------------------------------------- */

#define NAMES_MAX 16

struct names {
    int n;
    char name[NAMES_MAX][32];
};

static void add_name(struct names *ns, const char *s, size_t len)
{
    for (int i = 0; i < ns->n; i++)
        if (strlen(ns->name[i]) == len && memcmp(ns->name[i], s, len) == 0)
            return;
    assert_true(ns->n < NAMES_MAX && len < sizeof ns->name[0]);
    memcpy(ns->name[ns->n], s, len);
    ns->name[ns->n++][len] = '\0';
}

/* The placeholders of a template, as the catalogue fills them. */
static void names_of(const char *t, struct names *ns)
{
    while ((t = strchr(t, '{'))) {
        if (t[1] == '{') {
            t += 2;
            continue;
        }
        const char *e = t + 1;
        while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z') ||
               (*e >= '0' && *e <= '9') || *e == '_')
            e++;
        if (*e == '}' && e > t + 1)
            add_name(ns, t + 1, (size_t)(e - t - 1));
        t = e;
    }
}

static bool has_name(const struct names *ns, const char *name)
{
    for (int i = 0; i < ns->n; i++)
        if (strcmp(ns->name[i], name) == 0)
            return true;
    return false;
}

/* The failures are printed, all of them, then the test fails. */
static int check_language(int l)
{
    const struct msg_lang *en = &msg_langs[MSG_EN], *lang = &msg_langs[l];
    int bad = 0;
    for (size_t i = 0; i < en->n; i++) {
        const struct msg_entry *e = &en->entries[i];
        const struct msg_entry *t = NULL;
        for (size_t k = 0; k < lang->n && !t; k++)
            if (strcmp(lang->entries[k].id, e->id) == 0)
                t = &lang->entries[k];
        if (!t || !t->forms[0][0]) {
            fprintf(stderr, "po/%s.po lacks \"%s\"\n", lang->code, e->id);
            bad++;
            continue;
        }
        struct names want = {0};
        for (int f = 0; f < e->nforms; f++)
            names_of(e->forms[f], &want);
        if (t->plural != e->plural ||
            (e->plural && t->nforms != lang->nplurals)) {
            fprintf(stderr, "po/%s.po: \"%s\" has the wrong plural forms\n",
                    lang->code, e->id);
            bad++;
            continue;
        }
        for (int f = 0; f < t->nforms; f++) {
            struct names got = {0};
            names_of(t->forms[f], &got);
            /* the same placeholders; a plural form may leave out {n} */
            bool same = true;
            for (int k = 0; k < got.n; k++)
                same &= has_name(&want, got.name[k]);
            for (int k = 0; k < want.n; k++)
                same &= has_name(&got, want.name[k]) ||
                        (e->plural && strcmp(want.name[k], "n") == 0);
            if (!same) {
                fprintf(stderr,
                        "po/%s.po: \"%s\" form %d has other placeholders: "
                        "\"%s\"\n",
                        lang->code, e->id, f, t->forms[f]);
                bad++;
            }
        }
    }
    /* nothing the sources no longer say */
    for (size_t k = 0; k < lang->n; k++) {
        bool known = false;
        for (size_t i = 0; i < en->n && !known; i++)
            known = strcmp(lang->entries[k].id, en->entries[i].id) == 0;
        if (!known) {
            fprintf(stderr, "po/%s.po: \"%s\" is no message of the sources\n",
                    lang->code, lang->entries[k].id);
            bad++;
        }
    }
    return bad;
}

static void test_msg_every_language_has_every_message(void **state)
{
    (void)state;
    assert_true(msg_langs[MSG_EN].n > 0);
    int bad = 0;
    for (int l = 1; l < msg_lang_count(); l++)
        bad += check_language(l);
    assert_int_equal(bad, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_msg_fills_named_placeholders),
        cmocka_unit_test(test_msg_cuts_like_the_builder),
        cmocka_unit_test(test_msg_english_plural_and_context),
        cmocka_unit_test(test_msg_languages),
        cmocka_unit_test(test_msg_plural_rules_by_language),
        cmocka_unit_test(test_msg_every_language_has_every_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
