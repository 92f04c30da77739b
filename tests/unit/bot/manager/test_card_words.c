/*
 * Cards as people type them in their language (bot/manager/card_words.c):
 * English codes and suit symbols everywhere, a language's own letters only
 * where they cannot be taken for another card.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bot/common/msg.h"
#include "bot/manager/card_words.h"
#include "engine/engine.h"

static int parse(const char *lang, const char *text)
{
    int card = -1;
    int l = msg_lang_find(lang);
    assert_true(l >= 0);
    if (mgr_card_parse(l, text, strlen(text), &card))
        return -1;
    return card;
}

#define QH ENGINE_CARD(ENGINE_HEARTS, 10)
#define QD ENGINE_CARD(ENGINE_DIAMONDS, 10)
#define JS ENGINE_CARD(ENGINE_SPADES, 9)
#define KC ENGINE_CARD(ENGINE_CLUBS, 11)
#define KH ENGINE_CARD(ENGINE_HEARTS, 11)
#define AC ENGINE_CARD(ENGINE_CLUBS, 12)
#define TS ENGINE_CARD(ENGINE_SPADES, 8)

static void test_english_codes_and_symbols_in_every_language(void **state)
{
    (void)state;
    for (int l = 0; l < msg_lang_count(); l++) {
        const char *code = msg_lang_code(l);
        assert_int_equal(parse(code, "QH"), QH);
        assert_int_equal(parse(code, "qd"), QD);
        assert_int_equal(parse(code, "10s"), TS);
        assert_int_equal(parse(code, "Q\xe2\x99\xa5"), QH);
        assert_int_equal(parse(code, "AC"), AC);
    }
    /* English reads no other language's letters */
    assert_int_equal(parse("en", "DH"), -1);
    assert_int_equal(parse("en", "BP"), -1);
}

static void test_german_letters(void **state)
{
    (void)state;
    assert_int_equal(parse("de", "DH"), QH);  /* Dame Herz */
    assert_int_equal(parse("de", "bp"), JS);  /* Bube Pik */
    assert_int_equal(parse("de", "10P"), TS); /* zehn Pik */
    /* QD is the English queen of diamonds, never a German reading */
    assert_int_equal(parse("de", "QD"), QD);
    /* K is Kreuz and Karo: no suit */
    assert_int_equal(parse("de", "DK"), -1);
    assert_int_equal(parse("de", "KH"), KH);
    assert_int_equal(parse("de", "D"), -1);
    assert_int_equal(parse("de", "DHH"), -1);
    assert_int_equal(parse("de", ""), -1);
}

static void test_french_and_spanish_letters(void **state)
{
    (void)state;
    /* Roi, Dame, Valet; trefle, carreau, pique */
    assert_int_equal(parse("fr", "RT"), KC);
    assert_int_equal(parse("fr", "DK"), QD);
    assert_int_equal(parse("fr", "VP"), JS);
    /* the C of coeur is the English clubs: not hearts */
    assert_int_equal(parse("fr", "DC"), -1);
    assert_int_equal(parse("fr", "AC"), AC);
    /* picas, treboles; C (corazones) is English clubs */
    assert_int_equal(parse("es", "JP"), JS);
    assert_int_equal(parse("es", "KT"), KC);
    assert_int_equal(parse("es", "KC"), KC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_english_codes_and_symbols_in_every_language),
        cmocka_unit_test(test_german_letters),
        cmocka_unit_test(test_french_and_spanish_letters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
