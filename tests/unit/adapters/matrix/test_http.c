/*
 * The HTTP client (adapters/matrix/http.c) with real libcurl on the bot's
 * loop against a tiny responder forked here on 127.0.0.1: it answers by
 * path with canned responses (an echo of method, auth and body, a body
 * past the cap, a 503, a hang, a dropped connection). Only loopback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adapters/matrix/http.h"
#include "bot/common/loop.h"

/* ---- the responder ------------------------------------------------------ */

static void send_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

static void respond(int fd, int status, const char *body, size_t n)
{
    char head[256];
    int hl = snprintf(head, sizeof head,
                      "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      status, n);
    send_all(fd, head, (size_t)hl);
    send_all(fd, body, n);
}

static const char *header(const char *req, const char *name, char *out,
                          size_t outlen)
{
    out[0] = '\0';
    const char *p = strstr(req, name);
    if (!p)
        return out;
    p += strlen(name);
    while (*p == ' ')
        p++;
    size_t n = strcspn(p, "\r\n");
    if (n >= outlen)
        n = outlen - 1;
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

/* Serves one connection; returns false for one to keep open (a hang). */
static bool serve(int fd)
{
    char req[8192];
    size_t len = 0;
    char *end = NULL;
    while (!end && len < sizeof req - 1) {
        ssize_t r = read(fd, req + len, sizeof req - 1 - len);
        if (r <= 0)
            return true;
        len += (size_t)r;
        req[len] = '\0';
        end = strstr(req, "\r\n\r\n");
    }
    if (!end)
        return true;
    char cl[32], auth[256], ctype[64];
    size_t want =
        (size_t)atol(header(req, "\r\nContent-Length:", cl, sizeof cl));
    size_t have = len - (size_t)(end + 4 - req);
    while (have < want && len < sizeof req - 1) {
        ssize_t r = read(fd, req + len, sizeof req - 1 - len);
        if (r <= 0)
            break;
        len += (size_t)r;
        have += (size_t)r;
        req[len] = '\0';
    }
    char method[16] = "", path[256] = "";
    sscanf(req, "%15s %255s", method, path);
    header(req, "\r\nAuthorization:", auth, sizeof auth);
    header(req, "\r\nContent-Type:", ctype, sizeof ctype);
    if (strcmp(path, "/echo") == 0) {
        char out[9000];
        int n = snprintf(out, sizeof out, "%s|%s|%s|%s", method, auth, ctype,
                         end + 4);
        respond(fd, 200, out, (size_t)n);
    } else if (strcmp(path, "/big") == 0) {
        static char big[10000];
        memset(big, 'x', sizeof big);
        respond(fd, 200, big, sizeof big);
    } else if (strcmp(path, "/unavailable") == 0) {
        const char *b = "{\"errcode\":\"M_UNKNOWN\"}";
        respond(fd, 503, b, strlen(b));
    } else if (strcmp(path, "/hang") == 0) {
        return false;
    } else if (strcmp(path, "/drop") == 0) {
        /* closed without a word */
    } else {
        respond(fd, 404, "{}", 2);
    }
    return true;
}

static pid_t responder;
static int port;

static int setup(void **state)
{
    (void)state;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t sl = sizeof sa;
    assert_int_equal(getsockname(s, (struct sockaddr *)&sa, &sl), 0);
    assert_int_equal(listen(s, 16), 0);
    port = ntohs(sa.sin_port);
    responder = fork();
    assert_true(responder >= 0);
    if (responder == 0) {
        for (;;) {
            int c = accept(s, NULL, NULL);
            if (c < 0)
                continue;
            if (serve(c))
                close(c);
        }
    }
    close(s);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kill(responder, SIGKILL);
    waitpid(responder, NULL, 0);
    return 0;
}

/* ---- the client ---------------------------------------------------------- */

struct answer {
    bool called;
    int calls;
    enum mx_http_result result;
    long status;
    char body[10000];
    size_t len;
};

static void on_done(void *ctx, enum mx_http_result result, long status,
                    const char *body, size_t len)
{
    struct answer *a = ctx;
    a->called = true;
    a->calls++;
    a->result = result;
    a->status = status;
    a->len = len;
    snprintf(a->body, sizeof a->body, "%s", body);
}

struct run {
    struct mx_http *h;
    bool timed_out;
};

static void stop_when_idle(struct loop *l, void *ctx)
{
    struct run *r = ctx;
    if (mx_http_pending(r->h) == 0)
        loop_stop(l);
}

static void guard(struct loop *l, void *ctx)
{
    struct run *r = ctx;
    r->timed_out = true;
    loop_stop(l);
}

/* Runs the loop until no request is pending (at most 5 s). */
static void run_until_idle(struct loop *l, struct mx_http *h)
{
    struct run r = {.h = h};
    uint64_t t = loop_timer(l, 5000, guard, &r);
    loop_before_sleep(l, stop_when_idle, &r);
    loop_run(l);
    loop_remove_hook(l, stop_when_idle, &r);
    loop_cancel(l, t);
    assert_false(r.timed_out);
}

static uint64_t start(struct mx_http *h, const char *method, const char *path,
                      const char *body, const char *token, int64_t timeout_ms,
                      struct answer *a)
{
    char url[128];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", port, path);
    struct mx_http_request rq = {.method = method,
                                 .url = url,
                                 .body = body,
                                 .token = token,
                                 .timeout_ms = timeout_ms};
    return mx_http_start(h, &rq, on_done, a);
}

static void test_http_get_sends_token(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer a = {0};
    assert_true(start(h, "GET", "/echo", NULL, "secret", 2000, &a) != 0);
    run_until_idle(l, h);
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.result, MX_HTTP_OK);
    assert_int_equal(a.status, 200);
    assert_string_equal(a.body, "GET|Bearer secret||");
    mx_http_free(h);
    loop_free(l);
}

static void test_http_put_and_post_send_json(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer put = {0}, post = {0};
    assert_true(start(h, "PUT", "/echo", "{\"a\":1}", NULL, 2000, &put));
    assert_true(start(h, "POST", "/echo", "{}", "t", 2000, &post));
    assert_int_equal(mx_http_pending(h), 2);
    run_until_idle(l, h);
    assert_string_equal(put.body, "PUT||application/json|{\"a\":1}");
    assert_string_equal(post.body, "POST|Bearer t|application/json|{}");
    mx_http_free(h);
    loop_free(l);
}

static void test_http_body_over_cap_is_an_error(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer a = {0};
    assert_true(start(h, "GET", "/big", NULL, NULL, 2000, &a));
    run_until_idle(l, h);
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.result, MX_HTTP_TOOBIG);
    assert_int_equal(a.len, 0);
    mx_http_free(h);
    /* with room for it, the same body arrives whole */
    h = mx_http_new(l, 20000);
    memset(&a, 0, sizeof a);
    assert_true(start(h, "GET", "/big", NULL, NULL, 2000, &a));
    run_until_idle(l, h);
    assert_int_equal(a.result, MX_HTTP_OK);
    assert_int_equal(a.len, 10000);
    mx_http_free(h);
    loop_free(l);
}

static void test_http_error_status_is_an_answer(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer a = {0};
    assert_true(start(h, "GET", "/unavailable", NULL, NULL, 2000, &a));
    run_until_idle(l, h);
    assert_int_equal(a.result, MX_HTTP_OK);
    assert_int_equal(a.status, 503);
    assert_string_equal(a.body, "{\"errcode\":\"M_UNKNOWN\"}");
    mx_http_free(h);
    loop_free(l);
}

static void test_http_hang_times_out_without_blocking(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer hang = {0}, echo = {0};
    assert_true(start(h, "GET", "/hang", NULL, NULL, 300, &hang));
    assert_true(start(h, "GET", "/echo", NULL, NULL, 2000, &echo));
    run_until_idle(l, h);
    assert_int_equal(hang.result, MX_HTTP_TIMEOUT);
    /* the hanging request did not hold up the other one */
    assert_int_equal(echo.result, MX_HTTP_OK);
    mx_http_free(h);
    loop_free(l);
}

static void test_http_refused_and_dropped(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    /* a port nobody listens on */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t sl = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &sl);
    close(s);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(sa.sin_port));
    struct answer refused = {0}, dropped = {0};
    struct mx_http_request rq = {
        .method = "GET", .url = url, .timeout_ms = 2000};
    assert_true(mx_http_start(h, &rq, on_done, &refused));
    assert_true(start(h, "GET", "/drop", NULL, NULL, 2000, &dropped));
    run_until_idle(l, h);
    assert_int_equal(refused.result, MX_HTTP_CONNECT);
    assert_int_equal(dropped.result, MX_HTTP_ERROR);
    assert_int_equal(dropped.status, 0);
    mx_http_free(h);
    loop_free(l);
}

static void test_http_cancel_never_calls_back(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer a = {0}, b = {0};
    uint64_t id = start(h, "GET", "/hang", NULL, NULL, 300, &a);
    assert_true(id);
    assert_true(start(h, "GET", "/echo", NULL, NULL, 2000, &b));
    mx_http_cancel(h, id);
    mx_http_cancel(h, id); /* a spent id is ignored */
    mx_http_cancel(h, 0);
    assert_int_equal(mx_http_pending(h), 1);
    run_until_idle(l, h);
    assert_false(a.called);
    assert_int_equal(b.calls, 1);
    /* freeing with requests under way drops them without callbacks */
    assert_true(start(h, "GET", "/hang", NULL, NULL, 5000, &a));
    mx_http_free(h);
    assert_false(a.called);
    loop_free(l);
}

static void test_http_refuses_bad_requests(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct mx_http *h = mx_http_new(l, 4096);
    struct answer a = {0};
    assert_int_equal(start(h, "GET", "/echo", NULL, "a\r\nX: y", 2000, &a), 0);
    assert_int_equal(start(h, "GET", "/echo", NULL, NULL, 0, &a), 0);
    struct mx_http_request rq = {
        .method = "GET", .url = "ftp://127.0.0.1/", .timeout_ms = 100};
    assert_int_equal(mx_http_start(h, &rq, on_done, &a), 0);
    assert_int_equal(mx_http_pending(h), 0);
    assert_false(a.called);
    mx_http_free(h);
    loop_free(l);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_http_get_sends_token),
        cmocka_unit_test(test_http_put_and_post_send_json),
        cmocka_unit_test(test_http_body_over_cap_is_an_error),
        cmocka_unit_test(test_http_error_status_is_an_answer),
        cmocka_unit_test(test_http_hang_times_out_without_blocking),
        cmocka_unit_test(test_http_refused_and_dropped),
        cmocka_unit_test(test_http_cancel_never_calls_back),
        cmocka_unit_test(test_http_refuses_bad_requests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
