/*
 * The engine's values in words (bot/common/rule_words.c): errors,
 * refusals and presets in English, byte for byte what the bot said when
 * the engine wrote them, and in another language through the catalogue.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bot/common/msg.h"
#include "bot/common/rule_words.h"

/* The error of a rules text for `players` (0: the text's), in lang. */
static const char *parse_words(const char *text, int players, int lang,
                               char *buf, size_t len)
{
    struct engine_rules r;
    struct engine_error e;
    if (engine_rules_parse(&r, text, players, &e) == 0)
        fail_msg("'%s' accepted", text);
    return rule_words_error_text(buf, len, lang, &e);
}

static int lang_of(const char *code)
{
    int lang = msg_lang_find(code);
    assert_true(lang > 0);
    return lang;
}

static void test_rule_words_error_in_english_as_before(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int players;
        const char *words;
    } rows[] = {
        {"standard tagret=150", 4,
         "unknown option 'tagret' (did you mean 'target'?)"},
        {"omnibuss", 4, "unknown preset 'omnibuss' (did you mean 'omnibus'?)"},
        {"standard tie=shar", 4,
         "bad value 'shar' for tie (did you mean 'share'?): share, play_on"},
        {"standard target=0", 4,
         "bad value '0' for target: a whole number from 1 to 1000"},
        {"standard joker=maybe", 4, "bad value 'maybe' for joker: on or off"},
        {"standard pass_cycle=left,,right", 4,
         "bad value 'left,,right' for pass_cycle: a comma list of left, "
         "right, across, hold, scatter, left2, right2"},
        {"standard card_points=QS:ten", 4,
         "bad points 'ten' for QS in card_points: a whole number from -1000 "
         "to 1000"},
        {"standard card_points=QS:8 qs_points=7", 4,
         "qs_points is 7 but card_points gives the QS 8: name it once"},
        {"target=50 TARGET=50", 4,
         "TARGET is given twice: name each option once"},
        {"standard foo", 4,
         "'foo' is not KEY=VALUE (a preset comes first, options after it)"},
        {"modern", 7, "modern is for 3 to 6 players, not 7"},
        {"passing", 5, "passing is for 4 players, not 5"},
        {"standard pass_cycle=scatter pass_count=2", 4,
         "pass_count: scatter needs a multiple of 3 cards with 4 players"},
        {"standard card_points=2D:1", 3,
         "card_points: 2D is not in the pack for these rules and 3 players"},
        {"two-handed stock=off", 2,
         "players: a 2-player table plays the two-handed game only "
         "(stock=two_handed)"},
    };
    char buf[RULE_WORDS_SIZE];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        assert_string_equal(
            parse_words(rows[i].text, rows[i].players, MSG_EN, buf, sizeof buf),
            rows[i].words);
    /* a deal's errors */
    struct engine_error e = {.code = ENGINE_ERR_DEAL_TWICE,
                             .card = ENGINE_CARD(ENGINE_CLUBS, 0)};
    assert_string_equal(rule_words_error_text(buf, sizeof buf, MSG_EN, &e),
                        "2C is dealt twice");
    e = (struct engine_error){
        .code = ENGINE_ERR_DEAL_LENGTH, .n1 = 51, .n2 = 50};
    assert_string_equal(rule_words_error_text(buf, sizeof buf, MSG_EN, &e),
                        "the pack has 51 cards, not 50");
    /* no error, no words */
    e = (struct engine_error){.code = ENGINE_ERR_NONE};
    assert_string_equal(rule_words_error_text(buf, sizeof buf, MSG_EN, &e), "");
}

static void test_rule_words_error_in_the_readers_language(void **state)
{
    (void)state;
    char buf[RULE_WORDS_SIZE];
    int de = lang_of("de");
    assert_string_equal(
        parse_words("standard tagret=150", 4, de, buf, sizeof buf),
        "unbekannte Option „tagret“ (meintest du „target“?)");
    assert_string_equal(parse_words("modern", 7, de, buf, sizeof buf),
                        "modern ist für 3 bis 6 Spieler, nicht für 7");
    /* every code has words in every language, its values filled in */
    for (int lang = 0; lang < msg_lang_count(); lang++) {
        for (int code = ENGINE_ERR_NONE + 1; code <= ENGINE_ERR_DEAL_TWICE;
             code++) {
            struct engine_error e = {.code = (enum engine_error_code)code,
                                     .word = "xyz",
                                     .near = "target",
                                     .n1 = 3,
                                     .n2 = 6,
                                     .n3 = 7};
            rule_words_error_text(buf, sizeof buf, lang, &e);
            if (!buf[0] || strchr(buf, '{'))
                fail_msg("%s, error %d: '%s'", msg_lang_code(lang), code, buf);
        }
    }
}

static void test_rule_words_refusal_in_two_languages(void **state)
{
    (void)state;
    char buf[100];
    assert_string_equal(rule_words_refusal_text(buf, sizeof buf, MSG_EN,
                                                ENGINE_REFUSE_MUST_FOLLOW),
                        "must follow suit");
    assert_string_equal(rule_words_refusal_text(buf, sizeof buf, MSG_EN,
                                                ENGINE_REFUSE_NOT_YOUR_TURN),
                        "not your turn");
    assert_string_equal(rule_words_refusal_text(buf, sizeof buf, MSG_EN,
                                                (enum engine_refusal)99),
                        "refused");
    assert_string_equal(rule_words_refusal_text(buf, sizeof buf, lang_of("fr"),
                                                ENGINE_REFUSE_NOT_YOUR_TURN),
                        "ce n'est pas ton tour");
    for (int why = ENGINE_OK; why <= ENGINE_REFUSE_BAD_ACTION; why++) {
        rule_words_refusal_text(buf, sizeof buf, MSG_EN,
                                (enum engine_refusal)why);
        if (!buf[0] || !strcmp(buf, "refused"))
            fail_msg("refusal %d has no words", why);
    }
}

static void test_rule_words_every_preset_has_a_summary(void **state)
{
    (void)state;
    char buf[300];
    struct strbuf sb;
    for (int p = 0; p < engine_preset_count(); p++) {
        strbuf_init(&sb, buf, sizeof buf);
        assert_true(rule_words_preset(&sb, MSG_EN, p));
        if (!buf[0])
            fail_msg("%s has no summary", engine_preset_name(p));
    }
    strbuf_init(&sb, buf, sizeof buf);
    rule_words_preset(&sb, MSG_EN, engine_preset_find("omnibus"));
    assert_string_equal(buf, "standard with the ten of diamonds -10");
    strbuf_init(&sb, buf, sizeof buf);
    rule_words_preset(&sb, lang_of("es"), engine_preset_find("omnibus"));
    assert_string_equal(buf, "standard con el 10 de diamantes a -10");
    strbuf_init(&sb, buf, sizeof buf);
    rule_words_preset(&sb, MSG_EN, -1);
    assert_string_equal(buf, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_words_error_in_english_as_before),
        cmocka_unit_test(test_rule_words_error_in_the_readers_language),
        cmocka_unit_test(test_rule_words_refusal_in_two_languages),
        cmocka_unit_test(test_rule_words_every_preset_has_a_summary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
