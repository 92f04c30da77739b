/*
 * Tests of bot/manager/render.c: the exact text of cards, hands, tricks, score
 * sheets and names in both styles, and that a cut at any buffer length
 * stays whole: NUL-terminated, valid UTF-8, no cut colour code, no colour
 * run left open, a prefix of the whole text, and the whole length
 * returned. Cuts are written into heap buffers of exactly that length, so
 * the sanitizers and valgrind see any byte written past them.
 */
#include "bot/common/msg.h"
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

/* ---- Checking cuts ---------------------------------------------------- */

typedef size_t (*render_fn)(char *buf, size_t len, const void *ctx);

/* Strict UTF-8: no stray continuation, no sequence cut short. */
static bool valid_utf8(const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        int follow;
        if (*s < 0x80)
            follow = 0;
        else if (*s >= 0xC2 && *s <= 0xDF)
            follow = 1;
        else if (*s >= 0xE0 && *s <= 0xEF)
            follow = 2;
        else if (*s >= 0xF0 && *s <= 0xF4)
            follow = 3;
        else
            return false;
        s++;
        for (int i = 0; i < follow; i++, s++) {
            if ((*s & 0xC0) != 0x80)
                return false;
        }
    }
    return true;
}

/* Every colour code whole ("\x03" and two digits), runs closed, bold in
 * pairs. */
static void assert_codes_whole(const char *text)
{
    bool open = false;
    int bold = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '\x03') {
            if (p[1] < '0' || p[1] > '9' || p[2] < '0' || p[2] > '9')
                fail_msg("cut colour code in '%s'", text);
            if (open)
                fail_msg("colour opened twice in '%s'", text);
            open = true;
            p += 2;
        } else if (*p == '\x0F') {
            if (!open)
                fail_msg("reset without colour in '%s'", text);
            open = false;
        } else if (*p == '\x02') {
            bold++;
        }
    }
    if (open)
        fail_msg("colour left open in '%s'", text);
    if (bold % 2)
        fail_msg("bold left on in '%s'", text);
}

/*
 * Renders at every length from 0 to past the whole text: the return is
 * always the whole length, the text is NUL-terminated inside the buffer,
 * whole, and the whole text's prefix (plus the reset closing a run the cut
 * left open). Returns the whole text in `full`.
 */
static void check_cuts(render_fn fn, const void *ctx, char *full,
                       size_t fullsize)
{
    size_t n = fn(full, fullsize, ctx);
    assert_true(n < fullsize);
    assert_int_equal(strlen(full), n);
    assert_int_equal(fn(NULL, 0, ctx), n);
    assert_true(valid_utf8(full));
    assert_codes_whole(full);
    for (size_t len = 1; len <= n + 2; len++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        memset(buf, 'Z', len);
        assert_int_equal(fn(buf, len, ctx), n);
        size_t got = strnlen(buf, len);
        if (got == len)
            fail_msg("no NUL at length %zu", len);
        if (!valid_utf8(buf))
            fail_msg("broken UTF-8 at length %zu: '%s'", len, buf);
        assert_codes_whole(buf);
        bool prefix = strncmp(buf, full, got) == 0;
        if (!prefix && got > 0 && buf[got - 1] == '\x0F')
            prefix = strncmp(buf, full, got - 1) == 0;
        if (!prefix)
            fail_msg("at length %zu '%s' is not a prefix of '%s'", len, buf,
                     full);
        if (len > n && strcmp(buf, full) != 0)
            fail_msg("room for all at length %zu, got '%s'", len, buf);
        free(buf);
    }
}

/* Code points, not bytes, leaving out formatting codes. */
static int width_of(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c & 0xC0) != 0x80 && c >= 0x20)
            w++;
    }
    return w;
}

/* ---- Cards ------------------------------------------------------------ */

static const char *card_text(int card, enum chat_style style)
{
    static char buf[64];
    size_t n = render_card(buf, sizeof buf, card, render_look_style(style));
    assert_int_equal(n, strlen(buf));
    return buf;
}

static void test_render_card_plain(void **state)
{
    (void)state;
    assert_string_equal(card_text(ENGINE_2C, PLAIN), "2♣");
    assert_string_equal(card_text(ENGINE_TD, PLAIN), "10♦");
    assert_string_equal(card_text(ENGINE_QS, PLAIN), "Q♠");
    assert_string_equal(card_text(ENGINE_CARD(ENGINE_HEARTS, 12), PLAIN), "A♥");
    assert_string_equal(card_text(ENGINE_JD, PLAIN), "J♦");
    assert_string_equal(card_text(ENGINE_JOKER, PLAIN), "Joker");
}

static void test_render_card_irc_colours_red_suits(void **state)
{
    (void)state;
    assert_string_equal(card_text(ENGINE_2C, IRC), "2♣");
    assert_string_equal(card_text(ENGINE_QS, IRC), "Q♠");
    /* two digits of colour, so the rank's digits stay text */
    assert_string_equal(card_text(ENGINE_TD, IRC), R "10♦" X);
    assert_string_equal(card_text(ENGINE_2H, IRC), R "2♥" X);
    assert_string_equal(card_text(ENGINE_JOKER, IRC), R "Joker" X);
}

static void test_render_card_no_card(void **state)
{
    (void)state;
    assert_string_equal(card_text(-1, PLAIN), "??");
    assert_string_equal(card_text(13, IRC), "??"); /* rank 13 of clubs */
    assert_string_equal(card_text(64, IRC), "??");
}

static void test_render_card_parses_back(void **state)
{
    (void)state;
    for (int card = 0; card < 64; card++) {
        if (!engine_card_valid(card))
            continue;
        const char *text = card_text(card, PLAIN);
        int back = -1;
        if (engine_card_parse(text, strlen(text), &back) || back != card)
            fail_msg("'%s' does not read back as %s", text,
                     engine_card_name(card));
    }
}

static size_t card_fn(char *buf, size_t len, const void *ctx)
{
    return render_card(buf, len, *(const int *)ctx, render_look_style(IRC));
}

static void test_render_card_cut_every_length(void **state)
{
    (void)state;
    char full[64];
    static const int cards[] = {ENGINE_TD, ENGINE_QS, ENGINE_JOKER};
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++)
        check_cuts(card_fn, &cards[i], full, sizeof full);
    /* a card is all or nothing: 9 bytes need 10 */
    char buf[16];
    assert_int_equal(render_card(buf, 9, ENGINE_TD, render_look_style(IRC)), 9);
    assert_string_equal(buf, "");
    assert_int_equal(render_card(buf, 10, ENGINE_TD, render_look_style(IRC)),
                     9);
    assert_string_equal(buf, R "10♦" X);
}

static void test_render_suit_symbols(void **state)
{
    (void)state;
    char buf[32];
    render_suit(buf, sizeof buf, ENGINE_CLUBS, render_look_style(IRC));
    assert_string_equal(buf, "♣");
    render_suit(buf, sizeof buf, ENGINE_DIAMONDS, render_look_style(IRC));
    assert_string_equal(buf, R "♦" X);
    render_suit(buf, sizeof buf, ENGINE_DIAMONDS, render_look_style(PLAIN));
    assert_string_equal(buf, "♦");
    assert_int_equal(
        render_suit(buf, sizeof buf, ENGINE_HEARTS, render_look_style(PLAIN)),
        3);
    assert_string_equal(buf, "♥");
    render_suit(buf, sizeof buf, ENGINE_SPADES, render_look_style(IRC));
    assert_string_equal(buf, "♠");
    render_suit(buf, sizeof buf, 4, render_look_style(IRC));
    assert_string_equal(buf, "?");
    /* the symbol and its colour are one piece */
    assert_int_equal(render_suit(buf, 7, ENGINE_HEARTS, render_look_style(IRC)),
                     7);
    assert_string_equal(buf, "");
}

/* The suits' names for sentences, in English as they always were. */
static void test_render_suit_name_words(void **state)
{
    (void)state;
    assert_string_equal(render_suit_word(ENGINE_CLUBS, MSG_EN), "clubs");
    assert_string_equal(render_suit_word(ENGINE_DIAMONDS, MSG_EN), "diamonds");
    assert_string_equal(render_suit_word(ENGINE_HEARTS, MSG_EN), "hearts");
    assert_string_equal(render_suit_word(ENGINE_SPADES, MSG_EN), "spades");
    assert_string_equal(render_suit_word(-1, MSG_EN), "?");
    assert_string_equal(render_suit_word(4, MSG_EN), "?");
}

/* ---- Card lists ------------------------------------------------------- */

static const char *cards_text(const char *list, enum chat_style style)
{
    static char buf[256];
    uint8_t cards[32];
    int n = sc_card_list(list, cards, 32);
    size_t len =
        render_cards(buf, sizeof buf, cards, n, render_look_style(style));
    assert_int_equal(len, strlen(buf));
    return buf;
}

static void test_render_cards_in_given_order(void **state)
{
    (void)state;
    assert_string_equal(cards_text("QS AH 3C", PLAIN), "Q♠ A♥ 3♣");
    assert_string_equal(cards_text("QS AH 3C", IRC), "Q♠ " R "A♥" X " 3♣");
    assert_string_equal(cards_text("TD JK", IRC), R "10♦" X " " R "Joker" X);
    assert_string_equal(cards_text("", PLAIN), "");
}

struct list_ctx {
    const uint8_t *cards;
    int n;
    enum chat_style style;
};

static size_t cards_fn(char *buf, size_t len, const void *ctx)
{
    const struct list_ctx *c = ctx;
    return render_cards(buf, len, c->cards, c->n, render_look_style(c->style));
}

static void test_render_cards_cut_every_length(void **state)
{
    (void)state;
    uint8_t cards[8];
    int n = sc_card_list("QS AH 3C TD 10H 2S", cards, 8);
    char full[256];
    struct list_ctx irc = {cards, n, IRC};
    check_cuts(cards_fn, &irc, full, sizeof full);
    struct list_ctx plain = {cards, n, PLAIN};
    check_cuts(cards_fn, &plain, full, sizeof full);
    /* whole cards only: "Q♠ A♥" is 9 bytes, " 3♣" 5 more */
    char buf[16];
    render_cards(buf, 14, cards, n, render_look_style(PLAIN));
    assert_string_equal(buf, "Q♠ A♥");
    render_cards(buf, 15, cards, n, render_look_style(PLAIN));
    assert_string_equal(buf, "Q♠ A♥ 3♣");
}

static void test_render_sort_orders_like_a_hand(void **state)
{
    (void)state;
    uint8_t cards[16];
    int n = sc_card_list("KH 2C QS JK 3D AS 2H TC 9D", cards, 16);
    cards[n++] = 13; /* no card: last */
    render_sort(cards, n - 1);
    char buf[128];
    render_cards(buf, sizeof buf, cards, n - 1, render_look_style(PLAIN));
    assert_string_equal(buf, "2♣ 10♣ 3♦ 9♦ Q♠ A♠ 2♥ K♥ Joker");

    n = sc_card_list("KH 2C QS", cards, 16);
    cards[n++] = 13;
    cards[n++] = ENGINE_CARD(ENGINE_DIAMONDS, 0);
    render_sort(cards, n);
    render_cards(buf, sizeof buf, cards, n, render_look_style(PLAIN));
    assert_string_equal(buf, "2♣ 2♦ Q♠ K♥ ??");
}

/* ---- Hands ------------------------------------------------------------ */

static const char *hand_text(const struct engine_cards *hand, uint64_t mark,
                             enum chat_style style)
{
    static char buf[512];
    size_t n =
        render_hand(buf, sizeof buf, hand, mark, render_look_style(style));
    assert_int_equal(n, strlen(buf));
    return buf;
}

static const char *const a_hand = "2C 5C 9C JC 3D QD 4S QS AS 7H KH";

static void test_render_hand_plain_groups_by_suit(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set(a_hand), 0};
    assert_string_equal(hand_text(&hand, 0, PLAIN),
                        "♣ 2 5 9 J  ♦ 3 Q  ♠ 4 Q A  ♥ 7 K");
}

static void test_render_hand_irc_colours_red_groups(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set(a_hand), 0};
    assert_string_equal(hand_text(&hand, 0, IRC),
                        "♣ 2 5 9 J  " R "♦ 3 Q" X "  ♠ 4 Q A  " R "♥ 7 K" X);
}

static void test_render_hand_sorts_shuffled(void **state)
{
    (void)state;
    /* dealt in any order; shown clubs, diamonds, spades, hearts */
    uint8_t cards[16];
    int n = sc_card_list("KH 4S 9C QD 7H 2C AS JC 3D QS 5C", cards, 16);
    struct engine_cards hand = {0, 0};
    for (int i = 0; i < n; i++)
        hand.one |= ENGINE_BIT(cards[i]);
    assert_string_equal(hand_text(&hand, 0, PLAIN),
                        "♣ 2 5 9 J  ♦ 3 Q  ♠ 4 Q A  ♥ 7 K");
    struct engine_cards reds = {sc_set("AH 2D TH"), 0};
    assert_string_equal(hand_text(&reds, 0, PLAIN), "♦ 2  ♥ 10 A");
}

static void test_render_hand_marks_legal_plain(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set(a_hand), 0};
    assert_string_equal(hand_text(&hand, sc_set("5C JC"), PLAIN),
                        "♣ 2 [5] 9 [J]  ♦ 3 Q  ♠ 4 Q A  ♥ 7 K");
    assert_string_equal(hand_text(&hand, sc_set("2C QS KH"), PLAIN),
                        "♣ [2] 5 9 J  ♦ 3 Q  ♠ 4 [Q] A  ♥ 7 [K]");
    /* marks of cards not held show nothing */
    assert_string_equal(hand_text(&hand, sc_set("AC"), PLAIN),
                        "♣ 2 5 9 J  ♦ 3 Q  ♠ 4 Q A  ♥ 7 K");
}

static void test_render_hand_marks_legal_irc(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set(a_hand), 0};
    assert_string_equal(hand_text(&hand, sc_set("5C JC"), IRC),
                        "♣ 2 " B "5" B " 9 " B "J" B "  " R "♦ 3 Q" X
                        "  ♠ 4 Q A  " R "♥ 7 K" X);
    assert_string_equal(hand_text(&hand, sc_set("3D KH"), IRC),
                        "♣ 2 5 9 J  " R "♦ " B "3" B " Q" X "  ♠ 4 Q A  " R
                        "♥ 7 " B "K" B X);
}

static void test_render_hand_two_copies(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set("2C QS TH 3H"), sc_set("QS TH")};
    assert_string_equal(hand_text(&hand, 0, PLAIN), "♣ 2  ♠ Q Q  ♥ 3 10 10");
    assert_string_equal(hand_text(&hand, sc_set("QS"), PLAIN),
                        "♣ 2  ♠ [Q] [Q]  ♥ 3 10 10");
    assert_string_equal(hand_text(&hand, 0, IRC),
                        "♣ 2  ♠ Q Q  " R "♥ 3 10 10" X);
}

static void test_render_hand_joker_last(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set("7H JK 3C KH"), 0};
    assert_string_equal(hand_text(&hand, 0, PLAIN), "♣ 3  ♥ 7 K  Joker");
    assert_string_equal(hand_text(&hand, 0, IRC),
                        "♣ 3  " R "♥ 7 K" X "  " R "Joker" X);
    struct engine_cards alone = {sc_set("JK"), 0};
    assert_string_equal(hand_text(&alone, sc_set("JK"), PLAIN), "[Joker]");
    assert_string_equal(hand_text(&alone, sc_set("JK"), IRC), R B "Joker" B X);
}

/* The example of render.h, so the header stays true. */
static void test_render_hand_header_example(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set("2C 5C JC 3D QD 4S AS 7H KH JK"),
                                sc_set("4S")};
    uint64_t mark = sc_set("5C JC");
    assert_string_equal(hand_text(&hand, mark, PLAIN),
                        "♣ 2 [5] [J]  ♦ 3 Q  ♠ 4 4 A  ♥ 7 K  Joker");
    assert_string_equal(hand_text(&hand, mark, IRC),
                        "♣ 2 " B "5" B " " B "J" B "  " R "♦ 3 Q" X
                        "  ♠ 4 4 A  " R "♥ 7 K" X "  " R "Joker" X);
}

static void test_render_hand_empty(void **state)
{
    (void)state;
    struct engine_cards hand = {0, 0};
    char buf[8] = "junk";
    assert_int_equal(
        render_hand(buf, sizeof buf, &hand, 0, render_look_style(IRC)), 0);
    assert_string_equal(buf, "");
}

struct hand_ctx {
    struct engine_cards hand;
    uint64_t mark;
    enum chat_style style;
};

static size_t hand_fn(char *buf, size_t len, const void *ctx)
{
    const struct hand_ctx *c = ctx;
    return render_hand(buf, len, &c->hand, c->mark,
                       render_look_style(c->style));
}

static void test_render_hand_cut_every_length(void **state)
{
    (void)state;
    char full[512];
    struct hand_ctx cases[] = {
        {{sc_set(a_hand), 0}, 0, IRC},
        {{sc_set(a_hand), 0}, sc_set("3D QD KH 2C"), IRC},
        {{sc_set(a_hand), 0}, sc_set("3D QD KH 2C"), PLAIN},
        {{sc_set("2C QS TH 3H JK"), sc_set("QS TH")}, sc_set("TH JK"), IRC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_cuts(hand_fn, &cases[i], full, sizeof full);
}

static void test_render_hand_cut_keeps_symbol_with_a_card(void **state)
{
    (void)state;
    char buf[32];
    /* "♣ 2" 5 bytes, " 5" 2, "  ♦ 3" 7 */
    struct engine_cards hand = {sc_set("2C 5C 3D"), 0};
    assert_int_equal(render_hand(buf, 13, &hand, 0, render_look_style(PLAIN)),
                     14);
    assert_string_equal(buf, "♣ 2 5");
    render_hand(buf, 15, &hand, 0, render_look_style(PLAIN));
    assert_string_equal(buf, "♣ 2 5  ♦ 3");
    render_hand(buf, 7, &hand, 0, render_look_style(PLAIN));
    assert_string_equal(buf, "♣ 2");
    render_hand(buf, 5, &hand, 0, render_look_style(PLAIN));
    assert_string_equal(buf, "");
    /* a red run cut short is closed: R "♦ 3" needs 8 bytes, its reset 1 */
    struct engine_cards reds = {sc_set("3D QD"), 0};
    assert_int_equal(render_hand(buf, 11, &reds, 0, render_look_style(IRC)),
                     11);
    assert_string_equal(buf, R "♦ 3" X);
    render_hand(buf, 10, &reds, 0, render_look_style(IRC));
    assert_string_equal(buf, R "♦ 3" X);
    render_hand(buf, 9, &reds, 0, render_look_style(IRC));
    assert_string_equal(buf, "");
    render_hand(buf, 12, &reds, 0, render_look_style(IRC));
    assert_string_equal(buf, R "♦ 3 Q" X);
}

/* ---- Tricks ----------------------------------------------------------- */

static const char *const four[] = {"alice", "bob", "carol", "dave"};

static const char *trick_text(int no, const char *list, const uint8_t *seats,
                              int winner, int points, enum chat_style style)
{
    static char buf[512];
    uint8_t cards[16];
    int n = sc_card_list(list, cards, 16);
    size_t len = render_trick(buf, sizeof buf, no, cards, seats, n, four,
                              winner, points, render_look_style(style));
    assert_int_equal(len, strlen(buf));
    return buf;
}

static const uint8_t in_order[] = {0, 1, 2, 3};

static void test_render_trick_taken_plain(void **state)
{
    (void)state;
    assert_string_equal(
        trick_text(5, "7C KC 2H 9C", in_order, 1, 1, PLAIN),
        "Trick 5: alice 7♣, bob K♣, carol 2♥, dave 9♣ - bob takes it "
        "(1 point)");
    static const uint8_t from_carol[] = {2, 3, 0, 1};
    assert_string_equal(
        trick_text(12, "AS QS 3S KH", from_carol, 2, 14, PLAIN),
        "Trick 12: carol A♠, dave Q♠, alice 3♠, bob K♥ - carol takes it "
        "(14 points)");
}

static void test_render_trick_taken_irc(void **state)
{
    (void)state;
    assert_string_equal(trick_text(5, "7C KC 2H 9C", in_order, 1, 1, IRC),
                        "Trick 5: alice 7♣, bob K♣, carol " R "2♥" X
                        ", dave 9♣ - " B "bob" B " takes it (1 point)");
}

static void test_render_trick_points_wording(void **state)
{
    (void)state;
    assert_string_equal(trick_text(1, "2C 5C 9C JC", in_order, 3, 0, PLAIN),
                        "Trick 1: alice 2♣, bob 5♣, carol 9♣, dave J♣ - "
                        "dave takes it");
    assert_string_equal(trick_text(2, "2D JD 9D 3D", in_order, 1, -10, PLAIN),
                        "Trick 2: alice 2♦, bob J♦, carol 9♦, dave 3♦ - "
                        "bob takes it (-10 points)");
    assert_string_equal(trick_text(2, "2D JD 9D 3D", in_order, 1, -1, PLAIN),
                        "Trick 2: alice 2♦, bob J♦, carol 9♦, dave 3♦ - "
                        "bob takes it (-1 point)");
}

static void test_render_trick_set_aside(void **state)
{
    (void)state;
    assert_string_equal(
        trick_text(6, "7H 7H", in_order, RENDER_TRICK_ASIDE, 2, PLAIN),
        "Trick 6: alice 7♥, bob 7♥ - set aside for the next winner "
        "(2 points)");
    assert_string_equal(
        trick_text(6, "7C 7C", in_order, RENDER_TRICK_ASIDE, 0, IRC),
        "Trick 6: alice 7♣, bob 7♣ - set aside for the next winner");
}

static void test_render_trick_open(void **state)
{
    (void)state;
    assert_string_equal(
        trick_text(7, "7C KC", in_order, RENDER_TRICK_OPEN, 0, PLAIN),
        "Trick 7: alice 7♣, bob K♣");
    assert_string_equal(
        trick_text(7, "", in_order, RENDER_TRICK_OPEN, 0, PLAIN),
        "Trick 7: no cards yet");
    assert_string_equal(
        trick_text(0, "7C", in_order, RENDER_TRICK_OPEN, 0, PLAIN), "alice 7♣");
}

static void test_render_trick_cleans_names(void **state)
{
    (void)state;
    static const char *const names[] = {B "al"
                                          "\x03"
                                          "04,01ice" X,
                                        "bob\r\nPRIVMSG #hearts :hi"};
    static const uint8_t cards[] = {ENGINE_2C, ENGINE_QC};
    static const uint8_t seats[] = {0, 1};
    char buf[256];
    render_trick(buf, sizeof buf, 1, cards, seats, 2, names, 1, 0,
                 render_look_style(PLAIN));
    assert_string_equal(
        buf, "Trick 1: alice 2♣, bobPRIVMSG #hearts :hi Q♣ - bobPRIVMSG "
             "#hearts :hi takes it");
}

struct trick_ctx {
    uint8_t cards[4];
    int n;
    int winner;
    int points;
    enum chat_style style;
};

static size_t trick_fn(char *buf, size_t len, const void *ctx)
{
    const struct trick_ctx *c = ctx;
    return render_trick(buf, len, 9, c->cards, in_order, c->n, four, c->winner,
                        c->points, render_look_style(c->style));
}

static void test_render_trick_cut_every_length(void **state)
{
    (void)state;
    char full[512];
    struct trick_ctx cases[] = {
        {{ENGINE_2H, ENGINE_QS, ENGINE_TD, ENGINE_JOKER}, 4, 2, 18, IRC},
        {{ENGINE_2H, ENGINE_QS, ENGINE_TD, ENGINE_JOKER}, 4, 2, 18, PLAIN},
        {{ENGINE_2H, ENGINE_2H}, 2, RENDER_TRICK_ASIDE, 2, IRC},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_cuts(trick_fn, &cases[i], full, sizeof full);
    /* whole plays only: "Trick 9: alice 2♣" 19 bytes, ", bob Q♣" 10 */
    static const uint8_t cards[] = {ENGINE_2C, ENGINE_QC};
    char buf[64];
    render_trick(buf, 29, 9, cards, in_order, 2, four, 0, 0,
                 render_look_style(PLAIN));
    assert_string_equal(buf, "Trick 9: alice 2♣");
    render_trick(buf, 30, 9, cards, in_order, 2, four, 0, 0,
                 render_look_style(PLAIN));
    assert_string_equal(buf, "Trick 9: alice 2♣, bob Q♣");
}

/* ---- Score sheets ----------------------------------------------------- */

static const char *const three[] = {"alice", "bob", "carol"};
static const int32_t h1[] = {3, 13, 0};
static const int32_t h2[] = {0, 5, 21};
static const int32_t *const two_hands[] = {h1, h2};
static const int32_t three_totals[] = {3, 18, 21};

static void test_render_scores_plain(void **state)
{
    (void)state;
    char buf[512];
    size_t n =
        render_scores(buf, sizeof buf, three, 3, two_hands, 2, three_totals,
                      RENDER_SCORES_LAST, render_look_style(PLAIN));
    assert_string_equal(buf, " hand  alice  bob  carol\n"
                             "    1      3   13      0\n"
                             "    2      0    5     21\n"
                             "total      3   18     21");
    assert_int_equal(n, strlen(buf));
}

static void test_render_scores_marked_heading(void **state)
{
    (void)state;
    char buf[512];
    /* the mark after the cut name, the column as wide as both */
    static const char *const long_names[] = {"alice", "bobbington", "carol"};
    const char *marks[] = {NULL, "(left)", ""};
    render_scores_marked(buf, sizeof buf, long_names, marks, 3, two_hands, 2,
                         three_totals, 0, render_look_style(PLAIN));
    assert_string_equal(buf, " hand  alice  bobbingt (left)  carol\n"
                             "    1      3               13      0\n"
                             "    2      0                5     21\n"
                             "total      3               18     21");
    /* a mark that is not printable ASCII, or too long, is left out */
    marks[1] = "(\x03"
               "04x)";
    render_scores_marked(buf, sizeof buf, long_names, marks, 3, two_hands, 2,
                         three_totals, 0, render_look_style(PLAIN));
    assert_non_null(strstr(buf, "bobbingt  carol"));
    marks[1] = "(a mark far too long)";
    render_scores_marked(buf, sizeof buf, long_names, marks, 3, two_hands, 2,
                         three_totals, 0, render_look_style(PLAIN));
    assert_non_null(strstr(buf, "bobbingt  carol"));
}

static void test_render_scores_irc_bold_heading(void **state)
{
    (void)state;
    char buf[512];
    render_scores(buf, sizeof buf, three, 3, two_hands, 2, three_totals, 0,
                  render_look_style(IRC));
    assert_string_equal(buf, B " hand  alice  bob  carol" B "\n"
                               "    1      3   13      0\n"
                               "    2      0    5     21\n"
                               "total      3   18     21");
}

static void test_render_scores_no_totals_no_hands(void **state)
{
    (void)state;
    char buf[512];
    render_scores(buf, sizeof buf, three, 3, two_hands, 2, NULL, 0,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  alice  bob  carol\n"
                             "    1      3   13      0\n"
                             "    2      0    5     21");
    static const int32_t zero[] = {0, 0, 0};
    render_scores(buf, sizeof buf, three, 3, NULL, 0, zero, 0,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  alice  bob  carol\n"
                             "total      0    0      0");
}

static void test_render_scores_elides_old_hands(void **state)
{
    (void)state;
    static const char *const names[] = {"ann", "bo"};
    int32_t rows[8][2];
    const int32_t *hands[8];
    for (int k = 0; k < 8; k++) {
        rows[k][0] = k;
        rows[k][1] = 10 * k;
        hands[k] = rows[k];
    }
    static const int32_t totals[] = {28, 280};
    char buf[512];
    render_scores(buf, sizeof buf, names, 2, hands, 8, totals, 5,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  ann   bo\n"
                             "  ...  ...  ...\n"
                             "    4    3   30\n"
                             "    5    4   40\n"
                             "    6    5   50\n"
                             "    7    6   60\n"
                             "    8    7   70\n"
                             "total   28  280");
    /* all of them when asked, or when there are no more than `last` */
    render_scores(buf, sizeof buf, names, 2, hands, 3, totals, 0,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  ann   bo\n"
                             "    1    0    0\n"
                             "    2    1   10\n"
                             "    3    2   20\n"
                             "total   28  280");
    render_scores(buf, sizeof buf, names, 2, hands, 3, totals, 3,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  ann   bo\n"
                             "    1    0    0\n"
                             "    2    1   10\n"
                             "    3    2   20\n"
                             "total   28  280");
}

/* The example of render.h, so the header stays true. */
static void test_render_scores_header_example(void **state)
{
    (void)state;
    int32_t rows[8][3] = {{0}};
    const int32_t *hands[8];
    for (int k = 0; k < 8; k++)
        hands[k] = rows[k];
    rows[6][1] = 13;
    rows[6][2] = 4;
    rows[7][0] = 26;
    static const int32_t totals[] = {41, 55, 30};
    char buf[512];
    render_scores(buf, sizeof buf, three, 3, hands, 8, totals, 2,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  alice  bob  carol\n"
                             "  ...    ...  ...    ...\n"
                             "    7      0   13      4\n"
                             "    8     26    0      0\n"
                             "total     41   55     30");
}

/* Every line as wide as the first, in code points, and n + 1 columns. */
static void assert_aligned(const char *text, int lines)
{
    int width = -1;
    int count = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        int w = width_of(p, n);
        if (width < 0)
            width = w;
        if (w != width)
            fail_msg("line %d is %d wide, not %d:\n%s", count + 1, w, width,
                     text);
        count++;
        if (!end)
            break;
        p = end + 1;
    }
    assert_int_equal(count, lines);
}

static void test_render_scores_columns_align(void **state)
{
    (void)state;
    static const char *const names[] = {"Ünïcödé_name",
                                        "日本",
                                        "x",
                                        B "bo" B "ld",
                                        "a long name with spaces",
                                        R "red",
                                        "p7",
                                        "p8",
                                        "p9",
                                        "p10",
                                        "p11 is one too many"};
    int32_t rows[12][ENGINE_MAX_PLAYERS];
    const int32_t *hands[12];
    int32_t totals[ENGINE_MAX_PLAYERS];
    for (int k = 0; k < 12; k++) {
        for (int s = 0; s < ENGINE_MAX_PLAYERS; s++)
            rows[k][s] = (k * 7 + s * 13) % 40 - 13;
        hands[k] = rows[k];
    }
    for (int s = 0; s < ENGINE_MAX_PLAYERS; s++)
        totals[s] = s * 37 - 120;
    char buf[2048];
    render_scores(buf, sizeof buf, names, 11, hands, 12, totals, 5,
                  render_look_style(PLAIN));
    assert_aligned(buf, 8);
    /* the heading: names cleaned, cut to 8 code points */
    const char *nl = strchr(buf, '\n');
    assert_non_null(nl);
    char head[512];
    memcpy(head, buf, (size_t)(nl - buf));
    head[nl - buf] = '\0';
    assert_string_equal(head, " hand  Ünïcödé_   日本    x  bold  a long n  "
                              "red   p7   p8   p9  p10");
    render_scores(buf, sizeof buf, names, 11, hands, 12, totals, 0,
                  render_look_style(IRC));
    assert_aligned(buf, 14);
}

struct scores_ctx {
    int nhands;
    int last;
    enum chat_style style;
};

static size_t scores_fn(char *buf, size_t len, const void *ctx)
{
    const struct scores_ctx *c = ctx;
    return render_scores(buf, len, three, 3, two_hands, c->nhands, three_totals,
                         c->last, render_look_style(c->style));
}

static void test_render_scores_cut_keeps_whole_lines(void **state)
{
    (void)state;
    char full[512];
    struct scores_ctx cases[] = {{2, 0, IRC}, {2, 1, PLAIN}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_cuts(scores_fn, &cases[i], full, sizeof full);
        for (size_t len = 1; len <= strlen(full); len++) {
            char buf[512];
            scores_fn(buf, len, &cases[i]);
            size_t got = strlen(buf);
            if (got > 0 && full[got] != '\n')
                fail_msg("cut inside a line at %zu: '%s'", len, buf);
        }
    }
}

/* ---- Names ------------------------------------------------------------ */

static const char *name_text(const char *name)
{
    static char buf[RENDER_SHOWN_SIZE];
    size_t n = render_name(buf, sizeof buf, name);
    assert_int_equal(n, strlen(buf));
    return buf;
}

static void test_render_name_strips_formatting(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        const char *out;
    } rows[] = {
        {B "bob" X, "bob"},
        {"\x03"
         "04,01al"
         "\x1F"
         "ice",
         "alice"},
        {"\x03"
         "4al",
         "al"},
        {"\x03"
         "12,5x",
         "x"},
        {"\x03"
         "123",
         "3"}, /* two digits at most */
        {"\x03"
         ",5x",
         ",5x"}, /* no colour before the comma */
        {"\x03"
         "04,x",
         ",x"}, /* no colour after it */
        {"\x04"
         "FF0000bob",
         "bob"}, /* hex colour */
        {"\x04"
         "ff0000,00ff00bob",
         "bob"}, /* six hex digits at most */
        {"a"
         "\x16"
         "b"
         "\x1D"
         "c"
         "\x1E"
         "d"
         "\x1F"
         "e"
         "\x11"
         "f",
         "abcdef"},
        {"bob\r\nQUIT :bye", "bobQUIT :bye"},
        {"tab\there", "tabhere"},
        {"del\x7f", "del"},
        {"nel\xc2\x85", "nel"},         /* C1 control */
        {"ev\xe2\x80\xaeil", "evil"},   /* right-to-left override */
        {"al\xe2\x80\x8bice", "alice"}, /* zero-width space */
        {"\xef\xbb\xbf"
         "bom",
         "bom"},                                    /* byte order mark */
        {"caf\xe9", "caf\xc3\xa9"},                 /* Latin-1 café */
        {"\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9"}, /* UTF-8 été kept */
        {"\xc0\xaf", "\xc3\x80\xc2\xaf"},           /* overlong: Latin-1 */
        {"\xed\xa0\x80", "\xc3\xad"}, /* surrogate: Latin-1, A0 a space */
        {"\xf0\x9f\x82\xa1", "\xf0\x9f\x82\xa1"}, /* 🂡 kept */
        {"  two   words  ", "two words"},
        {"\x02\x0F\t ", "?"},
        {"", "?"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *got = name_text(rows[i].in);
        if (strcmp(got, rows[i].out) != 0)
            fail_msg("row %zu: '%s', want '%s'", i, got, rows[i].out);
    }
    assert_string_equal(name_text(NULL), "?");
}

static void test_render_strip_formatting_keeps_the_text(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"pl\x02"
         "ay\x02 \x03"
         "04QS",
         "play QS"},
        {"\x03"
         "04,01pass\x0F KS,AS,\x1F"
         "KC",
         "pass KS,AS,KC"},
        {"\x04"
         "ff0000red\x11\x16\x1D\x1E",
         "red"},
        /* a comma after a colour is the text's unless a digit follows */
        {"\x03"
         "4,QS",
         ",QS"},
        {"10\x03"
         "10h",
         "10h"},
        {"h\xc3\xa9llo \xe2\x99\xa0", "h\xc3\xa9llo \xe2\x99\xa0"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        size_t n = render_strip_formatting(buf);
        assert_string_equal(buf, cases[i].out);
        assert_int_equal(n, strlen(cases[i].out));
    }
}

/* What a person typed loses what could hide or reorder a line the bot
 * echoes it in: controls, bidi and invisible characters, formatting;
 * the rest (accents, suits, emoji) stays, and nothing grows. */
static void test_render_clean_text_drops_hiding_characters(void **state)
{
    (void)state;
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"!hearts target=\xe2\x80\xae"
         "05",
         "!hearts target=05"},
        {"\x01VERSION\x01", "VERSION"},
        {"a\xe2\x80\xaa"
         "b\xe2\x80\xab"
         "c\xe2\x80\xac"
         "d\xe2\x80\xad"
         "e\xe2\x81\xa6"
         "f\xe2\x81\xa7"
         "g\xe2\x81\xa8"
         "h\xe2\x81\xa9"
         "i",
         "abcdefghi"},
        {"x\xe2\x80\x8ey\xe2\x80\x8fz\xd8\x9cw", "xyzw"},
        {"b\xe2\x80\x8bo\xef\xbb\xbf"
         "b\xc2\xad",
         "bob"},
        {"\x02"
         "bold\x0F \x03"
         "04red",
         "bold red"},
        {"c\x07"
         "d\x7f"
         "e\x1b[31mf",
         "cde[31mf"},
        {"play\tQS\r\n", "play QS  "},
        {"Q\xe2\x99\xa0\xef\xb8\x8f", "Q\xe2\x99\xa0"}, /* ♠ + VS16 */
        {"h\xc3\xa9llo \xf0\x9f\x82\xa1", "h\xc3\xa9llo \xf0\x9f\x82\xa1"},
        /* not UTF-8: Latin-1, a C1 control dropped, a letter kept */
        {"caf\xe9\x85!", "caf\xe9!"},
        /* C1 controls written in UTF-8 */
        {"a\xc2\x85"
         "b\xc2\x9b"
         "c",
         "abc"},
        /* the markup's own bytes (pill, card) */
        {"\x01@x:y\x01 \x05QS", "@x:y QS"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", cases[i].in);
        size_t n = render_clean_text(buf);
        if (strcmp(buf, cases[i].out) != 0)
            fail_msg("case %zu: got '%s'", i, buf);
        assert_int_equal(n, strlen(cases[i].out));
        assert_true(n <= strlen(cases[i].in));
    }
}

/* Every byte string: the result never holds a control or a bidi
 * character, and cleaning again changes nothing. */
static void test_render_clean_text_any_bytes(void **state)
{
    (void)state;
    uint32_t x = 12345;
    for (int round = 0; round < 20000; round++) {
        char buf[40];
        int n = 1 + round % 38;
        for (int i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            static const unsigned char pick[] = {
                0x01, 0x02, 0x03, 0x1b, 'a',  '0',  ',',  0xe2, 0x80, 0xae,
                0x81, 0xa6, 0xc2, 0x85, 0xd8, 0x9c, 0xef, 0xbb, 0xbf, 0x7f};
            buf[i] = (char)pick[(x >> 16) % sizeof pick];
        }
        buf[n] = '\0';
        render_clean_text(buf);
        for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
            assert_true(*p >= 0x20 && *p != 0x7f);
        assert_null(strstr(buf, "\xe2\x80\xae"));
        assert_null(strstr(buf, "\xe2\x81\xa6"));
        assert_null(strstr(buf, "\xd8\x9c"));
        assert_null(strstr(buf, "\xc2\x85"));
        char again[40];
        memcpy(again, buf, strlen(buf) + 1);
        render_clean_text(again);
        assert_string_equal(again, buf);
    }
}

/* Characters that draw nothing (or a blank) make look-alike nicks: they
 * are stripped, or read as a space. */
static void test_render_name_strips_invisible_lookalikes(void **state)
{
    (void)state;
    static const char *const bobs[] = {
        "bo\xcd\x8f"
        "b",               /* combining grapheme joiner */
        "bob\xe3\x85\xa4", /* Hangul filler */
        "bob\xef\xbe\xa0", /* halfwidth Hangul filler */
        "b\xef\xb8\x8f"
        "ob",                  /* variation selector */
        "bob\xf3\xa0\x84\x80", /* variation selector supplement */
        "\xe2\x81\xa6"
        "bob\xe2\x81\xa9", /* isolate LRI ... PDI */
        "\xe2\x80\xad"
        "bob",         /* left-to-right override */
        "bob\xc2\xa0", /* trailing no-break space */
        "\xe3\x80\x80"
        "bob",             /* ideographic space */
        "bob\xe1\xa0\x8e", /* Mongolian vowel separator */
        "b\xef\xbf\xb9"
        "ob", /* interlinear annotation anchor */
    };
    for (size_t i = 0; i < sizeof bobs / sizeof bobs[0]; i++) {
        const char *got = name_text(bobs[i]);
        if (strcmp(got, "bob") != 0)
            fail_msg("row %zu: '%s', want 'bob'", i, got);
    }
    assert_string_equal(name_text("bob\xc2\xa0smith"), "bob smith");
}

static void test_render_name_caps_on_a_boundary(void **state)
{
    (void)state;
    char name[128] = "";
    for (int i = 0; i < 30; i++)
        strcat(name, "\xc3\xa9"); /* é */
    const char *got = name_text(name);
    assert_int_equal(strlen(got), 2 * RENDER_NAME_MAX);
    assert_int_equal(width_of(got, strlen(got)), RENDER_NAME_MAX);

    /* 23 letters and 日本: the 24th code point is 日 */
    memset(name, 'a', 23);
    strcpy(name + 23, "\xe6\x97\xa5\xe6\x9c\xac");
    assert_string_equal(name_text(name), "aaaaaaaaaaaaaaaaaaaaaaa\xe6\x97\xa5");
    /* no space left at the end of a capped name */
    strcpy(name + 23, " b");
    assert_string_equal(name_text(name), "aaaaaaaaaaaaaaaaaaaaaaa");

    /* the buffer cuts between code points: é is 2 bytes, 日 3 */
    char buf[8];
    assert_int_equal(render_name(buf, 4, "\xc3\xa9\xc3\xa9"), 4);
    assert_string_equal(buf, "\xc3\xa9");
    assert_int_equal(render_name(buf, 3, "a\xe6\x97\xa5"), 4);
    assert_string_equal(buf, "a");
}

static void test_render_name_keeps_a_tag_whole(void **state)
{
    (void)state;
    /* a Matrix name told apart: longer than RENDER_NAME_MAX, kept whole */
    assert_string_equal(name_text("Ace (@carol_6f291c:localhost)"),
                        "Ace (@carol_6f291c:localhost)");
    assert_string_equal(name_text("Ace (@carol.smith:matrix.org)"),
                        "Ace (@carol.smith:matrix.org)");
    /* a long name before it is cut, never the tag */
    char name[200], want[200];
    memset(name, 'a', 40);
    strcpy(name + 40, " (@dave:example.org)");
    memset(want, 'a', RENDER_NAME_MAX);
    strcpy(want + RENDER_NAME_MAX, " (@dave:example.org)");
    assert_string_equal(name_text(name), want);
    /* a tag too long to show whole goes: the table tells seats apart */
    char id[100] = "@";
    memset(id + 1, 'x', 70);
    strcpy(id + 71, ":hs");
    snprintf(name, sizeof name, "Ace (%s)", id);
    assert_string_equal(name_text(name), "Ace");
    /* brackets that are no tag are cut like any name */
    memset(name, 'b', 30);
    strcpy(name + 30, "(x)");
    memset(want, 'b', RENDER_NAME_MAX);
    want[RENDER_NAME_MAX] = '\0';
    assert_string_equal(name_text(name), want);
    /* in a trick line too */
    static const char *const names[] = {"Ace (@carol_6f291c:localhost)",
                                        "Ace (@dave_6f291c:localhost)"};
    static const uint8_t seats[] = {0, 1};
    static const uint8_t cards[] = {ENGINE_2C, ENGINE_QC};
    char buf[256];
    render_trick(buf, sizeof buf, 1, cards, seats, 2, names, 1, 0,
                 render_look_style(PLAIN));
    assert_string_equal(buf, "Trick 1: Ace (@carol_6f291c:localhost) 2♣, "
                             "Ace (@dave_6f291c:localhost) Q♣ - Ace "
                             "(@dave_6f291c:localhost) takes it");
}

static void test_render_scores_headings_told_apart(void **state)
{
    (void)state;
    static const char *const names[] = {"Ace (@carol:hs)", "bob",
                                        "Ace (@dave:hs)"};
    char buf[512];
    render_scores(buf, sizeof buf, names, 3, two_hands, 2, three_totals, 0,
                  render_look_style(PLAIN));
    assert_string_equal(buf, " hand  Ace~1  bob  Ace~2\n"
                             "    1      3   13      0\n"
                             "    2      0    5     21\n"
                             "total      3   18     21");
}

static size_t name_fn(char *buf, size_t len, const void *ctx)
{
    return render_name(buf, len, ctx);
}

static void test_render_name_cut_every_length(void **state)
{
    (void)state;
    char full[256];
    check_cuts(name_fn,
               "\x02"
               "J\xc3\xb6rg "
               "\x03"
               "04\xe6\x97\xa5\xe6"
               "\x9c\xac\xf0\x9f\x82\xa1 \xe9t\xe9",
               full, sizeof full);
    assert_string_equal(full, "J\xc3\xb6rg \xe6\x97\xa5\xe6\x9c\xac\xf0\x9f"
                              "\x82\xa1 \xc3\xa9t\xc3\xa9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_card_plain),
        cmocka_unit_test(test_render_card_irc_colours_red_suits),
        cmocka_unit_test(test_render_card_no_card),
        cmocka_unit_test(test_render_card_parses_back),
        cmocka_unit_test(test_render_card_cut_every_length),
        cmocka_unit_test(test_render_suit_symbols),
        cmocka_unit_test(test_render_suit_name_words),
        cmocka_unit_test(test_render_cards_in_given_order),
        cmocka_unit_test(test_render_cards_cut_every_length),
        cmocka_unit_test(test_render_sort_orders_like_a_hand),
        cmocka_unit_test(test_render_hand_plain_groups_by_suit),
        cmocka_unit_test(test_render_hand_irc_colours_red_groups),
        cmocka_unit_test(test_render_hand_sorts_shuffled),
        cmocka_unit_test(test_render_hand_marks_legal_plain),
        cmocka_unit_test(test_render_hand_marks_legal_irc),
        cmocka_unit_test(test_render_hand_two_copies),
        cmocka_unit_test(test_render_hand_joker_last),
        cmocka_unit_test(test_render_hand_header_example),
        cmocka_unit_test(test_render_hand_empty),
        cmocka_unit_test(test_render_hand_cut_every_length),
        cmocka_unit_test(test_render_hand_cut_keeps_symbol_with_a_card),
        cmocka_unit_test(test_render_trick_taken_plain),
        cmocka_unit_test(test_render_trick_taken_irc),
        cmocka_unit_test(test_render_trick_points_wording),
        cmocka_unit_test(test_render_trick_set_aside),
        cmocka_unit_test(test_render_trick_open),
        cmocka_unit_test(test_render_trick_cleans_names),
        cmocka_unit_test(test_render_trick_cut_every_length),
        cmocka_unit_test(test_render_scores_plain),
        cmocka_unit_test(test_render_scores_marked_heading),
        cmocka_unit_test(test_render_scores_irc_bold_heading),
        cmocka_unit_test(test_render_scores_no_totals_no_hands),
        cmocka_unit_test(test_render_scores_elides_old_hands),
        cmocka_unit_test(test_render_scores_header_example),
        cmocka_unit_test(test_render_scores_columns_align),
        cmocka_unit_test(test_render_scores_cut_keeps_whole_lines),
        cmocka_unit_test(test_render_name_strips_formatting),
        cmocka_unit_test(test_render_strip_formatting_keeps_the_text),
        cmocka_unit_test(test_render_clean_text_drops_hiding_characters),
        cmocka_unit_test(test_render_clean_text_any_bytes),
        cmocka_unit_test(test_render_name_strips_invisible_lookalikes),
        cmocka_unit_test(test_render_name_caps_on_a_boundary),
        cmocka_unit_test(test_render_name_keeps_a_tag_whole),
        cmocka_unit_test(test_render_scores_headings_told_apart),
        cmocka_unit_test(test_render_name_cut_every_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
