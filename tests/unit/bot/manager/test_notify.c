/*
 * Calls when a table opens (bot/manager/notify.c, !notify in
 * cmd_person.c): on, off and asked; the call once per table, to those
 * present only, never the opener or the seated, capped, limited in rate;
 * a Matrix call is a mention that notifies; remembered across a restart,
 * a damaged line of the file skipped, a newer bot's file left alone; a
 * lobby rebuilt at start calls nobody again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/manager/notify.h"
#include "tests/unit/bot/manager/world.h"

#define CALLED "you asked to be called"

/* nick says !notify on in #h and is in the channel. */
static void asks(const char *nick)
{
    said(nick, "#h", "!notify on");
    fake_chat_present(&w->fake, "#h", nick, true);
}

/* The channel lines of #h since `from` that call people. */
static int calls_since(int from)
{
    int n = 0;
    for (int i = from; i < w->fake.n; i++)
        if (!w->fake.lines[i].private_ &&
            strcmp(w->fake.lines[i].to, "#h") == 0 &&
            (strstr(w->fake.lines[i].text, CALLED) ||
             strstr(w->fake.lines[i].text, "Also called")))
            n++;
    return n;
}

/* The call's text since from ("" if none). */
static const char *call_since(int from)
{
    for (int i = from; i < w->fake.n; i++)
        if (!w->fake.lines[i].private_ && strstr(w->fake.lines[i].text, CALLED))
            return w->fake.lines[i].text;
    return "";
}

/* nick opens a table in #h and then leaves it (it closes). */
static void open_and_close(const char *nick)
{
    said(nick, "#h", "!hearts");
    said(nick, "#h", "!leave");
    run_for(5);
    assert_null(mgr_table_find(w->m, &w->fake.base, "#h"));
}

static void test_notify_on_off_and_asked(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("bob", "#h", "!notify");
    assert_non_null(strstr(last_to("bob", from)->text,
                           "I do not call you when a table opens here."));
    said("bob", "#h", "!notify on");
    assert_string_equal(last_to("bob", from)->text,
                        "From now on I call you when a table opens here and "
                        "you are in the channel.");
    assert_true(last_to("bob", from)->notice);
    said("bob", "#h", "!notify");
    assert_non_null(strstr(last_to("bob", from)->text,
                           "I call you when a table opens here"));
    said("bob", "#h", "!NOTIFY off");
    assert_string_equal(last_to("bob", from)->text,
                        "I no longer call you when a table opens here.");
    said("bob", "#h", "!notify");
    assert_non_null(strstr(last_to("bob", from)->text, "I do not call you"));
    /* nothing was said in the channel */
    assert_null(last_to("#h", from));
}

static void test_notify_bad_word_changes_nothing(void **state)
{
    (void)state;
    int from = w->fake.n;
    said("bob", "#h", "!notify yes");
    assert_string_equal(last_to("bob", from)->text,
                        "Say !notify on or !notify off.");
    struct chat_user u = user("bob");
    assert_false(mgr_notify_is_on(w->m, &w->fake.base, "#h", &u));
    /* privately it is a channel command */
    said("bob", NULL, "notify on");
    assert_non_null(strstr(last_to("bob", from)->text, "in the channel"));
    assert_false(mgr_notify_is_on(w->m, &w->fake.base, "#h", &u));
}

static void test_notify_is_per_channel(void **state)
{
    (void)state;
    said("bob", "#other", "!notify on");
    fake_chat_present(&w->fake, "#h", "bob", true);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 0);
}

static void test_call_once_when_a_table_opens(void **state)
{
    (void)state;
    asks("bob");
    asks("carol");
    said("dave", "#h", "hello"); /* here, did not ask */
    fake_chat_present(&w->fake, "#h", "dave", true);
    fake_chat_present(&w->fake, "#h", "alice", true);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 1);
    assert_string_equal(
        call_since(from),
        "alice opens a Hearts table (standard for 4): bob, carol — "
        "you asked to be called. !join to sit down.");
    /* the table shown again, a seat taken: no second call */
    said("alice", "#h", "!hearts");
    said("carol", "#h", "!join");
    said("erin", "#h", "!join");
    assert_int_equal(calls_since(from), 1);
}

static void test_absent_people_are_not_called(void **state)
{
    (void)state;
    asks("bob");
    asks("carol");
    fake_chat_present(&w->fake, "#h", "carol", false);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_non_null(strstr(call_since(from), ": bob — "));
    assert_null(strstr(call_since(from), "carol"));
}

static void test_nobody_present_no_call(void **state)
{
    (void)state;
    asks("bob");
    fake_chat_present(&w->fake, "#h", "bob", false);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 0);
}

static void test_the_opener_is_not_called(void **state)
{
    (void)state;
    asks("alice");
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 0);
    asks("bob");
    said("alice", "#h", "!leave");
    run_for(5);
    from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_non_null(strstr(call_since(from), ": bob — "));
    assert_null(strstr(call_since(from), "alice,"));
}

static void test_the_call_is_capped(void **state)
{
    (void)state;
    char nick[32];
    for (int i = 0; i < 25; i++) {
        snprintf(nick, sizeof nick, "p%02d", i);
        asks(nick);
    }
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    int named = 0;
    for (int i = 0; i < 25; i++) {
        snprintf(nick, sizeof nick, "p%02d", i);
        for (int k = from; k < w->fake.n; k++)
            if (!w->fake.lines[k].private_ &&
                strstr(w->fake.lines[k].text, nick))
                named++;
    }
    assert_int_equal(named, MGR_NOTIFY_CALL_MAX);
    assert_true(any_contains("#h", from, ", and 5 more"));
    /* each line stays short enough for an IRC channel line */
    for (int k = from; k < w->fake.n; k++)
        assert_true(strlen(w->fake.lines[k].text) < 420);
    assert_true(calls_since(from) >= 1);
    /* the five not named come first the next time */
    w->m->notify_interval_ms = 0;
    said("alice", "#h", "!leave");
    run_for(5);
    from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_true(any_contains("#h", from, "p20"));
    assert_true(any_contains("#h", from, "p24"));
}

static void test_the_rate_is_limited(void **state)
{
    (void)state;
    asks("bob");
    w->m->notify_interval_ms = 300;
    int from = w->fake.n;
    open_and_close("alice");
    assert_int_equal(calls_since(from), 1);
    /* open, close, open: bob is not called again so soon, by anyone */
    open_and_close("alice");
    open_and_close("carol");
    assert_int_equal(calls_since(from), 1);
    run_for(350);
    said("dave", "#h", "!hearts");
    assert_int_equal(calls_since(from), 2);
}

static void test_a_nick_change_is_followed_with_an_account(void **state)
{
    (void)state;
    said_account("bob", "Bob", "#h", "!notify on");
    said("carol", "#h", "!notify on");
    /* bob, logged in, is called by his new nick; carol's key is her old
     * nick's */
    from_account(CHAT_NICK, "bob", "bob@host.test", "Bob", NULL, NULL, "bobby");
    from_account(CHAT_NICK, "carol", "carol@host.test", NULL, NULL, NULL,
                 "caro");
    fake_chat_present(&w->fake, "#h", "bobby", true);
    fake_chat_present(&w->fake, "#h", "caro", true);
    fake_chat_present(&w->fake, "#h", "carol", true);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_string_equal(call_since(from),
                        "alice opens a Hearts table (standard for 4): bobby, "
                        "carol — you asked to be called. !join to sit down.");
    /* and after a restart */
    char path[512], text[2048];
    room_file(path, sizeof path, "notify.jsonl");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"a:Bob\",\"nick\":\"bobby\"}\n"));
    /* seen speaking under another nick in the channel */
    said_account("robert", "Bob", "#h", "hello");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "\"key\":\"a:Bob\",\"nick\":\"robert\"}\n"));
}

static void test_remembered_across_a_restart(void **state)
{
    (void)state;
    asks("bob");
    asks("carol");
    said("carol", "#h", "!notify off");
    restart();
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_non_null(strstr(call_since(from), ": bob — "));
    assert_null(strstr(call_since(from), "carol"));
    char path[512], text[2048];
    room_file(path, sizeof path, "notify.jsonl");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "{\"format\":\"heartsbot-notify/1\",\"key\":"
                                 "\"n:bob@host.test\",\"nick\":\"bob\"}\n"));
}

static void test_a_lobby_rebuilt_calls_nobody_again(void **state)
{
    (void)state;
    asks("bob");
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 1);
    w->m->notify_interval_ms = 0;
    from = w->fake.n;
    struct table *t = restart();
    assert_non_null(t);
    event(CHAT_CONNECTED, "x", "x@x", NULL, NULL);
    run_for(5);
    assert_int_equal(calls_since(from), 0);
    said("alice", "#h", "!hearts"); /* shows the table */
    assert_int_equal(calls_since(from), 0);
}

/* Writes text as #h's notify.jsonl. */
static void write_file(const char *text)
{
    char dir[512], path[512];
    room_file(path, sizeof path, "notify.jsonl");
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_a_damaged_line_is_skipped(void **state)
{
    (void)state;
    write_file("{\"format\":\"heartsbot-notify/1\",\"key\":\"n:bob@host.test\","
               "\"nick\":\"bob\"}\n"
               "{\"format\":\"heartsbot-notify/1\",\"key\":\"n:x@y\",\"nick\":"
               "\"bad\\u0007nick\"}\n"
               "{\"format\":\"heartsbot-notify/1\",\"key\":42,\"nick\":\"z\"}\n"
               "not json at all\n"
               "{\"format\":\"heartsbot-notify/1\",\"key\":\"n:carol@host."
               "test\",\"nick\":\"carol\",\"later\":[1]}\n");
    fake_chat_present(&w->fake, "#h", "bob", true);
    fake_chat_present(&w->fake, "#h", "carol", true);
    fake_chat_present(&w->fake, "#h", "bad\anick", true);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_string_equal(
        call_since(from),
        "alice opens a Hearts table (standard for 4): bob, carol — "
        "you asked to be called. !join to sit down.");
    /* still written: the damaged lines stay for a person to see */
    said("dave", "#h", "!notify on");
    char path[512], text[4096];
    room_file(path, sizeof path, "notify.jsonl");
    read_small(path, text, sizeof text);
    assert_non_null(strstr(text, "not json at all\n"));
    assert_non_null(strstr(text, "\"nick\":\"dave\""));
}

static void test_a_linked_channel_directory_is_not_followed(void **state)
{
    (void)state;
    char path[256], dir[256], elsewhere[300], cmd[4096];
    room_file(path, sizeof path, "notify.jsonl");
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", w->dir);
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && mkdir -p \"$(dirname '%s')\" && ln -s '%s' '%s'"
             " && printf '%%s\\n' '{\"format\":\"heartsbot-notify/1\",\"key\":"
             "\"n:bob@host.test\",\"nick\":\"bob\"}' > '%s/notify.jsonl'",
             elsewhere, dir, elsewhere, dir, elsewhere);
    assert_int_equal(system(cmd), 0);
    fake_chat_present(&w->fake, "#h", "bob", true);
    int from = w->fake.n;
    said("alice", "#h", "!hearts");
    assert_int_equal(calls_since(from), 0);
}

static void test_a_newer_file_is_left_alone(void **state)
{
    (void)state;
    const char *newer = "{\"format\":\"heartsbot-notify/2\",\"key\":\"n:bob@"
                        "host.test\",\"nick\":\"bob\"}\n";
    write_file(newer);
    fake_chat_present(&w->fake, "#h", "bob", true);
    int from = w->fake.n;
    said("carol", "#h", "!notify on");
    /* held for this run, said so */
    assert_non_null(strstr(last_to("carol", from)->text, "until I restart"));
    char path[512], text[4096];
    room_file(path, sizeof path, "notify.jsonl");
    read_small(path, text, sizeof text);
    assert_string_equal(text, newer);
}

static void test_matrix_call_is_a_mention(void **state)
{
    (void)state;
    fake_chat_set_kind(&w->fake, FAKE_CHAT_MATRIX);
    w->fake.base.style = CHAT_STYLE_MARKUP;
    said("@bob:hs.test", "!r:hs.test", "!notify on");
    fake_chat_present(&w->fake, "!r:hs.test", "@bob:hs.test", true);
    int from = w->fake.n;
    said("@alice:hs.test", "!r:hs.test", "!hearts");
    assert_true(any_contains("!r:hs.test", from,
                             "\x01!@bob:hs.test\x01@bob:hs.test\x01 — you "
                             "asked to be called"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_notify_on_off_and_asked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_notify_bad_word_changes_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_notify_is_per_channel, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_call_once_when_a_table_opens,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_absent_people_are_not_called,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_nobody_present_no_call, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_opener_is_not_called, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_call_is_capped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_rate_is_limited, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_remembered_across_a_restart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_nick_change_is_followed_with_an_account, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_lobby_rebuilt_calls_nobody_again,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_damaged_line_is_skipped, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_linked_channel_directory_is_not_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_newer_file_is_left_alone, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_matrix_call_is_a_mention, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
