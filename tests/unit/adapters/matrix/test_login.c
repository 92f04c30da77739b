/*
 * The Matrix adapter's login, session file and device-key check
 * (adapters/matrix/login.c), against a scripted homeserver on the test's
 * loop (mx_server.h): a login keeps its token and device in the session
 * file and the start goes on; a kept session is used without a login;
 * answers without a usable token, refusals and rate limits leave the
 * adapter without a token and the session file unwritten, and say why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/login.h"
#include "adapters/matrix/session.h"
#include "mx_server.h"

static const struct sv_opts PASSWORD = {.password = "pw"};

/* A homeserver whose start requests after a login are answered, with a
 * /sync that never ends. */
static void routes_after_login(struct sv *sv)
{
    sv_routes_start(sv);
    sv_route(sv, "GET /sync", 0, "", -1);
}

/* A login answered with token tok1 and device DEV1, then the start's
 * requests. */
static void login_gives_tok1(struct sv *sv)
{
    sv_route(sv, "POST /login", 200,
             "{\"user_id\":\"@bot:hs\",\"access_token\":\"tok1\","
             "\"device_id\":\"DEV1\"}",
             -1);
    routes_after_login(sv);
}

static bool sync_asked(struct st *t)
{
    return sv_count(&t->sv, "GET /sync") > 0;
}

static bool login_answered(struct st *t)
{
    return sv_count(&t->sv, "POST /login") > 0 && !t->f.a->logging_in;
}

static bool second_login_asked(struct st *t)
{
    return sv_count(&t->sv, "POST /login") >= 2;
}

static bool file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static void load_session(const struct st *t, struct mx_session *s)
{
    char err[256];
    assert_int_equal(mx_session_load(t->session, s, err, sizeof err), 0);
}

static void test_a_login_keeps_its_token_and_device_and_goes_on(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    login_gives_tok1(&t.sv);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(t.f.a->logging_in);
    assert_true(st_run(&t, sync_asked, 5000));

    /* what the login asked: the password for the configured user, and
     * the bot's device display name; no device yet */
    const struct sv_seen *login = sv_nth(&t.sv, "POST /login", 0);
    assert_non_null(login);
    assert_null(login->auth);
    assert_string_equal(
        login->body,
        "{\"type\":\"m.login.password\",\"identifier\":{\"type\":\"m.id.user\","
        "\"user\":\"@bot:hs\"},\"password\":\"pw\","
        "\"initial_device_display_name\":\"heartsbot\"}");
    /* the token is used from then on */
    assert_false(t.f.a->logging_in);
    assert_true(t.f.a->started);
    assert_string_equal(t.f.a->token, "tok1");
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 0)->auth, "Bearer tok1");
    /* and kept, with the device, in the session file */
    struct mx_session s;
    load_session(&t, &s);
    assert_string_equal(s.access_token, "tok1");
    assert_string_equal(s.device_id, "DEV1");
    assert_string_equal(s.user_id, "@bot:hs");
    assert_int_equal(s.txn_epoch, 1); /* the start raised it */
    mx_session_free(&s);
    st_logged = st_free(&t);
    assert_non_null(
        strstr(st_logged, "mx: logged in as @bot:hs (device DEV1)"));
}

static void test_a_kept_session_is_used_without_a_login(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    char json[512];
    snprintf(json, sizeof json,
             "{\"version\":1,\"homeserver\":\"http://127.0.0.1:%d\","
             "\"user_id\":\"@bot:hs\",\"access_token\":\"kept\","
             "\"device_id\":\"KD\",\"txn_epoch\":4}",
             t.sv.port);
    st_session(&t, json);
    sv_route(&t.sv, "POST /login", 200, "{\"access_token\":\"new\"}", -1);
    routes_after_login(&t.sv);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_false(t.f.a->logging_in);
    assert_true(st_run(&t, sync_asked, 5000));
    assert_int_equal(sv_count(&t.sv, "POST /login"), 0);
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 0)->auth, "Bearer kept");
    assert_string_equal(sv_nth(&t.sv, "POST /keys/query", 0)->auth,
                        "Bearer kept");
    struct mx_session s;
    load_session(&t, &s);
    assert_string_equal(s.access_token, "kept");
    assert_string_equal(s.device_id, "KD");
    assert_int_equal(s.txn_epoch, 5);
    mx_session_free(&s);
    st_logged = st_free(&t);
}

/* A newer heartsbot's session file (a downgrade): kept as it is for that
 * bot; this run logs in and keeps its session in memory only. */
static void test_a_newer_session_file_is_kept_as_it_is(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    static const char newer[] =
        "{\"version\":2,\"user_id\":\"@bot:hs\",\"access_token\":\"v2\"}\n";
    st_session(&t, newer);
    login_gives_tok1(&t.sv);
    assert_int_equal(t.f.a->base.ops->start(&t.f.a->base), 0);
    assert_true(st_run(&t, sync_asked, 5000));
    assert_int_equal(sv_count(&t.sv, "POST /login"), 1);
    assert_string_equal(t.f.a->token, "tok1");
    char kept[256] = "";
    FILE *f = fopen(t.session, "r");
    assert_non_null(f);
    size_t n = fread(kept, 1, sizeof kept - 1, f);
    kept[n] = '\0';
    fclose(f);
    assert_string_equal(kept, newer);
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged, "/mx/matrix-session.json: version 2, "
                                      "of a newer heartsbot (this one reads "
                                      "version 1): kept as it is; this run "
                                      "starts a new session and keeps it in "
                                      "memory only"));
}

static void test_a_login_asks_for_the_kept_device(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &(struct sv_opts){.password = "pw", .device_id = "CFGDEV"});
    char json[512];
    /* a session whose token is gone: the device stays the same */
    snprintf(json, sizeof json,
             "{\"version\":1,\"homeserver\":\"http://127.0.0.1:%d\","
             "\"user_id\":\"@bot:hs\",\"device_id\":\"KEPT\"}",
             t.sv.port);
    st_session(&t, json);
    sv_route(&t.sv, "POST /login", 0, "", -1);
    t.f.a->base.ops->start(&t.f.a->base);
    st_wait(&t, 200);
    const struct sv_seen *login = sv_nth(&t.sv, "POST /login", 0);
    assert_non_null(login);
    assert_non_null(strstr(login->body, "\"device_id\":\"KEPT\""));
    st_logged = st_free(&t);
}

static void test_a_login_asks_for_the_configured_device(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &(struct sv_opts){.password = "pw", .device_id = "CFGDEV"});
    sv_route(&t.sv, "POST /login", 0, "", -1);
    t.f.a->base.ops->start(&t.f.a->base);
    st_wait(&t, 200);
    const struct sv_seen *login = sv_nth(&t.sv, "POST /login", 0);
    assert_non_null(login);
    assert_non_null(strstr(login->body, "\"device_id\":\"CFGDEV\""));
    st_logged = st_free(&t);
}

/* Answers of 200 that hold no usable token: nothing is kept, nothing
 * goes on, the log says so. */
static void
test_a_login_answer_without_a_usable_token_changes_nothing(void **state)
{
    (void)state;
    static const char *const answers[] = {
        "{\"device_id\":\"D\"}",
        "{\"access_token\":5,\"device_id\":\"D\"}",
        "{\"access_token\":null}",
        "{\"access_token\":\"\"}",
        "{\"access_token\":\"two words\"}",
        "{\"access_token\":\"t\\u0000x\"}",
        "{\"access_token\":[\"tok\"]}",
        "[\"access_token\",\"tok\"]",
        "\"tok\"",
        "not json at all",
        "",
        "{\"access_token\":\"tok\"",
    };
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        struct st t;
        st_init(&t, &PASSWORD);
        sv_route(&t.sv, "POST /login", 200, answers[i], -1);
        routes_after_login(&t.sv);
        t.f.a->base.ops->start(&t.f.a->base);
        assert_true(st_run(&t, login_answered, 5000));
        st_wait(&t, 100); /* nothing more happens */
        assert_null(t.f.a->token);
        assert_null(t.f.a->s.access_token);
        assert_null(t.f.a->s.device_id);
        assert_false(t.f.a->started);
        assert_false(t.f.a->logging_in);
        assert_int_equal(t.sv.nseen, 1); /* no sync, no keys, no retry */
        assert_false(file_exists(t.session));
        st_logged = st_free(&t);
        assert_non_null(strstr(
            st_logged, "mx: the login answer holds no usable access token"));
        assert_null(strstr(st_logged, "logged in as"));
        free(st_logged);
        st_logged = NULL;
    }
}

static void test_a_device_id_of_a_bad_shape_is_not_kept(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    sv_route(&t.sv, "POST /login", 200,
             "{\"access_token\":\"tok\",\"device_id\":\"bad device\"}", -1);
    routes_after_login(&t.sv);
    t.f.a->base.ops->start(&t.f.a->base);
    assert_true(st_run(&t, sync_asked, 5000));
    assert_string_equal(t.f.a->token, "tok");
    assert_null(t.f.a->s.device_id);
    struct mx_session s;
    load_session(&t, &s);
    assert_string_equal(s.access_token, "tok");
    assert_null(s.device_id);
    mx_session_free(&s);
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged, "mx: logged in as @bot:hs (device ?)"));
}

static void test_a_refused_login_says_what_to_check(void **state)
{
    (void)state;
    static const int statuses[] = {400, 401, 403, 404};
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
        struct st t;
        st_init(&t, &PASSWORD);
        sv_route(&t.sv, "POST /login", statuses[i],
                 "{\"errcode\":\"M_FORBIDDEN\",\"error\":\"Invalid password\"}",
                 -1);
        routes_after_login(&t.sv);
        t.f.a->base.ops->start(&t.f.a->base);
        assert_true(st_run(&t, login_answered, 5000));
        st_wait(&t, 100);
        assert_null(t.f.a->token);
        assert_null(t.f.a->s.access_token);
        assert_false(t.f.a->started);
        assert_int_equal(t.sv.nseen, 1); /* given up: not asked again */
        assert_false(file_exists(t.session));
        st_logged = st_free(&t);
        assert_non_null(strstr(st_logged, "mx: cannot log in as @bot:hs: check "
                                          "user_id and password in the "
                                          "[[matrix]] section"));
        free(st_logged);
        st_logged = NULL;
    }
}

static void test_a_rate_limited_login_waits_what_the_server_asks(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    sv_route(&t.sv, "POST /login", 429,
             "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"retry_after_ms\":300}", 1);
    sv_route(&t.sv, "POST /login", 0, "", -1);
    t.f.a->base.ops->start(&t.f.a->base);
    assert_true(st_run(&t, second_login_asked, 5000));
    const struct sv_seen *first = sv_nth(&t.sv, "POST /login", 0);
    const struct sv_seen *second = sv_nth(&t.sv, "POST /login", 1);
    assert_true(second->at - first->at >= 300);
    assert_string_equal(first->body, second->body);
    /* meanwhile: no token, nothing written, still logging in */
    assert_null(t.f.a->token);
    assert_null(t.f.a->s.access_token);
    assert_true(t.f.a->logging_in);
    assert_false(file_exists(t.session));
    st_logged = st_free(&t);
    assert_non_null(
        strstr(st_logged, "mx: rate-limited on POST /login: waiting 300 ms"));
    assert_null(strstr(st_logged, "cannot log in"));
}

static void test_a_server_error_on_login_is_tried_again(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    sv_route(&t.sv, "POST /login", 502, "<html>bad gateway</html>", 1);
    sv_route(&t.sv, "POST /login", 200, "{\"access_token\":\"tok2\"}", -1);
    routes_after_login(&t.sv);
    t.f.a->base.ops->start(&t.f.a->base);
    assert_true(st_run(&t, sync_asked, 5000));
    assert_int_equal(sv_count(&t.sv, "POST /login"), 2);
    assert_string_equal(t.f.a->token, "tok2");
    struct mx_session s;
    load_session(&t, &s);
    assert_string_equal(s.access_token, "tok2");
    assert_null(s.device_id);
    mx_session_free(&s);
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged, "mx: POST /login: HTTP 502; again in "));
    assert_non_null(strstr(st_logged, "mx: logged in as @bot:hs (device ?)"));
}

static void test_a_session_that_cannot_be_written_is_said(void **state)
{
    (void)state;
    struct st t;
    st_init(&t, &PASSWORD);
    /* a file where the session's folder would go */
    char d[96];
    snprintf(d, sizeof d, "%s/mx", t.dir);
    FILE *f = fopen(d, "w");
    assert_non_null(f);
    fclose(f);
    sv_route(&t.sv, "POST /login", 200, "{\"access_token\":\"tok\"}", -1);
    routes_after_login(&t.sv);
    t.f.a->base.ops->start(&t.f.a->base);
    /* the token is used all the same */
    assert_true(st_run(&t, sync_asked, 5000));
    assert_string_equal(t.f.a->token, "tok");
    assert_string_equal(sv_nth(&t.sv, "GET /sync", 0)->auth, "Bearer tok");
    unlink(d);
    st_logged = st_free(&t);
    assert_non_null(strstr(st_logged, "mx: cannot keep the Matrix session: "));
}

static bool keys_done(struct st *t)
{
    for (struct mx_call *c = t->f.a->calls; c; c = c->next)
        if (strcmp(c->path, "/keys/query") == 0)
            return false;
    return sv_count(&t->sv, "POST /keys/query") > 0;
}

/* The device-key check with the answer `body`; the log. */
static char *keys_check(const char *body)
{
    struct st t;
    st_init(&t, &PASSWORD);
    sv_route(&t.sv, "POST /keys/query", 200, body, -1);
    t.f.a->token = xstrdup("tok");
    mx_check_keys(t.f.a);
    assert_true(st_run(&t, keys_done, 5000));
    const struct sv_seen *q = sv_nth(&t.sv, "POST /keys/query", 0);
    assert_string_equal(q->body, "{\"device_keys\":{\"@bot:hs\":[]}}");
    assert_string_equal(q->auth, "Bearer tok");
    return st_free(&t);
}

static void test_device_keys_of_the_account_are_warned_about(void **state)
{
    (void)state;
    st_logged =
        keys_check("{\"device_keys\":{\"@bot:hs\":{\"A\":{},\"B\":{}}}}");
    assert_non_null(strstr(st_logged, "mx: the account @bot:hs has device keys "
                                      "(2 devices): people's clients will "
                                      "encrypt"));
    free(st_logged);
    st_logged = keys_check("{\"device_keys\":{\"@bot:hs\":{\"A\":{}}}}");
    assert_non_null(strstr(st_logged, "has device keys (1 device): "));
}

static void test_no_device_keys_or_a_strange_answer_is_no_warning(void **state)
{
    (void)state;
    static const char *const answers[] = {
        "{\"device_keys\":{\"@bot:hs\":{}}}",
        "{\"device_keys\":{}}",
        "{\"device_keys\":{\"@other:hs\":{\"A\":{}}}}",
        "{\"device_keys\":{\"@bot:hs\":[\"A\",\"B\"]}}",
        "{\"device_keys\":\"@bot:hs\"}",
        "[]",
        "not json",
    };
    for (size_t i = 0; i < sizeof answers / sizeof *answers; i++) {
        st_logged = keys_check(answers[i]);
        assert_non_null(
            strstr(st_logged, "mx: the account @bot:hs has no device keys"));
        assert_null(strstr(st_logged, "has device keys"));
        free(st_logged);
        st_logged = NULL;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(
            test_a_login_keeps_its_token_and_device_and_goes_on, st_teardown),
        cmocka_unit_test_teardown(test_a_kept_session_is_used_without_a_login,
                                  st_teardown),
        cmocka_unit_test_teardown(test_a_newer_session_file_is_kept_as_it_is,
                                  st_teardown),
        cmocka_unit_test_teardown(test_a_login_asks_for_the_kept_device,
                                  st_teardown),
        cmocka_unit_test_teardown(test_a_login_asks_for_the_configured_device,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_login_answer_without_a_usable_token_changes_nothing,
            st_teardown),
        cmocka_unit_test_teardown(test_a_device_id_of_a_bad_shape_is_not_kept,
                                  st_teardown),
        cmocka_unit_test_teardown(test_a_refused_login_says_what_to_check,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_a_rate_limited_login_waits_what_the_server_asks, st_teardown),
        cmocka_unit_test_teardown(test_a_server_error_on_login_is_tried_again,
                                  st_teardown),
        cmocka_unit_test_teardown(test_a_session_that_cannot_be_written_is_said,
                                  st_teardown),
        cmocka_unit_test_teardown(
            test_device_keys_of_the_account_are_warned_about, st_teardown),
        cmocka_unit_test_teardown(
            test_no_device_keys_or_a_strange_answer_is_no_warning, st_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
