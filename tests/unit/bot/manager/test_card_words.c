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

/* What mgr_card_parse says of text: 0 or an mgr_card_error. */
static int why(const char *lang, const char *text)
{
    int card;
    return mgr_card_parse(msg_lang_find(lang), text, strlen(text), &card);
}

#define QH ENGINE_CARD(ENGINE_HEARTS, 10)
#define QD ENGINE_CARD(ENGINE_DIAMONDS, 10)
#define JS ENGINE_CARD(ENGINE_SPADES, 9)
#define KC ENGINE_CARD(ENGINE_CLUBS, 11)
#define KH ENGINE_CARD(ENGINE_HEARTS, 11)
#define AC ENGINE_CARD(ENGINE_CLUBS, 12)
#define TS ENGINE_CARD(ENGINE_SPADES, 8)
#define QS ENGINE_CARD(ENGINE_SPADES, 10)
#define AH ENGINE_CARD(ENGINE_HEARTS, 12)
#define KS ENGINE_CARD(ENGINE_SPADES, 11)

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
    /* Dame Pik, and the English code of the same card */
    assert_int_equal(parse("de", "DP"), QS);
    assert_int_equal(parse("de", "QS"), QS);
    assert_int_equal(parse("de", "qs"), QS);
    /* a German rank with a suit symbol or an English suit letter that
     * means nothing else in German */
    assert_int_equal(parse("de", "D\xe2\x99\xa0"), QS);
    assert_int_equal(parse("de", "ds"), QS);
    assert_int_equal(parse("de", "DD"), QD);
}

/* A letter that means two suits (in the language, or there and in
 * English) is refused as ambiguous, not as no card, so the answer can
 * say why; a text like no card at all is no card. */
/* The joker by the name a language shows for it, its accents optional;
 * "Joker" and "JK" in every language; the Spanish name is no card in
 * English. */
static void test_the_joker_by_its_name(void **state)
{
    (void)state;
    assert_int_equal(parse("es", "Comod\xc3\xadn"), ENGINE_JOKER);
    assert_int_equal(parse("es", "COMOD\xc3\x8dN"), ENGINE_JOKER);
    assert_int_equal(parse("es", "comodin"), ENGINE_JOKER);
    assert_int_equal(parse("es", "joker"), ENGINE_JOKER);
    assert_int_equal(parse("es", "jk"), ENGINE_JOKER);
    assert_int_equal(parse("de", "Joker"), ENGINE_JOKER);
    assert_int_equal(why("es", "comodi"), MGR_CARD_NONE);
    assert_int_equal(why("es", "comodines"), MGR_CARD_NONE);
    assert_int_equal(why("es", "comod\xc3\xb3n"), MGR_CARD_NONE);
    assert_int_equal(why("es", "comod\xc3"), MGR_CARD_NONE);
    assert_int_equal(why("en", "comodin"), MGR_CARD_NONE);
}

static void test_ambiguous_letters_are_told_apart(void **state)
{
    (void)state;
    assert_int_equal(why("de", "DK"), MGR_CARD_SUIT_AMBIGUOUS);
    assert_int_equal(why("de", "10k"), MGR_CARD_SUIT_AMBIGUOUS);
    assert_int_equal(why("fr", "RC"), MGR_CARD_SUIT_AMBIGUOUS);
    assert_int_equal(why("es", "JC"), 0); /* the English jack of clubs */
    assert_int_equal(why("de", "XK"), MGR_CARD_NONE);
    assert_int_equal(why("de", "DX"), MGR_CARD_NONE);
    assert_int_equal(why("de", "DK2"), MGR_CARD_NONE);
    assert_int_equal(why("en", "DK"), MGR_CARD_NONE);
    assert_int_equal(why("de", "JK"), 0); /* the joker's English code */
    /* the suits a letter means, for the answer */
    int de = msg_lang_find("de"), fr = msg_lang_find("fr");
    assert_int_equal(mgr_card_suit_meanings(de, 'k'),
                     1u << ENGINE_CLUBS | 1u << ENGINE_DIAMONDS);
    assert_int_equal(mgr_card_suit_meanings(fr, 'C'),
                     1u << ENGINE_CLUBS | 1u << ENGINE_HEARTS);
    assert_int_equal(mgr_card_suit_meanings(de, 'P'), 1u << ENGINE_SPADES);
    assert_int_equal(mgr_card_suit_meanings(MSG_EN, 'K'), 0);
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
    /* the English code wins: AC is the ace of clubs, never of hearts */
    assert_int_equal(parse("fr", "AC"), AC);
    assert_int_equal(parse("fr", "AH"), AH);
    assert_int_equal(parse("fr", "RP"), KS);
    assert_int_equal(parse("fr", "R\xe2\x99\xa0"), KS);
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
        cmocka_unit_test(test_ambiguous_letters_are_told_apart),
        cmocka_unit_test(test_the_joker_by_its_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
