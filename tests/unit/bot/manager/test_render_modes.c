/*
 * Tests of bot/manager/render.c's card modes and languages: cards, hands,
 * suits and trick lines in ASCII letters (no byte outside ASCII, no
 * formatting on IRC) and in words for screen readers (no suit symbol), in
 * English and German; the words of trick lines and score sheets from the
 * catalogue; and cuts in these modes that keep whole cards and plays.
 */
#include "bot/manager/render.h"
#include "tests/support/scenario.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* IRC codes as separate literals, so that no hex escape runs on into the
 * text after it. */
#define R "\x03\x30\x34" /* \x03 "04" */
#define X "\x0F"
#define B "\x02"

#define PLAIN CHAT_STYLE_PLAIN
#define IRC CHAT_STYLE_IRC
#define MARKUP CHAT_STYLE_MARKUP

static int lang_code(const char *code)
{
    int l = msg_lang_find(code);
    assert_true(l > 0);
    return l;
}

static struct render_look look(enum chat_style style, const char *lang,
                               enum render_cards cards)
{
    return (struct render_look){style, lang ? lang_code(lang) : MSG_EN, cards};
}

/* Whether text is all ASCII and holds no control byte. */
static bool ascii_only(const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if (*p < 0x20 || *p > 0x7E)
            return false;
    return true;
}

/* Whether text holds one of the suits' symbols. */
static bool has_symbol(const char *text)
{
    static const char *const symbols[] = {"\xe2\x99\xa3", "\xe2\x99\xa6",
                                          "\xe2\x99\xa5", "\xe2\x99\xa0"};
    for (int i = 0; i < 4; i++)
        if (strstr(text, symbols[i]))
            return true;
    return false;
}

static const char *card_text(const char *card, struct render_look l)
{
    static char buf[128];
    uint8_t c[1];
    assert_int_equal(sc_card_list(card, c, 1), 1);
    size_t n = render_card(buf, sizeof buf, c[0], l);
    assert_int_equal(n, strlen(buf));
    return buf;
}

static const char *cards_text(const char *cards, struct render_look l)
{
    static char buf[512];
    uint8_t c[16];
    int n = sc_card_list(cards, c, 16);
    size_t need = render_cards(buf, sizeof buf, c, n, l);
    assert_int_equal(need, strlen(buf));
    return buf;
}

static const char *hand_text(const struct engine_cards *hand, uint64_t mark,
                             struct render_look l)
{
    static char buf[512];
    size_t n = render_hand(buf, sizeof buf, hand, mark, l);
    assert_int_equal(n, strlen(buf));
    return buf;
}

/* ---- ASCII ------------------------------------------------------------ */

static void test_modes_ascii_card(void **state)
{
    (void)state;
    struct render_look a = look(PLAIN, NULL, RENDER_CARDS_ASCII);
    assert_string_equal(card_text("QS", a), "QS");
    assert_string_equal(card_text("TH", a), "10H");
    assert_string_equal(card_text("2C", a), "2C");
    assert_string_equal(card_text("AD", a), "AD");
    assert_string_equal(card_text("JK", a), "Joker");
    /* no colour on IRC or in the markup, and in any language */
    assert_string_equal(card_text("TH", look(IRC, NULL, RENDER_CARDS_ASCII)),
                        "10H");
    assert_string_equal(card_text("TH", look(MARKUP, NULL, RENDER_CARDS_ASCII)),
                        "10H");
    assert_string_equal(card_text("QD", look(IRC, "de", RENDER_CARDS_ASCII)),
                        "QD");
    assert_string_equal(card_text("JK", look(IRC, "es", RENDER_CARDS_ASCII)),
                        "Joker");
    char buf[8];
    render_card(buf, sizeof buf, 63, a);
    assert_string_equal(buf, "??");
}

static void test_modes_ascii_cards_and_suit(void **state)
{
    (void)state;
    struct render_look a = look(IRC, "de", RENDER_CARDS_ASCII);
    assert_string_equal(cards_text("QS TH 3C", a), "QS 10H 3C");
    char buf[16];
    render_suit(buf, sizeof buf, ENGINE_DIAMONDS, a);
    assert_string_equal(buf, "D");
    render_suit(buf, sizeof buf, ENGINE_SPADES, a);
    assert_string_equal(buf, "S");
}

static void test_modes_ascii_hand(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set("2C 5C JC 3D QD 4S AS 7H KH JK"),
                                sc_set("4S")};
    uint64_t mark = sc_set("5C JC");
    const char *want = "C: 2 [5] [J]  D: 3 Q  S: 4 4 A  H: 7 K  Joker";
    assert_string_equal(
        hand_text(&hand, mark, look(PLAIN, NULL, RENDER_CARDS_ASCII)), want);
    /* IRC: no colour, no bold: marks in brackets as in plain text */
    assert_string_equal(
        hand_text(&hand, mark, look(IRC, NULL, RENDER_CARDS_ASCII)), want);
    const char *de =
        hand_text(&hand, mark, look(IRC, "de", RENDER_CARDS_ASCII));
    assert_string_equal(de, want);
    assert_true(ascii_only(de));
    /* the markup keeps its marks (the adapter's), but no red */
    assert_string_equal(
        hand_text(&hand, sc_set("5C"), look(MARKUP, NULL, RENDER_CARDS_ASCII)),
        "C: 2 \x05"
        "5\x05 J  D: 3 Q  S: 4 4 A  H: 7 K  Joker");
}

static const char *const four[] = {"alice", "bob", "carol", "dave"};

static const char *trick_text(int no, const char *cards, int winner, int points,
                              struct render_look l)
{
    static char buf[512];
    static const uint8_t seats[] = {0, 1, 2, 3};
    uint8_t c[4];
    int n = sc_card_list(cards, c, 4);
    size_t need =
        render_trick(buf, sizeof buf, no, c, seats, n, four, winner, points, l);
    assert_int_equal(need, strlen(buf));
    return buf;
}

static void test_modes_ascii_trick(void **state)
{
    (void)state;
    const char *want = "Trick 5: alice 7C, bob KC, carol 2H, dave 9C - bob "
                       "takes it (1 point)";
    assert_string_equal(
        trick_text(5, "7C KC 2H 9C", 1, 1, look(IRC, NULL, RENDER_CARDS_ASCII)),
        want);
    assert_true(ascii_only(want));
    assert_string_equal(
        trick_text(5, "7C KC 2H 9C", 1, 1,
                   look(PLAIN, "de", RENDER_CARDS_ASCII)),
        "Stich 5: alice 7C, bob KC, carol 2H, dave 9C - bob nimmt ihn "
        "(1 Punkt)");
}

/* ---- Words ------------------------------------------------------------ */

static void test_modes_words_card(void **state)
{
    (void)state;
    struct render_look en = look(PLAIN, NULL, RENDER_CARDS_WORDS);
    assert_string_equal(card_text("QS", en), "Q of spades");
    assert_string_equal(card_text("TH", en), "10 of hearts");
    assert_string_equal(card_text("2C", en), "2 of clubs");
    assert_string_equal(card_text("JK", en), "Joker");
    /* red stays red on IRC */
    assert_string_equal(card_text("TH", look(IRC, NULL, RENDER_CARDS_WORDS)),
                        R "10 of hearts" X);
    /* the language's words and letters (the ones a person may type) */
    struct render_look de = look(PLAIN, "de", RENDER_CARDS_WORDS);
    assert_string_equal(card_text("QS", de), "Pik D");
    assert_string_equal(card_text("JC", de), "Kreuz B");
    assert_string_equal(card_text("TH", de), "Herz 10");
    struct render_look fr = look(PLAIN, "fr", RENDER_CARDS_WORDS);
    assert_string_equal(card_text("QS", fr), "D de pique");
    struct render_look es = look(PLAIN, "es", RENDER_CARDS_WORDS);
    assert_string_equal(card_text("KD", es), "K de diamantes");
}

static void test_modes_words_cards_and_suit(void **state)
{
    (void)state;
    assert_string_equal(
        cards_text("QS TH", look(PLAIN, NULL, RENDER_CARDS_WORDS)),
        "Q of spades, 10 of hearts");
    assert_string_equal(
        cards_text("QS TH", look(PLAIN, "de", RENDER_CARDS_WORDS)),
        "Pik D, Herz 10");
    char buf[32];
    render_suit(buf, sizeof buf, ENGINE_CLUBS,
                look(PLAIN, NULL, RENDER_CARDS_WORDS));
    assert_string_equal(buf, "clubs");
    render_suit(buf, sizeof buf, ENGINE_HEARTS,
                look(IRC, "de", RENDER_CARDS_WORDS));
    assert_string_equal(buf, R "Herz" X);
    assert_string_equal(render_suit_word(ENGINE_SPADES, MSG_EN), "spades");
    assert_string_equal(render_suit_word(ENGINE_SPADES, lang_code("fr")),
                        "pique");
    assert_string_equal(render_suit_word(7, MSG_EN), "?");
}

static void test_modes_words_hand(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set("2C 5C JC 3D QD 4S AS 7H KH JK"),
                                sc_set("4S")};
    uint64_t mark = sc_set("5C JC");
    const char *en =
        hand_text(&hand, mark, look(PLAIN, NULL, RENDER_CARDS_WORDS));
    assert_string_equal(en, "clubs: 2 [5] [J]; diamonds: 3 Q; spades: 4 4 A; "
                            "hearts: 7 K; Joker");
    assert_false(has_symbol(en));
    const char *de =
        hand_text(&hand, mark, look(PLAIN, "de", RENDER_CARDS_WORDS));
    assert_string_equal(de, "Kreuz: 2 [5] [B]; Karo: 3 D; Pik: 4 4 A; "
                            "Herz: 7 K; Joker");
    assert_false(has_symbol(de));
    assert_string_equal(
        hand_text(&hand, sc_set("5C"), look(IRC, NULL, RENDER_CARDS_WORDS)),
        "clubs: 2 " B "5" B " J; " R "diamonds: 3 Q" X "; spades: 4 4 A; " R
        "hearts: 7 K" X "; " R "Joker" X);
    /* the example of the brief: "♣ 2 5 J  ♦ 3 Q" */
    struct engine_cards two = {sc_set("2C 5C JC 3D QD"), 0};
    assert_string_equal(
        hand_text(&two, 0, look(PLAIN, NULL, RENDER_CARDS_WORDS)),
        "clubs: 2 5 J; diamonds: 3 Q");
    assert_string_equal(
        hand_text(&two, 0, look(PLAIN, "fr", RENDER_CARDS_WORDS)),
        "tr\xc3\xa8"
        "fle : 2 5 V; carreau : 3 D");
}

static void test_modes_words_trick(void **state)
{
    (void)state;
    const char *en = trick_text(5, "7C KC 2H 9C", 1, 1,
                                look(PLAIN, NULL, RENDER_CARDS_WORDS));
    assert_string_equal(en, "Trick 5: alice 7 of clubs, bob K of clubs, carol "
                            "2 of hearts, dave 9 of clubs - bob takes it "
                            "(1 point)");
    assert_false(has_symbol(en));
    assert_string_equal(
        trick_text(5, "7C KC 2H 9C", 1, 1,
                   look(PLAIN, "de", RENDER_CARDS_WORDS)),
        "Stich 5: alice Kreuz 7, bob Kreuz K, carol Herz 2, dave Kreuz 9 - "
        "bob nimmt ihn (1 Punkt)");
    assert_string_equal(
        trick_text(6, "7C 7C", RENDER_TRICK_ASIDE, 2,
                   look(PLAIN, "de", RENDER_CARDS_WORDS)),
        "Stich 6: alice Kreuz 7, bob Kreuz 7 - liegt f\xc3\xbcr den "
        "n\xc3\xa4"
        "chsten Stichgewinner bereit (2 Punkte)");
}

/* The console's person is named in the game's lines by the catalogue's
 * word for "you" in the line's language, and addressed when they take a
 * trick: "you take it", "du nimmst ihn". */
static void test_modes_console_person_takes_it_in_their_words(void **state)
{
    (void)state;
    static const uint8_t seats[] = {0, 1};
    uint8_t c[2];
    int n = sc_card_list("7C KC", c, 2);
    char buf[256];
    const char *en[] = {"alice", "you"};
    render_trick(buf, sizeof buf, 3, c, seats, n, en, 1, 0,
                 look(PLAIN, NULL, RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, "Trick 3: alice 7\xe2\x99\xa3, you "
                             "K\xe2\x99\xa3 - you take it");
    const char *de[] = {"alice", "du"};
    render_trick(buf, sizeof buf, 3, c, seats, n, de, 1, 1,
                 look(PLAIN, "de", RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, "Stich 3: alice 7\xe2\x99\xa3, du "
                             "K\xe2\x99\xa3 - du nimmst ihn (1 Punkt)");
    /* someone else called "du" where English is spoken is a name */
    render_trick(buf, sizeof buf, 3, c, seats, n, de, 1, 0,
                 look(PLAIN, NULL, RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, "Trick 3: alice 7\xe2\x99\xa3, du "
                             "K\xe2\x99\xa3 - du takes it");
}

/* ---- Words of every mode in a language -------------------------------- */

static void test_modes_trick_words_in_german(void **state)
{
    (void)state;
    struct render_look de = look(IRC, "de", RENDER_CARDS_SYMBOLS);
    assert_string_equal(trick_text(5, "7C KC 2H 9C", 1, 1, de),
                        "Stich 5: alice 7\xe2\x99\xa3, bob K\xe2\x99\xa3, "
                        "carol " R "2\xe2\x99\xa5" X ", dave 9\xe2\x99\xa3 "
                        "- " B "bob" B " nimmt ihn (1 Punkt)");
    assert_string_equal(trick_text(7, "", RENDER_TRICK_OPEN, 0, de),
                        "Stich 7: noch keine Karten");
    assert_string_equal(trick_text(0, "7C", 0, 0, de),
                        "alice 7\xe2\x99\xa3 - " B "alice" B " nimmt ihn");
    assert_string_equal(trick_text(3, "7C KC", 0, -1, de),
                        "Stich 3: alice 7\xe2\x99\xa3, bob K\xe2\x99\xa3 - " B
                        "alice" B " nimmt ihn (-1 Punkt)");
    assert_string_equal(trick_text(3, "7C KC", 0, 13, de),
                        "Stich 3: alice 7\xe2\x99\xa3, bob K\xe2\x99\xa3 - " B
                        "alice" B " nimmt ihn (13 Punkte)");
    /* French: one point, and zero points are singular, more plural */
    struct render_look fr = look(PLAIN, "fr", RENDER_CARDS_SYMBOLS);
    assert_string_equal(trick_text(2, "", RENDER_TRICK_OPEN, 0, fr),
                        "Pli 2 : pas encore de cartes");
    /* a jack, queen, king and ace in the language's letters, in symbols
     * too; in ascii the English codes */
    assert_string_equal(trick_text(4, "QS JH", 1, 13, de),
                        "Stich 4: alice D\xe2\x99\xa0, bob " R "B\xe2\x99\xa5" X
                        " - " B "bob" B " nimmt ihn (13 Punkte)");
    assert_string_equal(trick_text(4, "KH", 0, 0, fr),
                        "Pli 4 : alice R\xe2\x99\xa5 - alice remporte le pli");
    assert_string_equal(
        trick_text(4, "QS", 0, 0, look(PLAIN, "de", RENDER_CARDS_ASCII)),
        "Stich 4: alice QS - alice nimmt ihn");
    char buf[64];
    struct engine_cards jk = {sc_set("JK QH"), 0};
    render_hand(buf, sizeof buf, &jk, 0, look(PLAIN, "es", RENDER_CARDS_WORDS));
    assert_string_equal(buf, "corazones: Q; Comodín");
    render_hand(buf, sizeof buf, &jk, 0,
                look(PLAIN, "fr", RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, "\xe2\x99\xa5 D  Joker");
    render_hand(buf, sizeof buf, &jk, 0, look(PLAIN, "es", RENDER_CARDS_ASCII));
    assert_string_equal(buf, "H: Q  Joker");
}

static const int32_t h1[] = {3, 13, 0}, h2[] = {0, 5, 21};
static const int32_t *const two_hands[] = {h1, h2};
static const int32_t totals[] = {3, 18, 21};
static const char *const three[] = {"alice", "bob", "carol"};

static void test_modes_scores_in_german(void **state)
{
    (void)state;
    char buf[512];
    render_scores(buf, sizeof buf, three, 3, two_hands, 2, totals, 0,
                  look(PLAIN, "de", RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, " Runde  alice  bob  carol\n"
                             "     1      3   13      0\n"
                             "     2      0    5     21\n"
                             "Gesamt      3   18     21");
    render_scores(buf, sizeof buf, three, 3, two_hands, 2, totals, 1,
                  look(PLAIN, "es", RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, " mano  alice  bob  carol\n"
                             "  ...    ...  ...    ...\n"
                             "    2      0    5     21\n"
                             "total      3   18     21");
}

/* A mark in another language: accents are printable, the width counts
 * code points; controls and direction changes are still refused. */
static void test_modes_scores_utf8_mark(void **state)
{
    (void)state;
    char buf[512];
    const char *marks[] = {NULL,
                           "(abandonn\xc3\xa9"
                           ")",
                           NULL};
    render_scores_marked(buf, sizeof buf, three, marks, 3, two_hands, 2, totals,
                         0, look(PLAIN, "fr", RENDER_CARDS_SYMBOLS));
    assert_string_equal(buf, "manche  alice  bob (abandonn\xc3\xa9"
                             ")  carol\n"
                             "     1      3               13      0\n"
                             "     2      0                5     21\n"
                             " total      3               18     21");
    static const char *const bad[] = {
        "(\x03"
        "04x)",
        "(a\xe2\x80\xae"
        "b)",          /* U+202E: reverses what follows */
        "(\xc3)",      /* not UTF-8 */
        "(a\xc2\x85)", /* C1 control */
        "(le\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9)", /* 16 bytes: too
                                                                   long */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        marks[1] = bad[i];
        render_scores_marked(buf, sizeof buf, three, marks, 3, two_hands, 2,
                             totals, 0,
                             look(PLAIN, NULL, RENDER_CARDS_SYMBOLS));
        assert_non_null(strstr(buf, "alice  bob  carol"));
    }
}

/* ---- Cuts ------------------------------------------------------------- */

/* Every cut of a text is a prefix of it ending where `ends` allows. */
static void check_cuts(size_t (*fn)(char *, size_t, const void *),
                       const void *ctx,
                       bool (*ends)(const char *, const char *))
{
    char full[1024];
    size_t need = fn(full, sizeof full, ctx);
    assert_true(need < sizeof full);
    for (size_t len = 0; len <= need + 1; len++) {
        char *buf = malloc(len ? len : 1);
        size_t got = fn(len ? buf : NULL, len, ctx);
        assert_int_equal(got, need);
        if (len > 0) {
            size_t n = strlen(buf);
            assert_true(n < len);
            assert_memory_equal(buf, full, n);
            if (n < need && !ends(buf, full))
                fail_msg("cut at %zu: '%s'", len, buf);
        }
        free(buf);
    }
}

/* A cut hand in words ends after a rank or a mark, never after a suit's
 * name or a group's gap. */
static bool hand_end(const char *text, const char *full)
{
    (void)full;
    size_t n = strlen(text);
    if (n == 0)
        return true;
    char last = text[n - 1];
    return last != ' ' && last != ':' && last != ';';
}

struct hand_ctx {
    struct engine_cards hand;
    struct render_look look;
};

static size_t hand_fn(char *buf, size_t len, const void *ctx)
{
    const struct hand_ctx *c = ctx;
    return render_hand(buf, len, &c->hand, sc_set("5C"), c->look);
}

/* A cut trick ends after its heading ("...: ") or a whole play: where
 * the whole line goes on with the next play or the outcome. */
static bool trick_end(const char *text, const char *full)
{
    size_t n = strlen(text);
    return n == 0 || (n >= 2 && strcmp(text + n - 2, ": ") == 0) ||
           full[n] == ',' || strncmp(full + n, " - ", 3) == 0;
}

struct trick_ctx {
    struct render_look look;
};

static size_t trick_fn(char *buf, size_t len, const void *ctx)
{
    const struct trick_ctx *c = ctx;
    static const uint8_t seats[] = {0, 1, 2, 3};
    uint8_t cards[4];
    sc_card_list("7C KC 2H 9C", cards, 4);
    return render_trick(buf, len, 5, cards, seats, 4, four, 1, 1, c->look);
}

static void test_modes_cuts_keep_cards_and_plays(void **state)
{
    (void)state;
    static const char *const langs[] = {NULL, "de", "fr"};
    for (int l = 0; l < 3; l++) {
        for (int mode = RENDER_CARDS_ASCII; mode <= RENDER_CARDS_WORDS;
             mode++) {
            struct hand_ctx h = {
                {sc_set("2C 5C JC 3D QD 4S AS 7H KH"), sc_set("4S")},
                look(PLAIN, langs[l], (enum render_cards)mode)};
            check_cuts(hand_fn, &h, hand_end);
            struct trick_ctx t = {
                look(PLAIN, langs[l], (enum render_cards)mode)};
            check_cuts(trick_fn, &t, trick_end);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes_ascii_card),
        cmocka_unit_test(test_modes_ascii_cards_and_suit),
        cmocka_unit_test(test_modes_ascii_hand),
        cmocka_unit_test(test_modes_ascii_trick),
        cmocka_unit_test(test_modes_words_card),
        cmocka_unit_test(test_modes_words_cards_and_suit),
        cmocka_unit_test(test_modes_words_hand),
        cmocka_unit_test(test_modes_words_trick),
        cmocka_unit_test(test_modes_console_person_takes_it_in_their_words),
        cmocka_unit_test(test_modes_trick_words_in_german),
        cmocka_unit_test(test_modes_scores_in_german),
        cmocka_unit_test(test_modes_scores_utf8_mark),
        cmocka_unit_test(test_modes_cuts_keep_cards_and_plays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
