/*
 * Retry decisions and transaction IDs (adapters/matrix/retry.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/retry.h"

static enum mx_retry_action decide(struct mx_retry *r, enum mx_http_result res,
                                   long status, const char *body, int64_t *wait)
{
    return mx_retry_decide(r, res, status, body, body ? strlen(body) : 0, wait);
}

static void test_retry_decide_429_waits_retry_after_ms(void **state)
{
    (void)state;
    struct mx_retry r;
    mx_retry_init(&r, 1000, 60000, 1);
    int64_t wait = -1;
    assert_int_equal(
        decide(&r, MX_HTTP_OK, 429,
               "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"retry_after_ms\":2345}",
               &wait),
        MX_RETRY_WAIT);
    assert_int_equal(wait, 2345);
    /* again: the server's figure, not a growing backoff */
    assert_int_equal(
        decide(&r, MX_HTTP_OK, 429, "{\"retry_after_ms\":2345}", &wait),
        MX_RETRY_WAIT);
    assert_int_equal(wait, 2345);
    /* absurd figures are clamped */
    decide(&r, MX_HTTP_OK, 429, "{\"retry_after_ms\":-5}", &wait);
    assert_int_equal(wait, 0);
    decide(&r, MX_HTTP_OK, 429, "{\"retry_after_ms\":99999999999}", &wait);
    assert_int_equal(wait, MX_RETRY_AFTER_MAX_MS);
}

static void test_retry_decide_429_without_figure_backs_off(void **state)
{
    (void)state;
    static const char *const bodies[] = {NULL,
                                         "",
                                         "{\"errcode\":\"M_LIMIT_EXCEEDED\"}",
                                         "{\"retry_after_ms\":\"500\"}",
                                         "{\"retry_after_ms\":1.5}",
                                         "[500]",
                                         "<html>"};
    for (size_t i = 0; i < sizeof bodies / sizeof *bodies; i++) {
        struct mx_retry r;
        mx_retry_init(&r, 1000, 60000, i);
        int64_t wait = -1;
        assert_int_equal(decide(&r, MX_HTTP_OK, 429, bodies[i], &wait),
                         MX_RETRY_WAIT);
        assert_true(wait >= 500 && wait <= 1000);
    }
}

static void test_retry_decide_backoff_grows_to_cap_and_resets(void **state)
{
    (void)state;
    struct mx_retry r;
    mx_retry_init(&r, 1000, 8000, 42);
    int64_t nominal = 1000, wait;
    const enum mx_http_result faults[] = {MX_HTTP_TIMEOUT, MX_HTTP_CONNECT,
                                          MX_HTTP_ERROR,   MX_HTTP_OK,
                                          MX_HTTP_OK,      MX_HTTP_TOOBIG};
    const long statuses[] = {0, 0, 0, 500, 503, 0};
    bool jittered = false;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(decide(&r, faults[i], statuses[i], "{}", &wait),
                         MX_RETRY_WAIT);
        assert_true(wait >= nominal / 2 && wait <= nominal);
        jittered |= wait != nominal && wait != nominal / 2;
        nominal = nominal * 2 > 8000 ? 8000 : nominal * 2;
    }
    assert_true(jittered);
    assert_int_equal(decide(&r, MX_HTTP_OK, 200, "{}", &wait), MX_RETRY_DONE);
    decide(&r, MX_HTTP_TIMEOUT, 0, NULL, &wait);
    assert_true(wait >= 500 && wait <= 1000);
}

static void test_retry_decide_auth_and_refusals(void **state)
{
    (void)state;
    struct mx_retry r;
    mx_retry_init(&r, 1000, 8000, 42);
    int64_t wait = 7;
    assert_int_equal(
        decide(&r, MX_HTTP_OK, 401, "{\"errcode\":\"M_UNKNOWN_TOKEN\"}", &wait),
        MX_RETRY_LOGIN);
    assert_int_equal(
        decide(&r, MX_HTTP_OK, 401, "{\"errcode\":\"M_FORBIDDEN\"}", &wait),
        MX_RETRY_FAIL);
    assert_int_equal(
        decide(&r, MX_HTTP_OK, 403, "{\"errcode\":\"M_FORBIDDEN\"}", &wait),
        MX_RETRY_FAIL);
    assert_int_equal(decide(&r, MX_HTTP_OK, 400, "junk", &wait), MX_RETRY_FAIL);
    assert_int_equal(wait, 7);
    assert_int_equal(decide(&r, MX_HTTP_OK, 204, "", &wait), MX_RETRY_DONE);
}

static void test_errcode_refuses_odd_shapes(void **state)
{
    (void)state;
    char code[32];
    mx_errcode("{\"errcode\":\"M_NOT_FOUND\"}", 25, code, sizeof code);
    assert_string_equal(code, "M_NOT_FOUND");
    mx_errcode("{\"errcode\":\"M_X\\nY\"}", 20, code, sizeof code);
    assert_string_equal(code, "");
    mx_errcode("{\"errcode\":3}", 13, code, sizeof code);
    assert_string_equal(code, "");
    mx_errcode("{\"errcode\":\"M_A_VERY_LONG_CODE_INDEED_PAST_32\"}", 45, code,
               sizeof code);
    assert_string_equal(code, "");
}

static void test_txn_ids_unique_across_epochs(void **state)
{
    (void)state;
    char seen[20][48];
    int n = 0;
    for (uint64_t epoch = 1; epoch <= 2; epoch++) {
        struct mx_txn t = {.epoch = epoch};
        for (int i = 0; i < 10; i++)
            mx_txn_next(&t, seen[n++], sizeof seen[0]);
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            assert_string_not_equal(seen[i], seen[j]);
    assert_string_equal(seen[0], "hb1.1");
    assert_string_equal(seen[10], "hb2.1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_retry_decide_429_waits_retry_after_ms),
        cmocka_unit_test(test_retry_decide_429_without_figure_backs_off),
        cmocka_unit_test(test_retry_decide_backoff_grows_to_cap_and_resets),
        cmocka_unit_test(test_retry_decide_auth_and_refusals),
        cmocka_unit_test(test_errcode_refuses_odd_shapes),
        cmocka_unit_test(test_txn_ids_unique_across_epochs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
