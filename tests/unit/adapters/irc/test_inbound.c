/*
 * Tests of adapters/irc/inbound.c: the command table without a server
 * (each command's fewest parameters, lines with fewer ignored whole, the
 * handlers' order), and the whole inbound path against the scripted
 * server (tests/support/irc_fixture.h): every event kind, CTCP answers
 * and their limit, malformed, overlong and byte-by-byte lines.
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
#include <sys/socket.h>

#include "adapters/irc/inbound.h"
#include "adapters/irc/ircad.h"
#include "bot/common/log.h"
#include "adapters/irc/irc_config.h"
#include "tests/support/irc_fixture.h"

/* ---- A bare adapter: lines handed straight to inbound.c -------------- */

/* The fixture's adapter, never started, believing it is registered as
 * "hearts" in #hearts. */
static struct ircad *bare(struct ircfx *f)
{
    ircfx_init(f);
    ircfx_make(f, NULL);
    struct ircad *a = (struct ircad *)f->a;
    a->state = ST_REGISTERED;
    return a;
}

/* Hands the adapter one line: command, origin, then the parameters
 * (NULL-terminated; use PNULL for a parameter that is NULL). */
static const char pnull[] = "";
#define PNULL pnull

static void line(struct ircad *a, const char *command, const char *origin, ...)
{
    const char *params[16];
    unsigned n = 0;
    va_list ap;
    va_start(ap, origin);
    const char *p;
    while ((p = va_arg(ap, const char *)) && n < 16)
        params[n++] = p == pnull ? NULL : p;
    va_end(ap);
    int numeric = command[0] >= '0' && command[0] <= '9' ? atoi(command) : 0;
    struct ircad_msg m = {command, numeric, origin, params, n, NULL};
    ircad_inbound_line(a, &m);
}

#define ALICE "alice!al@host"

/* ---- The table, without a server --------------------------------------- */

static void test_ircad_inbound_table_minimums(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        unsigned min;
    } want[] = {
        {"PRIVMSG", 2}, {"CTCP", 1}, {"JOIN", 1},    {"PART", 1}, {"KICK", 2},
        {"QUIT", 0},    {"NICK", 1}, {"ACCOUNT", 1}, {"PONG", 0}, {"ERROR", 0},
        {"001", 0},     {"002", 2},  {"004", 3},     {"005", 0},  {"302", 0},
        {"330", 3},     {"354", 5},  {"432", 0},     {"433", 0},  {"436", 0},
        {"437", 0},     {"471", 2},  {"473", 2},     {"474", 2},  {"475", 2},
        {"477", 2},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct ircad_command *c = ircad_inbound_find(want[i].name);
        assert_non_null(c);
        assert_string_equal(c->name, want[i].name);
        assert_int_equal(c->min_params, want[i].min);
        assert_true(c->track || c->handle || c->after);
    }
    /* never answered, answered below the adapter, or of no interest */
    const char *none[] = {"NOTICE",  "PING", "TOPIC", "MODE",
                          "privmsg", "",     "472"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        assert_null(ircad_inbound_find(none[i]));
}

static void test_ircad_inbound_too_few_params_ignored(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    line(a, "PRIVMSG", ALICE, "#hearts", NULL);
    line(a, "JOIN", ALICE, NULL);
    line(a, "PART", ALICE, NULL);
    line(a, "KICK", ALICE, "#hearts", NULL);
    line(a, "NICK", ALICE, NULL);
    line(a, "CTCP", ALICE, NULL);
    assert_int_equal(f.nev, 0);
    /* enough: each is an event */
    line(a, "PRIVMSG", ALICE, "#hearts", "hello", NULL);
    line(a, "JOIN", ALICE, "#hearts", NULL);
    line(a, "PART", ALICE, "#hearts", NULL);
    line(a, "KICK", ALICE, "#hearts", "bob", NULL);
    line(a, "NICK", ALICE, "alicia", NULL);
    line(a, "QUIT", "alicia!al@host", NULL);
    assert_int_equal(f.nev, 6);
    assert_int_equal(f.ev[0].kind, CHAT_MESSAGE);
    assert_string_equal(f.ev[0].room, "#hearts");
    assert_string_equal(f.ev[0].text, "hello");
    assert_int_equal(f.ev[1].kind, CHAT_JOIN);
    assert_int_equal(f.ev[2].kind, CHAT_PART);
    assert_string_equal(f.ev[2].text, "");
    assert_int_equal(f.ev[3].kind, CHAT_KICK);
    assert_string_equal(f.ev[3].target, "bob");
    assert_int_equal(f.ev[4].kind, CHAT_NICK);
    assert_string_equal(f.ev[4].target, "alicia");
    assert_int_equal(f.ev[5].kind, CHAT_QUIT);
    assert_string_equal(f.ev[5].nick, "alicia");
    ircfx_free(&f);
}

static void test_ircad_inbound_null_or_empty_params_ignored(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    line(a, "PRIVMSG", ALICE, "#hearts", PNULL, NULL);
    line(a, "PRIVMSG", ALICE, "#hearts", "", NULL);
    line(a, "PRIVMSG", ALICE, "", "hello", NULL);
    line(a, "JOIN", ALICE, PNULL, NULL);
    line(a, "KICK", ALICE, "#hearts", PNULL, NULL);
    line(a, "NICK", ALICE, "", NULL);
    /* a server is not a person */
    line(a, "PRIVMSG", "irc.example.net", "#hearts", "hello", NULL);
    /* nor are we */
    line(a, "PRIVMSG", "hearts!hb@host", "#hearts", "hello", NULL);
    assert_int_equal(f.nev, 0);
    ircfx_free(&f);
}

/* An account line with too few parameters changes nothing: the events
 * that follow carry what was tracked before. */
static void test_ircad_inbound_account_lines_checked_too(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    line(a, "JOIN", ALICE, "#hearts", NULL);
    line(a, "ACCOUNT", ALICE, "alice_acc", NULL);
    line(a, "ACCOUNT", ALICE, NULL);
    line(a, "PRIVMSG", ALICE, "#hearts", "hi", NULL);
    assert_int_equal(f.nev, 2);
    assert_int_equal(f.ev[1].kind, CHAT_MESSAGE);
    assert_string_equal(f.ev[1].account, "alice_acc");
    /* logged out ("*"): no account */
    line(a, "ACCOUNT", ALICE, "*", NULL);
    line(a, "PRIVMSG", ALICE, "#hearts", "hi", NULL);
    assert_int_equal(f.nev, 3);
    assert_string_equal(f.ev[2].account, "");
    ircfx_free(&f);
}

/* 302 needs no parameter: even an empty answer is the oldest question's,
 * and says the nick is not on the network. */
static void test_ircad_inbound_userhost_answers_in_order(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    f.a->ops->verify(f.a, "carol");
    f.a->ops->verify(f.a, "dave");
    line(a, "302", "srv", NULL);
    line(a, "302", "srv", "hearts", "dave=+dv@host", NULL);
    assert_int_equal(f.nev, 2);
    assert_int_equal(f.ev[0].kind, CHAT_IDENTITY);
    assert_string_equal(f.ev[0].nick, "carol");
    assert_int_equal(f.ev[1].kind, CHAT_IDENTITY);
    assert_string_equal(f.ev[1].nick, "dave");
    ircfx_free(&f);
}

static void test_ircad_inbound_welcome_registers(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    a->state = ST_CONNECTING;
    line(a, "001", "srv", "hearts_", "Welcome", NULL);
    assert_int_equal(a->state, ST_REGISTERED);
    assert_string_equal(a->cur_nick, "hearts_");
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_CONNECTED);
    /* once only */
    line(a, "001", "srv", "other", "Welcome", NULL);
    assert_string_equal(a->cur_nick, "hearts_");
    assert_int_equal(f.nev, 1);
    ircfx_free(&f);
}

static void test_ircad_inbound_nothing_after_stop(void **state)
{
    (void)state;
    struct ircfx f;
    struct ircad *a = bare(&f);
    f.a->ops->stop(f.a, "bye");
    line(a, "PRIVMSG", ALICE, "#hearts", "hello", NULL);
    line(a, "JOIN", ALICE, "#hearts", NULL);
    assert_int_equal(f.nev, 0);
    ircfx_free(&f);
}

/* ---- Whole lines, through a scripted server ---------------------------- */

static void expect(const struct ircfx_event *r, enum chat_event_kind kind,
                   const char *room, const char *nick, const char *id,
                   const char *text, const char *target)
{
    assert_int_equal(r->kind, kind);
    assert_int_equal(r->has_room, room != NULL);
    if (room)
        assert_string_equal(r->room, room);
    assert_string_equal(r->nick, nick);
    assert_string_equal(r->id, id);
    assert_string_equal(r->text, text ? text : "");
    assert_string_equal(r->target, target ? target : "");
}

static void test_ircad_events_from_server_lines(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    int base = f.nev;
    struct ircfx_server *s = &f.srv;
    ircfx_srv_send(s, ":alice!al@example.org PRIVMSG #hearts :!join");
    ircfx_srv_send(s, ":alice!al@example.org PRIVMSG hearts :hand");
    ircfx_srv_send(s, ":alice!al@example.org NOTICE hearts :never answered");
    ircfx_srv_send(s, ":alice!al@example.org NOTICE #hearts :nor this");
    ircfx_srv_send(s, ":bob!b@h.example JOIN :#hearts");
    ircfx_srv_send(s, ":bob!b@h.example PART #hearts :bye now");
    ircfx_srv_send(s, ":bob!b@h.example JOIN #hearts");
    ircfx_srv_send(s, ":op!o@h.example KICK #hearts bob :out");
    ircfx_srv_send(s, ":irc.test KICK #hearts bob :by the server");
    ircfx_srv_send(s, ":bob!b@h.example NICK :bobby");
    ircfx_srv_send(s, ":bobby!b@h.example QUIT :gone");
    /* malformed or not for the manager: no event, no crash */
    ircfx_srv_send(s, ":irc.test PRIVMSG #hearts :from a server");
    ircfx_srv_send(s, "PRIVMSG #hearts :no origin");
    ircfx_srv_send(s, ":carol!c@h PRIVMSG #hearts");
    ircfx_srv_send(s, ":carol PRIVMSG hearts :no user and host");
    ircfx_srv_send(s, ":carol!c@h PRIVMSG #hearts :");
    /* a command with no parameter at all makes libircclient parse past
     * the end of its line; the trailing space gives zero parameters
     * without that */
    ircfx_srv_send(s, ":carol!c@h JOIN ");
    ircfx_srv_send(s, ":carol!c@h JOIN :");
    ircfx_srv_send(s, ":carol!c@h PART ");
    ircfx_srv_send(s, ":carol!c@h KICK #hearts");
    ircfx_srv_send(s, ":carol!c@h NICK ");
    ircfx_srv_send(s, ":carol!c@h NICK :");
    ircfx_srv_send(s, ":carol QUIT :no user");
    ircfx_srv_send(s, ":dave!d@h PRIVMSG @#hearts :to the ops");
    ircfx_srv_send(s, ":dave!d@h PRIVMSG $* :a broadcast");
    ircfx_srv_send(s, ":hearts!u@127.0.0.1 PRIVMSG #hearts :my own echo");
    ircfx_srv_send(s, ":hearts!u@127.0.0.1 JOIN #hearts");
    ircfx_srv_send(s, ":irc.test 999 ");
    ircfx_srv_send(s, ":irc.test 005 ");
    ircfx_srv_send(s, ":irc.test 433 hearts");
    ircfx_srv_send(s, "FOO ");
    ircfx_srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(ircfx_run_until(&f, ircfx_saw_end, 3000));

    const struct ircfx_event *r = &f.ev[base];
    assert_int_equal(f.nev - base, 10);
    expect(&r[0], CHAT_MESSAGE, "#hearts", "alice", "al@example.org", "!join",
           NULL);
    expect(&r[1], CHAT_MESSAGE, NULL, "alice", "al@example.org", "hand", NULL);
    expect(&r[2], CHAT_JOIN, "#hearts", "bob", "b@h.example", NULL, NULL);
    expect(&r[3], CHAT_PART, "#hearts", "bob", "b@h.example", "bye now", NULL);
    expect(&r[4], CHAT_JOIN, "#hearts", "bob", "b@h.example", NULL, NULL);
    expect(&r[5], CHAT_KICK, "#hearts", "op", "o@h.example", "out", "bob");
    expect(&r[6], CHAT_KICK, "#hearts", "irc.test", "", "by the server", "bob");
    expect(&r[7], CHAT_NICK, NULL, "bob", "b@h.example", NULL, "bobby");
    expect(&r[8], CHAT_QUIT, NULL, "bobby", "b@h.example", "gone", NULL);
    expect(&r[9], CHAT_MESSAGE, "#hearts", "zed", "z@h", "end", NULL);
    /* a server without WHOX or account capabilities (ngircd): no WHO is
     * asked and nobody has an account */
    for (int i = base; i < f.nev; i++)
        assert_string_equal(f.ev[i].account, "");
    assert_int_equal(ircfx_srv_find(&f.srv, "WHO ", 0), -1);
    /* nothing was answered to the NOTICEs */
    assert_int_equal(ircfx_srv_find(&f.srv, "NOTICE", 0), -1);
    ircfx_free(&f);
}

static bool three_notices(struct ircfx *f)
{
    return ircfx_srv_count(&f->srv, "NOTICE alice :\001") >= 3 &&
           f->a->ops->idle(f->a);
}

static void test_ircad_ctcp_answered_and_limited(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_init(&f);
    f.cfg.flood_interval_ms = 100;
    ircfx_start(&f);
    int base = f.nev;
    ircfx_srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001VERSION\001");
    ircfx_srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001PING 12345\001");
    ircfx_srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001TIME\001");
    for (int i = 0; i < 5; i++)
        ircfx_srv_send(&f.srv, ":alice!al@h PRIVMSG #hearts :\001PING %d\001",
                       i);
    assert_true(ircfx_run_until(&f, three_notices, 3000));
    /* settle: nothing more may come */
    ircfx_run_until(&f, ircfx_never, 300);
    int v = ircfx_srv_find(&f.srv, "NOTICE alice :\001VERSION heartsbot", 0);
    int p = ircfx_srv_find(&f.srv, "NOTICE alice :\001PING 12345\001", 0);
    assert_true(v >= 0);
    assert_true(p > v);
    /* 3 answers at most in a burst (VERSION, PING 12345, PING 0; TIME is
     * not answered): the later PINGs are not */
    assert_int_equal(ircfx_srv_count(&f.srv, "NOTICE"), 3);
    assert_int_equal(f.nev, base);
    ircfx_free(&f);
}

static bool two_messages(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_MESSAGE) >= 2;
}

/* A line longer than libircclient's 1 KiB buffer (which used to stall it
 * for good) reaches the adapter cut; one longer than IRC allows at all
 * (8191 bytes of tags and 512 of message) is dropped whole, its rest too,
 * and the link goes on. */
static void test_ircad_overlong_input_lines_cut_or_dropped(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    char big[1500];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ircfx_srv_send(&f.srv, ":alice!a@h PRIVMSG #hearts :%s", big);
    static char huge[12000];
    memset(huge, 'y', sizeof huge);
    send(f.srv.cfd, huge, sizeof huge, MSG_NOSIGNAL);
    ircfx_srv_send(&f.srv, " still the huge line");
    ircfx_srv_send(&f.srv, ":bob!b@h PRIVMSG #hearts :after");
    assert_true(ircfx_run_until(&f, two_messages, 3000));
    assert_int_equal(ircfx_count_events(&f, CHAT_DISCONNECTED), 0);
    assert_int_equal(ircfx_count_events(&f, CHAT_MESSAGE), 2);
    const struct ircfx_event *first = NULL, *second = NULL;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_MESSAGE)
            (first ? &second : &first)[0] = &f.ev[i];
    assert_string_equal(first->nick, "alice");
    assert_true(strlen(first->text) > 400);
    assert_true(strspn(first->text, "x") == strlen(first->text));
    assert_string_equal(second->nick, "bob");
    assert_string_equal(second->text, "after");
    ircfx_free(&f);
}

static bool said_alive(struct ircfx *f)
{
    for (int i = 0; i < f->nev; i++)
        if (f->ev[i].kind == CHAT_MESSAGE &&
            strcmp(f->ev[i].text, "alive") == 0)
            return true;
    return false;
}

/* Lines a broken or hostile server may send, each of which crashed or
 * deafened the bot inside libircclient before the transport checked
 * them: none reaches the library, the link stays up, and the line after
 * them is heard. */
static void test_ircad_malformed_server_lines_survived(void **state)
{
    (void)state;
    static const char bad[] =
        "NICK x\r\n"                       /* no prefix: who? */
        ":irc.test 000 hearts :zero\r\n"   /* numeric 000 */
        "NOTICE\r\n"                       /* no parameters */
        ":irc.test NOTICE hearts\r\n"      /* one parameter */
        ":x\r\n"                           /* a prefix alone */
        "001\r\n"                          /* a numeric alone */
        "\r\n\r\n\n\r"                     /* empty lines */
        ":a!b@c PRIVMSG #hearts :\x01\r\n" /* a lone CTCP byte */
        ":a!b@c PRIVMSG hearts :\x01"
        "DCC SEND x 1 2 3\x01\r\n"                 /* DCC */
        ":a!b@c PRIVMSG #hearts :\xc3\x28\xff\r\n" /* invalid UTF-8 */
        "@bad=\\ :a!b@c PRIVMSG\r\n"               /* tags, no params */
        ":a!b@c PRIVMSG #hearts :nul\0here\r\n"    /* NUL inside */
        ":a!b@c KICK #hearts\r\n"                  /* KICK without victim */
        ":a!b@c JOIN\r\n"                          /* JOIN without channel */
        ":irc.test 005 hearts A B C D E F G H I J K L M N :x\r\n"
        "@account=alice;time=2026-11-24T00:00:00.000Z "
        ":alice!a@h PRIVMSG #hearts :tagged\r\n"
        ":bob!b@h PRIVMSG #hearts :alive\r\n";
    struct ircfx f;
    ircfx_up(&f);
    ircfx_srv_send_raw(&f.srv, bad, sizeof bad - 1);
    assert_true(ircfx_run_until(&f, said_alive, 3000));
    assert_int_equal(ircfx_count_events(&f, CHAT_DISCONNECTED), 0);
    assert_int_equal(f.srv.accepts, 1);
    /* what could be heard was: the broken UTF-8 as U+FFFD, the tagged
     * line without its tags */
    bool fffd = false, tagged = false;
    for (int i = 0; i < f.nev; i++) {
        if (f.ev[i].kind != CHAT_MESSAGE)
            continue;
        fffd |= strstr(f.ev[i].text, "\xef\xbf\xbd") != NULL;
        tagged |= strcmp(f.ev[i].text, "tagged") == 0 &&
                  strcmp(f.ev[i].nick, "alice") == 0;
        assert_null(strstr(f.ev[i].text, "DCC"));
        assert_null(strstr(f.ev[i].text, "nul"));
    }
    assert_true(fffd);
    assert_true(tagged);
    ircfx_free(&f);
}

static bool ponged(struct ircfx *f)
{
    return ircfx_srv_find(&f->srv, "PONG ", 0) >= 0;
}

/* A PING whose token carries a raw CR: the CR ends the line, and the
 * PONG carries only what came before it. */
static void test_ircad_ping_with_cr_not_reflected(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    static const char ping[] = "PING :tok\rPRIVMSG #x :injected\r\n";
    ircfx_srv_send_raw(&f.srv, ping, sizeof ping - 1);
    assert_true(ircfx_run_until(&f, ponged, 3000));
    ircfx_run_until(&f, ircfx_never, 100);
    int i = ircfx_srv_find(&f.srv, "PONG ", 0);
    assert_string_equal(f.srv.lines[i], "PONG :tok");
    assert_int_equal(ircfx_srv_find(&f.srv, "PRIVMSG #x", 0), -1);
    ircfx_free(&f);
}

/* Delivered a byte at a time, a line is heard once, whole. */
static void test_ircad_byte_by_byte_delivery(void **state)
{
    (void)state;
    struct ircfx f;
    ircfx_up(&f);
    static const char line[] =
        "@account=bob :bob!b@h PRIVMSG #hearts :alive\r\n";
    for (size_t i = 0; i < sizeof line - 1; i++) {
        ircfx_srv_send_raw(&f.srv, line + i, 1);
        ircfx_run_until(&f, ircfx_never, 2);
    }
    assert_true(ircfx_run_until(&f, said_alive, 3000));
    assert_int_equal(ircfx_count_events(&f, CHAT_MESSAGE), 1);
    ircfx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_inbound_table_minimums),
        cmocka_unit_test(test_ircad_inbound_too_few_params_ignored),
        cmocka_unit_test(test_ircad_inbound_null_or_empty_params_ignored),
        cmocka_unit_test(test_ircad_inbound_account_lines_checked_too),
        cmocka_unit_test(test_ircad_inbound_userhost_answers_in_order),
        cmocka_unit_test(test_ircad_inbound_welcome_registers),
        cmocka_unit_test(test_ircad_inbound_nothing_after_stop),
        cmocka_unit_test(test_ircad_events_from_server_lines),
        cmocka_unit_test(test_ircad_ctcp_answered_and_limited),
        cmocka_unit_test(test_ircad_malformed_server_lines_survived),
        cmocka_unit_test(test_ircad_ping_with_cr_not_reflected),
        cmocka_unit_test(test_ircad_byte_by_byte_delivery),
        cmocka_unit_test(test_ircad_overlong_input_lines_cut_or_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
