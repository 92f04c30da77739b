/*
 * Tests of adapters/irc/output.c against the scripted server
 * (tests/support/irc_fixture.h): pacing by the token bucket and
 * priorities, the lag-driven interval, long texts split, tracked lines
 * reported when written, and queued lines that follow a person's nick.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <signal.h>

#include "bot/common/log.h"
#include "tests/support/irc_fixture.h"

/* ---- Tests -------------------------------------------------------------- */

static bool privmsgs(struct ircfx *f, int n)
{
    return ircfx_srv_count(&f->srv, "PRIVMSG #hearts :") >= n;
}

static bool got_first_burst(struct ircfx *f)
{
    return privmsgs(f, 3);
}

static bool told_alice(struct ircfx *f)
{
    return ircfx_srv_count(&f->srv, "PRIVMSG Alice :") >= 1;
}

static bool got_all_eleven(struct ircfx *f)
{
    return privmsgs(f, 11);
}

static void test_ircad_say_paced_by_bucket_and_priority(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_interval_ms = 600;
    ircfx_start(&f);
    /* the JOIN took one token of four */
    char text[32];
    for (int i = 0; i < 10; i++) {
        snprintf(text, sizeof text, "normal %d", i);
        f.a->ops->say(f.a, "#hearts", text, CHAT_NORMAL);
    }
    assert_false(f.a->ops->idle(f.a));
    assert_true(ircfx_run_until(&f, got_first_burst, 2000));
    /* well before the next token (600 ms after the JOIN): still three */
    ircfx_run_until(&f, ircfx_never, 150);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG #hearts :"), 3);
    /* a HIGH line to someone else overtakes the seven NORMAL ones still
     * waiting; one to the same channel does not: a channel's (and a
     * person's) lines arrive in the order they were queued */
    f.a->ops->tell(f.a, "Alice", "your turn", CHAT_HIGH);
    assert_true(ircfx_run_until(&f, told_alice, 2000));
    f.a->ops->say(f.a, "#hearts", "last", CHAT_HIGH);
    assert_true(ircfx_run_until(&f, got_all_eleven, 10000));
    int first = ircfx_srv_find(&f.srv, "PRIVMSG #hearts :", 0);
    assert_string_equal(f.srv.lines[first], "PRIVMSG #hearts :normal 0");
    int high = ircfx_srv_find(&f.srv, "PRIVMSG Alice :your turn", 0);
    int n3 = ircfx_srv_find(&f.srv, "PRIVMSG #hearts :normal 3", 0);
    assert_true(high >= 0 && n3 > high);
    int n9 = ircfx_srv_find(&f.srv, "PRIVMSG #hearts :normal 9", 0);
    int last = ircfx_srv_find(&f.srv, "PRIVMSG #hearts :last", 0);
    assert_true(n9 >= 0 && last > n9);
    /* the NORMAL lines kept their order */
    int prev = -1;
    for (int i = 0; i < 10; i++) {
        char want[40];
        snprintf(want, sizeof want, "PRIVMSG #hearts :normal %d", i);
        int at = ircfx_srv_find(&f.srv, want, 0);
        assert_true(at > prev);
        prev = at;
    }
    assert_true(f.a->ops->idle(f.a));
    ircfx_free(&f);
}

static bool four_chunks(struct ircfx *f)
{
    return ircfx_srv_count(&f->srv, "PRIVMSG alice :") >= 4;
}

static bool lines_sent_20(struct ircfx *f)
{
    return privmsgs(f, 20);
}

static bool lines_sent_40(struct ircfx *f)
{
    return privmsgs(f, 40);
}

/* With room to adapt, the pace speeds up while the server answers the lag
 * probes at once, and slows down as soon as it answers late. */
static void test_ircad_pacing_follows_lag(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 100;
    f.cfg.flood_min_interval_ms = 10;
    f.cfg.flood_max_interval_ms = 1600;
    ircfx_start(&f);
    for (int i = 0; i < 60; i++)
        f.a->ops->say(f.a, "#hearts", "line", CHAT_NORMAL);
    assert_true(ircfx_run_until(&f, lines_sent_20, 5000));
    assert_true(ircfx_srv_find(&f.srv, "PING :lag1", 0) > 0);
    int64_t fast_pace = ircad_interval_ms(f.a);
    assert_true(fast_pace < 100);
    f.srv.pong_delay_ms = 1500;
    assert_true(ircfx_run_until(&f, lines_sent_40, 10000));
    assert_true(ircad_interval_ms(f.a) >= 2 * fast_pace);
    ircfx_free(&f);
}

static void test_ircad_tell_splits_long_text(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_interval_ms = 50;
    ircfx_start(&f);
    /* 300 hearts of 3 bytes with spaces between: 1199 bytes */
    char text[1300];
    size_t n = 0;
    for (int i = 0; i < 300; i++) {
        memcpy(text + n, "\xE2\x99\xA5 ", 4);
        n += 4;
    }
    text[--n] = '\0';
    f.a->ops->tell(f.a, "alice", text, CHAT_LOW);
    f.a->ops->tell(f.a, "bad target", "x", CHAT_LOW);
    assert_true(ircfx_run_until(&f, four_chunks, 3000));
    size_t total = 0;
    for (int i = 0; i < f.srv.nlines; i++) {
        const char *l = f.srv.lines[i];
        if (strncmp(l, "PRIVMSG alice :", 15) != 0)
            continue;
        assert_true(100 + strlen(l) + 2 <= 512);
        /* whole hearts only */
        assert_int_equal((strlen(l) - 15 + 1) % 4, 0);
        total += strlen(l) - 15;
    }
    assert_int_equal(total + 3, n);
    assert_int_equal(ircfx_srv_find(&f.srv, "PRIVMSG bad", 0), -1);
    ircfx_free(&f);
}

static bool tracked_sent(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_SENT) >= 1;
}

/* A tracked text is reported once its last line is written, not when it
 * is queued behind the pacing. */
static void test_ircad_tell_tracked_reports_when_written(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_burst = 2;
    f.cfg.flood_interval_ms = 300;
    ircfx_start(&f);
    for (int i = 0; i < 3; i++)
        f.a->ops->say(f.a, "#hearts", "backlog", CHAT_NORMAL);
    f.a->ops->tell_tracked(f.a, "bob", "your turn", CHAT_NORMAL, 77);
    ircfx_run_until(&f, ircfx_never, 100);
    assert_int_equal(ircfx_count_events(&f, CHAT_SENT), 0);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG bob :"), 0);
    assert_true(ircfx_run_until(&f, tracked_sent, 3000));
    const struct ircfx_event *r = &f.ev[f.nev - 1];
    assert_int_equal(r->kind, CHAT_SENT);
    assert_int_equal(r->cookie, 77);
    ircfx_run_until(&f, ircfx_never, 50);
    assert_int_equal(ircfx_srv_count(&f.srv, "PRIVMSG bob :your turn"), 1);
    /* a text that cannot go is reported at once (next round) */
    f.a->ops->tell_tracked(f.a, "bad nick", "x", CHAT_NORMAL, 78);
    ircfx_run_until(&f, ircfx_never, 50);
    assert_int_equal(f.ev[f.nev - 1].kind, CHAT_SENT);
    assert_int_equal(f.ev[f.nev - 1].cookie, 78);
    ircfx_free(&f);
}

static bool people_told(struct ircfx *f)
{
    return ircfx_srv_count(&f->srv, "PRIVMSG ") >= 3;
}

/* Lines queued for people follow their NICK; what waited for a nick
 * someone takes after its holder renamed, and for a person who quit or
 * left the bot's last channel, never reaches anyone under that nick. */
static void test_ircad_queued_lines_follow_the_person(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 300;
    f.cfg.flood_min_interval_ms = 300;
    f.cfg.flood_max_interval_ms = 300;
    ircfx_start(&f);
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s, ":bob!b@h JOIN :#hearts");
    ircfx_srv_send(s, ":carol!c@h JOIN :#hearts");
    ircfx_srv_send(s, ":dave!d@h JOIN :#hearts");
    ircfx_srv_send(s, ":erin!e@h JOIN :#hearts");
    ircfx_run_until(&f, ircfx_never, 100);
    f.a->ops->tell_tracked(f.a, "bob", "bob's cards", CHAT_NORMAL, 1);
    f.a->ops->tell_tracked(f.a, "Bob", "bob's turn", CHAT_HIGH, 2);
    f.a->ops->tell_tracked(f.a, "carol", "carol's cards", CHAT_NORMAL, 3);
    f.a->ops->tell_tracked(f.a, "dave", "dave's cards", CHAT_NORMAL, 4);
    f.a->ops->tell_tracked(f.a, "erin", "erin's cards", CHAT_NORMAL, 5);
    /* bob -> tmp, carol -> bob (taking the nick its holder just left),
     * tmp -> Carol; dave quits; erin leaves the bot's only channel */
    ircfx_srv_send(s, ":bob!b@h NICK :tmp");
    ircfx_srv_send(s, ":carol!c@h NICK :bob");
    ircfx_srv_send(s, ":tmp!b@h NICK :Carol");
    ircfx_srv_send(s, ":dave!d@h QUIT :bye");
    ircfx_srv_send(s, ":erin!e@h PART #hearts :later");
    assert_true(ircfx_run_until(&f, people_told, 5000));
    ircfx_run_until(&f, ircfx_never, 700);
    assert_int_equal(ircfx_srv_count(s, "PRIVMSG "), 3);
    int cards = ircfx_srv_find(s, "PRIVMSG Carol :bob's cards", 0);
    int turn = ircfx_srv_find(s, "PRIVMSG Carol :bob's turn", 0);
    assert_true(cards >= 0 && turn > cards);
    assert_true(ircfx_srv_find(s, "PRIVMSG bob :carol's cards", 0) >= 0);
    assert_int_equal(ircfx_srv_count(s, "PRIVMSG dave"), 0);
    assert_int_equal(ircfx_srv_count(s, "PRIVMSG erin"), 0);
    /* the dropped lines are reported, so nothing waits for them */
    int reported = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_SENT)
            reported |= 1 << f.ev[i].cookie;
    assert_int_equal(reported, 0x3e);
    assert_true(f.a->ops->idle(f.a));
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_say_paced_by_bucket_and_priority),
        cmocka_unit_test(test_ircad_pacing_follows_lag),
        cmocka_unit_test(test_ircad_tell_tracked_reports_when_written),
        cmocka_unit_test(test_ircad_queued_lines_follow_the_person),
        cmocka_unit_test(test_ircad_tell_splits_long_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
