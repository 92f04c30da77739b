/*
 * Tests of what a table says and tells (bot/manager/say.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/unit/bot/manager/world.h"

/* A seat marked gone is told nothing private (the reminder at half time
 * would reach whoever has the nick now). */
static void test_gone_seat_is_told_nothing(void **state)
{
    (void)state;
    char nick[64], id[128];
    first_turn(nick, id);
    int from = w->fake.n;
    event(CHAT_QUIT, nick, id, NULL, NULL);
    w->cfg.grace_period = 60;
    run_for(700); /* past the reminder */
    assert_int_equal(private_lines_to(nick, from), 0);
    /* back (joins with the same user@host): prompted again */
    event(CHAT_JOIN, nick, id, "#h", NULL);
    assert_true(any_contains(nick, from, "Your turn"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_gone_seat_is_told_nothing, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
