/*
 * Tests of the admins' commands (bot/manager/cmd_admin.c), through the
 * fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/log.h"
#include "tests/unit/bot/manager/world.h"

/* boss (from any host) is the admin; the log goes to a file of the
 * test's directory, read by logged(). */
static int setup_admin(void **state)
{
    int rc = setup(state);
    w->cfg.admins = calloc(1, sizeof *w->cfg.admins);
    w->cfg.admins[0] = strdup("boss!*@*");
    w->cfg.nadmins = 1; /* freed with the config */
    w->cfg.reply_interval = 0;
    w->cfg.repeat_quiet = 0; /* the same command in a room, then privately */
    char path[128];
    snprintf(path, sizeof path, "%s/test.log", w->dir);
    log_level_set(LOG_INFO);
    assert_int_equal(log_to_file(path, NULL, 0), 0);
    return rc;
}

static int teardown_admin(void **state)
{
    log_to_stderr();
    return teardown(state);
}

/* Whether the log holds needle. */
static bool logged(const char *needle)
{
    char path[128], text[8192];
    snprintf(path, sizeof path, "%s/test.log", w->dir);
    read_small(path, text, sizeof text);
    return strstr(text, needle) != NULL;
}

static void test_others_are_refused_and_logged(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    int bob = seat_of_nick(t, "bob");
    refused("alice", "#h", "!seat bob computer", "Only an admin");
    refused("alice", NULL, "seat bob computer", "Only an admin");
    assert_false(t->seats[bob].away);
    refused("alice", "#h", "!end", "Only an admin");
    refused("zed", NULL, "end #h", "Only an admin");
    assert_non_null(the_table());
    refused("alice", "#h", "!reload", "Only an admin");
    assert_true(logged("alice (alice@host.test) is no admin: refused"));
}

static void test_seat_to_a_computer_and_back_by_the_person(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    int bob = seat_of_nick(t, "bob");
    int from = w->fake.n;
    said("boss", "#h", "!seat bob computer");
    assert_true(t->seats[bob].away);
    assert_true(any_contains("#h", from,
                             "boss hands bob's seat to a computer player until "
                             "they tell me \"back\""));
    assert_true(any_contains("bob", from, "An admin handed your seat at #h"));
    assert_true(logged("table #h: admin boss (boss@host.test) hands bob's "
                       "seat to a computer player"));
    refused("boss", "#h", "!seat bob computer", "plays for bob already");
    /* bob takes it back as after a timeout */
    from = w->fake.n;
    seat_said(t, bob, "back");
    assert_false(t->seats[bob].away);
    assert_true(any_contains("#h", from, "bob is back"));
}

static void test_seat_back_by_the_admin_privately(void **state)
{
    (void)state;
    four_people("standard");
    struct table *t = the_table();
    int carol = seat_of_nick(t, "carol");
    refused("boss", NULL, "seat carol back", "carol plays their seat already");
    said("boss", NULL, "seat CAROL computer");
    assert_true(t->seats[carol].away);
    int from = w->fake.n;
    said("boss", NULL, "seat carol back");
    assert_false(t->seats[carol].away);
    assert_true(any_contains("#h", from, "boss gives carol their seat back"));
    assert_true(logged("admin boss (boss@host.test) gives carol their seat"));
    /* the game goes on with carol: she is asked to pass */
    assert_false(mgr_seat_computer(t, carol));
}

static void test_seat_refusals(void **state)
{
    (void)state;
    refused("boss", "#h", "!seat bob computer", "bob plays in no game here");
    said("alice", "#h", "!hearts");
    said("bob", "#h", "!join");
    /* before the game there is no seat to hand over */
    refused("boss", "#h", "!seat bob computer", "bob plays in no game here");
    said("carol", "#h", "!join");
    said("dave", "#h", "!join");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    assert_true(t->playing);
    refused("boss", "#h", "!seat bob", "Say !seat NICK computer");
    refused("boss", "#h", "!seat bob robot", "Say !seat NICK computer");
    refused("boss", "#h", "!seat bob computer now", "Say !seat NICK computer");
    refused("boss", "#h", "!seat zed computer", "zed plays in no game here");
    /* a person gone keeps a computer until they come back themselves */
    int bob = seat_of_nick(t, "bob");
    said("boss", "#h", "!seat bob computer");
    event(CHAT_QUIT, "bob", "bob@host.test", NULL, NULL);
    assert_true(t->seats[bob].gone);
    refused("boss", "#h", "!seat bob back", "bob left, and must tell me");
    assert_true(t->seats[bob].away);
}

static void test_end_a_paused_game_from_anywhere(void **state)
{
    (void)state;
    w->cfg.unattended_pause = 0;
    alice_with_computers();
    struct table *t = the_table();
    said("boss", "#h", "!seat alice computer");
    assert_true(t->paused);
    refused("boss", NULL, "end", "Say which table: end ROOM");
    refused("boss", NULL, "end #nowhere", "No table at #nowhere");
    int from = w->fake.n;
    said("boss", NULL, "end #H");
    assert_null(the_table());
    assert_true(any_contains("#h", from,
                             "An admin, boss, ends the game: it ends "
                             "unscored."));
    assert_true(any_contains("boss", from, "The game at #h ends unscored."));
    assert_true(logged("table #h: admin boss (boss@host.test) ends the game "
                       "(paused)"));
    /* an open table, ended where it is: the room's line is the answer */
    said("alice", "#h", "!hearts");
    from = w->fake.n;
    said("boss", "#h", "!end");
    assert_null(the_table());
    assert_true(any_contains("#h", from, "An admin, boss, closes the table."));
    assert_int_equal(private_lines_to("boss", from), 0);
}

static int reload_calls;
static const char *reload_error;

static int fake_reload(void *ctx, char *err, size_t errlen)
{
    (void)ctx;
    reload_calls++;
    if (!reload_error)
        return 0;
    snprintf(err, errlen, "%s", reload_error);
    return -1;
}

static void test_reload_says_how_it_went(void **state)
{
    (void)state;
    refused("boss", "#h", "!reload", "no configuration file to reload");
    manager_on_reload(w->m, fake_reload, NULL);
    reload_calls = 0;
    reload_error = NULL;
    refused("alice", NULL, "reload", "Only an admin");
    assert_int_equal(reload_calls, 0);
    int from = w->fake.n;
    said("boss", NULL, "reload");
    assert_int_equal(reload_calls, 1);
    assert_true(any_contains("boss", from, "The configuration is reloaded"));
    assert_true(logged("admin boss (boss@host.test) reloads the "
                       "configuration"));
    reload_error = "bot.toml:3:9: log_level: unknown";
    from = w->fake.n;
    said("boss", "#h", "!reload");
    assert_int_equal(reload_calls, 2);
    assert_true(
        any_contains("boss", from,
                     "The configuration was not reloaded (the running one "
                     "stays): bot.toml:3:9: log_level: unknown"));
}

static void test_help_lists_admin_commands_to_admins(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("alice", NULL, "help");
    const struct fake_chat_line *l = last_to("alice", from);
    assert_null(strstr(l->text, "!seat"));
    assert_null(strstr(l->text, "!reload"));
    said("boss", NULL, "help");
    l = last_to("boss", from);
    assert_non_null(strstr(l->text, "!seat"));
    assert_non_null(strstr(l->text, "!end"));
    assert_non_null(strstr(l->text, "!reload"));
    said("alice", "#h", "!help seat");
    assert_true(any_contains("alice", from, "(admins)"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_others_are_refused_and_logged,
                                        setup_admin, teardown_admin),
        cmocka_unit_test_setup_teardown(
            test_seat_to_a_computer_and_back_by_the_person, setup_admin,
            teardown_admin),
        cmocka_unit_test_setup_teardown(test_seat_back_by_the_admin_privately,
                                        setup_admin, teardown_admin),
        cmocka_unit_test_setup_teardown(test_seat_refusals, setup_admin,
                                        teardown_admin),
        cmocka_unit_test_setup_teardown(test_end_a_paused_game_from_anywhere,
                                        setup_admin, teardown_admin),
        cmocka_unit_test_setup_teardown(test_reload_says_how_it_went,
                                        setup_admin, teardown_admin),
        cmocka_unit_test_setup_teardown(
            test_help_lists_admin_commands_to_admins, setup_admin,
            teardown_admin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
