/*
 * Tests of a table's own turn length and slow games (bot/manager/slow.c),
 * through the manager's test world (world.h) on a wall clock of the
 * tests' own: hours pass at once, and the table looks at the clock every
 * few milliseconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/manager/slow.h"
#include "tests/unit/bot/manager/world.h"

#define HOUR 3600
#define DAY 86400

static int64_t wall_now;

static int64_t fake_wall(void)
{
    return wall_now;
}

/* The manager looks at the tests' clock, often. */
static void on_fake_wall(void)
{
    w->m->wall = fake_wall;
    w->m->slow_check_ms = 2;
}

static int setup_slow(void **state)
{
    int rc = setup(state);
    wall_now = 1764669600; /* 2025-12-02 10:00 UTC */
    on_fake_wall();
    return rc;
}

/* The wall clock moves on by `s` seconds, and the loop runs a little. */
static void later(int64_t s)
{
    wall_now += s;
    run_for(20);
}

/* Four people at a slow game without passing: the seat to play. */
static int slow_four(const char *length)
{
    char rules[100];
    snprintf(rules, sizeof rules, "standard pass_count=0 turn_timeout=%s",
             length);
    four_people(rules);
    return engine_turn(&the_table()->game);
}

static void test_durations_read_and_written(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int seconds;
    } good[] = {{"1d", DAY},          {"12h", 12 * HOUR},
                {"90m", 5400},        {"45s", 45},
                {"300", 300},         {"1h30m", 5400},
                {"1d12h", 36 * HOUR}, {"2D", 2 * DAY},
                {"7d", 7 * DAY},      {"1d1h1m1s", DAY + HOUR + 61}};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        int s = -1;
        assert_int_equal(mgr_duration_parse(good[i].text, &s), 0);
        assert_int_equal(s, good[i].seconds);
    }
    static const char *const bad[] = {"",     "h",   "1x",   "1h1d",
                                      "1h30", "-5",  "1.5h", "1 d",
                                      "d1",   "1dd", "1h1h", "9999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int s = -1;
        if (mgr_duration_parse(bad[i], &s) == 0)
            fail_msg("read: \"%s\"", bad[i]);
    }
    /* too large is read as too large (then refused by its bounds) */
    int s;
    assert_int_equal(mgr_duration_parse("999999999d", &s), 0);
    assert_true(s > SLOW_TURN_MAX);
    char text[32];
    assert_string_equal(mgr_duration_text(text, sizeof text, DAY), "1d");
    assert_string_equal(mgr_duration_text(text, sizeof text, 5400), "1h30m");
    assert_string_equal(mgr_duration_text(text, sizeof text, 45), "45s");
    assert_string_equal(mgr_duration_text(text, sizeof text, 0), "0s");
    assert_string_equal(mgr_duration_text(text, sizeof text, -3), "0s");
    assert_string_equal(mgr_duration_text(text, sizeof text, 14 * HOUR + 59),
                        "14h59s");
    /* the time left of a turn is told to the minute, rounded up */
    struct table t = {.slow_deadline = 100000};
    assert_string_equal(
        mgr_slow_left_text(text, sizeof text, &t, 100000 - 3541), "1h");
    assert_string_equal(mgr_slow_left_text(text, sizeof text, &t, 100000 - 61),
                        "2m");
    assert_string_equal(mgr_slow_left_text(text, sizeof text, &t, 100000),
                        "0s");
    assert_string_equal(mgr_slow_left_text(text, sizeof text, &t, 200000),
                        "0s");
}

static void test_the_option_is_taken_out_of_the_rules(void **state)
{
    (void)state;
    char rest[100], value[16];
    bool found;
    assert_int_equal(mgr_slow_take("standard turn_timeout=1d hands=1", rest,
                                   sizeof rest, value, sizeof value, &found),
                     0);
    assert_true(found);
    assert_string_equal(rest, "standard hands=1");
    assert_string_equal(value, "1d");
    assert_int_equal(mgr_slow_take("omnibus  target=50", rest, sizeof rest,
                                   value, sizeof value, &found),
                     0);
    assert_false(found);
    assert_string_equal(rest, "omnibus target=50");
    /* the last one counts */
    assert_int_equal(mgr_slow_take("turn_timeout=1h TURN_TIMEOUT=2h", rest,
                                   sizeof rest, value, sizeof value, &found),
                     0);
    assert_string_equal(rest, "");
    assert_string_equal(value, "2h");
    /* a value too long for its buffer is none */
    assert_int_equal(mgr_slow_take("a turn_timeout=11111111111111111111 b",
                                   rest, sizeof rest, value, sizeof value,
                                   &found),
                     0);
    assert_true(found);
    assert_string_equal(value, "");
    assert_string_equal(rest, "a b");
    /* more words than rest holds */
    char small[8];
    assert_int_equal(mgr_slow_take("standard target=50", small, sizeof small,
                                   value, sizeof value, &found),
                     -1);
}

/* The option opens a table of the preset it names, shown wherever the
 * rules are; the rules stay the preset's. */
static void test_a_slow_table_opens_and_shows_its_turns(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", "#h", "!hearts standard turn_timeout=1d hands=1");
    struct table *t = the_table();
    assert_non_null(t);
    assert_int_equal(t->turn_timeout, DAY);
    assert_true(mgr_slow(t));
    assert_string_equal(t->rules_text, "standard hands=1");
    assert_true(
        any_contains("#h", from,
                     "opens a Hearts table: standard for 4 with hands=1 "
                     "turn_timeout=1d."));
    from = w->fake.n;
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from,
                             "Table at #h: standard hands=1 turn_timeout=1d."));
    from = w->fake.n;
    said("bob", "#h", "!rules");
    assert_true(
        any_contains("bob", from, "Changed here: hands=1 turn_timeout=1d."));
    assert_true(
        any_contains("bob", from, "A slow game: each turn lasts up to 1d"));
    from = w->fake.n;
    said("bob", "#h", "!hearts");
    assert_true(any_contains("bob", from, "with hands=1 turn_timeout=1d"));
    said("alice", "#h", "!start");
    assert_true(
        any_contains("#h", from, "Rules: standard hands=1 turn_timeout=1d."));
    /* the journal says it: version 2, with the length */
    char path[128], text[4096];
    snprintf(path, sizeof path, "journal-%s.jsonl", t->game_id);
    char full[256];
    room_file(full, sizeof full, path);
    read_small(full, text, sizeof text);
    assert_non_null(strstr(text, "\"format\":\"heartsbot-journal/2\""));
    assert_non_null(strstr(text, "\"turn_timeout\":86400"));
    assert_non_null(strstr(text, "\"deadline\":"));
}

/* Options alone go over the channel's rules, as any option does; a turn
 * under an hour is the table's own length but no slow game. */
static void test_options_alone_and_a_short_turn(void **state)
{
    (void)state;
    room_entry("#h", "omnibus target=50", NULL);
    said("alice", "#h", "!hearts turn_timeout=45s");
    struct table *t = the_table();
    assert_non_null(t);
    assert_string_equal(t->rules_text, "omnibus target=50");
    assert_int_equal(t->turn_timeout, 45);
    assert_int_equal(mgr_turn_seconds(t), 45);
    assert_false(mgr_slow(t));
    /* a normal table's journal stays version 1 */
    said("alice", "#h", "!stop");
    run_for(5);
    said("alice", "#h", "!hearts target=60");
    t = the_table();
    assert_int_equal(t->turn_timeout, 0);
    assert_int_equal(mgr_turn_seconds(t), w->cfg.turn_timeout);
    char path[128], full[256], text[4096];
    snprintf(path, sizeof path, "journal-%s.jsonl", t->game_id);
    room_file(full, sizeof full, path);
    read_small(full, text, sizeof text);
    assert_non_null(strstr(text, "\"format\":\"heartsbot-journal/1\""));
    assert_null(strstr(text, "turn_timeout"));
}

static void test_bad_turn_lengths_are_refused_with_the_bounds(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "!hearts standard turn_timeout=29s",
        "!hearts standard turn_timeout=8d",
        "!hearts standard turn_timeout=abc",
        "!hearts turn_timeout=",
        "!hearts standard turn_timeout=1h30",
        "!hearts standard turn_timeout=1111111111111111111111111111111111111"
        "111111111111111111111111111111111111111111111111111111111111111"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        refused("bob", "#h", bad[i],
                "turn_timeout is a time from 30s to 7d, such as 45s, 90m, 12h "
                "or 1d.");
    assert_null(the_table());
    /* the host's bound */
    w->cfg.max_turn_timeout = HOUR;
    refused("alice", "#h", "!hearts standard turn_timeout=2h",
            "turn_timeout is a time from 30s to 1h,");
    said("alice", "#h", "!hearts standard turn_timeout=1h");
    assert_non_null(the_table());
    said("alice", "#h", "!stop");
    run_for(5);
    w->cfg.max_turn_timeout = 0;
    refused("alice", "#h", "!hearts turn_timeout=1h",
            "tables here can't set turn_timeout");
    assert_null(the_table());
}

/* A day's turn: privately half way and an hour before the end, the
 * channel with the first; nothing more however long the loop runs. */
static void test_reminders_come_at_a_slow_pace(void **state)
{
    (void)state;
    int s = slow_four("1d");
    struct table *t = the_table();
    const char *nick = t->seats[s].nick;
    int from = w->fake.n;
    later(6 * HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 0);
    later(6 * HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 1);
    assert_true(any_contains(nick, from,
                             "Reminder: the table at #h waits for you: 12h "
                             "left, until 2025-12-03 10:00 UTC."));
    assert_int_equal(count_starting("#h", from, "The table waits for"), 1);
    assert_true(any_contains("#h", from, ": 12h left, until 2025-12-03"));
    run_for(50);
    later(HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 1);
    later(10 * HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 2);
    assert_true(any_contains(nick, from, ": 1h left,"));
    /* eleven hours after the last: the channel hears this one too */
    assert_int_equal(count_starting("#h", from, "The table waits for"), 2);
    run_for(50);
    assert_int_equal(count_starting(nick, from, "Reminder"), 2);
    assert_true(t->seats[s].human && !t->seats[s].away);
    assert_int_equal(engine_turn(&t->game), s);
}

/* Turns of two hours: the channel hears a reminder at most every three
 * hours, however many turns. */
static void test_the_channel_is_not_flooded(void **state)
{
    (void)state;
    slow_four("2h");
    struct table *t = the_table();
    int from = w->fake.n;
    for (int turn = 0; turn < 4; turn++) {
        int s = engine_turn(&t->game);
        int mine = w->fake.n;
        later(HOUR);
        later(45 * 60);
        assert_int_equal(count_starting(t->seats[s].nick, mine, "Reminder"), 2);
        person_acts(t);
    }
    /* 7 hours: the first turn's, then one three hours on at most */
    int said_ = count_starting("#h", from, "The table waits for");
    assert_true(said_ >= 2 && said_ <= 3);
}

/* The time runs out: a computer plays that one card, the person keeps
 * the seat, turn after turn. */
static void test_time_up_keeps_the_seat(void **state)
{
    (void)state;
    int s = slow_four("1d");
    struct table *t = the_table();
    const char *nick = t->seats[s].nick;
    int from = w->fake.n;
    for (int k = 0; k < 8; k++) {
        /* everyone sleeps through their turns, twice (max_timeouts) */
        int plays = t->game.nplays;
        later(DAY);
        assert_int_equal(t->game.nplays, plays + 1);
    }
    assert_true(
        any_contains(nick, from, "Time is up: a computer player played"));
    assert_false(any_contains(nick, from, "has your seat"));
    assert_false(any_contains("#h", from, "is away"));
    for (int i = 0; i < 4; i++)
        assert_true(t->seats[i].human && !t->seats[i].away);
    /* the trick's winner leads, a person with a whole day again */
    assert_false(mgr_seat_computer(t, engine_turn(&t->game)));
    assert_true(t->slow_deadline == wall_now + DAY);
}

/* Leaving the channel or the network keeps the seat for the whole turn,
 * and the table does not pause with everyone offline overnight. */
static void test_gone_for_the_night_keeps_the_seat(void **state)
{
    (void)state;
    w->cfg.unattended_pause = 0;
    int s = slow_four("1d");
    struct table *t = the_table();
    int from = w->fake.n;
    static const char *const nicks[] = {"alice", "bob", "carol", "dave"};
    for (int i = 0; i < 4; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s@host.test", nicks[i]);
        event(i % 2 ? CHAT_QUIT : CHAT_PART, nicks[i], id, i % 2 ? NULL : "#h",
              NULL);
    }
    run_for(1500); /* the config's grace period is 1 s */
    later(HOUR);
    assert_false(t->paused);
    assert_false(any_contains("#h", from, "has not come back"));
    assert_false(any_contains("#h", from, "Nobody is at the table"));
    for (int i = 0; i < 4; i++)
        assert_true(t->seats[i].human && !t->seats[i].away);
    assert_int_equal(engine_turn(&t->game), s);
    assert_int_equal(t->game.nplays, 0);
    /* the turn runs out with everyone away: one move, no pause */
    later(DAY - HOUR);
    assert_int_equal(t->game.nplays, 1);
    assert_false(t->paused);
    for (int i = 0; i < 4; i++)
        assert_true(t->seats[i].human && !t->seats[i].away);
    /* the morning: the next player is back, and it is their turn */
    s = engine_turn(&t->game);
    char id[128];
    snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
    from = w->fake.n;
    event(CHAT_JOIN, t->seats[s].nick, id, "#h", NULL);
    assert_false(t->seats[s].gone);
    assert_true(any_contains(t->seats[s].nick, from, "Your turn at #h"));
}

/* The same with a game of ordinary turns: the seat goes, the table
 * pauses (what a slow game must not do). */
static void test_an_ordinary_game_pauses_when_everyone_leaves(void **state)
{
    (void)state;
    w->cfg.unattended_pause = 0;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    static const char *const nicks[] = {"alice", "bob", "carol", "dave"};
    for (int i = 0; i < 4; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s@host.test", nicks[i]);
        event(CHAT_PART, nicks[i], id, "#h", NULL);
    }
    run_for(1500);
    assert_true(t->paused);
}

/* A restart ten hours into a day's turn leaves fourteen hours, and the
 * reminder sent before it is not sent again. */
static void test_a_restart_keeps_the_deadline(void **state)
{
    (void)state;
    int s = slow_four("1d");
    struct table *t = the_table();
    char nick[64];
    snprintf(nick, sizeof nick, "%s", t->seats[s].nick);
    int64_t deadline = t->slow_deadline;
    assert_true(deadline == wall_now + DAY);
    later(10 * HOUR);
    t = restart();
    assert_non_null(t);
    on_fake_wall();
    assert_int_equal(t->turn_timeout, DAY);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    run_for(20);
    assert_true(t->slow_deadline == deadline);
    int from = w->fake.n;
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from,
                             "Turn time left: 14h, until "
                             "2025-12-03 10:00 UTC."));
    from = w->fake.n;
    later(2 * HOUR + 60);
    assert_int_equal(count_starting(nick, from, "Reminder"), 1);
    /* again, after the reminder */
    t = restart();
    on_fake_wall();
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    run_for(20);
    assert_true(t->slow_deadline == deadline);
    assert_int_equal(t->slow_reminded, 1);
    from = w->fake.n;
    later(HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 0);
    assert_int_equal(count_starting("#h", from, "The table waits"), 0);
    /* the last one, then the end of the turn, on the first deadline */
    later(10 * HOUR);
    assert_int_equal(count_starting(nick, from, "Reminder"), 1);
    assert_int_equal(t->game.nplays, 0);
    later(HOUR - 61);
    assert_int_equal(t->game.nplays, 0);
    later(1);
    assert_int_equal(t->game.nplays, 1);
}

/* A deadline that passed while the bot was away is kept: the computer
 * plays once the bot is back; the next turn gets a whole day. */
static void test_a_deadline_passed_while_away(void **state)
{
    (void)state;
    slow_four("1d");
    struct table *t = restart();
    on_fake_wall();
    wall_now += 2 * DAY;
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    run_for(30);
    assert_int_equal(t->game.nplays, 1);
    assert_true(t->slow_deadline == wall_now + DAY);
}

/* A slow table's lobby waits longer than the config's lobby_timeout. */
static void test_a_slow_lobby_waits(void **state)
{
    (void)state;
    w->cfg.lobby_timeout = 1;
    said("alice", "#h", "!hearts standard");
    run_for(1200);
    assert_null(the_table());
    said("alice", "#h", "!hearts standard turn_timeout=1h");
    run_for(1200);
    assert_non_null(the_table());
    /* one who leaves the lobby keeps the seat longer than grace_period */
    event(CHAT_QUIT, "alice", "alice@host.test", NULL, NULL);
    run_for(1200);
    assert_non_null(the_table());
    assert_true(the_table()->seats[0].used);
}

/* A slow game of the standard preset counts on the standard board: its
 * turn length is no rule. */
static void test_a_slow_game_is_not_custom(void **state)
{
    (void)state;
    four_people("standard turn_timeout=1d");
    play_everything(the_table());
    char text[8192];
    read_results(text, sizeof text);
    assert_non_null(strstr(text, "\"preset\":\"standard\""));
    assert_non_null(strstr(text, "\"custom\":false"));
    assert_null(strstr(text, "turn_timeout"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_durations_read_and_written,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(
            test_the_option_is_taken_out_of_the_rules, setup_slow, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_slow_table_opens_and_shows_its_turns, setup_slow, teardown),
        cmocka_unit_test_setup_teardown(test_options_alone_and_a_short_turn,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(
            test_bad_turn_lengths_are_refused_with_the_bounds, setup_slow,
            teardown),
        cmocka_unit_test_setup_teardown(test_reminders_come_at_a_slow_pace,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(test_the_channel_is_not_flooded,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(test_time_up_keeps_the_seat, setup_slow,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_gone_for_the_night_keeps_the_seat,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(
            test_an_ordinary_game_pauses_when_everyone_leaves, setup_slow,
            teardown),
        cmocka_unit_test_setup_teardown(test_a_restart_keeps_the_deadline,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(test_a_deadline_passed_while_away,
                                        setup_slow, teardown),
        cmocka_unit_test_setup_teardown(test_a_slow_lobby_waits, setup_slow,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_slow_game_is_not_custom,
                                        setup_slow, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
