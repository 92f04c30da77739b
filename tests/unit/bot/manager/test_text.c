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
    mgr_sb_seat(&sb, t, seat, notify);
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

/* Cards and hands read as the renderers write them in the style. */
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
        adapter.style = styles[k];
        char want[MGR_TEXT_SIZE], buf[MGR_TEXT_SIZE];
        struct strbuf sb;

        strbuf_init(&sb, buf, sizeof buf);
        mgr_sb_card(&sb, t, ENGINE_QC);
        render_card(want, sizeof want, ENGINE_QC, styles[k]);
        assert_string_equal(buf, want);

        strbuf_init(&sb, buf, sizeof buf);
        mgr_sb_cards(&sb, t, cards, 4);
        render_cards(want, sizeof want, cards, 4, styles[k]);
        assert_string_equal(buf, want);

        strbuf_init(&sb, buf, sizeof buf);
        strbuf_addstr(&sb, "Your hand: ");
        mgr_sb_hand(&sb, t, &hand, 1ull << ENGINE_JD);
        size_t n = strlen("Your hand: ");
        render_hand(want, sizeof want, &hand, 1ull << ENGINE_JD, styles[k]);
        assert_string_equal(buf + n, want);
        assert_false(sb.cut);
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
    render_cards(full, sizeof full, cards, 4, CHAT_STYLE_PLAIN);
    char buf[16];
    struct strbuf sb;
    strbuf_init(&sb, buf, sizeof buf);
    strbuf_addstr(&sb, "cards: ");
    assert_int_equal(mgr_sb_room(&sb, MGR_TEXT_SIZE), 16 - 7);
    assert_int_equal(mgr_sb_room(&sb, 4), 4);
    mgr_sb_cards(&sb, t, cards, 4);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_text_style, setup, teardown),
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
