/*
 * Tests of adapters/irc/ircad.c, the helpers every part of the IRC
 * adapter uses: events (a person's carry the line's account, none after
 * stop), who we are under the server's casemapping, a line's sender, and
 * which queue keys are people. The adapter is made but never started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/ircad.h"
#include "bot/common/log.h"
#include "tests/support/irc_fixture.h"

/* The fixture's adapter (nick "Hearts"), never started. */
static struct ircad *bare(struct ircfx *f)
{
    ircfx_init(f);
    f->cfg.nick = "Hearts";
    ircfx_make(f, NULL);
    return (struct ircad *)f->a;
}

static void test_ircad_emit_carries_the_line_account(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    snprintf(a->ev_account, sizeof a->ev_account, "alice_acc");
    ircad_emit(a, CHAT_MESSAGE, "#hearts", "alice", "al@host", "hi", NULL);
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_MESSAGE);
    assert_string_equal(f.ev[0].account, "alice_acc");
    /* no person, no account */
    ircad_emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL, NULL);
    assert_string_equal(f.ev[1].account, "");
    a->ev_account[0] = '\0';
    ircad_emit(a, CHAT_JOIN, "#hearts", "bob", "b@host", NULL, NULL);
    assert_string_equal(f.ev[2].account, "");
    ircad_emit_sent(a, 42);
    assert_int_equal(f.ev[3].kind, CHAT_SENT);
    assert_int_equal(f.ev[3].cookie, 42);
    assert_int_equal(f.nev, 4);
    ircfx_free(&f);
}

static void test_ircad_no_events_after_stop(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    assert_false(ircad_stopping(a));
    f.a->ops->stop(f.a, "bye");
    assert_true(ircad_stopping(a));
    ircad_emit(a, CHAT_MESSAGE, "#hearts", "alice", "al@host", "hi", NULL);
    ircad_emit_sent(a, 1);
    assert_int_equal(f.nev, 0);
    ircfx_free(&f);
}

static void test_ircad_is_me_follows_casemapping(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    assert_string_equal(a->cur_nick, "Hearts");
    assert_true(ircad_is_me(a, "hearts"));
    assert_true(ircad_is_me(a, "HEARTS"));
    assert_false(ircad_is_me(a, "hearts_"));
    /* RFC 1459 until the server says otherwise: [ is { */
    snprintf(a->cur_nick, sizeof a->cur_nick, "h[x]");
    assert_true(ircad_is_me(a, "h{x}"));
    a->isup.casemap = IRCAD_CASEMAP_ASCII;
    assert_false(ircad_is_me(a, "h{x}"));
    ircfx_free(&f);
}

static void test_ircad_sender_is_a_person(void **state)
{
    (void)state;
    char nick[NICK_MAX], id[ID_MAX];
    struct ircad_msg m = {.command = "PRIVMSG", .origin = "alice!al@host"};
    assert_int_equal(ircad_sender(&m, nick, id), 0);
    assert_string_equal(nick, "alice");
    assert_string_equal(id, "al@host");
    const char *not_people[] = {"irc.example.net", "", "alice!al", NULL};
    for (int i = 0; i < 4; i++) {
        m.origin = not_people[i];
        assert_int_equal(ircad_sender(&m, nick, id), -1);
    }
}

static void test_ircad_is_person_by_chantypes(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    assert_true(ircad_is_person(a, "alice"));
    assert_false(ircad_is_person(a, "#hearts"));
    assert_false(ircad_is_person(a, "&local"));
    ircfx_free(&f);
}

int main(void)
{
    log_level_set(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_emit_carries_the_line_account),
        cmocka_unit_test(test_ircad_no_events_after_stop),
        cmocka_unit_test(test_ircad_is_me_follows_casemapping),
        cmocka_unit_test(test_ircad_sender_is_a_person),
        cmocka_unit_test(test_ircad_is_person_by_chantypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
