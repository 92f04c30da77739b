/*
 * Tests of a table's life: lobby, stop, shutdown (bot/manager/life.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "storage/record/record.h"
#include "tests/unit/bot/manager/world.h"

static void test_stopped_game_and_leaver(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    four_people("standard hands=1");
    said("alice", "#h", "!stop");
    char path[128], text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"finished\":false"));
    assert_true(answered("bob", "!top", "Nobody has finished a standard game"));

    /* bob leaves a running game: a loss, never a win */
    four_people("standard hands=1");
    said("bob", "#h", "!leave");
    said("bob", "#h", "!leave"); /* confirmed */
    play_everything(the_table());
    read_results(text, sizeof text);
    const char *second = strchr(text, '\n') + 1;
    assert_non_null(strstr(second,
                           "\"name\":\"bob\",\"key\":\"n:bob@host.test\","
                           "\"computer\":false,\"left\":true"));
    assert_non_null(strstr(second, "\"key\":\"n:alice@host.test\",\"computer\":"
                                   "false,\"left\":false"));
    assert_true(answered("bob", "!stats", "bob (standard): 1 game, 0 wins"));
    room_file(path, sizeof path, "archive.jsonl");
    read_small(path, text, sizeof text);
    char *nl = strchr(text, '\n');
    assert_non_null(nl);
    char err[300];
    if (record_check(text, (size_t)(nl - text), err, sizeof err))
        fail_msg("stopped game's record: %s", err);
}

static void test_lobby_timeout_closes_an_unstarted_table(void **state)
{
    (void)state;
    w->cfg.lobby_timeout = 1;
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
    run_for(500);
    assert_non_null(the_table());
    run_for(700);
    assert_null(the_table());
    assert_true(any_contains("#h", 0, "nobody started a game"));
    /* a started game is not closed by the lobby timer */
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!start");
    run_for(1300);
    assert_non_null(the_table());
}

static void test_shutdown_keeps_the_game_for_the_next_start(void **state)
{
    (void)state;
    struct table *t = standard_game_at(2);
    char *before = snapshot(t);
    /* it goes on: not one of the games the shutdown ends */
    assert_int_equal(manager_shutdown(w->m, "bye: this game ends unscored."),
                     0);
    assert_true(any_contains("#h", 0, "this game goes on when it is back"));
    run_for(5);
    restart_to(before);
}

/* The console's tables keep no journal: the shutdown ends their games,
 * says why, and counts them; a table not yet dealt just closes. */
static void test_shutdown_counts_the_games_it_ends(void **state)
{
    (void)state;
    w->fake.base.solo = true;
    said("you", "#h", "!hearts standard hands=1");
    said("you", "#h", "!start");
    said("you", "#l", "!hearts");
    int from = w->fake.n;
    assert_int_equal(manager_shutdown(w->m, "bye: this game ends unscored."),
                     1);
    assert_int_equal(count_starting("#h", from, "bye: this game ends"), 1);
    assert_int_equal(count_starting("#l", from, "bye"), 0);
    run_for(5);
    assert_null(the_table());
    /* nothing left to end */
    assert_int_equal(manager_shutdown(w->m, "again"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_lobby_timeout_closes_an_unstarted_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stopped_game_and_leaver, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_shutdown_keeps_the_game_for_the_next_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shutdown_counts_the_games_it_ends,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
