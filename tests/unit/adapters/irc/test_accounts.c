/*
 * Tests of adapters/irc/accounts.c: extended-join, account-notify and
 * tags, unknown versus logged out, nick changes (a swap of two people
 * included) under the server's casemapping, forgetting on QUIT and on
 * leaving the last shared channel, the bound and its eviction, and names
 * that are not accounts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/accounts.h"

static struct ircad_accounts t;

static int setup(void **state)
{
    (void)state;
    ircad_accounts_init(&t, 0);
    ircad_accounts_reset(&t, IRCAD_CASEMAP_RFC1459);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ircad_accounts_free(&t);
    return 0;
}

/* The account of nick, "*" for logged out, "?" for unknown. */
static const char *acct(const char *nick)
{
    const char *a = NULL;
    switch (ircad_accounts_get(&t, nick, &a)) {
    case IRCAD_ACCOUNT_KNOWN:
        assert_non_null(a);
        return a;
    case IRCAD_ACCOUNT_NONE:
        return "*";
    default:
        return "?";
    }
}

static void test_ircad_accounts_extended_join_and_notify(void **state)
{
    (void)state;
    assert_string_equal(acct("alice"), "?");
    ircad_accounts_join(&t, "alice", 0, true, "Alice");
    ircad_accounts_join(&t, "bob", 0, true, "*");
    ircad_accounts_join(&t, "carol", 0, false, NULL);
    assert_string_equal(acct("alice"), "Alice");
    assert_string_equal(acct("bob"), "*");
    assert_string_equal(acct("carol"), "?");
    /* account-notify: alice logs out, bob logs in */
    ircad_accounts_set(&t, "alice", "*");
    ircad_accounts_set(&t, "BOB", "bobby");
    assert_string_equal(acct("alice"), "*");
    assert_string_equal(acct("bob"), "bobby");
    /* a tag on a line from carol tells hers */
    ircad_accounts_set(&t, "carol", "carol");
    assert_string_equal(acct("carol"), "carol");
    /* logged out as NULL too */
    ircad_accounts_set(&t, "carol", NULL);
    assert_string_equal(acct("carol"), "*");
    /* a join without an account keeps what was known */
    ircad_accounts_join(&t, "bob", 1, false, NULL);
    assert_string_equal(acct("bob"), "bobby");
}

static void test_ircad_accounts_set_adds_nobody(void **state)
{
    (void)state;
    /* someone in no shared channel would never be forgotten */
    ircad_accounts_set(&t, "stranger", "acct");
    assert_string_equal(acct("stranger"), "?");
    assert_int_equal(ircad_accounts_count(&t), 0);
}

static void test_ircad_accounts_casemapping(void **state)
{
    (void)state;
    ircad_accounts_join(&t, "[Dan]", 0, true, "dan");
    assert_string_equal(acct("{dan}"), "dan");
    ircad_accounts_reset(&t, IRCAD_CASEMAP_ASCII);
    assert_string_equal(acct("[Dan]"), "?");
    ircad_accounts_join(&t, "[Dan]", 0, true, "dan");
    assert_string_equal(acct("[dan]"), "dan");
    assert_string_equal(acct("{dan}"), "?");
}

static void test_ircad_accounts_nick_swap(void **state)
{
    (void)state;
    ircad_accounts_join(&t, "alice", 0, true, "a-acct");
    ircad_accounts_join(&t, "bob", 0, true, "b-acct");
    ircad_accounts_rename(&t, "alice", "tmp");
    ircad_accounts_rename(&t, "bob", "alice");
    ircad_accounts_rename(&t, "tmp", "bob");
    assert_string_equal(acct("alice"), "b-acct");
    assert_string_equal(acct("bob"), "a-acct");
    assert_string_equal(acct("tmp"), "?");
    assert_int_equal(ircad_accounts_count(&t), 2);
    /* a case change only */
    ircad_accounts_rename(&t, "alice", "ALICE");
    assert_string_equal(acct("alice"), "b-acct");
    /* onto a nick with a stale entry (its QUIT unseen): replaced */
    ircad_accounts_join(&t, "carol", 0, true, "c-acct");
    ircad_accounts_rename(&t, "bob", "carol");
    assert_string_equal(acct("carol"), "a-acct");
    assert_string_equal(acct("bob"), "?");
    assert_int_equal(ircad_accounts_count(&t), 2);
    /* from an untracked nick: nothing */
    ircad_accounts_rename(&t, "nobody", "alice");
    assert_string_equal(acct("alice"), "b-acct");
    /* to a nick too long to track: forgotten, not kept under the old */
    char longnick[100];
    memset(longnick, 'x', sizeof longnick - 1);
    longnick[sizeof longnick - 1] = '\0';
    ircad_accounts_rename(&t, "carol", longnick);
    assert_string_equal(acct("carol"), "?");
    assert_string_equal(acct(longnick), "?");
}

static void test_ircad_accounts_forget_on_quit_and_last_part(void **state)
{
    (void)state;
    ircad_accounts_join(&t, "alice", 0, true, "alice");
    ircad_accounts_join(&t, "alice", 1, false, NULL);
    ircad_accounts_join(&t, "bob", 1, true, "bob");
    ircad_accounts_part(&t, "alice", 0);
    assert_string_equal(acct("alice"), "alice"); /* still in channel 1 */
    ircad_accounts_part(&t, "alice", 1);
    assert_string_equal(acct("alice"), "?");
    ircad_accounts_forget(&t, "bob");
    assert_string_equal(acct("bob"), "?");
    assert_int_equal(ircad_accounts_count(&t), 0);
    /* the bot leaves a channel: those seen only there go */
    ircad_accounts_join(&t, "carol", 2, true, "carol");
    ircad_accounts_join(&t, "dave", 2, true, "dave");
    ircad_accounts_join(&t, "dave", 3, false, NULL);
    ircad_accounts_left(&t, 2);
    assert_string_equal(acct("carol"), "?");
    assert_string_equal(acct("dave"), "dave");
    /* a channel beyond 63 has no bit: kept until QUIT */
    ircad_accounts_join(&t, "erin", 70, true, "erin");
    ircad_accounts_part(&t, "erin", 70);
    assert_string_equal(acct("erin"), "erin");
}

static void test_ircad_accounts_bound_evicts_least_recent(void **state)
{
    (void)state;
    struct ircad_accounts small;
    ircad_accounts_init(&small, 8);
    ircad_accounts_reset(&small, IRCAD_CASEMAP_ASCII);
    char nick[16];
    for (int i = 0; i < 8; i++) {
        snprintf(nick, sizeof nick, "n%d", i);
        ircad_accounts_join(&small, nick, 0, true, nick);
    }
    /* n0 talks again: n1 is now the least recently touched */
    ircad_accounts_set(&small, "n0", "n0");
    ircad_accounts_join(&small, "late", 0, true, "late");
    assert_int_equal(ircad_accounts_count(&small), 8);
    const char *a = NULL;
    assert_int_equal(ircad_accounts_get(&small, "n1", &a),
                     IRCAD_ACCOUNT_UNKNOWN);
    assert_int_equal(ircad_accounts_get(&small, "n0", &a), IRCAD_ACCOUNT_KNOWN);
    assert_int_equal(ircad_accounts_get(&small, "late", &a),
                     IRCAD_ACCOUNT_KNOWN);
    assert_string_equal(a, "late");
    /* everyone else still findable after the moves */
    for (int i = 2; i < 8; i++) {
        snprintf(nick, sizeof nick, "n%d", i);
        assert_int_equal(ircad_accounts_get(&small, nick, &a),
                         IRCAD_ACCOUNT_KNOWN);
        assert_string_equal(a, nick);
    }
    /* churn: many more than fit, removals and renames in between */
    for (int i = 0; i < 1000; i++) {
        snprintf(nick, sizeof nick, "c%d", i);
        ircad_accounts_join(&small, nick, i % 3, true, nick);
        if (i % 7 == 0)
            ircad_accounts_part(&small, nick, i % 3);
        if (i % 5 == 0) {
            char to[16];
            snprintf(to, sizeof to, "r%d", i);
            ircad_accounts_rename(&small, nick, to);
        }
        assert_true(ircad_accounts_count(&small) <= 8);
    }
    assert_int_equal(ircad_accounts_get(&small, "c999", &a),
                     IRCAD_ACCOUNT_KNOWN);
    assert_string_equal(a, "c999");
    ircad_accounts_free(&small);
}

static void test_ircad_accounts_junk_is_not_an_account(void **state)
{
    (void)state;
    ircad_accounts_join(&t, "alice", 0, true, "alice");
    char longacct[300];
    memset(longacct, 'a', sizeof longacct - 1);
    longacct[sizeof longacct - 1] = '\0';
    /* none of these is a name: what was known stays */
    ircad_accounts_set(&t, "alice", "");
    ircad_accounts_set(&t, "alice", "two words");
    ircad_accounts_set(&t, "alice", "ctl\x01");
    ircad_accounts_set(&t, "alice", longacct);
    assert_string_equal(acct("alice"), "alice");
    /* a JOIN with a junk account: in the channel, account unknown */
    ircad_accounts_join(&t, "bob", 0, true, "two words");
    assert_string_equal(acct("bob"), "?");
    assert_int_equal(ircad_accounts_count(&t), 2);
    /* nicks that cannot be tracked */
    ircad_accounts_join(&t, NULL, 0, true, "x");
    ircad_accounts_join(&t, "", 0, true, "x");
    ircad_accounts_forget(&t, NULL);
    ircad_accounts_part(&t, NULL, 0);
    ircad_accounts_rename(&t, NULL, "x");
    assert_string_equal(acct(NULL), "?");
    assert_int_equal(ircad_accounts_count(&t), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_ircad_accounts_extended_join_and_notify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ircad_accounts_set_adds_nobody,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ircad_accounts_casemapping, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ircad_accounts_nick_swap, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_ircad_accounts_forget_on_quit_and_last_part, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_ircad_accounts_bound_evicts_least_recent, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_ircad_accounts_junk_is_not_an_account, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
