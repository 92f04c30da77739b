/*
 * Tests of engine/card.c: the lenient reader of what people type ("10h",
 * "t♦", "Q♠", "qs", "JK", symbols with the emoji selector), what it
 * refuses, and the canonical names of variants.md.
 */
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

static void test_card_parse_accepts_what_people_type(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int card;
    } rows[] = {
        {"2C", ENGINE_2C},
        {"2c", ENGINE_2C},
        {"TD", ENGINE_TD},
        {"td", ENGINE_TD},
        {"10D", ENGINE_TD},
        {"10h", ENGINE_CARD(ENGINE_HEARTS, 8)},
        {"Th", ENGINE_CARD(ENGINE_HEARTS, 8)},
        {"JD", ENGINE_JD},
        {"qs", ENGINE_QS},
        {"Qs", ENGINE_QS},
        {"KS", ENGINE_KS},
        {"aS", ENGINE_AS},
        {"9C", ENGINE_CARD(ENGINE_CLUBS, 7)},
        /* the suit symbols, black and white forms */
        {"t\xe2\x99\xa6", ENGINE_TD},                      /* t♦ */
        {"10\xe2\x99\xa6", ENGINE_TD},                     /* 10♦ */
        {"Q\xe2\x99\xa0", ENGINE_QS},                      /* Q♠ */
        {"q\xe2\x99\xa0", ENGINE_QS},                      /* q♠ */
        {"A\xe2\x99\xa5", ENGINE_CARD(ENGINE_HEARTS, 12)}, /* A♥ */
        {"2\xe2\x99\xa3", ENGINE_2C},                      /* 2♣ */
        {"Q\xe2\x99\xa4", ENGINE_QS},                      /* Q♤ */
        {"A\xe2\x99\xa1", ENGINE_CARD(ENGINE_HEARTS, 12)}, /* A♡ */
        {"J\xe2\x99\xa2", ENGINE_JD},                      /* J♢ */
        {"2\xe2\x99\xa7", ENGINE_2C},                      /* 2♧ */
        /* the emoji variation selector U+FE0F after the symbol */
        {"Q\xe2\x99\xa0\xef\xb8\x8f", ENGINE_QS}, /* Q♠️ */
        {"10\xe2\x99\xa5\xef\xb8\x8f", ENGINE_CARD(ENGINE_HEARTS, 8)},
        /* the joker */
        {"JK", ENGINE_JOKER},
        {"jk", ENGINE_JOKER},
        {"Joker", ENGINE_JOKER},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int card = -1;
        if (engine_card_parse(rows[i].text, strlen(rows[i].text), &card))
            fail_msg("'%s' refused", rows[i].text);
        if (card != rows[i].card)
            fail_msg("'%s' read as %s, want %s", rows[i].text,
                     engine_card_name(card), engine_card_name(rows[i].card));
    }
}

static void test_card_parse_refuses_no_card(void **state)
{
    (void)state;
    static const char *const rows[] = {
        "",
        "Q",
        "S",
        "1",
        "10",
        "1H",
        "11H",
        "0S",
        "100S",
        "QX",
        "QSS",
        "QS ",
        " QS",
        "Q S",
        "SQ",
        "ZZ",
        "KJ",
        "JKK",
        "jokers",
        "\xe2\x99\xa0Q",             /* ♠Q: suit first */
        "Q\xe2\x99\xa0\xef\xb8",     /* a cut-off variation selector */
        "Q\xe2\x99\xa0\xef\xb8\x8e", /* U+FE0E is not the emoji selector */
        "Q\xe2\x99\xa8",             /* U+2668 is no suit */
        "Q\xe2\x99",                 /* a cut-off symbol */
        "Q\xe2\x98\xa0",             /* U+2620 */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        int card = 77;
        if (!engine_card_parse(rows[i], strlen(rows[i]), &card))
            fail_msg("'%s' accepted as %s", rows[i], engine_card_name(card));
        /* a failed parse leaves its out-parameter alone */
        assert_int_equal(card, 77);
    }
}

static void test_card_parse_reads_only_len_bytes(void **state)
{
    (void)state;
    int card = -1;
    /* "QSxx": the first two bytes are the card */
    assert_int_equal(engine_card_parse("QSxx", 2, &card), 0);
    assert_int_equal(card, ENGINE_QS);
    /* "10Hxyz" cut at 3 */
    assert_int_equal(engine_card_parse("10Hxyz", 3, &card), 0);
    assert_int_equal(card, ENGINE_CARD(ENGINE_HEARTS, 8));
    /* a symbol cut short by len is no card */
    card = -1;
    assert_int_equal(engine_card_parse("Q\xe2\x99\xa0", 3, &card), -1);
    assert_int_equal(card, -1);
    /* an embedded NUL within len is not read as the end */
    assert_int_equal(engine_card_parse("Q\0S", 3, &card), -1);
}

static void test_card_name_canonical(void **state)
{
    (void)state;
    static const char ranks[] = "23456789TJQKA";
    static const char suits[] = "CDHS";
    int names = 0;
    for (int suit = 0; suit < 4; suit++) {
        for (int rank = 0; rank < 13; rank++) {
            int c = ENGINE_CARD(suit, rank);
            char want[3] = {ranks[rank], suits[suit], 0};
            assert_string_equal(engine_card_name(c), want);
            int back = -1;
            assert_int_equal(engine_card_parse(want, 2, &back), 0);
            assert_int_equal(back, c);
            names++;
        }
    }
    assert_int_equal(names, 52);
    assert_string_equal(engine_card_name(ENGINE_JOKER), "JK");
    assert_string_equal(engine_card_name(ENGINE_TD), "TD");
    assert_string_equal(engine_card_name(ENGINE_QS), "QS");
    assert_string_equal(engine_card_name(ENGINE_2C), "2C");
}

static void test_card_valid_and_invalid_names(void **state)
{
    (void)state;
    static const struct {
        int card;
        bool valid;
    } rows[] = {
        {0, true},
        {12, true},
        {13, false},
        {15, false},
        {16, true},
        {29, false},
        {32, true},
        {44, true},
        {45, true},
        {46, false},
        {47, false},
        {48, true},
        {60, true},
        {61, false},
        {63, false},
        {64, false},
        {-1, false},
        {255, false},
        {ENGINE_NO_CARD, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (engine_card_valid(rows[i].card) != rows[i].valid)
            fail_msg("card %d valid: want %d", rows[i].card, rows[i].valid);
        if (!rows[i].valid)
            assert_string_equal(engine_card_name(rows[i].card), "??");
    }
}

static void test_cards_count_counts_copies(void **state)
{
    (void)state;
    static const struct {
        const char *cards;
        int count;
    } rows[] = {
        {"", 0},
        {"2C", 1},
        {"2C 3C QS JK", 4},
        {"2C 2C", 2},
        {"2C 2C 3C AS AS", 5},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        struct engine_cards c = sc_multi(rows[i].cards);
        assert_int_equal(engine_cards_count(&c), rows[i].count);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_card_parse_accepts_what_people_type),
        cmocka_unit_test(test_card_parse_refuses_no_card),
        cmocka_unit_test(test_card_parse_reads_only_len_bytes),
        cmocka_unit_test(test_card_name_canonical),
        cmocka_unit_test(test_card_valid_and_invalid_names),
        cmocka_unit_test(test_cards_count_counts_copies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
