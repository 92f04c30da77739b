/*
 * Tests of adapters/irc/connection.c, the connection layer, against the
 * scripted server of tests/support/irc_fixture.h (127.0.0.1, no network):
 * registration after CAP LS, lines handed up parsed, PING answered below
 * the adapter, refused lines dropped, the account tag handed up, output
 * held until the link is up, and the ends of a connection (closed by the
 * server, refused, closed by us with and without flushing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adapters/irc/connection.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"
#include "tests/support/irc_fixture.h"

/* ---- The fixture: loop, server, connection, recorded lines ------------- */

struct got {
    char command[16];
    int numeric;
    char origin[64];
    char params[4][128];
    unsigned nparams;
    char account[64];
    bool has_account;
};

struct fx {
    struct loop *l;
    struct ircfx_server srv;
    struct ircad_conn *c;
    struct got got[32];
    int ngot;
    int closed;
    char why[400];
    bool permanent;
    int drains;
    /* the run */
    bool (*done)(struct fx *);
    int64_t deadline;
    uint64_t t_check;
};

static void on_msg(void *ctx, const struct ircad_msg *m)
{
    struct fx *f = ctx;
    if (f->ngot == 32)
        return;
    struct got *g = &f->got[f->ngot++];
    memset(g, 0, sizeof *g);
    snprintf(g->command, sizeof g->command, "%s", m->command);
    g->numeric = m->numeric;
    snprintf(g->origin, sizeof g->origin, "%s", m->origin ? m->origin : "");
    g->nparams = m->nparams;
    for (unsigned i = 0; i < m->nparams && i < 4; i++)
        snprintf(g->params[i], sizeof g->params[i], "%s",
                 m->params[i] ? m->params[i] : "(null)");
    g->has_account = m->account != NULL;
    snprintf(g->account, sizeof g->account, "%s", m->account ? m->account : "");
}

static void on_closed(void *ctx, const char *why, bool permanent)
{
    struct fx *f = ctx;
    f->closed++;
    f->c = NULL;
    snprintf(f->why, sizeof f->why, "%s", why);
    f->permanent = permanent;
}

static void on_drain(void *ctx)
{
    struct fx *f = ctx;
    f->drains++;
}

static void check(struct loop *l, void *ctx)
{
    struct fx *f = ctx;
    f->t_check = 0;
    if (f->done(f) || loop_now(l) >= f->deadline)
        loop_stop(l);
    else
        f->t_check = loop_timer(l, 5, check, f);
}

/* Runs the loop until done(f) or 5 s pass; returns done(f). */
static bool run_until(struct fx *f, bool (*done)(struct fx *))
{
    f->done = done;
    f->deadline = loop_now(f->l) + 5000;
    f->t_check = loop_timer(f->l, 0, check, f);
    loop_run(f->l);
    loop_cancel(f->l, f->t_check);
    f->t_check = 0;
    return done(f);
}

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    f->l = loop_new();
    assert_true(ircfx_srv_start(&f->srv, f->l, false));
}

/* Opens the connection to the fixture's server (or to `port`). */
static int fx_open(struct fx *f, int port, const char *password)
{
    struct ircad_conn_params p = {
        .name = "test",
        .host = "127.0.0.1",
        .port = port ? port : f->srv.port,
        .password = password,
        .nick = "bob",
        .username = "bobuser",
        .realname = "Bob the bot",
    };
    struct ircad_conn_handlers h = {
        .msg = on_msg, .closed = on_closed, .drain = on_drain, .ctx = f};
    char err[160];
    int rc = ircad_conn_open(f->l, &p, &h, &f->c, err, sizeof err);
    if (rc != 0)
        f->c = NULL;
    return rc;
}

static void fx_free(struct fx *f)
{
    if (f->c)
        ircad_conn_close(f->c, false);
    ircfx_srv_stop(&f->srv);
    loop_free(f->l);
}

/* The index of the first line handed up with `command`, or -1. */
static int got_find(const struct fx *f, const char *command)
{
    for (int i = 0; i < f->ngot; i++)
        if (strcmp(f->got[i].command, command) == 0)
            return i;
    return -1;
}

static bool welcomed(struct fx *f)
{
    return got_find(f, "001") >= 0;
}

static bool is_closed(struct fx *f)
{
    return f->closed > 0;
}

/* ---- Tests ------------------------------------------------------------- */

static void test_ircad_conn_registers_after_cap_ls(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_int_equal(fx_open(&f, 0, "secret"), 0);
    assert_true(run_until(&f, welcomed));
    /* capabilities first, then the password, the nick and the user */
    assert_int_equal(ircfx_srv_find(&f.srv, "CAP LS 302", 0), 0);
    int pass = ircfx_srv_find(&f.srv, "PASS secret", 0);
    int nick = ircfx_srv_find(&f.srv, "NICK bob", 0);
    int user = ircfx_srv_find(&f.srv, "USER bobuser 0 * :Bob the bot", 0);
    assert_true(pass > 0 && nick > pass && user > nick);
    /* the 001 comes up as a numeric */
    const struct got *g = &f.got[got_find(&f, "001")];
    assert_int_equal(g->numeric, 1);
    assert_string_equal(g->origin, "irc.test");
    assert_int_equal(g->nparams, 2);
    assert_string_equal(g->params[0], "bob");
    assert_string_equal(g->params[1], "Welcome bob!u@127.0.0.1");
    assert_int_equal(f.closed, 0);
    fx_free(&f);
}

static bool got_privmsg(struct fx *f)
{
    return got_find(f, "PRIVMSG") >= 0;
}

static bool ponged(struct fx *f)
{
    return ircfx_srv_find(&f->srv, "PONG :tok123", 0) >= 0;
}

static void test_ircad_conn_hands_up_lines_and_answers_ping(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_int_equal(fx_open(&f, 0, NULL), 0);
    assert_true(run_until(&f, welcomed));
    assert_int_equal(ircfx_srv_find(&f.srv, "PASS ", 0), -1);
    ircfx_srv_send(&f.srv, "PING :tok123");
    /* a person's command without a prefix: refused, never handed up */
    ircfx_srv_send(&f.srv, "PRIVMSG #hearts :nobody said this");
    ircfx_srv_send(&f.srv, ":alice!al@host PRIVMSG #hearts :hello there");
    assert_true(run_until(&f, got_privmsg));
    const struct got *g = &f.got[got_find(&f, "PRIVMSG")];
    assert_int_equal(g->numeric, 0);
    assert_string_equal(g->origin, "alice!al@host");
    assert_int_equal(g->nparams, 2);
    assert_string_equal(g->params[0], "#hearts");
    assert_string_equal(g->params[1], "hello there");
    assert_false(g->has_account);
    assert_int_equal(got_find(&f, "PING"), -1);
    int privmsgs = 0;
    for (int i = 0; i < f.ngot; i++)
        privmsgs += strcmp(f.got[i].command, "PRIVMSG") == 0;
    assert_int_equal(privmsgs, 1);
    /* PING is answered below the adapter, with the server's token */
    assert_true(run_until(&f, ponged));
    fx_free(&f);
}

static void test_ircad_conn_account_tag_handed_up(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.caps = "account-tag extended-join";
    assert_int_equal(fx_open(&f, 0, NULL), 0);
    assert_true(run_until(&f, welcomed));
    assert_true(ircfx_srv_find(&f.srv, "CAP END", 0) > 0);
    assert_true(ircad_conn_cap(f.c, IRCAD_CAP_ACCOUNT_TAG));
    assert_true(ircad_conn_cap(f.c, IRCAD_CAP_EXTENDED_JOIN));
    assert_false(ircad_conn_cap(f.c, IRCAD_CAP_ACCOUNT_NOTIFY));
    ircfx_srv_send(&f.srv, "@account=alice :alice!al@host PRIVMSG bob :hi");
    assert_true(run_until(&f, got_privmsg));
    const struct got *g = &f.got[got_find(&f, "PRIVMSG")];
    assert_true(g->has_account);
    assert_string_equal(g->account, "alice");
    fx_free(&f);
}

static bool line_arrived(struct fx *f)
{
    return ircfx_srv_find(&f->srv, "PRIVMSG #hearts :after the hello", 0) >= 0;
}

static bool drained(struct fx *f)
{
    return f->drains > 0;
}

static void test_ircad_conn_send_waits_for_the_link(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_int_equal(fx_open(&f, 0, NULL), 0);
    /* not up yet: held back, and the drain handler says when to retry */
    assert_int_equal(ircad_conn_send(f.c, "PRIVMSG #hearts :too early"),
                     IRCAD_CONN_FULL);
    assert_true(run_until(&f, drained));
    assert_true(run_until(&f, welcomed));
    assert_int_equal(ircfx_srv_find(&f.srv, "PRIVMSG #hearts :too early", 0),
                     -1);
    /* lines that could break the protocol are refused */
    assert_int_equal(ircad_conn_send(f.c, "PRIVMSG #hearts :a\r\nQUIT"),
                     IRCAD_CONN_ERROR);
    char longline[600];
    memset(longline, 'x', sizeof longline - 1);
    longline[sizeof longline - 1] = '\0';
    assert_int_equal(ircad_conn_send(f.c, longline), IRCAD_CONN_ERROR);
    assert_int_equal(ircad_conn_send(f.c, "PRIVMSG #hearts :after the hello"),
                     IRCAD_CONN_SENT);
    assert_true(run_until(&f, line_arrived));
    assert_int_equal(ircfx_srv_find(&f.srv, "QUIT", 0), -1);
    fx_free(&f);
}

static void test_ircad_conn_closed_by_server_reported(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_int_equal(fx_open(&f, 0, NULL), 0);
    assert_true(run_until(&f, welcomed));
    ircfx_srv_drop_client(&f.srv);
    assert_true(run_until(&f, is_closed));
    assert_int_equal(f.closed, 1);
    assert_string_equal(f.why, "connection closed by the server");
    assert_false(f.permanent);
    fx_free(&f);
}

static void test_ircad_conn_refused_reported(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    /* a port nobody listens on: one the system gave, then closed */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    int port = ntohs(sa.sin_port);
    close(fd);
    assert_int_equal(fx_open(&f, port, NULL), 0);
    assert_true(run_until(&f, is_closed));
    assert_int_equal(f.closed, 1);
    assert_memory_equal(f.why, "connect: ", 9);
    assert_false(f.permanent);
    fx_free(&f);
}

static void test_ircad_conn_open_refuses_bad_params(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    struct ircad_conn_params p = {
        .name = "test", .host = "127.0.0.1", .port = f.srv.port, .nick = "bob"};
    struct ircad_conn_handlers h = {
        .msg = on_msg, .closed = on_closed, .drain = on_drain, .ctx = &f};
    const char *hosts[] = {"bad host", "a/b", "", NULL};
    for (int i = 0; i < 4; i++) {
        p.host = hosts[i];
        char err[160] = "";
        assert_int_equal(ircad_conn_open(f.l, &p, &h, &f.c, err, sizeof err),
                         -1);
        assert_string_equal(err, "invalid host, port or nick");
    }
    p.host = "127.0.0.1";
    p.nick = "two words";
    char err[160] = "";
    assert_int_equal(ircad_conn_open(f.l, &p, &h, &f.c, err, sizeof err), -1);
    p.nick = "bob";
    p.port = 70000;
    assert_int_equal(ircad_conn_open(f.l, &p, &h, &f.c, err, sizeof err), -1);
    f.c = NULL;
    assert_int_equal(f.closed, 0);
    fx_free(&f);
}

static bool server_lost_client(struct fx *f)
{
    return f->srv.cfd < 0;
}

static void test_ircad_conn_close_flushes_when_asked(void **state)
{
    (void)state;
    for (int flush = 0; flush <= 1; flush++) {
        struct fx f;
        fx_init(&f);
        assert_int_equal(fx_open(&f, 0, NULL), 0);
        assert_true(run_until(&f, welcomed));
        assert_int_equal(ircad_conn_send(f.c, "QUIT :bye"), IRCAD_CONN_SENT);
        ircad_conn_close(f.c, flush);
        f.c = NULL;
        assert_true(run_until(&f, server_lost_client));
        /* the closed handler is not called for our own close */
        assert_int_equal(f.closed, 0);
        assert_int_equal(ircfx_srv_find(&f.srv, "QUIT :bye", 0) >= 0, flush);
        fx_free(&f);
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_conn_registers_after_cap_ls),
        cmocka_unit_test(test_ircad_conn_hands_up_lines_and_answers_ping),
        cmocka_unit_test(test_ircad_conn_account_tag_handed_up),
        cmocka_unit_test(test_ircad_conn_send_waits_for_the_link),
        cmocka_unit_test(test_ircad_conn_closed_by_server_reported),
        cmocka_unit_test(test_ircad_conn_refused_reported),
        cmocka_unit_test(test_ircad_conn_open_refuses_bad_params),
        cmocka_unit_test(test_ircad_conn_close_flushes_when_asked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
