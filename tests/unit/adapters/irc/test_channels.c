/*
 * Tests of adapters/irc/channels.c against the scripted server
 * (tests/support/irc_fixture.h): services accounts from WHOX,
 * extended-join, account-notify and the account tag, carried by events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>

#include "bot/common/log.h"
#include "tests/support/irc_fixture.h"

/* ---- Tests -------------------------------------------------------------- */

static bool one_identity(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_IDENTITY) >= 1;
}

static bool whox_asked(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "WHO #hearts %tcna,417", 0) >= 0;
}

/* The account on the last event from `nick` of `kind` ("" for none). */
static const char *account_of(const struct ircfx *f, enum chat_event_kind kind,
                              const char *nick)
{
    for (int i = f->nev - 1; i >= 0; i--)
        if (f->ev[i].kind == kind && strcmp(f->ev[i].nick, nick) == 0)
            return f->ev[i].account;
    fail_msg("no event from %s", nick);
    return NULL;
}

/* A server with WHOX and no account capabilities: the bot asks who is in
 * the channel with which account when it joins, and the events of those
 * people carry it; it follows NICK and forgets on QUIT and PART; replies
 * to another token and junk change nothing. */
static void test_ircad_whox_accounts_reach_events(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.isupport = "CHANTYPES=#& WHOX";
    f.srv.known[0] = "Alicia=+al@h";
    ircfx_start(&f);
    assert_true(ircfx_run_until(&f, whox_asked, 3000));
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #hearts alice AliceAcct");
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #hearts bob 0");
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #hearts hearts HeartsAcct");
    ircfx_srv_send(s, ":irc.test 354 hearts 999 #hearts carol NotOurs");
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #elsewhere dave Elsewhere");
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #hearts");
    ircfx_srv_send(s, ":irc.test 354 hearts 417 #hearts erin :two words");
    ircfx_srv_send(s, ":irc.test 315 hearts #hearts :End of /WHO list.");
    ircfx_srv_send(s, ":alice!al@h PRIVMSG #hearts :one");
    ircfx_srv_send(s, ":bob!b@h PRIVMSG #hearts :two");
    ircfx_srv_send(s, ":carol!c@h PRIVMSG #hearts :three");
    ircfx_srv_send(s, ":dave!d@h PRIVMSG #hearts :four");
    ircfx_srv_send(s, ":erin!e@h PRIVMSG hearts :five");
    ircfx_srv_send(s, ":alice!al@h NICK :Alicia");
    ircfx_srv_send(s, ":Alicia!al@h PRIVMSG hearts :six");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_NICK, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "Alicia"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "carol"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "dave"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "erin"), "");
    /* verify's answer carries what is known of the nick */
    f.a->ops->verify(f.a, "alicia");
    assert_true(ircfx_run_until(&f, one_identity, 3000));
    ircfx_srv_send(s, ":Alicia!al@h PART #hearts :bye");
    f.a->ops->verify(f.a, "alicia");
    assert_true(ircfx_run_until(&f, ircfx_two_identities, 3000));
    int k = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_IDENTITY)
            assert_string_equal(f.ev[i].account, k++ ? "" : "AliceAcct");
    /* she left the only channel: back, she is unknown until asked */
    ircfx_srv_send(s, ":Alicia!al@h JOIN #hearts");
    ircfx_srv_send(s, ":Alicia!al@h PRIVMSG #hearts :seven");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_JOIN, "Alicia"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "Alicia"), "");
    ircfx_free(&f);
}

/* Who is in a channel (the adapter's `present`): its NAMES reply, with
 * rank prefixes (multi-prefix) and user@host (userhost-in-names), JOIN,
 * PART, KICK, QUIT and NICK; another channel's NAMES and junk count for
 * nobody, and the bot is not among the people. */
static void test_ircad_present_from_names_and_joins(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.isupport = "CHANTYPES=#& PREFIX=(qohv)~@%+";
    ircfx_start(&f);
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s, ":irc.test 353 hearts = #hearts :hearts @alice "
                      "~@bob!b@h +carol  %%");
    ircfx_srv_send(s, ":irc.test 353 hearts = #elsewhere :dave");
    ircfx_srv_send(s, ":irc.test 353 hearts = #hearts");
    ircfx_srv_send(s, ":irc.test 366 hearts #hearts :End of /NAMES list.");
    ircfx_srv_send(s, ":erin!e@h JOIN #hearts");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    bool (*present)(struct chat_adapter *, const char *, const char *) =
        f.a->ops->present;
    assert_non_null(present);
    assert_true(present(f.a, "#hearts", "alice"));
    assert_true(present(f.a, "#HEARTS", "BOB"));
    assert_true(present(f.a, "#hearts", "carol"));
    assert_true(present(f.a, "#hearts", "erin"));
    assert_false(present(f.a, "#hearts", "dave"));
    assert_false(present(f.a, "#elsewhere", "dave"));
    assert_false(present(f.a, "#hearts", "hearts"));
    assert_false(present(f.a, "#hearts", "%"));
    assert_false(present(f.a, "#hearts", "zed"));
    ircfx_srv_send(s, ":alice!al@h PART #hearts :bye");
    ircfx_srv_send(s, ":bob!b@h QUIT :gone");
    ircfx_srv_send(s, ":op!o@h KICK #hearts carol :out");
    ircfx_srv_send(s, ":erin!e@h NICK :erika");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_false(present(f.a, "#hearts", "alice"));
    assert_false(present(f.a, "#hearts", "bob"));
    assert_false(present(f.a, "#hearts", "carol"));
    assert_false(present(f.a, "#hearts", "erin"));
    assert_true(present(f.a, "#hearts", "erika"));
    ircfx_free(&f);
}

/* A server with extended-join and account-notify but no account-tag:
 * the accounts come from the JOINs and ACCOUNT lines, follow nicks, and
 * a logout is none. */
static void test_ircad_accounts_from_extended_join_and_notify(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.caps = "account-notify extended-join multi-prefix";
    ircfx_start(&f);
    assert_true(ircfx_srv_find(&f.srv, "CAP REQ :", 0) >= 0);
    assert_true(ircfx_srv_find(&f.srv, "CAP END", 0) >= 0);
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s, ":alice!al@h JOIN #hearts AliceAcct :Alice A.");
    ircfx_srv_send(s, ":bob!b@h JOIN #hearts * :Bob");
    ircfx_srv_send(s, ":alice!al@h PRIVMSG #hearts :one");
    ircfx_srv_send(s, ":bob!b@h PRIVMSG #hearts :two");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_JOIN, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_JOIN, "bob"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    /* alice logs out, bob logs in; alice changes nick */
    ircfx_srv_send(s, ":alice!al@h ACCOUNT *");
    ircfx_srv_send(s, ":bob!b@h ACCOUNT BobAcct");
    ircfx_srv_send(s, ":alice!al@h NICK ally");
    ircfx_srv_send(s, ":ally!al@h PRIVMSG hearts :three");
    ircfx_srv_send(s, ":bob!b@h PRIVMSG hearts :four");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "ally"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "BobAcct");
    /* bob quits: whoever comes as bob without extended-join is unknown */
    ircfx_srv_send(s, ":bob!b@h QUIT :bye");
    ircfx_srv_send(s, ":bob!x@elsewhere PRIVMSG hearts :five");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_QUIT, "bob"), "BobAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    ircfx_free(&f);
}

/* With account-tag the tag of each line is the truth: a line without one
 * is from someone logged out, whatever was tracked. */
static void test_ircad_account_tag_decides(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.caps = "account-tag account-notify extended-join message-tags";
    ircfx_start(&f);
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s,
                   "@account=AliceAcct :alice!al@h JOIN #hearts AliceAcct :A");
    ircfx_srv_send(s, "@account=AliceAcct;time=2026-01-01T00:00:00.000Z "
                      ":alice!al@h PRIVMSG #hearts :one");
    ircfx_srv_send(s, ":alice!al@h PRIVMSG hearts :two");
    ircfx_srv_send(s, "@account=Other :alice!al@h PRIVMSG hearts :three");
    ircfx_srv_send(s, "@account=Carol\\sX :carol!c@h PRIVMSG hearts :four");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));
    const struct ircfx_event *r = f.ev;
    int k = 0;
    const char *want[] = {"AliceAcct", "AliceAcct", "", "Other"};
    for (int i = 0; i < f.nev; i++)
        if (strcmp(r[i].nick, "alice") == 0 && k < 4)
            assert_string_equal(r[i].account, want[k++]);
    assert_int_equal(k, 4);
    /* an account tag with a space in it (escaped) is not a name */
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "carol"), "");
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_whox_accounts_reach_events),
        cmocka_unit_test(test_ircad_present_from_names_and_joins),
        cmocka_unit_test(test_ircad_accounts_from_extended_join_and_notify),
        cmocka_unit_test(test_ircad_account_tag_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
