/*
 * Tests of adapters/irc/adapter.c, the ops and lifecycle, against the
 * scripted server (tests/support/irc_fixture.h): a config that cannot
 * work refused at start, stop draining the queue before QUIT, free
 * while stopping, and answers to channel commands by NOTICE (or PRIVMSG).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include <signal.h>

#include "bot/common/log.h"
#include "tests/support/irc_fixture.h"

/* ---- Tests -------------------------------------------------------------- */

static bool quit_seen(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "QUIT", 0) >= 0 && f->srv.cfd < 0;
}

static bool stopped(struct ircfx *f)
{
    return quit_seen(f) && f->a->ops->idle(f->a);
}

static void test_ircad_stop_drains_queue_then_quits(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_interval_ms = 100;
    ircfx_start(&f);
    char text[32];
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, "goodbye %d", i);
        f.a->ops->say(f.a, "#hearts", text, CHAT_NORMAL);
    }
    f.a->ops->tell(f.a, "alice", "a long help text", CHAT_LOW);
    f.a->ops->stop(f.a, "Good night\r\nJOIN #evil");
    /* nothing new after stop, and not idle until the QUIT is out */
    f.a->ops->say(f.a, "#hearts", "too late", CHAT_HIGH);
    assert_false(f.a->ops->idle(f.a));
    int nev = f.nev;
    assert_true(ircfx_run_until(&f, stopped, 5000));
    int quit = ircfx_srv_find(&f.srv, "QUIT", 0);
    assert_string_equal(f.srv.lines[quit], "QUIT :Good nightJOIN #evil");
    assert_int_equal(quit, f.srv.nlines - 1);
    /* every goodbye went, in order, before the QUIT; LOW lines did not */
    int prev = -1;
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, "PRIVMSG #hearts :goodbye %d", i);
        int at = ircfx_srv_find(&f.srv, text, 0);
        assert_true(at > prev && at < quit);
        prev = at;
    }
    assert_int_equal(ircfx_srv_find(&f.srv, "PRIVMSG alice", 0), -1);
    assert_int_equal(ircfx_srv_find(&f.srv, "PRIVMSG #hearts :too late", 0),
                     -1);
    /* no reconnect and no events after stop */
    ircfx_run_until(&f, ircfx_never, 200);
    assert_int_equal(f.srv.accepts, 1);
    assert_int_equal(f.nev, nev);
    assert_int_equal(f.a->ops->start(f.a), -1);
    ircfx_free(&f);
}

static void test_ircad_free_while_stopping_sends_quit(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_interval_ms = 5000;
    ircfx_start(&f);
    for (int i = 0; i < 6; i++)
        f.a->ops->say(f.a, "#hearts", "bye all", CHAT_HIGH);
    f.a->ops->stop(f.a, "bye");
    /* the JOIN took one token of four: three lines, then a long wait */
    ircfx_run_until(&f, ircfx_never, 200);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG #hearts :bye all"), 3);
    assert_false(f.a->ops->idle(f.a));
    /* the bot's deadline passes: free sends the QUIT at once */
    f.a->ops->free(f.a);
    f.a = NULL;
    assert_true(ircfx_run_until(&f, quit_seen, 3000));
    int quit = ircfx_srv_find(&f.srv, "QUIT", 0);
    assert_string_equal(f.srv.lines[quit], "QUIT :bye");
    assert_int_equal(quit, f.srv.nlines - 1);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG #hearts :bye all"), 3);
    ircfx_free(&f);
}

static bool three_to_people(struct ircfx *f)
{
    return ircfx_srv_count(&f->srv, "NOTICE ") +
               ircfx_srv_count(&f->srv, "PRIVMSG b") >=
           3;
}

/* The answer to a channel command is a NOTICE (the default), in the
 * person's queue with their private lines (it follows their nick), or a
 * PRIVMSG where the config says answers = "privmsg". */
static void test_ircad_notice_answers_in_order_with_private_lines(void **state)
{
    (void)state;
    const char *answers[] = {NULL, "notice", "privmsg"};
    for (int k = 0; k < 3; k++) {
        struct ircfx f;
        ircfx_init(&f);
        f.cfg.answers = (char *)answers[k];
        f.cfg.flood_burst = 1;
        f.cfg.flood_interval_ms = 200;
        f.cfg.flood_min_interval_ms = 200;
        f.cfg.flood_max_interval_ms = 200;
        ircfx_start(&f);
        ircfx_srv_send(&f.srv, ":bob!b@h JOIN :#hearts");
        ircfx_run_until(&f, ircfx_never, 50);
        f.a->ops->tell(f.a, "bob", "your hand", CHAT_NORMAL);
        f.a->ops->notice(f.a, "bob", "the rules", CHAT_LOW);
        f.a->ops->notice(f.a, "bob", "only the opener", CHAT_NORMAL);
        ircfx_srv_send(&f.srv, ":bob!b@h NICK :bobby");
        assert_true(ircfx_run_until(&f, three_to_people, 3000));
        const char *cmd = k == 2 ? "PRIVMSG" : "NOTICE";
        char line[64];
        snprintf(line, sizeof line, "%s bobby :the rules", cmd);
        int rules = ircfx_srv_find(&f.srv, line, 0);
        snprintf(line, sizeof line, "%s bobby :only the opener", cmd);
        int opener = ircfx_srv_find(&f.srv, line, 0);
        int hand = ircfx_srv_find(&f.srv, "PRIVMSG b", 0);
        assert_true(hand >= 0);
        assert_string_equal(f.srv.lines[hand], "PRIVMSG bobby :your hand");
        assert_true(rules > hand && opener > rules);
        assert_int_equal(
            ircfx_srv_count(&f.srv, k == 2 ? "NOTICE" : "PRIVMSG bobby :the"),
            0);
        ircfx_free(&f);
    }
}

static void test_ircad_start_refuses_bad_config(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    const struct {
        char *nick, *chan, *host;
        int port;
    } bad[] = {
        {"bad nick", "#hearts", "127.0.0.1", f.srv.port},
        {"pct%s", "#hearts", "127.0.0.1", f.srv.port},
        {"hearts", "nochan", "127.0.0.1", f.srv.port},
        {"hearts", "#a,#b", "127.0.0.1", f.srv.port},
        {"hearts", "#hearts", "", f.srv.port},
        {"hearts", "#hearts", NULL, f.srv.port},
        {"hearts", "#hearts", "127.0.0.1", 0},
        {"hearts", "#hearts", "127.0.0.1", 70000},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f.cfg.nick = bad[i].nick;
        f.chans[0].name = bad[i].chan;
        f.cfg.host = bad[i].host;
        f.cfg.port = bad[i].port;
        struct chat_adapter *a = ircad_new(f.l, &f.cfg, ircfx_on_event, &f);
        assert_non_null(a);
        assert_int_equal(a->ops->start(a), -1);
        a->ops->free(a);
    }
    /* nothing even tried to connect */
    ircfx_run_until(&f, ircfx_never, 50);
    assert_int_equal(f.srv.accepts, 0);
    f.cfg.nick = "hearts";
    f.chans[0].name = "#hearts";
    f.cfg.host = "127.0.0.1";
    f.cfg.port = f.srv.port;
    ircfx_make(&f, NULL);
    assert_int_equal(f.a->ops->start(f.a), 0);
    ircfx_free(&f);
}

static bool game_on;

static bool busy(void *ctx, struct chat_adapter *a, const char *room)
{
    (void)ctx;
    (void)a;
    (void)room;
    return game_on;
}

static bool reload_done(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "JOIN #cards", 0) >= 0 &&
           ircfx_srv_find(&f->srv, "PART #hearts", 0) >= 0;
}

/* A reload's channels: the new one joined, the one gone left with a
 * goodbye; with a game on there, the bot stays. */
static void test_reload_joins_and_leaves_channels(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    struct irc_config cfg = f.cfg;
    cfg.channels = &f.chans[1]; /* #cards only */
    cfg.nchannels = 1;
    game_on = true;
    ircad_reload_channels(f.a, &cfg, busy, NULL);
    assert_true(f.a->ops->serves(f.a, "#hearts"));
    game_on = false;
    ircad_reload_channels(f.a, &cfg, busy, NULL);
    assert_true(ircfx_run_until(&f, reload_done, 3000));
    assert_int_equal(ircfx_srv_count(&f.srv, "JOIN #cards"), 1);
    assert_true(ircfx_srv_find(&f.srv, "PRIVMSG #hearts :Goodbye!", 0) >= 0);
    assert_false(f.a->ops->serves(f.a, "#hearts"));
    assert_true(f.a->ops->serves(f.a, "#cards"));
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reload_joins_and_leaves_channels),
        cmocka_unit_test(test_ircad_stop_drains_queue_then_quits),
        cmocka_unit_test(test_ircad_free_while_stopping_sends_quit),
        cmocka_unit_test(test_ircad_start_refuses_bad_config),
        cmocka_unit_test(test_ircad_notice_answers_in_order_with_private_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
