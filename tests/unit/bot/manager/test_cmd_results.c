/*
 * Tests of the results commands after real games (bot/manager/cmd_results.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

/* `text` said in room by nick from id (no account). */
static void said_from(const char *nick, const char *id, const char *room,
                      const char *text)
{
    struct chat_event ev = {.kind = CHAT_MESSAGE,
                            .room = room,
                            .from = {.nick = nick, .id = id},
                            .text = text};
    manager_on_event(w->m, &w->fake.base, &ev);
}

static void test_top_stats_last_and_scores_after_a_game(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    int from = w->fake.n;
    said("bob", "#h", "!last");
    assert_true(any_contains("#h", from, "No game has finished here yet."));
    four_people("standard hands=1"); /* an option: custom */
    struct table *t = the_table();
    play_everything(t);
    run_for(5);
    char path[128], text[8192];
    room_file(path, sizeof path, "results.jsonl");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "\"preset\":\"standard\",\"custom\":true,"
                                 "\"finished\":true"));
    assert_non_null(strstr(text, "\"key\":\"n:alice@host.test\""));

    /* counted under standard and under custom */
    from = w->fake.n;
    said("bob", "#h", "!top");
    const struct fake_chat_line *l = last_to("#h", from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "Top 4 (standard): 1. "));
    assert_non_null(strstr(l->text, "(1 game, "));
    assert_true(any_contains("#h", from, "?: provisional"));
    from = w->fake.n;
    said("bob", "#h", "!top 2 custom");
    assert_true(any_contains("#h", from, "Top 2 (custom): 1. "));
    from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice (standard): 1 game, "));
    assert_true(any_contains("#h", from, "(provisional), rank "));
    /* the lowest cards every time may shoot the moon */
    assert_true(any_contains("#h", from, " points a hand, "));
    assert_true(any_contains("#h", from, " moon"));
    from = w->fake.n;
    said("alice", "#h", "!stats CAROL custom");
    assert_true(any_contains("#h", from, "carol (custom): 1 game, "));
    said("alice", "#h", "!stats zed");
    assert_true(any_contains("#h", from, "zed has not finished a game here"));
    /* what hides or reorders text is not read, so never echoed */
    from = w->fake.n;
    said("alice", "#h",
         "!stats \xe2\x80\xae"
         "z\x01"
         "e\xe2\x81\xa6"
         "d\x1b");
    assert_true(any_contains("#h", from, "zed has not finished a game here"));
    for (int i = from; i < w->fake.n; i++)
        for (const unsigned char *p =
                 (const unsigned char *)w->fake.lines[i].text;
             *p; p++)
            assert_true(*p >= 0x20 && *p != 0xe2);

    /* refusals: privately, naming the range or the nearest preset */
    from = w->fake.n;
    said("bob", "#h", "!top 11");
    assert_true(any_contains("bob", from, "How many? 1 to 10."));
    said("bob", "#h", "!top standrd");
    assert_true(any_contains("bob", from, "standard"));
    assert_true(any_contains("bob", from, "!presets lists them"));
    assert_null(last_to("#h", from));

    /* the last game, and its sheet until the next one starts */
    from = w->fake.n;
    said("bob", "#h", "!last");
    l = last_to("#h", from);
    assert_non_null(l);
    /* hands=1 plays on past a tie */
    if (!strstr(l->text, "Last game (just now, standard with hands=1, ") ||
        !strstr(l->text, "): alice "))
        fail_msg("!last: %s", l->text);
    assert_true(strstr(l->text, " won.") || strstr(l->text, "shared the win"));
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_true(any_contains("#h", from, "the last game's sheet"));
    assert_true(any_contains("#h", from, "total"));
    four_people("standard");
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_false(any_contains("#h", from, "the last game's sheet"));

    /* a restart reads leaderboard.json back */
    manager_free(w->m);
    w->m = manager_new(w->loop, &w->cfg);
    w->fake.base.ctx = w->m;
    from = w->fake.n;
    said("dave", "#h", "!stats dave custom");
    assert_true(any_contains("#h", from, "dave (custom): 1 game, "));
}

/* Another question within channel_repeat is another answer: the room
 * hears it (!stats alice after !stats bot1, !top 3 after !top 10
 * custom, !stats Bob after !stats); the same answer again goes to the
 * asker alone, by notice on IRC and privately on Matrix, whoever asks. */
static void test_channel_repeat_goes_by_the_answer(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 30;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    const char *asked[][2] = {{"!stats bot1", "bot1"},
                              {"!stats alice", "alice (standard)"},
                              {"!top 10 custom", "Top 4 (custom)"},
                              {"!top 3", "Top 3 (standard)"},
                              {"!stats", "bob (standard)"},
                              {"!stats carol", "carol (standard)"},
                              {"!last", "Last game"}};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        int from = w->fake.n;
        run_for(8000); /* !stats alice 8 s after !stats bot1 */
        said("bob", "#h", asked[i][0]);
        if (!any_contains("#h", from, asked[i][1]))
            fail_msg("%s: not in the channel", asked[i][0]);
        /* the same answer again, by the same person or another: to
         * them (erin's own !stats is another answer) */
        const char *who = i % 2 || i == 4 ? "bob" : "erin";
        from = w->fake.n;
        said(who, "#h", asked[i][0]);
        assert_int_equal(lines_to("#h", from), 0);
        const struct fake_chat_line *l = last_to(who, from);
        if (!l || !strstr(l->text, asked[i][1]) || !l->notice)
            fail_msg("%s again: not told to %s", asked[i][0], who);
    }
    /* Matrix: !stats Bob after !stats, then the same again privately */
    run_for(30000); /* the room forgets what it heard */
    fake_chat_set_kind(&w->fake, FAKE_CHAT_MATRIX);
    int from = w->fake.n;
    said("dave", "#h", "!stats");
    said("dave", "#h", "!stats Bob");
    assert_true(any_contains("#h", from, "dave (standard)"));
    assert_true(any_contains("#h", from, "bob (standard)"));
    from = w->fake.n;
    said("erin", "#h", "!stats Bob");
    assert_int_equal(lines_to("#h", from), 0);
    assert_true(any_contains("erin", from, "bob (standard)"));
    assert_false(last_to("erin", from)->notice);
}

/* A nick change during a game does not split the record: the results
 * count for the key the person sat down with (their nick and host then),
 * the row shows that nick, and the person finds it under their new nick,
 * as do others. */
static void test_nick_change_keeps_one_record(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    event(CHAT_NICK, "alice", "alice@host.test", NULL, "zoe");
    struct table *t = the_table();
    assert_string_equal(t->seats[0].nick, "zoe");
    /* said() gives "nick@host.test": the same person, as zoe, from now */
    snprintf(t->seats[0].id, sizeof t->seats[0].id, "zoe@host.test");
    play_everything(t);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(
        strstr(text, "{\"name\":\"zoe\",\"key\":\"n:alice@host.test\""));
    assert_true(answered("bob", "!stats alice", "alice (standard): 1 game, "));
    /* whoever holds "zoe" now, and played as alice this session */
    assert_true(answered("bob", "!stats zoe", "alice (standard): 1 game, "));
    /* and zoe's own !stats is that record */
    assert_true(answered("zoe", "!stats", "alice (standard): 1 game, "));
    assert_true(answered("bob", "!top", "Top 4 (standard)"));
    assert_true(answered("bob", "!top", " alice "));
    assert_false(answered("bob", "!top", "zoe"));
}

/* The later holder of a nick, from another host, never gets the earlier
 * holder's record: a row of their own, shown with a number; the name
 * alone says there are two. */
static void test_nick_from_another_host_is_another_record(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    play_everything(the_table());
    run_for(5);
    /* alice quits; someone else takes "alice" from elsewhere */
    event(CHAT_QUIT, "alice", "alice@host.test", NULL, NULL);
    said_from("alice", "mal@elsewhere.test", "#h", "!stats");
    assert_true(any_contains("#h", w->fake.n - 1,
                             "You have not finished a game here."));
    /* mal plays as alice */
    int from = w->fake.n;
    said_from("alice", "mal@elsewhere.test", "#h", "!hearts standard hands=1");
    said("bob", "#h", "!join");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    struct table *t = the_table();
    assert_string_equal(t->seats[0].key, "n:alice@elsewhere.test");
    said_from("alice", "mal@elsewhere.test", "#h", "!start");
    play_everything(t);
    run_for(5);
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"n:alice@elsewhere.test\""));
    /* two rows, two names: alice (first seen) and alice(2) */
    from = w->fake.n;
    said("bob", "#h", "!top 10");
    /* five people: two lines */
    assert_true(any_contains("#h", from, ". alice "));
    assert_true(any_contains("#h", from, ". alice(2) "));
    int alices = 0;
    for (int i = from; i < w->fake.n; i++)
        for (const char *p = w->fake.lines[i].text; (p = strstr(p, ". alice"));
             p++)
            alices++;
    assert_int_equal(alices, 2);
    assert_true(
        answered("bob", "!stats alice(2)", "alice(2) (standard): 1 game"));
    assert_true(answered("bob", "!stats alice", "alice (standard): 1 game"));
    assert_true(answered("bob", "!stats alice",
                         "Other people played here as alice too: "
                         "!stats alice(2)."));
    assert_true(answered("bob", "!stats ALICE(2)", "alice(2) (standard)"));
    /* mal's own: their record, not the first alice's */
    from = w->fake.n;
    said_from("alice", "mal@elsewhere.test", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice(2) (standard): 1 game"));
    /* the first alice, back from her host, finds hers */
    from = w->fake.n;
    said("alice", "#h", "!stats");
    assert_true(any_contains("#h", from, "alice (standard): 1 game"));
    assert_false(any_contains("#h", from, "alice(2)"));
    /* no number that a name does not have */
    assert_true(answered("bob", "!stats alice(3)",
                         "alice(3) has not finished a game here"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_top_stats_last_and_scores_after_a_game, setup, teardown),
        cmocka_unit_test_setup_teardown(test_channel_repeat_goes_by_the_answer,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_nick_change_keeps_one_record,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nick_from_another_host_is_another_record, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
