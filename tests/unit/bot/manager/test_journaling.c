/*
 * Tests of journals written as a table goes (bot/manager/journaling.c),
 * through the fake adapter of the manager's test world (world.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

#include "tests/unit/bot/manager/world.h"

/* People and computers thinking off the loop: the people act when it is
 * theirs, the loop runs while a computer thinks. */
static void play_thinking_to(struct table *t, int hand, int plays)
{
    for (int guard = 0; guard < 20000 && !t->closing; guard++) {
        if (reached(t, hand, plays))
            return;
        if (t->think_id) {
            run_for(1);
            continue;
        }
        if (t->trick_deferred) { /* the channel's lines are out */
            all_sent(0);
            continue;
        }
        if (!person_acts(t))
            return;
    }
}

static void test_restart_keeps_seat_changes(void **state)
{
    (void)state;
    struct table *t = standard_game_at(1);
    /* a nick change (no channel line: journaled at the round's end), a
     * seat taken by a computer for good, another away, autoplay */
    int a = 1, b = 2, c = 3;
    char old[64], id[128];
    snprintf(old, sizeof old, "%s", t->seats[a].nick);
    snprintf(id, sizeof id, "%s@host.test", old);
    event(CHAT_NICK, old, id, NULL, "renamed");
    run_for(1);
    said(t->seats[b].nick, "#h", "!leave");
    said(t->seats[b].nick, "#h", "!leave"); /* confirmed */
    assert_false(t->seats[b].human);
    t->seats[c].away = true;
    said(t->seats[c].nick, NULL, "autoplay on");
    assert_int_equal(t->seats[c].autoplay, SEAT_AUTOPLAY_FORCED);
    run_for(1);
    t = restart_same(t);
    assert_string_equal(t->seats[a].nick, "renamed");
    assert_string_equal(t->seats[a].id, id);
    assert_false(t->seats[b].human);
    assert_true(t->seats[c].away);
    assert_int_equal(t->seats[c].autoplay, SEAT_AUTOPLAY_FORCED);
    /* the renamed person is known by user@host: back to the old nick,
     * everyone plays on */
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    event(CHAT_NICK, "renamed", id, NULL, old);
    assert_string_equal(t->seats[a].nick, old);
    play_everything(t);
    int n;
    free(archived(&n));
    assert_int_equal(n, 1);
}

static void test_decisions_off_the_loop_are_journaled(void **state)
{
    (void)state;
    gate(true);
    fake_chat_set_kind(&w->fake, FAKE_CHAT_IRC);
    w->cfg.turn_timeout = 60;
    said("alice", "#h", "!hearts standard target=30");
    said("bob", "#h", "!join");
    said("alice", "#h", "!start");
    struct table *t = the_table();
    play_thinking_to(t, 1, 9);
    until_thought(t);
    assert_true(t->game.nplays >= 9);
    /* the computers' plays are in the journal like any: the same game */
    t = restart_same(t);
    event(CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    for (int s = 0; s < 4; s++) {
        char id[128];
        snprintf(id, sizeof id, "%s@host.test", t->seats[s].nick);
        if (t->seats[s].human)
            identity(t->seats[s].nick, id);
    }
    int plays = t->game.nplays;
    play_thinking_to(t, 1, plays + 4);
    assert_true(t->game.nplays >= plays + 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_restart_keeps_seat_changes, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_decisions_off_the_loop_are_journaled, setup_thinking,
            teardown_thinking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
