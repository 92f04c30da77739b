/*
 * The session file (adapters/matrix/session.c): a round trip, and hostile
 * files refused or trimmed field by field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "adapters/matrix/session.h"

static char dir[64], path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/heartsbot-mxsession.XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/matrix-session.json", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    rmdir(dir);
    return 0;
}

static void write_file(const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_session_round_trip(void **state)
{
    (void)state;
    struct mx_session s = {0}, back;
    char err[256];
    unlink(path);
    assert_int_equal(mx_session_load(path, &back, err, sizeof err), 0);
    assert_null(back.access_token);
    assert_int_equal(back.txn_epoch, 0);
    mx_session_set(&s.homeserver, "https://hs.example");
    mx_session_set(&s.user_id, "@bot:hs");
    mx_session_set(&s.access_token, "syt_abc");
    mx_session_set(&s.device_id, "DEV");
    mx_session_set(&s.since, "s72_5");
    s.txn_epoch = 7;
    assert_int_equal(mx_session_save(path, &s, err, sizeof err), 0);
    assert_int_equal(mx_session_load(path, &back, err, sizeof err), 0);
    assert_string_equal(back.homeserver, "https://hs.example");
    assert_string_equal(back.user_id, "@bot:hs");
    assert_string_equal(back.access_token, "syt_abc");
    assert_string_equal(back.device_id, "DEV");
    assert_string_equal(back.since, "s72_5");
    assert_int_equal(back.txn_epoch, 7);
    mx_session_free(&s);
    mx_session_free(&back);
}

static void test_session_hostile_files(void **state)
{
    (void)state;
    struct mx_session s;
    char err[256];
    static const char *const refused[] = {"",
                                          "[]",
                                          "{",
                                          "{\"version\":0}",
                                          "{\"access_token\":\"x\"}",
                                          "{\"version\":\"1\"}"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        write_file(refused[i]);
        err[0] = '\0';
        assert_int_equal(mx_session_load(path, &s, err, sizeof err), -1);
        assert_true(err[0] != '\0');
        assert_null(s.access_token);
        mx_session_free(&s);
    }
    /* fields of the wrong shape are dropped one by one */
    write_file("{\"version\":1,\"access_token\":\"a b\",\"device_id\":7,"
               "\"since\":\"ok\",\"user_id\":\"@b:hs\\n\",\"txn_epoch\":-3}");
    assert_int_equal(mx_session_load(path, &s, err, sizeof err), 0);
    assert_null(s.access_token);
    assert_null(s.device_id);
    assert_null(s.user_id);
    assert_string_equal(s.since, "ok");
    assert_int_equal(s.txn_epoch, 0);
    mx_session_free(&s);
}

/* A later version is a newer heartsbot's file: told apart (-2), so that
 * it is kept for that bot and not written over. */
static void test_session_of_a_newer_version_is_told_apart(void **state)
{
    (void)state;
    struct mx_session s;
    char err[256], want[300];
    write_file("{\"version\":2,\"access_token\":\"syt_new\"}");
    assert_int_equal(mx_session_load(path, &s, err, sizeof err), -2);
    assert_null(s.access_token);
    snprintf(want, sizeof want,
             "%s: version 2, of a newer heartsbot (this one reads version 1)",
             path);
    assert_string_equal(err, want);
    mx_session_free(&s);
}

/* The application-service transactions handled: kept across a save and a
 * load, the oldest dropped past MX_AS_TXNS, hostile entries not taken. */
static void test_session_keeps_handled_transactions(void **state)
{
    (void)state;
    struct mx_session s = {0}, back;
    char err[256], id[32];
    for (int i = 0; i < MX_AS_TXNS + 6; i++) {
        snprintf(id, sizeof id, "%d", i);
        mx_session_txn_add(&s, id);
    }
    assert_int_equal(s.nas_txns, MX_AS_TXNS);
    assert_false(mx_session_txn_seen(&s, "5"));
    assert_true(mx_session_txn_seen(&s, "6"));
    assert_int_equal(mx_session_save(path, &s, err, sizeof err), 0);
    assert_int_equal(mx_session_load(path, &back, err, sizeof err), 0);
    assert_int_equal(back.nas_txns, MX_AS_TXNS);
    assert_true(mx_session_txn_seen(&back, "6"));
    snprintf(id, sizeof id, "%d", MX_AS_TXNS + 5);
    assert_true(mx_session_txn_seen(&back, id));
    assert_false(mx_session_txn_seen(&back, "70x"));
    mx_session_free(&s);
    mx_session_free(&back);
    write_file("{\"version\":1,\"appservice_txns\":[\"1\",7,\"a b\",\"\","
               "null,\"2\",\"2\",\"x\\u0000\"]}");
    assert_int_equal(mx_session_load(path, &back, err, sizeof err), 0);
    assert_int_equal(back.nas_txns, 2);
    assert_true(mx_session_txn_seen(&back, "1"));
    assert_true(mx_session_txn_seen(&back, "2"));
    mx_session_free(&back);
    write_file("{\"version\":1,\"appservice_txns\":{\"1\":1}}");
    assert_int_equal(mx_session_load(path, &back, err, sizeof err), 0);
    assert_int_equal(back.nas_txns, 0);
    mx_session_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_round_trip),
        cmocka_unit_test(test_session_hostile_files),
        cmocka_unit_test(test_session_of_a_newer_version_is_told_apart),
        cmocka_unit_test(test_session_keeps_handled_transactions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
