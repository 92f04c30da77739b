/*
 * The application-service mode (adapters/matrix/appservice.c): what a
 * transaction ID in the homeserver's path may be.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/appservice.h"
#include "adapters/matrix/session.h"

static void test_txn_id_takes_printable_ascii(void **state)
{
    (void)state;
    assert_string_equal(mx_as_txn_id("42"), "42");
    assert_string_equal(mx_as_txn_id("m1700000000.7-x_y"), "m1700000000.7-x_y");
}

static void test_txn_id_refuses_slashes_spaces_and_the_rest(void **state)
{
    (void)state;
    assert_null(mx_as_txn_id(""));
    assert_null(mx_as_txn_id("1/2"));
    assert_null(mx_as_txn_id("1 2"));
    assert_null(mx_as_txn_id("1\x7f"));
    assert_null(mx_as_txn_id("\xc3\xa9"));
}

static void test_txn_id_is_at_most_the_session_keeps(void **state)
{
    (void)state;
    char id[MX_TXN_ID_MAX + 2];
    memset(id, '7', MX_TXN_ID_MAX);
    id[MX_TXN_ID_MAX] = '\0';
    assert_non_null(mx_as_txn_id(id));
    id[MX_TXN_ID_MAX] = '7';
    id[MX_TXN_ID_MAX + 1] = '\0';
    assert_null(mx_as_txn_id(id));
}

static void expect_refused(const char *method, const char *path, int status,
                           const char *code)
{
    struct mx_as_route rt;
    mx_as_route(method, path, &rt);
    assert_int_equal(rt.kind, MX_AS_REFUSE);
    assert_int_equal(rt.status, status);
    assert_string_equal(rt.code, code);
    assert_non_null(rt.why);
}

static void
test_route_takes_a_transaction_by_put_with_or_without_prefix(void **state)
{
    (void)state;
    struct mx_as_route rt;
    mx_as_route("PUT", "/_matrix/app/v1/transactions/17", &rt);
    assert_int_equal(rt.kind, MX_AS_TRANSACTION);
    assert_string_equal(rt.id, "17");
    /* Synapse 1.67's unprefixed path */
    mx_as_route("PUT", "/transactions/abc", &rt);
    assert_int_equal(rt.kind, MX_AS_TRANSACTION);
    assert_string_equal(rt.id, "abc");
    expect_refused("POST", "/_matrix/app/v1/transactions/17", 405,
                   "M_UNRECOGNIZED");
    expect_refused("PUT", "/_matrix/app/v1/transactions/", 400,
                   "M_INVALID_PARAM");
    expect_refused("PUT", "/_matrix/app/v1/transactions/a/b", 400,
                   "M_INVALID_PARAM");
}

static void
test_route_answers_queries_for_users_and_rooms_not_found(void **state)
{
    (void)state;
    expect_refused("GET", "/_matrix/app/v1/users/@x:hs", 404, "M_NOT_FOUND");
    expect_refused("GET", "/rooms/#x:hs", 404, "M_NOT_FOUND");
    expect_refused("POST", "/_matrix/app/v1/rooms/#x:hs", 405,
                   "M_UNRECOGNIZED");
}

static void test_route_pongs_a_v1_ping_only(void **state)
{
    (void)state;
    struct mx_as_route rt;
    mx_as_route("POST", "/_matrix/app/v1/ping", &rt);
    assert_int_equal(rt.kind, MX_AS_PONG);
    expect_refused("GET", "/_matrix/app/v1/ping", 405, "M_UNRECOGNIZED");
    /* no unprefixed ping */
    expect_refused("POST", "/ping", 404, "M_UNRECOGNIZED");
    expect_refused("GET", "/_matrix/app/v2/thirdparty", 404, "M_UNRECOGNIZED");
    expect_refused("GET", "/", 404, "M_UNRECOGNIZED");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_txn_id_takes_printable_ascii),
        cmocka_unit_test(test_txn_id_refuses_slashes_spaces_and_the_rest),
        cmocka_unit_test(test_txn_id_is_at_most_the_session_keeps),
        cmocka_unit_test(
            test_route_takes_a_transaction_by_put_with_or_without_prefix),
        cmocka_unit_test(
            test_route_answers_queries_for_users_and_rooms_not_found),
        cmocka_unit_test(test_route_pongs_a_v1_ping_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
