/*
 * Tests of bot/manager/render.c in CHAT_STYLE_MARKUP (render.h): the exact
 * bytes of cards, hands, tricks, score sheets and mentions, that removing the
 * markup gives the plain text, and that a cut at any length keeps pills
 * and marked cards whole. The IRC and plain styles are in test_render.c.
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

/* Codes as separate literals, so that no hex escape runs on into the
 * text after it. */
#define R "\x03\x30\x34" /* \x03 "04" */
#define X "\x0F"
#define B "\x02"
#define MK "\x05"
#define C "\x1F"
#define P "\x01"

#define PLAIN CHAT_STYLE_PLAIN
#define MARKUP CHAT_STYLE_MARKUP

/* The plain text a markup text stands for: red, bold and cell codes go,
 * a marked card gets brackets, a pill becomes its name. */
static void to_plain(const char *in, char *out)
{
    bool marked = false;
    while (*in) {
        if (in[0] == '\x03' && in[1] == '0' && in[2] == '4') {
            in += 3;
        } else if (*in == '\x0F' || *in == '\x02' || *in == '\x1F') {
            in++;
        } else if (*in == '\x05') {
            *out++ = marked ? ']' : '[';
            marked = !marked;
            in++;
        } else if (*in == '\x01') {
            const char *name = strchr(in + 1, '\x01');
            assert_non_null(name);
            const char *end = strchr(name + 1, '\x01');
            assert_non_null(end);
            memcpy(out, name + 1, (size_t)(end - name - 1));
            out += end - name - 1;
            in = end + 1;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
}

/* One card from its short text ("QS"). */
static int card(const char *text)
{
    uint8_t c[1];
    assert_int_equal(sc_card_list(text, c, 1), 1);
    return c[0];
}

static void assert_plain_matches(const char *markup, const char *plain)
{
    char buf[1024];
    to_plain(markup, buf);
    assert_string_equal(buf, plain);
}

static void test_markup_card_is_red_like_irc(void **state)
{
    (void)state;
    char buf[64];
    render_card(buf, sizeof buf, card("QS"), render_look_style(MARKUP));
    assert_string_equal(buf, "Q♠");
    render_card(buf, sizeof buf, card("TH"), render_look_style(MARKUP));
    assert_string_equal(buf, R "10♥" X);
    render_card(buf, sizeof buf, card("3D"), render_look_style(MARKUP));
    assert_string_equal(buf, R "3♦" X);
    render_card(buf, sizeof buf, ENGINE_JOKER, render_look_style(MARKUP));
    assert_string_equal(buf, R "Joker" X);
    render_suit(buf, sizeof buf, ENGINE_HEARTS, render_look_style(MARKUP));
    assert_string_equal(buf, R "♥" X);
    render_suit(buf, sizeof buf, ENGINE_CLUBS, render_look_style(MARKUP));
    assert_string_equal(buf, "♣");
}

static void test_markup_cards(void **state)
{
    (void)state;
    char buf[128];
    uint8_t cards[8];
    int n = sc_card_list("QS AH 3C", cards, 8);
    size_t len =
        render_cards(buf, sizeof buf, cards, n, render_look_style(MARKUP));
    assert_string_equal(buf, "Q♠ " R "A♥" X " 3♣");
    assert_int_equal(len, strlen(buf));
}

static const char *const a_hand = "2C 5C 9C JC 3D QD 4S QS AS 7H KH";

static void test_markup_hand_marks_legal_cards(void **state)
{
    (void)state;
    char buf[256];
    struct engine_cards hand = {sc_set(a_hand), 0};
    render_hand(buf, sizeof buf, &hand, sc_set("5C JC"),
                render_look_style(MARKUP));
    assert_string_equal(buf, "♣ 2 " MK "5" MK " 9 " MK "J" MK "  " R "♦ 3 Q" X
                             "  ♠ 4 Q A  " R "♥ 7 K" X);
    char plain[256];
    render_hand(plain, sizeof plain, &hand, sc_set("5C JC"),
                render_look_style(PLAIN));
    assert_plain_matches(buf, plain);

    render_hand(buf, sizeof buf, &hand, sc_set("3D KH"),
                render_look_style(MARKUP));
    assert_string_equal(buf, "♣ 2 5 9 J  " R "♦ " MK "3" MK " Q" X
                             "  ♠ 4 Q A  " R "♥ 7 " MK "K" MK X);
    render_hand(plain, sizeof plain, &hand, sc_set("3D KH"),
                render_look_style(PLAIN));
    assert_plain_matches(buf, plain);
}

static void test_markup_hand_cut_keeps_marks_whole(void **state)
{
    (void)state;
    struct engine_cards hand = {sc_set(a_hand), 0};
    uint64_t legal = sc_set("2C 5C 9C JC 3D QD 4S QS AS 7H KH");
    char whole[256];
    size_t need = render_hand(whole, sizeof whole, &hand, legal,
                              render_look_style(MARKUP));
    for (size_t len = 1; len <= need + 1; len++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(
            render_hand(buf, len, &hand, legal, render_look_style(MARKUP)),
            need);
        int marks = 0;
        for (const char *p = buf; *p; p++)
            marks += *p == '\x05';
        assert_int_equal(marks % 2, 0);
        /* a prefix of the whole text, but for a closing reset */
        size_t n = strlen(buf);
        if (n > 0 && buf[n - 1] == '\x0F' && whole[n - 1] != '\x0F')
            n--;
        assert_memory_equal(buf, whole, n);
        free(buf);
    }
}

static const char *const four[] = {"alice", "bob", "carol", "dave"};
static const char *const four_ids[] = {"@alice:hs", "@bob:hs", NULL,
                                       "@dave:hs"};
static const uint8_t in_order[] = {0, 1, 2, 3};

static const char *trick(const char *list, const char *const *ids, int winner,
                         int points, enum chat_style style)
{
    static char buf[512];
    uint8_t cards[16];
    int n = sc_card_list(list, cards, 16);
    size_t len =
        render_trick_ids(buf, sizeof buf, 5, cards, in_order, n, four, ids,
                         winner, points, render_look_style(style));
    assert_int_equal(len, strlen(buf));
    return buf;
}

static void test_markup_trick_taker_is_a_quiet_pill(void **state)
{
    (void)state;
    assert_string_equal(trick("7C KC 2H 9C", four_ids, 1, 1, MARKUP),
                        "Trick 5: alice 7♣, bob K♣, carol " R "2♥" X
                        ", dave 9♣ - " B P "@bob:hs" P "bob" P B
                        " takes it (1 point)");
    assert_plain_matches(trick("7C KC 2H 9C", four_ids, 1, 1, MARKUP),
                         "Trick 5: alice 7♣, bob K♣, carol 2♥, dave 9♣ - "
                         "bob takes it (1 point)");
}

static void test_markup_trick_without_ids_is_bold(void **state)
{
    (void)state;
    /* no ids, or a computer (NULL id): the name, bold as on IRC */
    assert_string_equal(trick("7C KC 2H 9C", NULL, 1, 1, MARKUP),
                        "Trick 5: alice 7♣, bob K♣, carol " R "2♥" X
                        ", dave 9♣ - " B "bob" B " takes it (1 point)");
    assert_string_equal(trick("7C KC 2H 9C", four_ids, 2, 0, MARKUP),
                        "Trick 5: alice 7♣, bob K♣, carol " R "2♥" X
                        ", dave 9♣ - " B "carol" B " takes it");
}

static void test_markup_ids_change_no_other_style(void **state)
{
    (void)state;
    char with[512];
    strcpy(with, trick("7C KC 2H 9C", four_ids, 1, 1, PLAIN));
    assert_string_equal(with, trick("7C KC 2H 9C", NULL, 1, 1, PLAIN));
    strcpy(with, trick("7C KC 2H 9C", four_ids, 1, 1, CHAT_STYLE_IRC));
    assert_string_equal(with, trick("7C KC 2H 9C", NULL, 1, 1, CHAT_STYLE_IRC));
}

static void test_markup_trick_cut_keeps_the_pill_whole(void **state)
{
    (void)state;
    uint8_t cards[4];
    int n = sc_card_list("7C KC 2H 9C", cards, 4);
    char whole[512];
    size_t need =
        render_trick_ids(whole, sizeof whole, 5, cards, in_order, n, four,
                         four_ids, 1, 1, render_look_style(MARKUP));
    for (size_t len = 1; len <= need + 1; len++) {
        char *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(render_trick_ids(buf, len, 5, cards, in_order, n, four,
                                          four_ids, 1, 1,
                                          render_look_style(MARKUP)),
                         need);
        int pills = 0;
        for (const char *p = buf; *p; p++)
            pills += *p == '\x01';
        assert_int_equal(pills % 3, 0);
        free(buf);
    }
}

static void test_markup_mention(void **state)
{
    (void)state;
    char buf[128];
    size_t n = render_mention(buf, sizeof buf, "@bob:hs", "bob", false,
                              render_look_style(MARKUP));
    assert_string_equal(buf, P "@bob:hs" P "bob" P);
    assert_int_equal(n, strlen(buf));
    render_mention(buf, sizeof buf, "@bob:hs", "Bob B", true,
                   render_look_style(MARKUP));
    assert_string_equal(buf, P "!@bob:hs" P "Bob B" P);
    /* the name is cleaned like any name from the network */
    render_mention(buf, sizeof buf, "@bob:hs",
                   "b\x01o\x05"
                   "b",
                   true, render_look_style(MARKUP));
    assert_string_equal(buf, P "!@bob:hs" P "bob" P);
    /* other styles, or an id that would break the markup: the name */
    render_mention(buf, sizeof buf, "@bob:hs", "bob", true,
                   render_look_style(PLAIN));
    assert_string_equal(buf, "bob");
    render_mention(buf, sizeof buf, "@bob:hs", "bob", true,
                   render_look_style(CHAT_STYLE_IRC));
    assert_string_equal(buf, "bob");
    render_mention(buf, sizeof buf, "@b\x01x:hs", "bob", true,
                   render_look_style(MARKUP));
    assert_string_equal(buf, "bob");
    render_mention(buf, sizeof buf, "", "bob", true, render_look_style(MARKUP));
    assert_string_equal(buf, "bob");
    render_mention(buf, sizeof buf, NULL, "bob", true,
                   render_look_style(MARKUP));
    assert_string_equal(buf, "bob");
    /* too small: nothing rather than half a pill */
    n = render_mention(buf, 8, "@bob:hs", "bob", false,
                       render_look_style(MARKUP));
    assert_string_equal(buf, "");
    assert_int_equal(n, 13);
}

static const char *const three[] = {"alice", "bob", "carol"};
static const int32_t h1[] = {3, 13, 0};
static const int32_t h2[] = {0, 5, 21};
static const int32_t *const two_hands[] = {h1, h2};
static const int32_t three_totals[] = {3, 18, 21};

static void test_markup_scores_mark_the_cells(void **state)
{
    (void)state;
    char buf[512];
    size_t n = render_scores(buf, sizeof buf, three, 3, two_hands, 2,
                             three_totals, 0, render_look_style(MARKUP));
    assert_string_equal(buf, " hand" C "  alice" C "  bob" C "  carol\n"
                             "    1" C "      3" C "   13" C "      0\n"
                             "    2" C "      0" C "    5" C "     21\n"
                             "total" C "      3" C "   18" C "     21");
    assert_int_equal(n, strlen(buf));
    char plain[512];
    render_scores(plain, sizeof plain, three, 3, two_hands, 2, three_totals, 0,
                  render_look_style(PLAIN));
    assert_plain_matches(buf, plain);
}

static void test_markup_scores_elided_same_as_plain(void **state)
{
    (void)state;
    static const int32_t h[] = {1, 2};
    static const int32_t *const hands[] = {h, h, h, h, h, h, h, h};
    static const int32_t totals[] = {8, 16};
    static const char *const names[] = {"x", "y"};
    char buf[512], plain[512];
    render_scores(buf, sizeof buf, names, 2, hands, 8, totals, 5,
                  render_look_style(MARKUP));
    render_scores(plain, sizeof plain, names, 2, hands, 8, totals, 5,
                  render_look_style(PLAIN));
    assert_plain_matches(buf, plain);
    /* every line is a row */
    const char *line = buf;
    for (;;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        assert_non_null(memchr(line, '\x1F', n));
        if (!end)
            break;
        line = end + 1;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_markup_card_is_red_like_irc),
        cmocka_unit_test(test_markup_cards),
        cmocka_unit_test(test_markup_hand_marks_legal_cards),
        cmocka_unit_test(test_markup_hand_cut_keeps_marks_whole),
        cmocka_unit_test(test_markup_trick_taker_is_a_quiet_pill),
        cmocka_unit_test(test_markup_trick_without_ids_is_bold),
        cmocka_unit_test(test_markup_ids_change_no_other_style),
        cmocka_unit_test(test_markup_trick_cut_keeps_the_pill_whole),
        cmocka_unit_test(test_markup_mention),
        cmocka_unit_test(test_markup_scores_mark_the_cells),
        cmocka_unit_test(test_markup_scores_elided_same_as_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
