/*
 * Tests of bot/manager/render.c: where a text too long for its buffer is
 * cut, exactly. Each case below is rendered into buffers of every length
 * from 0 to one past its whole text, and each cut is compared with the one
 * saved beside the case (test_render.c checks that cuts are whole; this
 * holds them where they are, so a change to how render.c writes cannot
 * move a cut or its closing reset unnoticed).
 *
 * A case's cuts are written one per buffer length from 1 up: the length
 * of the text written, "r" after it when the text is the whole text's
 * prefix closed by a reset that is not there in the whole text, and "*k"
 * for k lengths in a row giving the same. Run with HEARTS_PRINT_CUTS set
 * in the environment to print the table for what render.c writes now
 * (only for a change meant to move cuts: read the diff).
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

#define PLAIN CHAT_STYLE_PLAIN
#define IRC CHAT_STYLE_IRC
#define MARKUP CHAT_STYLE_MARKUP

/* ---- The cases -------------------------------------------------------- */

static size_t card_td_irc(char *buf, size_t len)
{
    return render_card(buf, len, ENGINE_TD, render_look_style(IRC));
}

static size_t card_qs_irc(char *buf, size_t len)
{
    return render_card(buf, len, ENGINE_QS, render_look_style(IRC));
}

static size_t card_joker_markup(char *buf, size_t len)
{
    return render_card(buf, len, ENGINE_JOKER, render_look_style(MARKUP));
}

static size_t card_joker_plain(char *buf, size_t len)
{
    return render_card(buf, len, ENGINE_JOKER, render_look_style(PLAIN));
}

static size_t card_none_irc(char *buf, size_t len)
{
    return render_card(buf, len, 13, render_look_style(IRC));
}

static size_t suit_hearts_irc(char *buf, size_t len)
{
    return render_suit(buf, len, ENGINE_HEARTS, render_look_style(IRC));
}

static size_t suit_clubs_irc(char *buf, size_t len)
{
    return render_suit(buf, len, ENGINE_CLUBS, render_look_style(IRC));
}

static size_t suit_none_plain(char *buf, size_t len)
{
    return render_suit(buf, len, 4, render_look_style(PLAIN));
}

static size_t cards_list(char *buf, size_t len, const char *list,
                         enum chat_style style)
{
    uint8_t cards[32];
    int n = sc_card_list(list, cards, 32);
    return render_cards(buf, len, cards, n, render_look_style(style));
}

static const char *const a_list = "QS AH 3C TD 10H 2S JK";

static size_t cards_plain(char *buf, size_t len)
{
    return cards_list(buf, len, a_list, PLAIN);
}

static size_t cards_irc(char *buf, size_t len)
{
    return cards_list(buf, len, a_list, IRC);
}

static size_t cards_markup_reds(char *buf, size_t len)
{
    return cards_list(buf, len, "TD JK 2H", MARKUP);
}

static size_t hand(char *buf, size_t len, const char *one, const char *two,
                   const char *mark, enum chat_style style)
{
    struct engine_cards h = {sc_set(one), two ? sc_set(two) : 0};
    return render_hand(buf, len, &h, mark ? sc_set(mark) : 0,
                       render_look_style(style));
}

static const char *const a_hand = "2C 5C 9C JC 3D QD 4S QS AS 7H KH";

static size_t hand_plain(char *buf, size_t len)
{
    return hand(buf, len, a_hand, NULL, NULL, PLAIN);
}

static size_t hand_irc(char *buf, size_t len)
{
    return hand(buf, len, a_hand, NULL, NULL, IRC);
}

static size_t hand_marked_plain(char *buf, size_t len)
{
    return hand(buf, len, a_hand, NULL, "3D QD KH 2C", PLAIN);
}

static size_t hand_marked_irc(char *buf, size_t len)
{
    return hand(buf, len, a_hand, NULL, "3D QD KH 2C", IRC);
}

static size_t hand_marked_markup(char *buf, size_t len)
{
    return hand(buf, len, a_hand, NULL, "3D QD KH 2C", MARKUP);
}

static size_t hand_two_copies_irc(char *buf, size_t len)
{
    return hand(buf, len, "2C QS TH 3H JK", "QS TH", "TH JK", IRC);
}

static size_t hand_two_copies_markup(char *buf, size_t len)
{
    return hand(buf, len, "2C 3D TD QS TH 3H JK", "3D QS TH", "TD TH JK",
                MARKUP);
}

static size_t hand_all_hearts_irc(char *buf, size_t len)
{
    return hand(buf, len, "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", NULL, "QH",
                IRC);
}

static size_t hand_reds_only_irc(char *buf, size_t len)
{
    return hand(buf, len, "4D 9D 6H JK", NULL, NULL, IRC);
}

static size_t hand_joker_alone_irc(char *buf, size_t len)
{
    return hand(buf, len, "JK", NULL, "JK", IRC);
}

static const char *const four[] = {"alice", "bob", "carol", "dave"};
static const char *const four_ids[] = {"@alice:hs", NULL, "@carol:hs",
                                       "@dave:hs"};
static const uint8_t in_order[] = {0, 1, 2, 3};
static const uint8_t from_two[] = {2, 3, 0, 1};

static size_t trick(char *buf, size_t len, int no, const char *list,
                    const uint8_t *seats, const char *const *names,
                    const char *const *ids, int winner, int points,
                    enum chat_style style)
{
    uint8_t cards[8];
    int n = sc_card_list(list, cards, 8);
    return render_trick_ids(buf, len, no, cards, seats, n, names, ids, winner,
                            points, render_look_style(style));
}

static size_t trick_taken_plain(char *buf, size_t len)
{
    return trick(buf, len, 9, "2H QS TD JK", in_order, four, NULL, 2, 18,
                 PLAIN);
}

static size_t trick_taken_irc(char *buf, size_t len)
{
    return trick(buf, len, 9, "2H QS TD JK", in_order, four, NULL, 2, 18, IRC);
}

static size_t trick_taken_markup(char *buf, size_t len)
{
    return trick(buf, len, 12, "3C 4H KC 9D", from_two, four, four_ids, 0, 1,
                 MARKUP);
}

static size_t trick_taken_markup_no_id(char *buf, size_t len)
{
    return trick(buf, len, 3, "3C 4H KC 9D", in_order, four, four_ids, 1, -1,
                 MARKUP);
}

static size_t trick_aside_irc(char *buf, size_t len)
{
    return trick(buf, len, 4, "2H 2H", in_order, four, NULL, RENDER_TRICK_ASIDE,
                 2, IRC);
}

static size_t trick_open_markup(char *buf, size_t len)
{
    return trick(buf, len, 7, "AD KD", in_order, four, four_ids,
                 RENDER_TRICK_OPEN, 0, MARKUP);
}

static size_t trick_no_cards_irc(char *buf, size_t len)
{
    return trick(buf, len, 0, "", in_order, four, NULL, RENDER_TRICK_OPEN, 0,
                 IRC);
}

static const char *const tagged[] = {
    "Ace (@carol_6f291c:localhost)", "you",
    "A very long display name that goes on and on (@x:hs)",
    "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"};

static size_t trick_tagged_irc(char *buf, size_t len)
{
    return trick(buf, len, 2, "9H TH JH QH", in_order, tagged, NULL, 1, 4, IRC);
}

static size_t trick_tagged_markup(char *buf, size_t len)
{
    static const char *const ids[] = {"@carol_6f291c:localhost", "@you:hs",
                                      "@x:hs", "@nihongo:hs"};
    return trick(buf, len, 2, "9H TH JH QS", in_order, tagged, ids, 2, 13,
                 MARKUP);
}

static size_t mention_notify_markup(char *buf, size_t len)
{
    return render_mention(buf, len, "@carol:example.org", "Carol (@carol:eo)",
                          true, render_look_style(MARKUP));
}

static size_t mention_quiet_markup(char *buf, size_t len)
{
    return render_mention(buf, len, "@bob:hs", "bob", false,
                          render_look_style(MARKUP));
}

static size_t mention_bad_id_markup(char *buf, size_t len)
{
    return render_mention(buf, len,
                          "@bo\x01"
                          "b:hs",
                          "bob", true, render_look_style(MARKUP));
}

static size_t mention_irc(char *buf, size_t len)
{
    return render_mention(buf, len, "@bob:hs",
                          "b\xc3\xb6"
                          "b",
                          true, render_look_style(IRC));
}

static const char *const three[] = {"alice", "bob", "carol"};
static const int32_t h1[] = {3, 13, 0};
static const int32_t h2[] = {0, 5, 21};
static const int32_t h3[] = {-26, 0, 104};
static const int32_t *const three_hands[] = {h1, h2, h3};
static const int32_t three_totals[] = {-23, 18, 125};

static size_t scores_plain(char *buf, size_t len)
{
    return render_scores(buf, len, three, 3, three_hands, 3, three_totals, 0,
                         render_look_style(PLAIN));
}

static size_t scores_irc(char *buf, size_t len)
{
    return render_scores(buf, len, three, 3, three_hands, 3, three_totals, 0,
                         render_look_style(IRC));
}

static size_t scores_markup_elided(char *buf, size_t len)
{
    return render_scores(buf, len, three, 3, three_hands, 3, three_totals, 1,
                         render_look_style(MARKUP));
}

static size_t scores_irc_no_totals(char *buf, size_t len)
{
    return render_scores(buf, len, three, 3, three_hands, 2, NULL, 0,
                         render_look_style(IRC));
}

static size_t scores_headings_told_apart(char *buf, size_t len)
{
    static const char *const names[] = {"Ace (@carol:hs)",
                                        "\xc3\x9cn\xc3\xaf"
                                        "c\xc3\xb6"
                                        "d\xc3\xa9_name",
                                        "Ace (@dave:hs)",
                                        "\x02"
                                        "bo\x02"
                                        "ld"};
    static const int32_t a[] = {1, 2, 3, 20};
    static const int32_t b[] = {100, 0, -7, 6};
    static const int32_t *const hands[] = {a, b};
    return render_scores(buf, len, names, 4, hands, 2, a, 0,
                         render_look_style(IRC));
}

static size_t name_tagged(char *buf, size_t len)
{
    return render_name(buf, len,
                       "A display name longer than the cap "
                       "(@someone:example.org)");
}

static size_t name_long(char *buf, size_t len)
{
    return render_name(buf, len,
                       "  Ab\xe2\x80\xae"
                       "c d\xc3\xa9\t  e\xe6\x97\xa5\xe6\x9c\xac"
                       "f \xf0\x9f\x82\xa1 ghijklmnopqrstuvwxyz");
}

static size_t name_latin1(char *buf, size_t len)
{
    return render_name(buf, len,
                       "Jos\xe9 \x03"
                       "04,01M\xfcller");
}

static size_t name_empty(char *buf, size_t len)
{
    return render_name(buf, len, "\x02\x0F \xe2\x80\x8b");
}

/* ---- The saved cuts --------------------------------------------------- */

struct golden {
    const char *what;
    size_t (*fn)(char *buf, size_t len);
    const char *full;
    const char *cuts;
};

#define CASE(f) #f, f
static const struct golden golden[] = {
    {CASE(card_td_irc), "\0030410\342\231\246\017", "0*9 9*2"},
    {CASE(card_qs_irc), "Q\342\231\240", "0*4 4*2"},
    {CASE(card_joker_markup), "\00304Joker\017", "0*9 9*2"},
    {CASE(card_joker_plain), "Joker", "0*5 5*2"},
    {CASE(card_none_irc), "??", "0*2 2*2"},
    {CASE(suit_hearts_irc), "\00304\342\231\245\017", "0*7 7*2"},
    {CASE(suit_clubs_irc), "\342\231\243", "0*3 3*2"},
    {CASE(suit_none_plain), "?", "0 1*2"},
    {CASE(cards_plain),
     "Q\342\231\240 A\342\231\245 3\342\231\243 10\342\231\246"
     " 10\342\231\245 2\342\231\240 Joker",
     "0*4 4*5 9*5 14*6 20*6 26*5 31*6 37*2"},
    {CASE(cards_irc),
     "Q\342\231\240 \00304A\342\231\245\017 3\342\231\243 \003"
     "0410\342\231\246\017 \0030410\342\231\245\017 2\342\231\240"
     " \00304Joker\017",
     "0*4 4*9 13*5 18*10 28*10 38*5 43*10 53*2"},
    {CASE(cards_markup_reds),
     "\0030410\342\231\246\017 \00304Joker\017 \003042\342\231"
     "\245\017",
     "0*9 9*10 19*9 28*2"},
    {CASE(hand_plain),
     "\342\231\243 2 5 9 J  \342\231\246 3 Q  \342\231\240 4 Q"
     " A  \342\231\245 7 K",
     "0*5 5*2 7*2 9*2 11*7 18*2 20*7 27*2 29*2 31*7 38*2 40*2"},
    {CASE(hand_irc),
     "\342\231\243 2 5 9 J  \00304\342\231\246 3 Q\017  \342\231"
     "\240 4 Q A  \00304\342\231\245 7 K\017",
     "0*5 5*2 7*2 9*2 11*11 22r*2 24*7 31*2 33*2 35*11 46r*2 48*2"},
    {CASE(hand_marked_plain),
     "\342\231\243 [2] 5 9 J  \342\231\246 [3] [Q]  \342\231\240"
     " 4 Q A  \342\231\245 7 [K]",
     "0*7 7*2 9*2 11*2 13*9 22*4 26*7 33*2 35*2 37*7 44*4 48*2"},
    {CASE(hand_marked_irc),
     "\342\231\243 \0022\002 5 9 J  \00304\342\231\246 \0023\002"
     " \002Q\002\017  \342\231\240 4 Q A  \00304\342\231\245 7"
     " \002K\002\017",
     "0*7 7*2 9*2 11*2 13*13 26r*4 30*7 37*2 39*2 41*11 52r*4 56*2"},
    {CASE(hand_marked_markup),
     "\342\231\243 \0052\005 5 9 J  \00304\342\231\246 \0053\005"
     " \005Q\005\017  \342\231\240 4 Q A  \00304\342\231\245 7"
     " \005K\005\017",
     "0*7 7*2 9*2 11*2 13*13 26r*4 30*7 37*2 39*2 41*11 52r*4 56*2"},
    {CASE(hand_two_copies_irc),
     "\342\231\243 2  \342\231\240 Q Q  \00304\342\231\245 3 \002"
     "10\002 \00210\002\017  \00304\002Joker\002\017",
     "0*5 5*7 12*2 14*11 25r*5 30r*5 35*13 48*2"},
    {CASE(hand_two_copies_markup),
     "\342\231\243 2  \00304\342\231\246 3 3 \00510\005\017  \342"
     "\231\240 Q Q  \00304\342\231\245 3 \00510\005 \00510\005"
     "\017  \00304\005Joker\005\017",
     "0*5 5*11 16r*2 18r*5 23*7 30*2 32*11 43r*5 48r*5 53*13 66*2"},
    {CASE(hand_all_hearts_irc),
     "\00304\342\231\245 2 3 4 5 6 7 8 9 10 J \002Q\002 K A\017",
     "0*9 9r*2 11r*2 13r*2 15r*2 17r*2 19r*2 21r*2 23r*3 26r*2 28r*4 32r*2 "
     "34r*2 36*2"},
    {CASE(hand_reds_only_irc),
     "\00304\342\231\246 4 9\017  \00304\342\231\245 6\017  \003"
     "04Joker\017",
     "0*9 9r*2 11*11 22*11 33*2"},
    {CASE(hand_joker_alone_irc), "\00304\002Joker\002\017", "0*11 11*2"},
    {CASE(trick_taken_plain),
     "Trick 9: alice 2\342\231\245, bob Q\342\231\240, carol 1"
     "0\342\231\246, dave Joker - carol takes it (18 points)",
     "0*9 9*10 19*10 29*13 42*12 54*29 83*2"},
    {CASE(trick_taken_irc),
     "Trick 9: alice \003042\342\231\245\017, bob Q\342\231\240"
     ", carol \0030410\342\231\246\017, dave \00304Joker\017 -"
     " \002carol\002 takes it (18 points)",
     "0*9 9*14 23*10 33*17 50*16 66*31 97*2"},
    {CASE(trick_taken_markup),
     "Trick 12: carol 3\342\231\243, dave \003044\342\231\245\017"
     ", alice K\342\231\243, bob \003049\342\231\246\017 - \002"
     "\001@alice:hs\001alice\001\002 takes it (1 point)",
     "0*10 10*10 20*15 35*12 47*14 61*41 102*2"},
    {CASE(trick_taken_markup_no_id),
     "Trick 3: alice 3\342\231\243, bob \003044\342\231\245\017"
     ", carol K\342\231\243, dave \003049\342\231\246\017 - \002"
     "bob\002 takes it (-1 point)",
     "0*9 9*10 19*14 33*12 45*15 60*28 88*2"},
    {CASE(trick_aside_irc),
     "Trick 4: alice \003042\342\231\245\017, bob \003042\342\231"
     "\245\017 - set aside for the next winner (2 points)",
     "0*9 9*14 23*14 37*43 80*2"},
    {CASE(trick_open_markup),
     "Trick 7: alice \00304A\342\231\246\017, bob \00304K\342\231"
     "\246\017",
     "0*9 9*14 23*14 37*2"},
    {CASE(trick_no_cards_irc), "no cards yet", "0*12 12*2"},
    {CASE(trick_tagged_irc),
     "Trick 2: Ace (@carol_6f291c:localhost) \003049\342\231\245"
     "\017, you \0030410\342\231\245\017, A very long display "
     "name (@x:hs) \00304J\342\231\245\017, \346\227\245\346\234"
     "\254\350\252\236 \00304Q\342\231\245\017 - \002you\002 t"
     "ake it (4 points)",
     "0*9 9*38 47*15 62*43 105*20 125*27 152*2"},
    {CASE(trick_tagged_markup),
     "Trick 2: Ace (@carol_6f291c:localhost) \003049\342\231\245"
     "\017, you \0030410\342\231\245\017, A very long display "
     "name (@x:hs) \00304J\342\231\245\017, \346\227\245\346\234"
     "\254\350\252\236 Q\342\231\240 - \002\001@x:hs\001A very"
     " long display name (@x:hs)\001\002 takes it (13 points)",
     "0*9 9*38 47*15 62*43 105*16 121*66 187*2"},
    {CASE(mention_notify_markup),
     "\001!@carol:example.org\001Carol (@carol:eo)\001", "0*39 39*2"},
    {CASE(mention_quiet_markup), "\001@bob:hs\001bob\001", "0*13 13*2"},
    {CASE(mention_bad_id_markup), "bob", "0*3 3*2"},
    {CASE(mention_irc), "b\303\266b", "0*4 4*2"},
    {CASE(scores_plain),
     " hand  alice  bob  carol\012    1      3   13      0\012"
     "    2      0    5     21\012    3    -26    0    104\012"
     "total    -23   18    125",
     "0*24 24*25 49*25 74*25 99*25 124*2"},
    {CASE(scores_irc),
     "\002 hand  alice  bob  carol\002\012    1      3   13   "
     "   0\012    2      0    5     21\012    3    -26    0   "
     " 104\012total    -23   18    125",
     "0*26 26*25 51*25 76*25 101*25 126*2"},
    {CASE(scores_markup_elided),
     " hand\037  alice\037  bob\037  carol\012  ...\037    ..."
     "\037  ...\037    ...\012    3\037    -26\037    0\037   "
     " 104\012total\037    -23\037   18\037    125",
     "0*27 27*28 55*28 83*28 111*2"},
    {CASE(scores_irc_no_totals),
     "\002 hand  alice  bob  carol\002\012    1      3   13   "
     "   0\012    2      0    5     21",
     "0*26 26*25 51*25 76*2"},
    {CASE(scores_headings_told_apart),
     "\002 hand  Ace~1  \303\234n\303\257c\303\266d\303\251_  "
     "Ace~2  bold\002\012    1      1         2      3    20\012"
     "    2    100         0     -7     6\012total      1     "
     "    2      3    20",
     "0*41 41*36 77*36 113*36 149*2"},
    {CASE(name_tagged), "A display name longer th (@someone:example.org)",
     "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 "
     "27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47*2"},
    {CASE(name_long),
     "Abc d\303\251 e\346\227\245\346\234\254f \360\237\202\241"
     " ghijklmnop",
     "0 1 2 3 4 5*2 7 8 9*3 12*3 15 16 17*4 21 22 23 24 25 26 27 28 29 30 31 "
     "32*2"},
    {CASE(name_latin1), "Jos\303\251 M\303\274ller",
     "0 1 2 3*2 5 6 7*2 9 10 11 12 13*2"},
    {CASE(name_empty), "?", "0 1*2"},
};

/* ---- Checking --------------------------------------------------------- */

/* The token for one cut (see the top of the file); "?" and the length for
 * a text that is not the whole text's prefix at all. */
static void cut_token(const char *buf, const char *full, char *tok,
                      size_t toksize)
{
    size_t got = strlen(buf);
    if (strncmp(buf, full, got) == 0)
        snprintf(tok, toksize, "%zu", got);
    else if (got > 0 && buf[got - 1] == '\x0F' &&
             strncmp(buf, full, got - 1) == 0)
        snprintf(tok, toksize, "%zur", got);
    else
        snprintf(tok, toksize, "?%zu", got);
}

static void append(char **out, size_t *used, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*used + n + 1 > *cap) {
        *cap = (*used + n + 1) * 2;
        *out = realloc(*out, *cap);
        assert_non_null(*out);
    }
    memcpy(*out + *used, s, n + 1);
    *used += n;
}

/* Renders at every length and writes the cuts' tokens, "*k" for runs. The
 * whole text goes into full (fullsize bytes); returns the cuts (free). */
static char *cuts_of(const struct golden *g, char *full, size_t fullsize)
{
    size_t n = g->fn(full, fullsize);
    assert_true(n < fullsize);
    assert_int_equal(strlen(full), n);
    /* measuring writes nothing */
    assert_int_equal(g->fn(NULL, 0), n);
    char sentinel = 'Z';
    assert_int_equal(g->fn(&sentinel, 0), n);
    assert_int_equal(sentinel, 'Z');

    char *out = NULL;
    size_t used = 0, cap = 0;
    append(&out, &used, &cap, "");
    char prev[32] = "";
    int run = 0;
    for (size_t len = 1; len <= n + 2; len++) {
        char *buf = malloc(len); /* exactly len: the sanitizers watch */
        assert_non_null(buf);
        memset(buf, 'Z', len);
        if (g->fn(buf, len) != n)
            fail_msg("%s: not the whole length at %zu", g->what, len);
        if (strnlen(buf, len) == len)
            fail_msg("%s: no NUL at length %zu", g->what, len);
        char tok[32];
        cut_token(buf, full, tok, sizeof tok);
        free(buf);
        if (run > 0 && strcmp(tok, prev) == 0) {
            run++;
            continue;
        }
        if (run > 0) {
            char piece[48];
            snprintf(piece, sizeof piece, run > 1 ? "%s*%d " : "%s ", prev,
                     run);
            append(&out, &used, &cap, piece);
        }
        snprintf(prev, sizeof prev, "%s", tok);
        run = 1;
    }
    char piece[48];
    snprintf(piece, sizeof piece, run > 1 ? "%s*%d" : "%s", prev, run);
    append(&out, &used, &cap, piece);
    return out;
}

/* A C string literal of text: octal escapes for what is not printable
 * ASCII, pieces of at most about 60 bytes. */
static void print_literal(const char *text)
{
    printf("     \"");
    int col = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (col >= 56) {
            printf("\"\n     \"");
            col = 0;
        }
        if (*p == '"' || *p == '\\') {
            printf("\\%c", *p);
            col += 2;
        } else if (*p >= 0x20 && *p < 0x7F) {
            putchar(*p);
            col++;
        } else {
            printf("\\%03o", *p);
            col += 4;
        }
    }
    printf("\"");
}

static void test_render_cuts_fall_where_saved(void **state)
{
    (void)state;
    bool print = getenv("HEARTS_PRINT_CUTS") != NULL;
    for (size_t i = 0; i < sizeof golden / sizeof golden[0]; i++) {
        const struct golden *g = &golden[i];
        char full[1024];
        char *cuts = cuts_of(g, full, sizeof full);
        if (print) {
            printf("    {CASE(%s),\n", g->what);
            print_literal(full);
            printf(",\n     \"%s\"},\n", cuts);
        } else {
            if (strcmp(full, g->full) != 0)
                fail_msg("%s: whole text '%s', saved '%s'", g->what, full,
                         g->full);
            if (strcmp(cuts, g->cuts) != 0)
                fail_msg("%s: cuts\n  %s\nsaved\n  %s", g->what, cuts, g->cuts);
        }
        free(cuts);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_cuts_fall_where_saved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
