/*
 * Tests of adapters/irc/inbound.c, the command table: each command's
 * fewest parameters, lines with fewer ignored whole (no event, no account
 * tracking), and the handlers' order (track, the line's account, handle,
 * after). Lines go straight to ircad_inbound_line, without a server: the
 * adapter is made but never started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/inbound.h"
#include "adapters/irc/ircad.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"
#include "bot/config.h"

struct rec {
    enum chat_event_kind kind;
    char room[64], nick[64], text[128], target[64], account[64];
};

struct fx {
    struct loop *l;
    struct config_channel chans[1];
    struct config_irc cfg;
    struct chat_adapter *ca;
    struct ircad *a;
    struct rec ev[16];
    int nev;
};

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    (void)a;
    struct fx *f = ctx;
    assert_true(f->nev < 16);
    struct rec *r = &f->ev[f->nev++];
    r->kind = ev->kind;
    copy(r->room, sizeof r->room, ev->room);
    copy(r->nick, sizeof r->nick, ev->from.nick);
    copy(r->text, sizeof r->text, ev->text);
    copy(r->target, sizeof r->target, ev->target);
    copy(r->account, sizeof r->account, ev->from.account);
}

/* An adapter that believes it is registered as "hearts" in #hearts. */
static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    f->l = loop_new();
    f->chans[0].name = "#hearts";
    f->cfg.name = "testnet";
    f->cfg.host = "127.0.0.1";
    f->cfg.port = 6667;
    f->cfg.nick = "hearts";
    f->cfg.password = "";
    f->cfg.nickserv_password = "";
    f->cfg.channels = f->chans;
    f->cfg.nchannels = 1;
    f->ca = ircad_new(f->l, &f->cfg, on_event, f);
    f->a = (struct ircad *)f->ca;
    f->a->state = ST_REGISTERED;
}

static void fx_free(struct fx *f)
{
    f->ca->ops->free(f->ca);
    loop_free(f->l);
}

/* Hands the adapter one line: command, origin, then the parameters
 * (NULL-terminated; use PNULL for a parameter that is NULL). */
static const char pnull[] = "";
#define PNULL pnull

static void line(struct fx *f, const char *command, const char *origin, ...)
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
    ircad_inbound_line(f->a, &m);
}

#define ALICE "alice!al@host"

/* ---- Tests ------------------------------------------------------------- */

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
    struct fx f;
    fx_init(&f);
    line(&f, "PRIVMSG", ALICE, "#hearts", NULL);
    line(&f, "JOIN", ALICE, NULL);
    line(&f, "PART", ALICE, NULL);
    line(&f, "KICK", ALICE, "#hearts", NULL);
    line(&f, "NICK", ALICE, NULL);
    line(&f, "CTCP", ALICE, NULL);
    assert_int_equal(f.nev, 0);
    /* enough: each is an event */
    line(&f, "PRIVMSG", ALICE, "#hearts", "hello", NULL);
    line(&f, "JOIN", ALICE, "#hearts", NULL);
    line(&f, "PART", ALICE, "#hearts", NULL);
    line(&f, "KICK", ALICE, "#hearts", "bob", NULL);
    line(&f, "NICK", ALICE, "alicia", NULL);
    line(&f, "QUIT", "alicia!al@host", NULL);
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
    fx_free(&f);
}

static void test_ircad_inbound_null_or_empty_params_ignored(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    line(&f, "PRIVMSG", ALICE, "#hearts", PNULL, NULL);
    line(&f, "PRIVMSG", ALICE, "#hearts", "", NULL);
    line(&f, "PRIVMSG", ALICE, "", "hello", NULL);
    line(&f, "JOIN", ALICE, PNULL, NULL);
    line(&f, "KICK", ALICE, "#hearts", PNULL, NULL);
    line(&f, "NICK", ALICE, "", NULL);
    /* a server is not a person */
    line(&f, "PRIVMSG", "irc.example.net", "#hearts", "hello", NULL);
    /* nor are we */
    line(&f, "PRIVMSG", "hearts!hb@host", "#hearts", "hello", NULL);
    assert_int_equal(f.nev, 0);
    fx_free(&f);
}

/* An account line with too few parameters changes nothing: the events
 * that follow carry what was tracked before. */
static void test_ircad_inbound_account_lines_checked_too(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    line(&f, "JOIN", ALICE, "#hearts", NULL);
    line(&f, "ACCOUNT", ALICE, "alice_acc", NULL);
    line(&f, "ACCOUNT", ALICE, NULL);
    line(&f, "PRIVMSG", ALICE, "#hearts", "hi", NULL);
    assert_int_equal(f.nev, 2);
    assert_int_equal(f.ev[1].kind, CHAT_MESSAGE);
    assert_string_equal(f.ev[1].account, "alice_acc");
    /* logged out ("*"): no account */
    line(&f, "ACCOUNT", ALICE, "*", NULL);
    line(&f, "PRIVMSG", ALICE, "#hearts", "hi", NULL);
    assert_int_equal(f.nev, 3);
    assert_string_equal(f.ev[2].account, "");
    fx_free(&f);
}

/* 302 needs no parameter: even an empty answer is the oldest question's,
 * and says the nick is not on the network. */
static void test_ircad_inbound_userhost_answers_in_order(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.ca->ops->verify(f.ca, "carol");
    f.ca->ops->verify(f.ca, "dave");
    line(&f, "302", "srv", NULL);
    line(&f, "302", "srv", "hearts", "dave=+dv@host", NULL);
    assert_int_equal(f.nev, 2);
    assert_int_equal(f.ev[0].kind, CHAT_IDENTITY);
    assert_string_equal(f.ev[0].nick, "carol");
    assert_int_equal(f.ev[1].kind, CHAT_IDENTITY);
    assert_string_equal(f.ev[1].nick, "dave");
    fx_free(&f);
}

static void test_ircad_inbound_welcome_registers(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.a->state = ST_CONNECTING;
    line(&f, "001", "srv", "hearts_", "Welcome", NULL);
    assert_int_equal(f.a->state, ST_REGISTERED);
    assert_string_equal(f.a->cur_nick, "hearts_");
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.ev[0].kind, CHAT_CONNECTED);
    /* once only */
    line(&f, "001", "srv", "other", "Welcome", NULL);
    assert_string_equal(f.a->cur_nick, "hearts_");
    assert_int_equal(f.nev, 1);
    fx_free(&f);
}

static void test_ircad_inbound_nothing_after_stop(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.ca->ops->stop(f.ca, "bye");
    line(&f, "PRIVMSG", ALICE, "#hearts", "hello", NULL);
    line(&f, "JOIN", ALICE, "#hearts", NULL);
    assert_int_equal(f.nev, 0);
    fx_free(&f);
}

int main(void)
{
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
