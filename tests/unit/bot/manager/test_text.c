/*
 * Tests of bot/manager/text.c: a table's cards, hands and seats go into
 * a message being built as the renderers write them, in the table's
 * style (plain on IRC without colours), a seat as a pill only in the
 * markup style and only for a person, and a renderer's cut cuts the
 * message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bot/config.h"
#include "bot/manager/lang.h"
#include "bot/manager/render.h"
#include "bot/manager/text.h"

static struct config cfg;
static struct manager mgr;
static struct chat_adapter adapter;
static struct table *t;

static int setup(void **state)
{
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.colors = true;
    memset(&mgr, 0, sizeof mgr);
    mgr.cfg = &cfg;
    memset(&adapter, 0, sizeof adapter);
    adapter.style = CHAT_STYLE_IRC;
    t = calloc(1, sizeof *t);
    assert_non_null(t);
    t->m = &mgr;
    t->a = &adapter;
    t->seats[0].human = true;
    strcpy(t->seats[0].nick, "@alice:hs.example");
    strcpy(t->seats[0].id, "@alice:hs.example");
    strcpy(t->seats[0].shown, "Alice");
    t->seats[1].human = false;
    strcpy(t->seats[1].shown, "easy1");
    t->seats[2].human = true;
    strcpy(t->seats[2].nick, "bob");
    strcpy(t->seats[2].id, "~bob@host");
    strcpy(t->seats[2].shown, "bob");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(t);
    return 0;
}

static void test_text_style(void **state)
{
    (void)state;
    assert_int_equal(mgr_table_style(t), CHAT_STYLE_IRC);
    cfg.colors = false;
    assert_int_equal(mgr_table_style(t), CHAT_STYLE_PLAIN);
    adapter.style = CHAT_STYLE_MARKUP; /* colours are IRC's setting */
    assert_int_equal(mgr_table_style(t), CHAT_STYLE_MARKUP);
    adapter.style = CHAT_STYLE_PLAIN;
    cfg.colors = true;
    assert_int_equal(mgr_table_style(t), CHAT_STYLE_PLAIN);
}

static void test_text_seat_user_id(void **state)
{
    (void)state;
    assert_string_equal(mgr_seat_user_id(t, 0), "@alice:hs.example");
    assert_null(mgr_seat_user_id(t, 1));
    /* not a user ID: the nick */
    assert_string_equal(mgr_seat_user_id(t, 2), "bob");
}

static void seat_text(int seat, bool notify, const char *want)
{
    char buf[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    strbuf_addstr(&sb, "> ");
    char name[MGR_TEXT_SIZE];
    strbuf_addstr(&sb, mgr_seat_text(name, sizeof name, t, seat, notify,
                                     mgr_look_room(t)));
    assert_string_equal(buf, want);
    assert_false(sb.cut);
}

static void test_text_seat(void **state)
{
    (void)state;
    seat_text(0, true, "> Alice"); /* IRC: no pills */
    adapter.style = CHAT_STYLE_MARKUP;
    seat_text(0, false,
              "> \x01@alice:hs.example\x01"
              "Alice\x01");
    seat_text(0, true,
              "> \x01!@alice:hs.example\x01"
              "Alice\x01");
    seat_text(1, true, "> easy1"); /* a computer: its name */
    seat_text(2, false,
              "> \x01"
              "bob\x01"
              "bob\x01");
}

/* Cards and hands read as the renderers write them in the look. */
static void test_text_cards_as_rendered(void **state)
{
    (void)state;
    static const enum chat_style styles[] = {CHAT_STYLE_IRC, CHAT_STYLE_PLAIN,
                                             CHAT_STYLE_MARKUP};
    const uint8_t cards[] = {ENGINE_2C, ENGINE_QC, ENGINE_JD, ENGINE_TD};
    struct engine_cards hand = {0};
    for (int i = 0; i < 4; i++)
        hand.one |= 1ull << cards[i];
    for (int k = 0; k < 3; k++) {
        char want[MGR_TEXT_SIZE], buf[MGR_TEXT_SIZE];
        struct render_look look = render_look_style(styles[k]);

        render_card(want, sizeof want, ENGINE_QC, look);
        assert_string_equal(mgr_card_text(buf, sizeof buf, look, ENGINE_QC),
                            want);

        render_cards(want, sizeof want, cards, 4, look);
        assert_string_equal(mgr_cards_text(buf, sizeof buf, look, cards, 4),
                            want);

        render_hand(want, sizeof want, &hand, 1ull << ENGINE_JD, look);
        assert_string_equal(
            mgr_hand_text(buf, sizeof buf, look, &hand, 1ull << ENGINE_JD),
            want);
    }
}

/* A message with little room: the renderer gets what is left, keeps
 * whole cards, and the message is marked cut. */
static void test_text_cut(void **state)
{
    (void)state;
    adapter.style = CHAT_STYLE_PLAIN;
    const uint8_t cards[] = {ENGINE_2C, ENGINE_QC, ENGINE_JD, ENGINE_TD};
    char full[MGR_TEXT_SIZE];
    render_cards(full, sizeof full, cards, 4,
                 render_look_style(CHAT_STYLE_PLAIN));
    char buf[16];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    strbuf_addstr(&sb, "cards: ");
    assert_int_equal(mgr_sb_room(&sb, MGR_TEXT_SIZE), 16 - 7);
    assert_int_equal(mgr_sb_room(&sb, 4), 4);
    char text[MGR_TEXT_SIZE];
    mgr_sb_rendered(&sb, text,
                    render_cards(text, mgr_sb_room(&sb, sizeof text), cards, 4,
                                 render_look_style(CHAT_STYLE_PLAIN)));
    assert_true(sb.cut);
    size_t n = strlen(buf + 7);
    assert_true(n > 0 && n < strlen(full));
    assert_memory_equal(buf + 7, full, n);
    /* whole cards only: the next byte of the full text is a space */
    assert_int_equal(full[n], ' ');
    /* once cut, no room */
    assert_int_equal(mgr_sb_room(&sb, MGR_TEXT_SIZE), 1);
}

static void test_text_rendered_and_room(void **state)
{
    (void)state;
    char buf[32];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    assert_int_equal(mgr_sb_room(&sb, 100), 32);
    mgr_sb_rendered(&sb, "abc", 3);
    assert_false(sb.cut);
    assert_string_equal(buf, "abc");
    assert_int_equal(mgr_sb_room(&sb, 100), 29);
    /* held bytes are not the renderer's */
    assert_true(strbuf_hold(&sb, 4));
    assert_int_equal(mgr_sb_room(&sb, 100), 25);
    /* the renderer needed more than it wrote: the message is cut */
    mgr_sb_rendered(&sb, "de", 5);
    assert_true(sb.cut);
    assert_string_equal(buf, "abcde");
    assert_int_equal(mgr_sb_room(&sb, 100), 1);
}

static void heard(void *ctx, const struct engine_game *g,
                  const struct engine_event *ev)
{
    (void)ctx;
    (void)g;
    (void)ev;
}

/* A four-seat game of `rules` at t, dealt, in plain text; seat 0 is
 * "you" in the tallies below. */
static void dealt(const char *rules)
{
    cfg.colors = false;
    strcpy(t->seats[3].shown, "dave");
    assert_int_equal(engine_rules_parse(&t->rules, rules, 4, NULL), 0);
    engine_game_init(&t->game, &t->rules, 7, 0);
    struct engine_sink none = {heard, NULL};
    assert_int_equal(engine_deal(&t->game, &none), 0);
}

static const char *tally(int you)
{
    static char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    mgr_sb_tally_for(&sb, t, mgr_look_room(t), you);
    return sb.buf;
}

static void test_tally_before_any_point_card(void **state)
{
    (void)state;
    dealt("standard");
    assert_string_equal(tally(0), "No point cards yet.");
    /* a club played changes nothing */
    t->game.plays[t->game.nplays++] = ENGINE_2C;
    assert_string_equal(tally(0), "No point cards yet.");
}

static void test_tally_names_the_queen_and_the_points_by_seat(void **state)
{
    (void)state;
    dealt("standard");
    struct engine_game *g = &t->game;
    /* bob took the queen: the moon in progress is there to see */
    g->plays[g->nplays++] = ENGINE_QS;
    g->taken[2].one |= ENGINE_BIT(ENGINE_QS);
    g->hand_points[2] = 13;
    assert_string_equal(tally(0), "Hearts unbroken, points: bob 13 (Q♠).");
    /* hearts broken, two seats with points, one of them the reader's */
    g->hearts_broken = 1;
    g->hand_points[0] = 2;
    assert_string_equal(tally(0), "Hearts broken, points: you 2, bob 13 (Q♠).");
    /* in the channel (!status) nobody is "you" */
    assert_string_equal(tally(-1),
                        "Hearts broken, points: Alice 2, bob 13 (Q♠).");
}

static void test_tally_follows_the_queen_unplayed_and_on_the_trick(void **state)
{
    (void)state;
    dealt("standard");
    struct engine_game *g = &t->game;
    g->hearts_broken = 1;
    g->plays[g->nplays++] = ENGINE_2H;
    g->hand_points[3] = 1;
    assert_string_equal(tally(0),
                        "Hearts broken, Q♠ unplayed, points: dave 1.");
    g->trick[g->trick_len] = ENGINE_QS;
    g->trick_seat[g->trick_len++] = 1;
    assert_string_equal(tally(0),
                        "Hearts broken, Q♠ on the trick, points: dave 1.");
}

static void test_tally_follows_a_bonus_card(void **state)
{
    (void)state;
    dealt("omnibus");
    struct engine_game *g = &t->game;
    g->plays[g->nplays++] = ENGINE_TD;
    g->taken[3].one |= ENGINE_BIT(ENGINE_TD);
    g->hand_points[3] = -10;
    assert_string_equal(
        tally(0), "Hearts unbroken, Q♠ unplayed, points: dave -10 (10♦).");
    /* where hearts may be led at any time, their state is not told */
    dealt("party");
    g->plays[g->nplays++] = ENGINE_2H;
    g->hand_points[1] = 1;
    assert_string_equal(tally(0), "Q♠ unplayed, points: easy1 1.");
}

static void test_seat_marks(void **state)
{
    (void)state;
    char buf[RENDER_SHOWN_SIZE + 16];
    /* a computer player's own seat: no mark */
    assert_null(mgr_seat_mark(t, 1, false, MSG_EN));
    assert_string_equal(mgr_seat_marked(t, 1, false, MSG_EN, buf, sizeof buf),
                        "easy1");
    /* a person playing: none */
    strcpy(t->seats[2].key, "n:bob@host");
    assert_null(mgr_seat_mark(t, 2, false, MSG_EN));
    /* away: a computer plays for them; at the end it counts as left */
    t->seats[2].away = true;
    assert_string_equal(mgr_seat_marked(t, 2, false, MSG_EN, buf, sizeof buf),
                        "bob (computer)");
    assert_string_equal(mgr_seat_mark(t, 2, true, MSG_EN), "(left)");
    assert_string_equal(mgr_seat_marked(t, 2, true, MSG_EN, buf, sizeof buf),
                        "bob (left)");
    /* gone for good with !leave */
    t->seats[2].away = false;
    t->seats[2].human = false;
    assert_string_equal(mgr_seat_marked(t, 2, false, MSG_EN, buf, sizeof buf),
                        "bob (left)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_style, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tally_before_any_point_card, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_tally_names_the_queen_and_the_points_by_seat, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_tally_follows_the_queen_unplayed_and_on_the_trick, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_tally_follows_a_bonus_card, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_seat_marks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_seat_user_id, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_text_seat, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_cards_as_rendered, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_text_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_text_rendered_and_room, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
