/*
 * Tests of adapters/irc/link.c against the scripted server
 * (tests/support/irc_fixture.h): keep-alive against a silent or
 * trickling server, reconnects (after a close, a refusal), private lines
 * dropped with the link, IPv6, every address of a name, and a resolver
 * that does not block the loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <netinet/in.h>
#include <signal.h>
#include <unistd.h>

#include "bot/common/log.h"
#include "tests/support/irc_fixture.h"

/* ---- Tests -------------------------------------------------------------- */

static bool reconnected(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_CONNECTED) >= 2 &&
           ircfx_srv_find(&f->srv, "PRIVMSG #hearts :while away", 0) >= 0;
}

static void test_ircad_keepalive_drops_silent_link_and_reconnects(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.srv.ignore_ping = true;
    struct ircad_timing t = ircfx_fast;
    t.ping_after_ms = 150;
    t.dead_after_ms = 400;
    ircfx_make(&f, &t);
    f.say_on_disconnect = "while away";
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, reconnected, 5000));
    int ping = ircfx_srv_find(&f.srv, "PING :ka", 0);
    assert_true(ping >= 0);
    assert_int_equal(f.srv.accepts, 2);
    /* connected, disconnected, connected again: the tables carry on */
    int c = 0;
    for (int i = 0; i < f.nev; i++) {
        if (f.ev[i].kind == CHAT_CONNECTED || f.ev[i].kind == CHAT_DISCONNECTED)
            assert_int_equal(f.ev[i].kind,
                             c++ % 2 == 0 ? CHAT_CONNECTED : CHAT_DISCONNECTED);
    }
    assert_true(c >= 3);
    /* registration and JOIN again on the new link, before the chat line */
    int second_nick = ircfx_srv_find(&f.srv, "NICK hearts", ping);
    int join = ircfx_srv_find(&f.srv, "JOIN #hearts", second_nick);
    int away = ircfx_srv_find(&f.srv, "PRIVMSG #hearts :while away", 0);
    assert_true(second_nick > ping && join > second_nick && away > join);
    ircfx_free(&f);
}

static bool reconnected_and_said(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_CONNECTED) >= 2 &&
           ircfx_srv_count(&f->srv, "PRIVMSG #hearts :kept") >= 1;
}

/* Lines to people queued when the link drops are not sent on the next
 * one (whoever has the nick then may be someone else); the channel's are;
 * a dropped tracked line is reported. */
static void test_ircad_disconnect_drops_private_lines(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 2000;
    ircfx_start(&f);
    f.a->ops->tell_tracked(f.a, "bob", "your cards", CHAT_HIGH, 5);
    f.a->ops->say(f.a, "#hearts", "kept", CHAT_NORMAL);
    ircfx_run_until(&f, ircfx_never, 100);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG "), 0);
    ircfx_srv_send(&f.srv, "ERROR :Closing link (test)");
    ircfx_srv_drop_client(&f.srv);
    assert_true(ircfx_run_until(&f, reconnected_and_said, 8000));
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG bob"), 0);
    bool reported = false;
    for (int i = 0; i < f.nev; i++)
        reported |= f.ev[i].kind == CHAT_SENT && f.ev[i].cookie == 5;
    assert_true(reported);
    ircfx_free(&f);
}

static bool back_after_close(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_CONNECTED) >= 2;
}

static void test_ircad_reconnects_when_server_closes(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    ircfx_srv_send(&f.srv, "ERROR :Closing link (test)");
    ircfx_srv_drop_client(&f.srv);
    assert_true(ircfx_run_until(&f, back_after_close, 3000));
    assert_int_equal(ircfx_count_events(&f, CHAT_DISCONNECTED), 1);
    assert_int_equal(f.srv.accepts, 2);
    ircfx_free(&f);
}

struct trickle {
    struct ircfx *f;
    uint64_t timer;
};

static void on_trickle(struct loop *l, void *ctx)
{
    struct trickle *t = ctx;
    ircfx_srv_send_raw(&t->f->srv, "x", 1);
    t->timer = loop_timer(l, 30, on_trickle, t);
}

static bool dropped_once(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_DISCONNECTED) >= 1;
}

/* A server that trickles a byte now and then but never a whole line
 * (nor a PONG) is as dead as a silent one: the keep-alive counts answers
 * to our PINGs, not bytes. */
static void test_ircad_keepalive_drops_trickling_server(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    struct ircad_timing t = ircfx_fast;
    t.ping_after_ms = 150;
    t.dead_after_ms = 400;
    ircfx_make(&f, &t);
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, ircfx_connected, 3000));
    f.srv.ignore_ping = true;
    struct trickle tr = {.f = &f};
    tr.timer = loop_timer(f.l, 30, on_trickle, &tr);
    assert_true(ircfx_run_until(&f, dropped_once, 3000));
    loop_cancel(f.l, tr.timer);
    bool why = false;
    for (int i = 0; i < f.nev; i++)
        why |= f.ev[i].kind == CHAT_DISCONNECTED &&
               strstr(f.ev[i].text, "no answer to our PING") != NULL;
    assert_true(why);
    ircfx_free(&f);
}

static bool refused_or_connected(struct ircfx *f)
{
    return f->srv.accepts > 0 || f->nev > 0;
}

static void test_ircad_start_retries_when_refused(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    /* a port nobody listens on: take one and close it */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t len = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &len);
    close(s);
    f.cfg.port = ntohs(sa.sin_port);
    ircfx_make(&f, NULL);
    assert_int_equal(f.a->ops->start(f.a), 0);
    /* refused attempts are retried quietly: no events */
    assert_false(ircfx_run_until(&f, refused_or_connected, 400));
    assert_int_equal(f.nev, 0);
    ircfx_free(&f);
}

static void test_ircad_start_connects_over_ipv6(void **state)
{
    (void)state;
    struct ircfx f;
    if (!ircfx_init_family(&f, true)) {
        skip();
        return;
    }
    f.cfg.host = "::1";
    ircfx_start(&f);
    assert_int_equal(f.srv.accepts, 1);
    ircfx_free(&f);
}

/* A name with several addresses: each is tried in turn, so the first
 * refusing (nobody listens on 127.0.0.2, or on ::1) does not stop the
 * bot from reaching the one that answers. */
static void test_ircad_start_tries_every_address(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.host = "irc.multi.test";
    ircfx_make(&f, NULL);
    char entry[128];
    snprintf(entry, sizeof entry, "irc.multi.test:%d:[::1],127.0.0.2,127.0.0.1",
             f.srv.port);
    ircad_set_test_resolve(f.a, entry);
    f.a->ops->start(f.a);
    assert_true(ircfx_run_until(&f, ircfx_connected, 5000));
    assert_int_equal(f.srv.accepts, 1);
    ircfx_free(&f);
}

struct ticks {
    int n;
    uint64_t t;
};

static void on_tick(struct loop *l, void *ctx)
{
    struct ticks *k = ctx;
    k->n++;
    k->t = loop_timer(l, 10, on_tick, k);
}

/* Resolving a name happens off the loop: while it goes on (here a name
 * no resolver knows, which may take seconds where a DNS server is
 * configured but unreachable), timers keep firing on time. */
static void test_ircad_start_resolves_without_blocking(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.host = "heartsbot-no-such-host.invalid";
    ircfx_make(&f, NULL);
    struct ticks k = {0, 0};
    k.t = loop_timer(f.l, 10, on_tick, &k);
    int64_t before = loop_now(f.l);
    assert_int_equal(f.a->ops->start(f.a), 0);
    assert_true(loop_now(f.l) - before < 100);
    ircfx_run_until(&f, ircfx_never, 400);
    loop_cancel(f.l, k.t);
    /* 400 ms of 10 ms ticks: most of them, whatever the resolver does */
    assert_true(k.n >= 20);
    assert_int_equal(f.srv.accepts, 0);
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_disconnect_drops_private_lines),
        cmocka_unit_test(test_ircad_keepalive_drops_silent_link_and_reconnects),
        cmocka_unit_test(test_ircad_keepalive_drops_trickling_server),
        cmocka_unit_test(test_ircad_reconnects_when_server_closes),
        cmocka_unit_test(test_ircad_start_retries_when_refused),
        cmocka_unit_test(test_ircad_start_connects_over_ipv6),
        cmocka_unit_test(test_ircad_start_tries_every_address),
        cmocka_unit_test(test_ircad_start_resolves_without_blocking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
