/*
 * Tests of adapters/irc/identity.c against the scripted server
 * (tests/support/irc_fixture.h): registration, NickServ IDENTIFY only to
 * services, nick fallbacks and regain (announced in the channels), the
 * pacing floor from the server's software, USERHOST for verify, and the
 * server's CASEMAPPING.
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

static bool identified(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "PRIVMSG NickServ :IDENTIFY", 0) >= 0;
}

/* Someone called NickServ who is not services (or nobody at all) never
 * gets the password; with the nick taken, IDENTIFY still names the
 * configured account. */
static void test_ircad_identify_only_to_services(void **state)
{
    (void)state;
    const char *who[] = {"NickServ=+NickServ@127.0.0.1",
                         "NickServ=+NickServ@services.test.evil.example",
                         "NickServX=+NickServ@services.test", NULL,
                         "nickserv*=-NickServ@services.test"};
    for (int i = 0; i < 5; i++) {
        struct ircfx f;
        ircfx_init(&f);
        f.cfg.nickserv_password = "sekrit";
        f.cfg.services_mask = "NickServ!NickServ@services.test";
        f.cfg.nickserv_account = i == 4 ? "acct" : NULL;
        f.srv.taken = i == 4 ? 1 : 0;
        f.srv.known[0] = who[i];
        ircfx_make(&f, NULL);
        f.a->ops->start(f.a);
        assert_true(ircfx_run_until(&f, ircfx_connected, 3000));
        /* the scripted server answers at once: 300 ms is plenty */
        ircfx_run_until(&f, ircfx_never, 300);
        if (i == 4) {
            assert_string_equal(ircad_nick(f.a), "hearts_");
            assert_true(ircfx_srv_find(&f.srv,
                                       "PRIVMSG NickServ :IDENTIFY acct sekrit",
                                       0) > 0);
        } else {
            assert_true(ircfx_srv_find(&f.srv, "USERHOST NickServ", 0) > 0);
            for (int k = 0; k < f.srv.nlines; k++)
                assert_null(strstr(f.srv.lines[k], "sekrit"));
        }
        ircfx_free(&f);
    }
}

static void test_ircad_start_registers_identifies_and_joins(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.nchannels = 2;
    f.cfg.password = "pa%ss";
    f.cfg.nickserv_password = "sekrit";
    f.srv.known[0] = "NickServ=+NickServ@services.test";
    ircfx_make(&f, NULL);
    assert_string_equal(f.a->network, "testnet");
    assert_int_equal(f.a->style, CHAT_STYLE_IRC);
    assert_int_equal(f.a->ops->start(f.a), 0);
    assert_true(ircfx_run_until(&f, ircfx_connected, 3000));

    /* capabilities first: registration waits for CAP END (or for a
     * server that has no CAP, like this one) */
    assert_int_equal(ircfx_srv_find(&f.srv, "CAP LS 302", 0), 0);
    /* '%' reaches the server as it is, not read as a format */
    assert_int_equal(ircfx_srv_find(&f.srv, "PASS pa%ss", 0), 1);
    assert_true(ircfx_srv_find(&f.srv, "NICK hearts", 0) > 0);
    assert_true(ircfx_srv_find(&f.srv, "USER hb ", 0) > 0);
    /* the password goes to NickServ once the server said it is services,
     * with the account named */
    int ask = ircfx_srv_find(&f.srv, "USERHOST NickServ", 0);
    assert_true(ask > 0);
    assert_true(ircfx_run_until(&f, identified, 3000));
    int id =
        ircfx_srv_find(&f.srv, "PRIVMSG NickServ :IDENTIFY hearts sekrit", 0);
    int join = ircfx_srv_find(&f.srv, "JOIN #hearts,#cards", 0);
    assert_true(id > ask);
    assert_true(join > 0);
    assert_int_equal(ircfx_count_events(&f, CHAT_CONNECTED), 1);
    assert_string_equal(ircad_nick(f.a), "hearts");
    /* the bot's own JOIN is not an event for the manager */
    assert_int_equal(ircfx_count_events(&f, CHAT_JOIN), 0);
    ircfx_free(&f);
}

static bool on_alternative(struct ircfx *f)
{
    return ircfx_connected(f) &&
           ircfx_srv_find(&f->srv, "NICK hearts__", 0) >= 0;
}

static bool regained(struct ircfx *f)
{
    return strcmp(ircad_nick(f->a), "hearts") == 0;
}

static void test_ircad_nick_in_use_tries_alternatives_then_regains(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.taken = 2;
    f.cfg.flood_burst = 10; /* the channel's "I am hearts__" takes one */
    struct ircad_timing t = ircfx_fast;
    t.regain_ms = 100;
    ircfx_make(&f, &t);
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, on_alternative, 3000));
    int a = ircfx_srv_find(&f.srv, "NICK hearts", 0);
    int b = ircfx_srv_find(&f.srv, "NICK hearts_", a + 1);
    int c = ircfx_srv_find(&f.srv, "NICK hearts__", b + 1);
    assert_true(a >= 0 && b > a && c > b);
    assert_string_equal(ircad_nick(f.a), "hearts__");
    /* the server still refuses: the bot keeps its nick and retries */
    assert_true(ircfx_run_until(&f, ircfx_never, 350) == false);
    assert_true(ircfx_srv_count(&f.srv, "NICK hearts") >= 4);
    assert_string_equal(ircad_nick(f.a), "hearts__");
    /* the nick frees up: the next retry takes it */
    f.srv.grant_nick = true;
    assert_true(ircfx_run_until(&f, regained, 2000));
    assert_int_equal(ircfx_count_events(&f, CHAT_NICK), 0);
    ircfx_free(&f);
}

static bool announced_alternative(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "PRIVMSG #hearts :I am hearts_ for now",
                          0) >= 0;
}

static bool announced_regained(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "PRIVMSG #hearts :I have my nick back", 0) >=
           0;
}

/* Up as hearts_: the channel is told which nick to talk to; when whoever
 * had "hearts" quits, the bot takes it at once (not at the next retry)
 * and says so. */
static void test_ircad_nick_taken_announced_and_regained_on_quit(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.taken = 1;
    ircfx_make(&f, NULL); /* regain_ms: a minute, far beyond this test */
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, announced_alternative, 3000));
    const char *said =
        f.srv.lines[ircfx_srv_find(&f.srv, "PRIVMSG #hearts :I am", 0)];
    assert_non_null(strstr(said, "/msg hearts_"));
    assert_false(announced_regained(&f));
    int before = ircfx_srv_count(&f.srv, "NICK hearts");
    /* someone else's QUIT changes nothing */
    ircfx_srv_send(&f.srv, ":carol!c@h QUIT :bye");
    ircfx_run_until(&f, ircfx_never, 100);
    assert_int_equal(ircfx_srv_count(&f.srv, "NICK hearts"), before);
    f.srv.grant_nick = true;
    ircfx_srv_send(&f.srv, ":Hearts!squat@h QUIT :bye");
    assert_true(ircfx_run_until(&f, announced_regained, 2000));
    assert_string_equal(ircad_nick(f.a), "hearts");
    assert_true(
        ircfx_srv_find(&f.srv, "PRIVMSG #hearts :I have my nick back", 0) >
        ircfx_srv_find(&f.srv, "NICK hearts", before));
    ircfx_free(&f);
}

/* flood_min_interval_ms = 0: the floor follows the software RPL_MYINFO
 * names (faster only on a server that delays a flood), is the configured
 * pace until then and again on each new connection. */
static void test_ircad_floor_by_server(void **state)
{
    (void)state;
    static const struct {
        const char *version;
        int64_t floor;
    } cases[] = {
        {"ngircd-26.1", 400},
        {"ergo-2.11.1", 550},
        {"solanum-1.0-dev", 800},
        {"InspIRCd-3", 1100},
        {"UnrealIRCd-6.1.2", 1100},
        {"myircd-1.0", 1100},
        {NULL, 1100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ircfx f;
        ircfx_init(&f);
        f.srv.version = cases[i].version;
        ircfx_make(&f, NULL);
        assert_int_equal(ircad_floor_ms(f.a), 1100);
        f.a->ops->start(f.a);
        assert_true(ircfx_run_until(&f, ircfx_connected, 3000));
        assert_int_equal(ircad_floor_ms(f.a), cases[i].floor);
        /* the pace starts at the configured interval all the same */
        assert_int_equal(ircad_interval_ms(f.a), 1100);
        ircfx_free(&f);
    }
}

static bool connected_twice(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_CONNECTED) >= 2;
}

static void test_ircad_floor_forgotten_on_reconnect(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.version = "ngircd-26.1";
    ircfx_start(&f);
    assert_int_equal(ircad_floor_ms(f.a), 400);
    /* another server on the same address, that does not say what it is */
    f.srv.version = NULL;
    ircfx_srv_drop_client(&f.srv);
    assert_true(ircfx_run_until(&f, connected_twice, 5000));
    assert_int_equal(ircad_floor_ms(f.a), 1100);
    ircfx_free(&f);
}

/* An explicit flood_min_interval_ms overrides the server's floor. */
static void test_ircad_floor_configured_wins(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.version = "ngircd-26.1";
    f.cfg.flood_min_interval_ms = 900;
    ircfx_start(&f);
    assert_int_equal(ircad_floor_ms(f.a), 900);
    ircfx_free(&f);
}

/* verify asks the server (USERHOST) and answers with who holds the nick,
 * or nobody. */
static void test_ircad_verify_answers_identity(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.known[0] = "Alice=+~al@host.test";
    ircfx_start(&f);
    f.a->ops->verify(f.a, "alice");
    f.a->ops->verify(f.a, "ghost");
    assert_true(ircfx_run_until(&f, ircfx_two_identities, 3000));
    const struct ircfx_event *r[2];
    int k = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_IDENTITY)
            r[k++] = &f.ev[i];
    assert_string_equal(r[0]->nick, "alice");
    assert_true(r[0]->has_id);
    assert_string_equal(r[0]->id, "~al@host.test");
    assert_string_equal(r[1]->nick, "ghost");
    assert_false(r[1]->has_id);
    ircfx_free(&f);
}

static bool casemap_known(struct ircfx *f)
{
    return ircfx_connected(f) && !f->a->ops->same_nick(f->a, "[bot]", "{bot}");
}

static void test_ircad_same_nick_follows_server_casemapping(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.isupport = "CASEMAPPING=ascii CHANTYPES=#";
    ircfx_make(&f, NULL);
    /* RFC 1459 until the server says otherwise */
    assert_true(f.a->ops->same_nick(f.a, "[bot]", "{BOT}"));
    assert_true(f.a->ops->same_nick(f.a, "Alice", "aLICE"));
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, casemap_known, 3000));
    assert_true(f.a->ops->same_nick(f.a, "Alice", "aLICE"));
    assert_false(f.a->ops->same_nick(f.a, "alice", "alicia"));
    ircfx_free(&f);
}

/* The fold that names a channel's files: RFC 1459 until the server says
 * CASEMAPPING=ascii, then [ ] stay apart from { }. */
static void test_ircad_fold_follows_server_casemapping(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.isupport = "CASEMAPPING=ascii CHANTYPES=#";
    ircfx_make(&f, NULL);
    char out[64];
    f.a->ops->fold(f.a, "#Hearts[1]", out, sizeof out);
    assert_string_equal(out, "#hearts{1}");
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, casemap_known, 3000));
    f.a->ops->fold(f.a, "#Hearts[1]", out, sizeof out);
    assert_string_equal(out, "#hearts[1]");
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_start_registers_identifies_and_joins),
        cmocka_unit_test(
            test_ircad_nick_in_use_tries_alternatives_then_regains),
        cmocka_unit_test(test_ircad_floor_by_server),
        cmocka_unit_test(test_ircad_floor_forgotten_on_reconnect),
        cmocka_unit_test(test_ircad_floor_configured_wins),
        cmocka_unit_test(test_ircad_verify_answers_identity),
        cmocka_unit_test(test_ircad_nick_taken_announced_and_regained_on_quit),
        cmocka_unit_test(test_ircad_identify_only_to_services),
        cmocka_unit_test(test_ircad_same_nick_follows_server_casemapping),
        cmocka_unit_test(test_ircad_fold_follows_server_casemapping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
