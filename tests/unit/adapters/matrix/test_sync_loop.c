/*
 * The Matrix adapter's start sequence and /sync loop
 * (adapters/matrix/sync_loop.c), against a scripted homeserver on the
 * test's loop (mx_server.h): the first sync without history, then long
 * polls from each next_batch, kept in the session file; answers refused
 * and server errors backed off with the since kept; a refused since
 * token going back to the last good one or starting anew; the first sync
 * waiting for the joins and, after a restart, the m.direct map; stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/session.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/sync_loop.h"
#include "adapters/matrix/wire.h"
#include "mx_server.h"

static const struct sv_opts TOKEN = {.access_token = "tok"};

/* A session file of @bot:hs on t's server with since token `since`. */
static void kept_since(struct st *t, const char *since)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"version\":1,\"homeserver\":\"http://127.0.0.1:%d\","
             "\"user_id\":\"@bot:hs\",\"access_token\":\"tok\","
             "\"since\":\"%s\",\"txn_epoch\":1}",
             t->sv.port, since);
    st_session(t, json);
}

static int want_syncs;

static bool syncs_asked(struct st *t)
{
    return sv_count(&t->sv, "GET /sync") >= want_syncs;
}

/* Starts t's adapter and runs until n syncs were asked. */
static void start_until_syncs(struct st *t, int n)
{
    assert_int_equal(t->f.a->base.ops->start(&t->f.a->base), 0);
    want_syncs = n;
    assert_true(st_run(t, syncs_asked, 5000));
}

static const char *sync_path(const struct st *t, int k)
{
    const struct sv_seen *s = sv_nth(&t->sv, "GET /sync", k);
    assert_non_null(s);
    return s->path;
}

static char *session_since(const struct st *t)
{
    struct mx_session s;
    char err[256];
    assert_int_equal(mx_session_load(t->session, &s, err, sizeof err), 0);
    char *since = s.since ? xstrdup(s.since) : NULL;
    mx_session_free(&s);
    return since;
}

static void assert_since(const struct st *t, const char *want)
{
    char *since = session_since(t);
    if (want)
        assert_string_equal(since, want);
    else
        assert_null(since);
    free(since);
}

static int count_events(const struct fx *f, enum chat_event_kind kind)
{
    int n = 0;
    for (int i = 0; i < f->nev; i++)
        if (f->ev[i].kind == kind)
            n++;
    return n;
}

static int count_text(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void
test_the_first_sync_has_no_history_then_next_batch_is_followed(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s1\"}", 1);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s2\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 3);
    char *filter = mx_url_encode(mx_sync_filter(false));
    char *history = mx_url_encode(mx_sync_filter(true));
    char want[4096];
    snprintf(want, sizeof want, "/sync?filter=%s&timeout=0", filter);
    assert_string_equal(sync_path(&t, 0), want);
    snprintf(want, sizeof want, "/sync?filter=%s&timeout=30000&since=s1",
             history);
    assert_string_equal(sync_path(&t, 1), want);
    snprintf(want, sizeof want, "/sync?filter=%s&timeout=30000&since=s2",
             history);
    assert_string_equal(sync_path(&t, 2), want);
    free(filter);
    free(history);
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 0)->auth, "Bearer tok");
    /* the long poll may take the sync timeout and a request's */
    assert_non_null(t.f.a->sync);
    assert_int_equal(t.f.a->sync->timeout_ms, 30000 + 5000);
    /* each next_batch kept; connected once */
    assert_string_equal(t.f.a->s.since, "s2");
    assert_since(&t, "s2");
    assert_true(t.f.a->first_sync_done);
    assert_true(t.f.a->connected);
    assert_int_equal(count_events(&t.f, CHAT_CONNECTED), 1);
    assert_int_equal(t.f.a->txn.epoch, 1); /* the start raised it */
    char hs[64];
    snprintf(hs, sizeof hs, "mx: connected to http://127.0.0.1:%d as @bot:hs",
             t.sv.port);
    st_logged = st_free(&t);
    assert_int_equal(count_text(st_logged, hs), 1);
}

static void test_a_next_batch_goes_back_url_encoded(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s1/2&x=y+z?\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 2);
    const char *p = sync_path(&t, 1);
    const char *since = strstr(p, "&since=");
    assert_non_null(since);
    assert_string_equal(since, "&since=s1%2F2%26x%3Dy%2Bz%3F");
    assert_since(&t, "s1/2&x=y+z?");
    st_logged = st_free(&t);
}

static void test_a_kept_since_is_synced_from_after_the_direct_map(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    kept_since(&t, "s0");
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 1);
    assert_non_null(strstr(sync_path(&t, 0), "&timeout=30000&since=s0"));
    /* the m.direct read came first */
    const struct sv_seen *direct = sv_nth(&t.sv, "/account_data/m.direct", 0);
    assert_non_null(direct);
    assert_true(direct < sv_nth(&t.sv, "GET /sync", 0));
    assert_true(t.f.a->direct_known);
    st_logged = st_free(&t);
}

/* Answers a /sync parser refuses: the same since again after a backoff
 * that grows, nothing kept, not connected, the log says why. */
static void
test_a_refused_answer_is_asked_again_later_with_the_same_since(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    kept_since(&t, "s0");
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":5}", 1);
    sv_route(&t.sv, "GET /sync", 200, "not json", 1);
    sv_route(&t.sv, "GET /sync", 200, "[]", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 4);
    for (int k = 0; k < 4; k++)
        assert_non_null(strstr(sync_path(&t, k), "&since=s0"));
    /* between half and all of 40, 80, 160 ms */
    int64_t gap[3];
    for (int k = 0; k < 3; k++)
        gap[k] = sv_nth(&t.sv, "GET /sync", k + 1)->at -
                 sv_nth(&t.sv, "GET /sync", k)->at;
    assert_true(gap[0] >= 20);
    assert_true(gap[1] >= 40);
    assert_true(gap[2] >= 80);
    assert_string_equal(t.f.a->s.since, "s0");
    assert_since(&t, "s0");
    assert_false(t.f.a->connected);
    assert_false(t.f.a->first_sync_done);
    assert_int_equal(count_events(&t.f, CHAT_CONNECTED), 0);
    st_logged = st_free(&t);
    assert_int_equal(count_text(st_logged, "mx: a /sync answer refused: "), 3);
    assert_non_null(
        strstr(st_logged, "mx: a /sync answer refused: no valid next_batch"));
}

/* A good answer after refused ones starts the backoff afresh. */
static void test_a_good_answer_resets_the_backoff(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    for (int i = 0; i < 4; i++)
        sv_route(&t.sv, "GET /sync", 200, "{}", 1);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s1\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 6);
    /* 40, 80, 160, 320 nominal: at the cap (400) after a few more; reset */
    assert_int_equal(t.f.a->sync_retry.nominal_ms, 40);
    st_logged = st_free(&t);
}

static void
test_a_server_error_disconnects_until_a_sync_is_answered(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s1\"}", 1);
    sv_route(&t.sv, "since=s1", 503, "{\"errcode\":\"M_UNKNOWN\"}", 1);
    sv_route(&t.sv, "since=s1", 200, "{\"next_batch\":\"s2\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 4);
    assert_non_null(strstr(sync_path(&t, 2), "&since=s1"));
    assert_non_null(strstr(sync_path(&t, 3), "&since=s2"));
    assert_int_equal(t.f.nev, 3);
    assert_int_equal(t.f.ev[0].kind, CHAT_CONNECTED);
    assert_int_equal(t.f.ev[1].kind, CHAT_DISCONNECTED);
    assert_int_equal(t.f.ev[2].kind, CHAT_CONNECTED);
    assert_since(&t, "s2");
    st_logged = st_free(&t);
    assert_int_equal(count_text(st_logged, "mx: connected to "), 2);
}

static void test_a_refused_since_goes_back_to_the_last_good_one(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    kept_since(&t, "s0");
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "since=s0", 200, "{\"next_batch\":\"s1\"}", 1);
    sv_route(&t.sv, "since=s1", 400, "{\"errcode\":\"M_UNKNOWN\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 3);
    assert_non_null(strstr(sync_path(&t, 1), "&since=s1"));
    assert_non_null(strstr(sync_path(&t, 2), "&since=s0"));
    assert_since(&t, "s0");
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged,
                           "mx: the homeserver refuses the sync "
                           "token: going back to the last good one"));
}

static void test_a_refused_first_since_starts_anew(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    kept_since(&t, "s0");
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "since=s0", 400, "{\"errcode\":\"M_UNKNOWN\"}", 1);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"n1\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 3);
    /* no history: the first sync of a new session */
    assert_null(strstr(sync_path(&t, 1), "since="));
    assert_non_null(strstr(sync_path(&t, 1), "&timeout=0"));
    assert_non_null(strstr(sync_path(&t, 2), "&since=n1"));
    assert_since(&t, "n1");
    st_logged = st_free(&t);
    assert_non_null(strstr(
        st_logged, "mx: the homeserver refuses the sync token: starting anew"));
}

/* The last good since is the one refused (a server that answered with
 * the same next_batch): no going back to it, a new session. */
static void
test_a_refused_since_that_was_the_last_good_one_starts_anew(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    kept_since(&t, "s0");
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "since=s0", 200, "{\"next_batch\":\"s0\"}", 1);
    sv_route(&t.sv, "since=s0", 400, "{\"errcode\":\"M_UNKNOWN\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 3);
    assert_non_null(strstr(sync_path(&t, 1), "&since=s0"));
    assert_null(strstr(sync_path(&t, 2), "since="));
    assert_since(&t, NULL);
    st_logged = st_free(&t);
    assert_non_null(strstr(
        st_logged, "mx: the homeserver refuses the sync token: starting anew"));
}

static bool sync_done_once(struct st *t)
{
    return sv_count(&t->sv, "GET /sync") >= 1 && !t->f.a->sync;
}

static void test_a_revoked_token_without_a_password_ends_the_syncs(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 401, "{\"errcode\":\"M_UNKNOWN_TOKEN\"}", -1);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(st_run(&t, sync_done_once, 5000));
    st_wait(&t, 300);
    assert_int_equal(sv_count(&t.sv, "GET /sync"), 1);
    assert_int_equal(sv_count(&t.sv, "POST /login"), 0);
    assert_int_equal(t.f.a->sync_timer, 0);
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged, "mx: the homeserver refuses the access "
                                      "token and no password is configured"));
}

static void
test_a_revoked_token_with_a_password_logs_in_and_syncs_on(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &(struct sv_opts){.access_token = "old", .password = "pw"});
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 401, "{\"errcode\":\"M_UNKNOWN_TOKEN\"}", 1);
    sv_route(&t.sv, "POST /login", 200, "{\"access_token\":\"new\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 2);
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 0)->auth, "Bearer old");
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 1)->auth, "Bearer new");
    /* the same sync: a new session's, from nothing */
    assert_string_equal(sync_path(&t, 0), sync_path(&t, 1));
    assert_int_equal(sv_count(&t.sv, "POST /login"), 1);
    st_logged = st_free(&t);
}

static bool join_asked(struct st *t)
{
    return sv_count(&t->sv, "POST /join/") > 0;
}

static void test_the_first_sync_waits_for_the_joins(void **state)
{
    (void)state;
    static const char *const rooms[] = {"!r:hs", NULL};
    struct st t;
    st_init(&t, &(struct sv_opts){.access_token = "tok", .rooms = rooms});
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "POST /join/", 200, "{\"room_id\":\"!r:hs\"}", -1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    start_until_syncs(&t, 1);
    const struct sv_seen *join = sv_nth(&t.sv, "POST /join/", 0);
    assert_non_null(join);
    assert_string_equal(join->path, "/join/%21r%3Ahs");
    assert_true(join < sv_nth(&t.sv, "GET /sync", 0));
    assert_int_equal(t.f.a->joins_pending, 0);
    st_logged = st_free(&t);
}

static void
test_a_join_that_hangs_holds_the_first_sync_for_a_while(void **state)
{
    (void)state;
    static const char *const rooms[] = {"!r:hs", NULL};
    struct st t;
    st_init(&t, &(struct sv_opts){.access_token = "tok",
                                  .rooms = rooms,
                                  .request_timeout_ms = 1000});
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "POST /join/", 0, "", -1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(st_run(&t, join_asked, 5000));
    int64_t start = sv_nth(&t.sv, "POST /join/", 0)->at;
    assert_int_not_equal(t.f.a->sync_timer, 0);
    st_wait(&t, 200);
    assert_int_equal(sv_count(&t.sv, "GET /sync"), 0);
    want_syncs = 1;
    assert_true(st_run(&t, syncs_asked, 5000));
    assert_true(sv_nth(&t.sv, "GET /sync", 0)->at - start >= 950);
    assert_int_equal(t.f.a->joins_pending, 1); /* still under way */
    st_logged = st_free(&t);
}

static void
test_after_a_restart_the_first_sync_waits_for_the_direct_map(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &(struct sv_opts){.access_token = "tok",
                                  .request_timeout_ms = 1000});
    kept_since(&t, "s0");
    sv_route(&t.sv, "/account_data/m.direct", 0, "", -1);
    sv_route(&t.sv, "POST /keys/query", 200, "{\"device_keys\":{}}", -1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    st_wait(&t, 200);
    assert_int_equal(sv_count(&t.sv, "/account_data/m.direct"), 1);
    assert_int_equal(sv_count(&t.sv, "GET /sync"), 0);
    assert_false(t.f.a->direct_known);
    want_syncs = 1;
    assert_true(st_run(&t, syncs_asked, 5000));
    assert_true(sv_nth(&t.sv, "GET /sync", 0)->at -
                    sv_nth(&t.sv, "/account_data/m.direct", 0)->at >=
                950);
    assert_non_null(strstr(sync_path(&t, 0), "&since=s0"));
    st_logged = st_free(&t);
}

static bool connected(struct st *t)
{
    return t->f.a->connected && t->f.a->sync &&
           sv_count(&t->sv, "GET /sync") == 2;
}

static void test_stop_ends_the_long_poll(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{\"next_batch\":\"s1\"}", 1);
    sv_route(&t.sv, "GET /sync", 0, "", -1);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(st_run(&t, connected, 5000));
    t.f.a->base.ops->stop(&t.f.a->base, "bye");
    assert_null(t.f.a->sync);
    assert_true(t.f.a->base.ops->idle(&t.f.a->base));
    /* and none again */
    mx_start_sync(t.f.a);
    assert_null(t.f.a->sync);
    st_wait(&t, 200);
    assert_int_equal(sv_count(&t.sv, "GET /sync"), 2);
    assert_since(&t, "s1");
    st_logged = st_free(&t);
}

static bool backing_off(struct st *t)
{
    return t->f.a->sync_timer != 0 && !t->f.a->sync &&
           sv_count(&t->sv, "GET /sync") > 0;
}

static void test_stop_during_a_backoff_asks_nothing_more(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &TOKEN);
    sv_routes_start(&t.sv);
    sv_route(&t.sv, "GET /sync", 200, "{}", -1);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(st_run(&t, backing_off, 5000));
    int n = sv_count(&t.sv, "GET /sync");
    t.f.a->base.ops->stop(&t.f.a->base, "bye");
    assert_int_equal(t.f.a->sync_timer, 0);
    st_wait(&t, 500); /* past the longest backoff (400) */
    assert_int_equal(sv_count(&t.sv, "GET /sync"), n);
    assert_null(t.f.a->sync);
    st_logged = st_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(
            test_the_first_sync_has_no_history_then_next_batch_is_followed,
            st_teardown),
        cmocka_unit_test_teardown(test_a_next_batch_goes_back_url_encoded,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_kept_since_is_synced_from_after_the_direct_map, st_teardown),
        cmocka_unit_test_teardown(
            test_a_refused_answer_is_asked_again_later_with_the_same_since,
            st_teardown),
        cmocka_unit_test_teardown(test_a_good_answer_resets_the_backoff,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_server_error_disconnects_until_a_sync_is_answered,
            st_teardown),
        cmocka_unit_test_teardown(
            test_a_refused_since_goes_back_to_the_last_good_one, st_teardown),
        cmocka_unit_test_teardown(test_a_refused_first_since_starts_anew,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_refused_since_that_was_the_last_good_one_starts_anew,
            st_teardown),
        cmocka_unit_test_teardown(
            test_a_revoked_token_without_a_password_ends_the_syncs,
            st_teardown),
        cmocka_unit_test_teardown(
            test_a_revoked_token_with_a_password_logs_in_and_syncs_on,
            st_teardown),
        cmocka_unit_test_teardown(test_the_first_sync_waits_for_the_joins,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_join_that_hangs_holds_the_first_sync_for_a_while,
            st_teardown),
        cmocka_unit_test_teardown(
            test_after_a_restart_the_first_sync_waits_for_the_direct_map,
            st_teardown),
        cmocka_unit_test_teardown(test_stop_ends_the_long_poll, st_teardown),
        cmocka_unit_test_teardown(test_stop_during_a_backoff_asks_nothing_more,
                                  st_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
