/*
 * Tests of what every command uses (bot/manager/cmd.c): admins, damped channel
 * answers, through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

static void test_channel_status_repeats_are_damped(void **state)
{
    (void)state;
    w->cfg.channel_repeat = 1;
    w->cfg.turn_timeout = 60; /* no "the table waits for" line meanwhile */
    four_people("standard");
    int from = w->fake.n;
    for (int i = 0; i < 20; i++)
        said("mallory", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_false(any_contains("mallory", from, "Table at"));
    /* someone else asking again soon is answered privately */
    said("erin", "#h", "!status");
    assert_int_equal(lines_to("#h", from), 1);
    assert_true(any_contains("erin", from, "Table at #h"));
    /* !scores is its own command */
    said("erin", "#h", "!scores");
    int room = lines_to("#h", from);
    assert_true(room > 1);
    said("erin", "#h", "!scores");
    assert_int_equal(lines_to("#h", from), room);
    /* after the window the channel hears it again */
    run_for(1100);
    said("frank", "#h", "!status");
    assert_int_equal(lines_to("#h", from), room + 1);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
