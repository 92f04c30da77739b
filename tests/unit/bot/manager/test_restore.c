/*
 * Tests of games rebuilt from their journals at start (bot/manager/restore.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bot/manager/journaling.h"
#include "bot/manager/manager.h"
#include "storage/record/record.h"
#include "storage/storage.h"
#include "tests/unit/bot/manager/world.h"

static bool serves_nothing(const struct chat_adapter *a, const char *room)
{
    (void)a;
    (void)room;
    return false;
}

/* Appends raw text to a file. */
static void append_raw(const char *path, const char *text)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The directory holding a journal moved aside (".bad-"), or not. */
static bool moved_aside(const char *journal)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls %s.bad-* >/dev/null 2>&1", journal);
    return system(cmd) == 0;
}

static void test_restart_mid_pass_resumes_exactly(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    assert_true(path[0] != '\0');
    char cmd[100];
    first_three(t, 0, cmd, sizeof cmd);
    said(t->seats[0].nick, NULL, cmd);
    first_three(t, 2, cmd, sizeof cmd);
    said(t->seats[2].nick, NULL, cmd);
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_PASS);
    t = restart_same(t);
    /* back in the room: the channel is told, those to pass get the deal,
     * the others their hand */
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The game goes on after a restart: "
                             "waiting for the passes of"));
    assert_true(any_contains(t->seats[1].nick, from, "Your cards"));
    assert_true(any_contains(t->seats[3].nick, from, "Your cards"));
    assert_true(any_contains(t->seats[0].nick, from, "Your hand"));
    play_everything(t);
    assert_true(any_contains("#h", from, "Game over!"));
    int n;
    char *line = archived(&n);
    assert_int_equal(n, 1);
    char err[300];
    if (record_check(line, strlen(line), err, sizeof err))
        fail_msg("record refused: %s", err);
    free(line);
    /* the journal goes with the finished game, once its record is synced */
    mgr_sync_wait(w->m);
    assert_int_equal(access(path, F_OK), -1);
}

/* A room the adapter will not be in (a channel gone from the config): its
 * journal is left as it is, nothing is said; with the room back the game
 * goes on. */
static void test_restart_without_the_room_keeps_its_journal(void **state)
{
    (void)state;
    struct table *t = standard_game_at(6);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    static char before[65536], after[65536];
    read_small(path, before, sizeof before);
    char *was = snapshot(t);
    const struct chat_adapter_ops *ops = w->fake.base.ops;
    struct chat_adapter_ops elsewhere = *ops;
    elsewhere.serves = serves_nothing;
    w->fake.base.ops = &elsewhere;
    int from = w->fake.n;
    assert_null(restart());
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    run_for(5);
    assert_int_equal(w->fake.n, from);
    read_small(path, after, sizeof after);
    assert_string_equal(after, before);
    /* the room back in the config */
    w->fake.base.ops = ops;
    restart_to(was);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(
        any_contains("#h", from, "The game goes on after a restart: hand 1"));
}

static void test_restart_mid_trick_and_between_hands(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    w->cfg.turn_timeout = 60;
    struct table *t = standard_game_at(6);
    assert_int_equal(t->game.nplays, 6);
    t = restart_same(t);
    /* people are confirmed before anything private reaches them */
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The game goes on after a restart: "
                             "hand 1, "));
    int turn = engine_turn(&t->game);
    for (int s = 0; s < 4; s++)
        assert_int_equal(private_lines_to(t->seats[s].nick, from), 0);
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        identity(t->seats[s].nick, id);
    }
    assert_true(any_contains(t->seats[turn].nick, from, "Your turn at #h"));
    assert_true(
        any_contains(t->seats[(turn + 1) % 4].nick, from, "Your hand: "));
    /* the next person still plays */
    play_to(t, 1, 7);
    assert_int_equal(t->game.nplays, 7);
    /* what came in the passing is old news by now: never told again */
    for (int s = 0; s < 4; s++)
        assert_false(any_contains(t->seats[s].nick, from, "You received"));
    /* between hands: the scores so far come back too */
    w->cfg.next_hand_delay = 3600;
    play_to(t, 1, 99);
    assert_int_equal(engine_phase(&t->game), ENGINE_PHASE_DEAL);
    assert_int_equal(t->nhist, 1);
    t = restart_same(t);
    w->cfg.next_hand_delay = 0;
    from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "the next hand is dealt"));
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        identity(t->seats[s].nick, id);
    }
    all_sent(from);
    run_for(5);
    assert_int_equal(t->game.hand_no, 2);
    /* each next deal waits for the channel's lines to be sent */
    for (int guard = 0; guard < 100 && !t->closing; guard++) {
        all_sent(from);
        from = w->fake.n;
        play_everything(t);
    }
    int n;
    char *line = archived(&n);
    assert_int_equal(n, 1);
    free(line);
}

static void test_restart_keeps_a_lobby(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts standard target=30");
    said("bob", "#h", "!join");
    said("alice", "#h", "!bot");
    said("carol", "#h", "!join");
    said("carol", "#h", "!leave");
    struct table *t = restart();
    assert_non_null(t);
    assert_false(t->playing);
    assert_int_equal(mgr_table_seated(t), 3);
    assert_string_equal(t->seats[0].nick, "alice");
    assert_string_equal(t->seats[1].nick, "bob");
    assert_false(t->seats[2].human);
    assert_int_equal(t->opener, 0);
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from,
                             "The table goes on after a restart: "
                             "the table is open (3/4 seated)"));
    said("alice", "#h", "!start");
    assert_true(t->playing);
    play_everything(t);
    int n;
    free(archived(&n));
    assert_int_equal(n, 1);
}

static void test_restart_drops_a_torn_last_line(void **state)
{
    (void)state;
    struct table *t = standard_game_at(3);
    append_raw(t->journal, "{\"play\":\"2");
    t = restart_same(t);
    /* and the next line starts afresh */
    play_to(t, 1, 5);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    t = restart_same(t);
    assert_int_equal(t->game.nplays, 5);
}

static void test_restart_moves_a_corrupt_journal_aside(void **state)
{
    (void)state;
    struct table *t = standard_game_at(3);
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    /* a play of a card nobody holds now: the first card played again */
    char line[64];
    snprintf(line, sizeof line, "{\"play\":\"%s\"}\n",
             engine_card_name(t->game.plays[0]));
    append_raw(path, line);
    t = restart();
    assert_null(t);
    assert_int_equal(access(path, F_OK), -1);
    assert_true(moved_aside(path));
    int from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "could not be restored"));
    /* once */
    from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_false(any_contains("#h", from, "could not be restored"));
    /* the room is free for a new table */
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
}

static void test_restart_refuses_an_unknown_format(void **state)
{
    (void)state;
    /* a newer heartsbot's journal (a downgrade): refused, and kept as it
     * is for that bot, nothing said */
    said("alice", "#h", "!hearts");
    char path[1024];
    snprintf(path, sizeof path, "%s", the_table()->journal);
    static const char newer[] =
        "{\"format\":\"heartsbot-journal/9\",\"game\":\"0123456789abcdef\","
        "\"network\":\"test\",\"room\":\"#h\",\"rules\":\"standard\","
        "\"opened\":1}\n";
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(newer, f);
    fclose(f);
    int from = w->fake.n;
    assert_null(restart());
    assert_false(moved_aside(path));
    static char kept[4096];
    read_small(path, kept, sizeof kept);
    assert_string_equal(kept, newer);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_int_equal(w->fake.n, from);
    assert_int_equal(unlink(path), 0);
    /* a format that is no version of it: moved aside */
    said("alice", "#h", "!hearts");
    snprintf(path, sizeof path, "%s", the_table()->journal);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"heartsbot-journal\",\"game\":\"0123456789abcdef\","
          "\"network\":\"test\",\"room\":\"#h\",\"rules\":\"standard\","
          "\"opened\":1}\n",
          f);
    fclose(f);
    assert_null(restart());
    assert_true(moved_aside(path));
    /* an unknown rule is refused too */
    said("alice", "#h", "!hearts");
    snprintf(path, sizeof path, "%s", the_table()->journal);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"format\":\"heartsbot-journal/1\",\"game\":\"0123456789abcdef\","
          "\"network\":\"test\",\"room\":\"#h\",\"rules\":\"standard "
          "no_such_rule=1\",\"opened\":1}\n",
          f);
    fclose(f);
    assert_null(restart());
    assert_true(moved_aside(path));
    from = w->fake.n;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    assert_true(any_contains("#h", from, "could not be restored"));
}

/* heartsbot --check's verdict on a journal is the restart's, and the
 * check leaves the file as it was. */
static void test_the_check_of_a_journal_agrees_with_the_restart(void **state)
{
    (void)state;
    struct table *t = standard_game_at(3);
    char path[1024], room[64], err[400];
    snprintf(path, sizeof path, "%s", t->journal);
    assert_int_equal(
        manager_journal_check(path, room, sizeof room, err, sizeof err), 0);
    assert_string_equal(room, "#h");
    /* a torn last line: read as the restart reads it, and not cut */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    off_t whole = st.st_size;
    append_raw(path, "{\"play\":\"2");
    storage_set_read_only(true);
    assert_int_equal(
        manager_journal_check(path, room, sizeof room, err, sizeof err), 0);
    storage_set_read_only(false);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, whole + 10);
    assert_int_equal(truncate(path, whole), 0);
    /* a card nobody holds: refused by both */
    char line[64];
    snprintf(line, sizeof line, "{\"play\":\"%s\"}\n",
             engine_card_name(t->game.plays[0]));
    append_raw(path, line);
    assert_int_equal(
        manager_journal_check(path, room, sizeof room, err, sizeof err), -1);
    assert_non_null(strstr(err, "which it does not hold"));
    assert_null(restart());
    assert_true(moved_aside(path));
}

static void test_restart_archives_a_finished_journal(void **state)
{
    (void)state;
    four_people("standard target=30");
    struct table *t = the_table();
    char path[1024];
    snprintf(path, sizeof path, "%s", t->journal);
    /* the bot dies between the game's end and its archive: the journal
     * stays and the archive lacks the game */
    w->m->keep_journals = true;
    play_everything(t);
    int n;
    char *want = archived(&n);
    assert_int_equal(n, 1);
    char archive[128];
    snprintf(archive, sizeof archive, "%s/test/%%23h/archive.jsonl", w->dir);
    assert_int_equal(unlink(archive), 0);
    /* and the results and leaderboards that follow the archive */
    snprintf(archive, sizeof archive, "%s/test/%%23h/results.jsonl", w->dir);
    assert_int_equal(unlink(archive), 0);
    snprintf(archive, sizeof archive, "%s/test/%%23h/leaderboard.json", w->dir);
    unlink(archive);
    assert_int_equal(access(path, F_OK), 0);
    assert_null(restart());
    char *got = archived(&n);
    assert_int_equal(n, 1);
    assert_string_equal(got, want);
    mgr_sync_wait(w->m);
    assert_int_equal(access(path, F_OK), -1);
    free(got);
    free(want);
}

/* A restart keeps what the seats know of accounts (from their "a:"
 * keys): another account under the same nick and user@host is still
 * someone else. */
static void test_account_survives_a_restart(void **state)
{
    (void)state;
    four_accounts();
    struct table *t = restart();
    assert_non_null(t);
    assert_string_equal(t->seats[seat_of_nick(t, "alice")].account, "Alice");
    int turn = engine_turn(&t->game);
    char nick[64], cmd[32];
    snprintf(nick, sizeof nick, "%s", t->seats[turn].nick);
    lowest_play(t, cmd, sizeof cmd);
    said_account(nick, "Mallory", NULL, cmd);
    assert_int_equal(t->game.nplays, 0);
    char acct[sizeof t->seats[0].account];
    snprintf(acct, sizeof acct, "%s", t->seats[turn].account);
    said_account(nick, acct, NULL, cmd);
    assert_int_equal(t->game.nplays, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_restart_mid_pass_resumes_exactly,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_without_the_room_keeps_its_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_mid_trick_and_between_hands, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_keeps_a_lobby, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_restart_drops_a_torn_last_line,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_moves_a_corrupt_journal_aside, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restart_refuses_an_unknown_format,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_the_check_of_a_journal_agrees_with_the_restart, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_restart_archives_a_finished_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_survives_a_restart, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
