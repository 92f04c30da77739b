/*
 * Tests of the dispatch of commands and the answer limit
 * (bot/manager/commands.c), through the fake adapter of the manager's test
 * world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "engine/ai/ai.h"

#include "tests/unit/bot/manager/world.h"

static void test_commands_without_a_table(void **state)
{
    (void)state;
    refused("alice", "#h", "!join", "No table here");
    refused("alice", "#h", "!start", "No table here");
    refused("alice", NULL, "play QS", "not at a table");
    refused("alice", NULL, "hand", "not at a table");
    refused("alice", NULL, "xyzzy", "I don't know");
    /* others' commands in a channel are left alone */
    int from = w->fake.n;
    said("alice", "#h", "!weather");
    said("alice", "#h", "hello everyone");
    assert_int_equal(w->fake.n, from);
}

static void test_input_typos_and_misplaced_commands(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0; /* many commands from one person */
    refused("alice", NULL, "plya QS",
            "I don't know 'plya' — did you mean 'play'?");
    refused("alice", NULL, "hnad", "did you mean 'hand'?");
    refused("alice", NULL, "jion", "did you mean '!join' (in the channel)?");
    refused("alice", NULL, "xyzzy", "I don't know 'xyzzy'. Try \"help\".");
    /* a channel command sent privately */
    refused("alice", NULL, "join", "!join works in the channel");
    refused("alice", NULL, "!start", "!start works in the channel");
    /* formatting is not read, nor echoed */
    refused("alice", NULL,
            "\x02xy\x02zz\x03"
            "04,01y",
            "I don't know 'xyzzy'");
    assert_null(strchr(w->fake.lines[w->fake.n - 1].text, '\x02'));
    assert_null(strchr(w->fake.lines[w->fake.n - 1].text, '\x03'));
    said("alice", "#h", "\x02!hearts\x0F standard");
    assert_non_null(the_table());
}

/* Words people type to other game bots work as our commands, where the
 * command does: !score, !stat, !j, !h, !leaderboard, !rule, !preset; and
 * privately too. !help names them. */
static void test_aliases_work_where_their_commands_do(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    w->cfg.channel_repeat = 0;
    said("alice", "#h", "!hearts");
    int from = w->fake.n;
    said("bob", "#h", "!j");
    assert_true(any_contains("#h", from, "bob sits down (2/4)"));
    refused("bob", "#h", "!h", "Hearts: !hearts opens a table");
    refused("bob", "#h", "!rule", "standard for 4 players");
    refused("bob", "#h", "!preset", "Presets: standard");
    refused("bob", "#h", "!Score", "No game is running here.");
    from = w->fake.n;
    said("bob", "#h", "!stat");
    assert_true(any_contains("#h", from, "finished a game here"));
    from = w->fake.n;
    said("bob", "#h", "!leaderboard");
    assert_true(any_contains("#h", from, "Nobody has finished"));
    refused("bob", NULL, "h", "Hearts: !hearts opens a table");
    refused("bob", NULL, "j", "!join works in the channel");
    refused("bob", "#h", "!help score",
            "!scores: the score sheet (also "
            "!score)");
    refused("bob", NULL, "help stat",
            "stats [NAME] [PRESET]: a record (also "
            "!stat)");
}

/* A channel word of no command of ours is another bot's: only a near
 * miss (one letter off, or two swapped, in a word of three letters or
 * more) gets a hint, by notice, and a person gets one every five
 * minutes; a seated player, who talks to us, within their answer limit;
 * one person at a terminal always. */
static void test_channel_near_miss_gets_a_hint_now_and_then(void **state)
{
    (void)state;
    int from = w->fake.n;
    const char *others[] = {"!weather", "!tell bob hi", "!op",
                            "!seen x",  "!quote",       "!g hearts"};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        said("erin", "#h", others[i]);
    assert_int_equal(w->fake.n, from);
    said("erin", "#h", "!hlep");
    const struct fake_chat_line *l = last_to("erin", from);
    assert_non_null(l);
    assert_true(l->notice);
    assert_string_equal(l->text,
                        "I don't know '!hlep' — did you mean '!help'?");
    from = w->fake.n;
    said("erin", "#h", "!satrt");
    said("erin", "#h", "!hlep");
    assert_int_equal(w->fake.n, from);
    /* someone else gets theirs */
    said("frank", "#h", "!lsat");
    assert_true(any_contains("frank", from, "did you mean '!last'?"));
    /* once the interval is over (five minutes; shortened here) erin may
     * get another */
    w->m->hint_interval_ms = 300;
    run_for(400);
    from = w->fake.n;
    said("erin", "#h", "!satrt");
    assert_true(any_contains("erin", from, "did you mean '!start'?"));
    /* a seated player's typos are answered, within the answer limit */
    w->cfg.reply_interval = 0;
    four_people("standard");
    from = w->fake.n;
    for (int i = 0; i < 3; i++)
        said("bob", "#h", "!stauts");
    assert_int_equal(count_starting("bob", from, "I don't know '!stauts'"), 3);
    /* a private command said in the channel: where it works */
    refused("bob", "#h", "!hand", "\"hand\" works privately");
    refused("bob", "#h", "!hnad", "did you mean 'hand' (privately");
    /* one person at a terminal */
    w->fake.base.solo = true;
    from = w->fake.n;
    for (int i = 0; i < 3; i++)
        said("bob", "#h", "!hlep");
    assert_int_equal(count_starting("bob", from, "I don't know '!hlep'"), 3);
    said("bob", "#h", "!xyzzy");
    assert_true(any_contains("bob", from, "Try \"!help\""));
}

/* Privately, a typo is read as the command that works privately: "pas"
 * is the private pass, not the channel's refusal of it. */
static void test_private_typo_names_the_private_command(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    four_people("standard");
    refused("bob", NULL, "pas KC AS AH",
            "I don't know 'pas' — did you mean 'pass'?");
    refused("bob", NULL, "stat", "finished a game here");
    refused("bob", NULL, "jion", "did you mean '!join' (in the channel)?");
}

static void test_pass_or_play_said_in_the_channel(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    char cmd[100];
    first_three(t, 1, cmd, sizeof cmd);
    const char *bob = t->seats[1].nick;
    /* meant for the bot: a private hint that repeats no card */
    refused(bob, "#h", cmd, "passes are secret, tell me privately");
    const struct fake_chat_line *l = &w->fake.lines[w->fake.n - 1];
    for (const char *sym = "♣♦♥♠"; *sym; sym += 3) {
        char s3[4] = {sym[0], sym[1], sym[2], 0};
        assert_null(strstr(l->text, s3));
    }
    assert_null(strstr(l->text, cmd + 5));
    assert_true(engine_may_act(&t->game, 1));
    refused(bob, "#h", "play QS", "tell me privately, or say !play");
    /* chat is chat: not cards, or not a player */
    int from = w->fake.n;
    said(bob, "#h", "pass the salt");
    said(bob, "#h", "play on, folks");
    said("erin", "#h", "pass 2C 3C 4C");
    assert_int_equal(w->fake.n, from);
    /* the hint is chatter: the same text again gets nothing, and many
     * texts no more hints than the answer budget allows */
    w->cfg.reply_interval = 60;
    said(bob, "#h", "play QS");
    assert_int_equal(w->fake.n, from);
    char text[32];
    for (int i = 0; i < 30; i++) {
        snprintf(text, sizeof text, "play %s",
                 engine_card_name(ENGINE_CARD(i % 4, i / 4)));
        said(bob, "#h", text);
    }
    assert_true(lines_to(bob, from) <= w->cfg.reply_burst);
}

static void test_private_spam_gets_few_low_answers(void **state)
{
    (void)state;
    w->cfg.reply_interval = 1;
    int from = w->fake.n;
    char text[32];
    for (int i = 0; i < 60; i++) {
        snprintf(text, sizeof text, "x%d", i);
        said("mallory", NULL, text);
    }
    /* the burst, and one word to slow down */
    assert_int_equal(lines_to("mallory", from), w->cfg.reply_burst + 1);
    assert_true(any_contains("mallory", from, "too much"));
    for (int i = from; i < w->fake.n; i++)
        assert_int_equal(w->fake.lines[i].prio, CHAT_LOW);
    /* a token back after the interval */
    run_for(1100);
    from = w->fake.n;
    said("mallory", NULL, "y");
    said("mallory", NULL, "z");
    assert_int_equal(lines_to("mallory", from), 1);
    /* other bots' commands are not counted (nor answered) */
    from = w->fake.n;
    for (int i = 0; i < 30; i++)
        said("erin", "#h", "!weather");
    said("erin", "#h", "!hearts");
    assert_int_equal(lines_to("erin", from), 0);
    assert_non_null(the_table());
    said("erin", "#h", "!stop");
    /* a channel command over the limit says nothing in the channel */
    said("mallory", "#h", "!hearts");
    assert_null(the_table());
}

static void test_many_flooders_share_one_budget(void **state)
{
    (void)state;
    char nick[16], text[16];
    /* with the out-queue empty, only each person's limit applies */
    int from = w->fake.n;
    for (int i = 0; i < 20; i++) {
        snprintf(nick, sizeof nick, "idle%d", i % 5);
        snprintf(text, sizeof text, "x%d", i);
        said(nick, NULL, text);
    }
    assert_int_equal(w->fake.n - from, 20);
    /* while the games' lines wait, everyone's chatter shares a budget */
    w->fake.busy = true;
    from = w->fake.n;
    for (int i = 0; i < 20; i++) {
        snprintf(nick, sizeof nick, "flood%d", i % 5);
        snprintf(text, sizeof text, "x%d", i);
        said(nick, NULL, text);
    }
    /* the budget's answers, and each flooder told once that their
     * answers are dropped for a while (the telling may owe the budget
     * one more burst) */
    assert_int_equal(w->fake.n - from, w->cfg.chatter_burst + 5);
    for (int i = 0; i < 5; i++) {
        snprintf(nick, sizeof nick, "flood%d", i);
        assert_int_equal(count_starting(nick, from, "Too many messages"), 1);
    }
    for (int i = from; i < w->fake.n; i++)
        assert_int_equal(w->fake.lines[i].prio, CHAT_LOW);
    /* more of the flood gets nothing, not even the telling again */
    from = w->fake.n;
    for (int i = 0; i < 10; i++) {
        snprintf(text, sizeof text, "y%d", i);
        said("flood0", NULL, text);
    }
    assert_int_equal(w->fake.n, from);
    /* channel commands are not in the shared budget */
    said("alice", "#h", "!hearts");
    assert_non_null(the_table());
}

/* The one told their answers are dropped is told in their language. */
static void test_flooder_told_in_their_language(void **state)
{
    (void)state;
    said("heidi", NULL, "lang de");
    w->fake.busy = true;
    int from = w->fake.n;
    char text[16];
    for (int i = 0; i < 10; i++) {
        snprintf(text, sizeof text, "x%d", i);
        said(i % 2 ? "heidi" : "ivan", NULL, text);
    }
    assert_int_equal(count_starting("heidi", from, "Zu viele Nachrichten"), 1);
    assert_int_equal(count_starting("ivan", from, "Too many messages"), 1);
}

static void test_private_repeat_answered_once(void **state)
{
    (void)state;
    int from = w->fake.n;
    for (int i = 0; i < 5; i++)
        said("mallory", NULL, "help");
    assert_int_equal(lines_to("mallory", from), 1);
    said("mallory", NULL, "status");
    assert_int_equal(lines_to("mallory", from),
                     2); /* one person alone at a terminal is never limited */
    w->fake.base.solo = true;
    from = w->fake.n;
    for (int i = 0; i < 20; i++)
        said("mallory", NULL, "help");
    assert_int_equal(lines_to("mallory", from), 20);
}

static void test_game_actions_are_never_limited(void **state)
{
    (void)state;
    four_people("standard pass_count=0");
    struct table *t = the_table();
    int turn = engine_turn(&t->game);
    const char *me = t->seats[turn].nick;
    int from = w->fake.n;
    for (int i = 0; i < 40; i++)
        said(me, NULL, "play ZZ");
    assert_int_equal(lines_to(me, from), 40);
    assert_int_equal(w->fake.lines[from].prio, CHAT_NORMAL);
    for (int i = 0; i < 20; i++)
        said(me, NULL, "hand");
    assert_int_equal(lines_to(me, from), 60);
    /* and the move still goes through */
    said(me, NULL, "2C");
    assert_int_equal(t->game.nplays, 1);
    /* chatter from the same player is limited */
    from = w->fake.n;
    for (int i = 0; i < 30; i++) {
        char text[16];
        snprintf(text, sizeof text, "x%d", i);
        said(me, NULL, text);
    }
    /* (their !join counted too) */
    assert_true(lines_to(me, from) <= w->cfg.reply_burst + 1);
    assert_true(any_contains(me, from, "too much"));
}

/* !help bot names every level with its measured rating (one table:
 * engine/ai/ai_ratings.c), so people can choose an opponent; a level
 * without a rating fails here. */
static void test_help_bot_names_every_level_with_its_rating(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", "#h", "!help bot");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_non_null(l);
    assert_non_null(strstr(l->text, "!bot [N] [LEVEL]: add computer players. "
                                    "Levels, with their rating (higher is "
                                    "stronger"));
    int last = -1;
    for (int level = 0; level < ai_level_count(); level++) {
        int se = -1, rating = ai_level_rating(level, &se);
        if (rating <= 0 || se < 0)
            fail_msg("level %s has no rating", ai_level_name(level));
        char want[64];
        snprintf(want, sizeof want, " %s (%d)", ai_level_name(level), rating);
        if (!strstr(l->text, want))
            fail_msg("help bot without '%s': %s", want, l->text);
        /* the levels in the order of their strength */
        assert_true(rating > last);
        last = rating;
    }
    assert_non_null(strstr(l->text, ") (easy unless named)"));
    assert_int_equal(ai_level_rating(-1, NULL), 0);
    assert_int_equal(ai_level_rating(ai_level_count(), NULL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_aliases_work_where_their_commands_do, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_channel_near_miss_gets_a_hint_now_and_then, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_private_typo_names_the_private_command, setup, teardown),
        cmocka_unit_test_setup_teardown(test_commands_without_a_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_input_typos_and_misplaced_commands,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_pass_or_play_said_in_the_channel,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_spam_gets_few_low_answers,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_private_repeat_answered_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_flooder_told_in_their_language,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_flooders_share_one_budget,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_actions_are_never_limited,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_help_bot_names_every_level_with_its_rating, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
