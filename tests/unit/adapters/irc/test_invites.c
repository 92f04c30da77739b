/*
 * Tests of adapters/irc/invites.c against the scripted server
 * (tests/support/irc_fixture.h): who may move the bot into a channel by
 * INVITE ("off", "ops" asked by WHOIS, "admins"), the refusals told by
 * NOTICE, the cap on WHOIS under an invite flood, and the bot mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/support/irc_fixture.h"

static const char *seen_prefix;

static bool saw(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, seen_prefix, 0) >= 0;
}

/* Runs until the server got a line starting with `prefix`. */
static bool wait_line(struct ircfx *f, const char *prefix, int64_t ms)
{
    seen_prefix = prefix;
    return ircfx_run_until(f, saw, ms);
}

static bool admin_yes(void *ctx, const struct chat_user *u)
{
    (void)ctx;
    return strcmp(u->nick, "boss") == 0 && strcmp(u->id, "b@admin.host") == 0;
}

static void start(struct ircfx *f, const char *invites, const char *isupport)
{
    ircfx_init(f);
    f->cfg.invites = (char *)invites;
    f->srv.isupport = isupport;
    ircfx_start(f);
    f->a->is_admin = admin_yes;
}

/* "ops": an operator's invite is checked by WHOIS (the bot does not join
 * first) and joined; the channel is then the bot's (serves). Prefixes of
 * higher rank count, matched under the casemapping. */
static void test_invite_by_op_is_joined(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, "ops", "CHANTYPES=# PREFIX=(qaohv)~&@%+ CASEMAPPING=rfc1459");
    ircfx_srv_send(&f.srv, ":alice!al@h INVITE hearts :#Games[x]");
    assert_true(wait_line(&f, "WHOIS alice", 3000));
    assert_int_equal(ircfx_srv_find(&f.srv, "JOIN #Games", 0), -1);
    ircfx_srv_send(&f.srv,
                   ":irc.test 319 hearts alice :+#other @&#amp ~#games{x}");
    ircfx_srv_send(&f.srv, ":irc.test 318 hearts alice :End of /WHOIS list.");
    assert_true(wait_line(&f, "JOIN #Games[x]", 3000));
    assert_true(f.a->ops->serves(f.a, "#games{x}"));
    assert_int_equal(ircfx_srv_count(&f.srv, "NOTICE alice"), 0);
    ircfx_free(&f);
}

/* "ops": a voiced member, someone in another channel ending with the
 * name, or a missing 319 is refused, told by NOTICE; nothing joined. */
static void test_invite_by_non_op_is_refused_and_told(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, "ops", "CHANTYPES=#& PREFIX=(ov)@+");
    ircfx_srv_send(&f.srv, ":alice!al@h INVITE hearts #games");
    assert_true(wait_line(&f, "WHOIS alice", 3000));
    ircfx_srv_send(&f.srv, ":irc.test 319 hearts alice :+#games @#x#games");
    ircfx_srv_send(&f.srv, ":irc.test 318 hearts alice :End");
    assert_true(wait_line(&f, "NOTICE alice :", 5000));
    int i = ircfx_srv_find(&f.srv, "NOTICE alice :", 0);
    assert_non_null(strstr(f.srv.lines[i], "#games"));
    assert_non_null(strstr(f.srv.lines[i], "operator"));
    assert_int_equal(ircfx_srv_find(&f.srv, "JOIN #games", 0), -1);
    assert_false(f.a->ops->serves(f.a, "#games"));
    ircfx_free(&f);
}

/* "admins" (the default): a bot admin's invite joins at once, no WHOIS;
 * anyone else is refused without one. */
static void test_invite_admins_only(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, NULL, "CHANTYPES=#");
    ircfx_srv_send(&f.srv, ":alice!al@h INVITE hearts #games");
    assert_true(wait_line(&f, "NOTICE alice :", 5000));
    ircfx_srv_send(&f.srv, ":boss!b@admin.host INVITE hearts #boss");
    assert_true(wait_line(&f, "JOIN #boss", 5000));
    assert_int_equal(ircfx_srv_count(&f.srv, "WHOIS"), 0);
    assert_int_equal(ircfx_srv_find(&f.srv, "JOIN #games", 0), -1);
    ircfx_free(&f);
}

/* "off": even an admin is refused; an invite of someone else
 * (invite-notify) and a bad channel name are not answered. */
static void test_invite_off_refuses_everyone(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, "off", "CHANTYPES=#");
    ircfx_srv_send(&f.srv, ":boss!b@admin.host INVITE carol #games");
    ircfx_srv_send(&f.srv, ":boss!b@admin.host INVITE hearts &local");
    ircfx_srv_send(&f.srv, ":boss!b@admin.host INVITE hearts #games");
    assert_true(wait_line(&f, "NOTICE boss :", 5000));
    assert_int_equal(ircfx_srv_count(&f.srv, "NOTICE boss"), 1);
    assert_int_equal(ircfx_srv_find(&f.srv, "JOIN #games", 0), -1);
    ircfx_free(&f);
}

/* A flood of invites costs a few WHOIS at most. */
static void test_invite_flood_is_capped(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, "ops", "CHANTYPES=#");
    for (int i = 0; i < 30; i++)
        ircfx_srv_send(&f.srv, ":n%d!u@h INVITE hearts #c%d", i, i);
    ircfx_run_until(&f, ircfx_never, 2500);
    int whois = ircfx_srv_count(&f.srv, "WHOIS");
    assert_true(whois >= 1);
    assert_true(whois <= 3);
    ircfx_free(&f);
}

/* BOT=B: the bot sets the mode on itself once; without it, no MODE. */
static void test_bot_mode_set_when_offered(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, NULL, "CHANTYPES=# BOT=B");
    assert_true(wait_line(&f, "MODE hearts +B", 3000));
    assert_int_equal(ircfx_srv_count(&f.srv, "MODE "), 1);
    ircfx_free(&f);
    start(&f, NULL, "CHANTYPES=# BOT=1");
    ircfx_run_until(&f, ircfx_never, 500);
    assert_int_equal(ircfx_srv_count(&f.srv, "MODE "), 0);
    ircfx_free(&f);
}

static bool two_operator_answers(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_OPERATOR) >= 2;
}

/* ask_operator: WHOIS, answered as CHAT_OPERATOR ("yes" for an op);
 * part: PART with the goodbye, and the channel is no longer served nor
 * rejoined after a kick. */
static void test_ask_operator_and_part(void **state)
{
    (void)state;
    struct ircfx f;
    start(&f, NULL, "CHANTYPES=#");
    struct chat_user alice = {.nick = "alice", .id = "al@h"};
    struct chat_user bob = {.nick = "bob", .id = "b@h"};
    f.a->ops->ask_operator(f.a, "#hearts", &alice);
    f.a->ops->ask_operator(f.a, "#hearts", &bob);
    assert_true(wait_line(&f, "WHOIS bob", 3000));
    ircfx_srv_send(&f.srv, ":irc.test 319 hearts alice :@#hearts");
    ircfx_srv_send(&f.srv, ":irc.test 318 hearts alice :End");
    ircfx_srv_send(&f.srv, ":irc.test 319 hearts bob :+#hearts");
    ircfx_srv_send(&f.srv, ":irc.test 318 hearts bob :End");
    assert_true(ircfx_run_until(&f, two_operator_answers, 3000));
    int yes = 0, no = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_OPERATOR) {
            assert_string_equal(f.ev[i].room, "#hearts");
            if (strcmp(f.ev[i].nick, "alice") == 0 &&
                strcmp(f.ev[i].text, "yes") == 0)
                yes++;
            if (strcmp(f.ev[i].nick, "bob") == 0 && !f.ev[i].text[0])
                no++;
        }
    assert_int_equal(yes, 1);
    assert_int_equal(no, 1);
    f.a->ops->part(f.a, "#hearts", "Goodbye!\r\nQUIT");
    assert_true(wait_line(&f, "PART #hearts :Goodbye!", 3000));
    assert_int_equal(ircfx_srv_count(&f.srv, "QUIT"), 0);
    assert_false(f.a->ops->serves(f.a, "#hearts"));
    ircfx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_invite_by_op_is_joined),
        cmocka_unit_test(test_invite_by_non_op_is_refused_and_told),
        cmocka_unit_test(test_invite_admins_only),
        cmocka_unit_test(test_invite_off_refuses_everyone),
        cmocka_unit_test(test_invite_flood_is_capped),
        cmocka_unit_test(test_bot_mode_set_when_offered),
        cmocka_unit_test(test_ask_operator_and_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
