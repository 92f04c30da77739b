/*
 * Tests of the manager's entry: the events of an adapter
 * (bot/manager/manager.c), through the fake adapter of the manager's test world
 * (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "tests/unit/bot/manager/world.h"

/* Where the adapter reads the markup, a person's text cannot carry it
 * into what the bot echoes. */
static void test_markup_typed_by_a_person_is_dropped(void **state)
{
    (void)state;
    w->fake.base.style = CHAT_STYLE_MARKUP;
    said("alice", "#h", "!hearts \x01!@x:hs\x01y\x01\x05");
    for (int i = 0; i < w->fake.n; i++) {
        assert_null(strchr(w->fake.lines[i].text, '\x01'));
        assert_null(strchr(w->fake.lines[i].text, '\x05'));
    }
}

static void test_one_person_at_a_terminal(void **state)
{
    (void)state;
    w->fake.base.solo = true;
    said("you", "#h", "!hearts standard hands=1");
    said("you", "#h", "!start");
    struct table *t = the_table();
    assert_true(any_contains("#h", 0, "You open a Hearts table: standard"));
    assert_true(any_contains("#h", 0, "Type \"help\" for the commands"));
    assert_true(any_contains("#h", 0, "Hand 1: pass 3 left."));
    said("you", NULL, "help");
    assert_true(any_contains("you", 0, "Type a card to play it"));
    /* the console ends its session on "quit": the help says so */
    assert_true(any_contains("you", 0, "!start deals, quit leaves."));
    play_everything(t);
    assert_true(any_contains("#h", 0, "Game over!"));
    static const char *const wrong[] = {
        "private message", "privately", "!join",    "you opens",   "you sits",
        "you takes",       "you is",    "you wins", "in a channel"};
    for (int i = 0; i < w->fake.n; i++)
        for (size_t k = 0; k < sizeof wrong / sizeof wrong[0]; k++)
            if (strstr(w->fake.lines[i].text, wrong[k]))
                fail_msg("'%s' at a terminal: %s", wrong[k],
                         w->fake.lines[i].text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_markup_typed_by_a_person_is_dropped, setup, teardown),
        cmocka_unit_test_setup_teardown(test_one_person_at_a_terminal, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
