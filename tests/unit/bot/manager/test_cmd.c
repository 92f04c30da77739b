/*
 * Tests of what every command uses (bot/manager/cmd.c): admins, damped channel
 * answers, where answers go, through the fake adapter of the manager's test
 * world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

/* The same channel answer again within channel_repeat is said once in
 * the room; every asker after that gets it by notice, never nothing (a
 * flood is the answer limit's, test_commands.c). */
static void test_channel_status_repeats_are_damped(void **state)
{
    (void)state;
    w->cfg.channel_repeat = 1;
    w->cfg.reply_interval = 0;
    w->cfg.turn_timeout = 60; /* no "the table waits for" line meanwhile */
    four_people("standard pass_count=0");
    int from = w->fake.n;
    for (int i = 0; i < 20; i++)
        said("mallory", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_int_equal(count_starting("mallory", from, "Table at #h"), 19);
    assert_true(last_to("mallory", from)->notice);
    /* someone else asking again soon is answered privately */
    said("erin", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_true(any_contains("erin", from, "Table at #h"));
    /* !scores is another answer */
    said("erin", "#h", "!scores");
    int room = lines_to("#h", from);
    assert_true(room > 1);
    int before = lines_to("erin", from);
    said("erin", "#h", "!scores");
    assert_int_equal(lines_to("#h", from), room);
    assert_true(lines_to("erin", from) > before);
    assert_true(any_contains("erin", from, "total"));
    /* a change in the game is a new answer: the room hears it */
    said("alice", "#h", "!status");
    assert_int_equal(lines_to("#h", from), room);
    play_lowest(the_table(), 1);
    int after_play = lines_to("#h", from);
    said("frank", "#h", "!status");
    assert_int_equal(lines_to("#h", from), after_play + 1);
    /* after the window the channel hears it again */
    run_for(1100);
    said("frank", "#h", "!status");
    assert_int_equal(lines_to("#h", from), after_play + 2);
}

/* The line told to nick since `from` that holds needle, or NULL. */
static const struct fake_chat_line *told(const char *nick, int from,
                                         const char *needle)
{
    for (int i = from; i < w->fake.n; i++)
        if (strcmp(w->fake.lines[i].to, nick) == 0 &&
            strstr(w->fake.lines[i].text, needle))
            return &w->fake.lines[i];
    return NULL;
}

/* What answers one person's channel command (help, rules, presets, the
 * open table, a refusal) comes to them as a notice, where they look at
 * the channel; the same command privately is answered privately, and so
 * is every channel command where the adapter has no notices (Matrix). */
static void test_channel_answers_come_by_notice(void **state)
{
    (void)state;
    w->cfg.reply_interval = 0;
    said("alice", "#h", "!hearts");
    int from = w->fake.n;
    said("alice", "#h", "!help");
    said("bob", "#h", "!rules");
    said("bob", "#h", "!presets");
    said("bob", "#h", "!hearts");
    said("bob", "#h", "!join");
    said("bob", "#h", "!start");
    const char *answers[][2] = {{"alice", "Hearts: !hearts opens"},
                                {"bob", "standard for 4 players"},
                                {"bob", "Presets:"},
                                {"bob", "A table is open here"},
                                {"bob", "Only alice, who opened the table"}};
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        const struct fake_chat_line *l =
            told(answers[i][0], from, answers[i][1]);
        assert_non_null(l);
        assert_true(l->private_ && l->notice);
    }
    /* the channel heard only bob sit down */
    assert_int_equal(lines_to("#h", from), 1);
    from = w->fake.n;
    said("bob", NULL, "rules");
    assert_non_null(told("bob", from, "standard for 4 players"));
    assert_false(told("bob", from, "standard for 4 players")->notice);
    fake_chat_set_kind(&w->fake, FAKE_CHAT_MATRIX);
    from = w->fake.n;
    said("bob", "#h", "!presets");
    assert_non_null(told("bob", from, "Presets:"));
    assert_false(told("bob", from, "Presets:")->notice);
}

/* An admin named by account ("account:NAME") is one from any host and
 * nick while logged in, and nobody's admin otherwise. */
static void test_account_names_an_admin(void **state)
{
    (void)state;
    w->cfg.admins = calloc(1, sizeof *w->cfg.admins);
    w->cfg.admins[0] = strdup("account:Boss");
    w->cfg.nadmins = 1; /* freed with the config */
    said("alice", "#h", "!hearts");
    said("bob", "#h", "!join");
    refused("zed", "#h", "!stop", "Only the opener");
    from_account(CHAT_MESSAGE, "zed", "z@h", "zed", "#h", "!stop", NULL);
    assert_non_null(the_table());
    from_account(CHAT_MESSAGE, "zed", "z@h", "boss", "#h", "!stop", NULL);
    assert_null(the_table());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_channel_status_repeats_are_damped,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_account_names_an_admin, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_channel_answers_come_by_notice,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
