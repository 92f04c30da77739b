/*
 * Tests of adapters/irc/ircad.c, the helpers every part of the IRC
 * adapter uses: events (a person's carry the line's account, none after
 * stop), who we are under the server's casemapping, a line's sender, and
 * which queue keys are people. The adapter is made but never started.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/irc/ircad.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"
#include "bot/config.h"

struct fx {
    struct loop *l;
    struct config_channel chans[1];
    struct config_irc cfg;
    struct chat_adapter *ca;
    struct ircad *a;
    int nev;
    enum chat_event_kind kind;
    char account[64];
    bool has_account;
    uint64_t cookie;
};

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    (void)a;
    struct fx *f = ctx;
    f->nev++;
    f->kind = ev->kind;
    f->has_account = ev->from.account != NULL;
    snprintf(f->account, sizeof f->account, "%s",
             ev->from.account ? ev->from.account : "");
    f->cookie = ev->cookie;
}

static void fx_init(struct fx *f)
{
    memset(f, 0, sizeof *f);
    f->l = loop_new();
    f->chans[0].name = "#hearts";
    f->cfg.name = "testnet";
    f->cfg.host = "127.0.0.1";
    f->cfg.port = 6667;
    f->cfg.nick = "Hearts";
    f->cfg.channels = f->chans;
    f->cfg.nchannels = 1;
    f->ca = ircad_new(f->l, &f->cfg, on_event, f);
    f->a = (struct ircad *)f->ca;
}

static void fx_free(struct fx *f)
{
    f->ca->ops->free(f->ca);
    loop_free(f->l);
}

static void test_ircad_emit_carries_the_line_account(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    snprintf(f.a->ev_account, sizeof f.a->ev_account, "alice_acc");
    ircad_emit(f.a, CHAT_MESSAGE, "#hearts", "alice", "al@host", "hi", NULL);
    assert_int_equal(f.nev, 1);
    assert_int_equal(f.kind, CHAT_MESSAGE);
    assert_string_equal(f.account, "alice_acc");
    /* no person, no account */
    ircad_emit(f.a, CHAT_CONNECTED, NULL, NULL, NULL, NULL, NULL);
    assert_false(f.has_account);
    f.a->ev_account[0] = '\0';
    ircad_emit(f.a, CHAT_JOIN, "#hearts", "bob", "b@host", NULL, NULL);
    assert_false(f.has_account);
    ircad_emit_sent(f.a, 42);
    assert_int_equal(f.kind, CHAT_SENT);
    assert_int_equal(f.cookie, 42);
    assert_int_equal(f.nev, 4);
    fx_free(&f);
}

static void test_ircad_no_events_after_stop(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_false(ircad_stopping(f.a));
    f.ca->ops->stop(f.ca, "bye");
    assert_true(ircad_stopping(f.a));
    ircad_emit(f.a, CHAT_MESSAGE, "#hearts", "alice", "al@host", "hi", NULL);
    ircad_emit_sent(f.a, 1);
    assert_int_equal(f.nev, 0);
    fx_free(&f);
}

static void test_ircad_is_me_follows_casemapping(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_string_equal(f.a->cur_nick, "Hearts");
    assert_true(ircad_is_me(f.a, "hearts"));
    assert_true(ircad_is_me(f.a, "HEARTS"));
    assert_false(ircad_is_me(f.a, "hearts_"));
    /* RFC 1459 until the server says otherwise: [ is { */
    snprintf(f.a->cur_nick, sizeof f.a->cur_nick, "h[x]");
    assert_true(ircad_is_me(f.a, "h{x}"));
    f.a->isup.casemap = IRCAD_CASEMAP_ASCII;
    assert_false(ircad_is_me(f.a, "h{x}"));
    fx_free(&f);
}

static void test_ircad_sender_is_a_person(void **state)
{
    (void)state;
    char nick[NICK_MAX], id[ID_MAX];
    struct ircad_msg m = {.command = "PRIVMSG", .origin = "alice!al@host"};
    assert_int_equal(ircad_sender(&m, nick, id), 0);
    assert_string_equal(nick, "alice");
    assert_string_equal(id, "al@host");
    const char *not_people[] = {"irc.example.net", "", "alice!al", NULL};
    for (int i = 0; i < 4; i++) {
        m.origin = not_people[i];
        assert_int_equal(ircad_sender(&m, nick, id), -1);
    }
}

static void test_ircad_is_person_by_chantypes(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    assert_true(ircad_is_person(f.a, "alice"));
    assert_false(ircad_is_person(f.a, "#hearts"));
    assert_false(ircad_is_person(f.a, "&local"));
    fx_free(&f);
}

int main(void)
{
    log_level_set(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_emit_carries_the_line_account),
        cmocka_unit_test(test_ircad_no_events_after_stop),
        cmocka_unit_test(test_ircad_is_me_follows_casemapping),
        cmocka_unit_test(test_ircad_sender_is_a_person),
        cmocka_unit_test(test_ircad_is_person_by_chantypes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
