/*
 * The adapter's calls (adapters/matrix/calls.c), without a server: how a
 * call is made, queued and ended.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/calls.h"
#include "mx_fixture.h"

static void nothing(struct mx_adapter *a, struct mx_call *c, long status,
                    const char *body, size_t len)
{
    (void)a, (void)c, (void)status, (void)body, (void)len;
}

static void test_a_new_call_is_listed_with_the_defaults(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_call *c =
        mx_call_new(a, "GET", xstrdup("/x"), NULL, "!r:hs", nothing, NULL);
    assert_ptr_equal(a->calls, c);
    assert_string_equal(c->method, "GET");
    assert_string_equal(c->api, MX_API);
    assert_string_equal(c->key, "!r:hs");
    assert_int_equal(c->timeout_ms, 30000);
    assert_false(c->paced);
    mx_call_paced(c, 2, CHAT_LOW, 5);
    assert_true(c->paced);
    assert_true(c->parked);
    assert_int_equal(c->cost, 2);
    assert_int_equal(c->prio, CHAT_LOW);
    assert_int_equal(c->seq, 5);
    mx_call_free(a, c);
    assert_null(a->calls);
    fx_free(&f);
}

static void test_a_call_waits_for_a_token(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_call *c =
        mx_call_new(f.a, "GET", xstrdup("/sync"), NULL, NULL, nothing, NULL);
    mx_call_send(f.a, c);
    assert_int_equal(c->req, 0);
    assert_int_not_equal(c->timer, 0); /* tried again later */
    fx_free(&f);
}

static void test_an_ended_call_reports_what_it_held(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f, NULL);
    struct mx_adapter *a = f.a;
    struct mx_call *c = mx_call_new(a, "PUT", xstrdup("/send"), xstrdup("{}"),
                                    "!r:hs", nothing, nothing);
    c->cookies = xcalloc(1, sizeof *c->cookies);
    c->cookies[0] = 11;
    c->ncookies = 1;
    a->sync = c;
    mx_call_free(a, c);
    assert_null(a->sync);
    assert_int_equal(a->nreports, 1);
    assert_int_equal(a->reports[0], 11);
    fx_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_new_call_is_listed_with_the_defaults),
        cmocka_unit_test(test_a_call_waits_for_a_token),
        cmocka_unit_test(test_an_ended_call_reports_what_it_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
