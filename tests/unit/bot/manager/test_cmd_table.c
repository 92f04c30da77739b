/*
 * Tests of the table's commands (bot/manager/cmd_table.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

static void test_hearts_opens_and_join_fills(void **state)
{
    (void)state;
    said("alice", "#h", "!hearts omnibus");
    assert_non_null(the_table());
    assert_true(any_contains("#h", 0, "alice opens a Hearts table: omnibus"));
    said("bob", "#h", "!join");
    assert_true(any_contains("#h", 0, "bob sits down (2/4)"));
    refused("bob", "#h", "!join", "seated here already");
    refused("bob", "#h", "!start", "Only alice");
    said("bob", "#h", "!bot 2");
    assert_true(any_contains("#h", 0, "2 computer players (easy) sit down"));
    refused("erin", "#h", "!join", "full");
    /* one seat per person per network */
    refused("bob", "#other", "!hearts", "in #h already");
    said("bob", "#h", "!leave");
    assert_true(any_contains("#h", 0, "bob stands up (3/4)"));
}

static void test_hearts_refuses_bad_rules_with_nearest(void **state)
{
    (void)state;
    refused("alice", "#h", "!hearts omnibuss", "did you mean 'omnibus'");
    assert_null(the_table());
    refused("alice", "#h", "!hearts standard tagret=5", "'target'");
    refused("alice", "#h", "!hearts partners players=5", "for 4 players");
    assert_null(the_table());
}

static void test_stop_by_opener_and_by_votes(void **state)
{
    (void)state;
    four_people("standard");
    refused("erin", "#h", "!stop", "Only the opener");
    said("bob", "#h", "!stop");
    assert_true(any_contains("#h", 0, "bob votes to stop the game (1 of 4)"));
    assert_false(the_table()->closing);
    said("carol", "#h", "!stop");
    assert_false(the_table() == NULL);
    said("dave", "#h", "!stop"); /* three of four: a majority */
    assert_null(the_table());
    assert_true(any_contains("#h", 0, "ends unscored"));
    run_for(10);
    assert_int_equal(manager_tables(w->m), 0);
    said("alice", "#h", "!hearts");
    said("alice", "#h", "!stop");
    assert_null(the_table());
}

/* What the fake adapter was asked by !part. */
static int nparts, nasks;
static char parted[64], asked[64];

static void fake_part(struct chat_adapter *a, const char *room,
                      const char *goodbye)
{
    (void)a;
    (void)goodbye;
    nparts++;
    snprintf(parted, sizeof parted, "%s", room);
}

static void fake_ask_operator(struct chat_adapter *a, const char *room,
                              const struct chat_user *u)
{
    (void)a;
    (void)room;
    nasks++;
    snprintf(asked, sizeof asked, "%s", u->nick);
}

static void operator_answer(const char *nick, bool op)
{
    struct chat_event ev = {.kind = CHAT_OPERATOR,
                            .room = "#h",
                            .from = user(nick),
                            .text = op ? "yes" : NULL};
    manager_on_event(w->m, &w->fake.base, &ev);
}

/* !part: without the adapter's part, refused; an operator is asked of
 * the network and may send the bot away only while no game is on; an
 * admin always, the game ending unscored. */
static void test_part_by_operator_or_admin(void **state)
{
    (void)state;
    nparts = nasks = 0;
    refused("alice", "#h", "!part", "only when my configuration says so");
    w->fake.ops.part = fake_part;
    w->fake.ops.ask_operator = fake_ask_operator;
    w->cfg.admins = calloc(1, sizeof *w->cfg.admins);
    w->cfg.admins[0] = strdup("boss!*@*");
    w->cfg.nadmins = 1; /* freed with the config */
    four_people("standard");
    /* a game on: an operator is refused without asking */
    refused("erin", "#h", "!part", "A game is on here");
    assert_int_equal(nasks, 0);
    /* the answer came while a game started: still refused */
    int at = w->fake.n;
    operator_answer("erin", true);
    assert_true(any_contains("erin", at, "A game is on here"));
    assert_int_equal(nparts, 0);
    assert_non_null(the_table());
    /* an admin: the game ends unscored, goodbye, part */
    int from = w->fake.n;
    said("boss", "#h", "!part");
    assert_null(the_table());
    assert_true(any_contains("#h", from,
                             "boss sends me away: the game ends "
                             "unscored"));
    assert_true(any_contains("#h", from, "Goodbye! boss asked me"));
    assert_int_equal(nparts, 1);
    assert_string_equal(parted, "#h");
    /* no game: an operator is asked of the network */
    said("erin", "#h", "!part");
    assert_int_equal(nasks, 1);
    assert_string_equal(asked, "erin");
    at = w->fake.n;
    operator_answer("erin", false);
    assert_true(any_contains("erin", at, "Only an operator of this channel"));
    assert_int_equal(nparts, 1);
    operator_answer("erin", true);
    assert_int_equal(nparts, 2);
}

static void test_status_scores_rules_presets_help(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0; /* many commands from one person */
    int from = w->fake.n;
    said("alice", NULL, "help");
    assert_true(any_contains("alice", from, "!hearts opens a table"));
    said("alice", "#h", "!presets");
    assert_true(any_contains("alice", from, "black-maria (3-7)"));
    said("alice", "#h", "!rules greek");
    assert_true(any_contains("alice", from, "greek"));
    said("alice", "#h", "!help stop");
    assert_true(any_contains("alice", from, "end the game unscored"));
    /* help names every command, and the computer players' levels */
    static const char *const every[] = {
        "!hearts",  "!join",   "!start",  "!leave", "!bot",  "!stop",
        "!status",  "!scores", "!top",    "!stats", "!last", "!rules",
        "!presets", "!play",   "!help",   "hand",   "pass",  "moon",
        "discard",  "back",    "autoplay"};
    said("alice", NULL, "help");
    const struct fake_chat_line *l = last_to("alice", from);
    for (size_t i = 0; i < sizeof every / sizeof every[0]; i++)
        if (!strstr(l->text, every[i]))
            fail_msg("help without %s: %s", every[i], l->text);
    said("alice", "#h", "!help bot");
    assert_true(any_contains("alice", from, "Levels, with their rating"));
    four_people("standard");
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from, "Passing; waiting for"));
    said("bob", "#h", "!top");
    assert_true(
        any_contains("#h", from, "Nobody has finished a standard game"));
}

static void test_leave_in_a_game_asks_for_confirmation(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    four_people("standard");
    struct table *t = the_table();
    int bob = seat_of_nick(t, "bob");
    int from = w->fake.n;
    said("bob", "#h", "!leave");
    /* the first asks, says it is a loss, and changes nothing */
    assert_true(any_contains("bob", from, "Leaving counts as a loss"));
    assert_true(any_contains("bob", from, "!leave again within 30 s"));
    assert_true(t->seats[bob].human);
    assert_false(any_contains("#h", from, "bob leaves the game"));
    /* too late: asked again */
    t->seats[bob].leave_asked -= 31000;
    from = w->fake.n;
    said("bob", "#h", "!leave");
    assert_true(any_contains("bob", from, "Leaving counts as a loss"));
    assert_true(t->seats[bob].human);
    /* the second in time leaves */
    from = w->fake.n;
    said("bob", "#h", "!leave");
    assert_false(t->seats[bob].human);
    assert_true(any_contains("#h", from, "bob leaves the game"));
}

static void test_status_tells_the_tally(void **state)
{
    (void)state;
    w->cfg.channel_repeat = 0;
    four_people("standard pass_count=0");
    int from = w->fake.n;
    said("bob", "#h", "!status");
    const struct fake_chat_line *l = last_to("#h", from);
    assert_non_null(l);
    if (!strstr(l->text, "Scores: alice 0, bob 0, carol 0, dave 0. No point "
                         "cards yet. "))
        fail_msg("status: '%s'", l->text);
    /* a heart taken: the tally names the seat, in the same line */
    struct table *t = the_table();
    t->game.hearts_broken = 1;
    t->game.plays[t->game.nplays++] = ENGINE_2H;
    t->game.hand_points[2] = 1;
    from = w->fake.n;
    said("bob", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_true(any_contains("#h", from,
                             "Hearts broken, Q♠ unplayed, points: carol 1. "));
}

/* The table's lines are in the channel's language, answers in the
 * asker's: !status said in the channel in its language, and again (a
 * repeat) to the asker in theirs. */
static void
test_lines_in_the_channels_language_answers_in_the_askers(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    free(w->cfg.lang);
    w->cfg.lang = strdup("fr");
    said("bob", NULL, "lang de");
    said("alice", "#h", "!hearts");
    assert_true(any_contains("#h", 0,
                             "alice ouvre une table de Hearts : standard "
                             "\xc3\xa0 4. !join pour s'asseoir"));
    said("bob", "#h", "!join");
    assert_true(any_contains("#h", 0, "bob s'assied (2/4)."));
    refused("bob", "#h", "!join", "Du sitzt hier schon.");
    refused("bob", "#h", "!start",
            "kann nur starten, wer den Tisch er\xc3\xb6"
            "ffnet hat: alice.");
    int from = w->fake.n;
    said("bob", "#h", "!status");
    assert_true(any_contains("#h", from,
                             "Table de #h : standard. En attente du d\xc3\xa9"
                             "part (2/4) : alice bob."));
    said("bob", "#h", "!status");
    assert_true(any_contains("bob", from,
                             "Tisch in #h: standard. Wartet auf den Start "
                             "(2/4): alice bob."));
    said("bob", "#h", "!bot 2");
    assert_true(
        any_contains("#h", from, "2 ordinateurs (easy) s'assoient (4/4)."));
    said("alice", "#h", "!stop");
    assert_null(the_table());
    assert_true(any_contains("#h", from, "alice ferme la table."));
}

/* !status in a game: the line said in the channel is wholly in the
 * channel's language, its tally too, and the one told to a person is
 * wholly in theirs. */
static void test_status_in_a_game_in_the_readers_language(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    free(w->cfg.lang);
    w->cfg.lang = strdup("fr");
    said("bob", NULL, "lang de");
    four_people("standard pass_count=0");
    struct table *t = the_table();
    t->game.hearts_broken = 1;
    t->game.plays[t->game.nplays++] = ENGINE_2H;
    t->game.hand_points[2] = 1;
    int from = w->fake.n;
    said("bob", "#h", "!status");
    const struct fake_chat_line *l = last_to("#h", from);
    assert_non_null(l);
    if (!strstr(l->text, "Manche 1, pli 1. Scores : alice 0, bob 0, carol 0, "
                         "dave 0. C\xc5\x93urs ouverts, D\xe2\x99\xa0 "
                         "pas encore jou\xc3\xa9"
                         "e, points : carol 1. "))
        fail_msg("status in the channel: '%s'", l->text);
    /* a repeat: told to bob, in German */
    from = w->fake.n;
    said("bob", "#h", "!status");
    l = last_to("bob", from);
    assert_non_null(l);
    if (!strstr(l->text, "Runde 1, Stich 1. Punktestand: alice 0, bob 0, "
                         "carol 0, dave 0. Herz gebrochen, "
                         "D\xe2\x99\xa0 noch nicht gespielt, Punkte: carol "
                         "1. "))
        fail_msg("status told to bob: '%s'", l->text);
    /* the score sheet likewise */
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_true(any_contains("#h", from, "manche"));
    assert_false(any_contains("#h", from, "Runde"));
    from = w->fake.n;
    said("bob", "#h", "!scores");
    assert_true(any_contains("bob", from, "Runde"));
    assert_true(any_contains("bob", from, "Gesamt"));
    assert_false(any_contains("bob", from, "manche"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hearts_opens_and_join_fills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_hearts_refuses_bad_rules_with_nearest, setup, teardown),
        cmocka_unit_test_setup_teardown(test_part_by_operator_or_admin, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_stop_by_opener_and_by_votes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_status_scores_rules_presets_help,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_leave_in_a_game_asks_for_confirmation, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_lines_in_the_channels_language_answers_in_the_askers, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_status_tells_the_tally, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_status_in_a_game_in_the_readers_language, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
