/*
 * Tests of bot/common/curl_loop.c, the curl bridge: real libcurl transfers
 * driven by the loop alone against a tiny HTTP server that the test runs
 * on the same loop (a loopback socket): a body arrives and progress sees
 * it done, two transfers at once, a refused connection, a timeout that
 * only curl's timer can notice, and freeing a zeroed bridge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bot/common/curl_loop.h"

#define BODY "hello from the loop"

/* The server: one listening socket; each client's request is read to its
 * blank line and answered (unless `silent`), then closed. */
struct server {
    struct loop *loop;
    int fd;
    int port;
    bool silent;
    int served;
    int clients[8];
    char req[8][1024];
    size_t reqlen[8];
};

static void client_ready(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct server *sv = ctx;
    int i = 0;
    while (i < 8 && sv->clients[i] != fd)
        i++;
    assert_true(i < 8);
    ssize_t n = read(fd, sv->req[i] + sv->reqlen[i],
                     sizeof sv->req[i] - 1 - sv->reqlen[i]);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0) {
        sv->reqlen[i] += (size_t)n;
        sv->req[i][sv->reqlen[i]] = '\0';
        if (!strstr(sv->req[i], "\r\n\r\n") || sv->silent)
            return;
        char resp[256];
        int len = snprintf(resp, sizeof resp,
                           "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                           "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                           strlen(BODY), BODY);
        assert_int_equal(write(fd, resp, (size_t)len), len);
        sv->served++;
    }
    loop_unwatch(l, fd);
    close(fd);
    sv->clients[i] = -1;
}

static void server_accept(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct server *sv = ctx;
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return;
    fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
    int i = 0;
    while (i < 8 && sv->clients[i] >= 0)
        i++;
    assert_true(i < 8);
    sv->clients[i] = c;
    sv->reqlen[i] = 0;
    loop_watch(l, c, LOOP_READ, client_ready, sv);
}

static void server_start(struct server *sv, struct loop *l)
{
    memset(sv, 0, sizeof *sv);
    sv->loop = l;
    for (int i = 0; i < 8; i++)
        sv->clients[i] = -1;
    sv->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(sv->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(sv->fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(sv->fd, 8), 0);
    socklen_t alen = sizeof a;
    assert_int_equal(getsockname(sv->fd, (struct sockaddr *)&a, &alen), 0);
    sv->port = ntohs(a.sin_port);
    fcntl(sv->fd, F_SETFL, fcntl(sv->fd, F_GETFL) | O_NONBLOCK);
    loop_watch(l, sv->fd, LOOP_READ, server_accept, sv);
}

static void server_stop(struct server *sv)
{
    for (int i = 0; i < 8; i++)
        if (sv->clients[i] >= 0) {
            loop_unwatch(sv->loop, sv->clients[i]);
            close(sv->clients[i]);
        }
    loop_unwatch(sv->loop, sv->fd);
    close(sv->fd);
}

/* A transfer: its handle, what it received, and how it ended. */
struct transfer {
    CURL *easy;
    char body[256];
    size_t len;
    bool done;
    CURLcode result;
};

struct client {
    struct curl_loop cl;
    struct transfer *t[4];
    int nt;
    int pending;
    int progress_calls;
};

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    struct transfer *t = ctx;
    size_t k = size * n;
    assert_true(t->len + k < sizeof t->body);
    memcpy(t->body + t->len, data, k);
    t->len += k;
    t->body[t->len] = '\0';
    return k;
}

/* The bridge's progress: reads what finished; stops the loop when all
 * transfers have. */
static void progress(void *ctx)
{
    struct client *c = ctx;
    c->progress_calls++;
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(c->cl.multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        for (int i = 0; i < c->nt; i++)
            if (c->t[i]->easy == m->easy_handle) {
                c->t[i]->done = true;
                c->t[i]->result = m->data.result;
                c->pending--;
            }
    }
    if (c->pending == 0)
        loop_stop(c->cl.loop);
}

static void start(struct client *c, struct transfer *t, int port,
                  long timeout_ms)
{
    memset(t, 0, sizeof *t);
    t->easy = curl_easy_init();
    assert_non_null(t->easy);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/path", port);
    curl_easy_setopt(t->easy, CURLOPT_URL, url);
    curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t->easy, CURLOPT_PROXY, "");
    if (timeout_ms)
        curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    c->t[c->nt++] = t;
    c->pending++;
    assert_int_equal(curl_multi_add_handle(c->cl.multi, t->easy), CURLM_OK);
}

static void finish(struct client *c)
{
    for (int i = 0; i < c->nt; i++) {
        curl_multi_remove_handle(c->cl.multi, c->t[i]->easy);
        curl_easy_cleanup(c->t[i]->easy);
    }
    curl_loop_free(&c->cl);
}

static void give_up(struct loop *l, void *ctx)
{
    (void)l;
    (void)ctx;
    fail_msg("the transfers did not finish in 10 s");
}

/* Runs the loop until every transfer is done (10 s at most). */
static void run(struct loop *l)
{
    uint64_t guard = loop_timer(l, 10000, give_up, NULL);
    loop_run(l);
    loop_cancel(l, guard);
}

static void test_curl_loop_transfer(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct server sv;
    server_start(&sv, l);
    struct client c = {0};
    assert_int_equal(curl_loop_init(&c.cl, l, progress, &c), 0);
    assert_true(c.cl.loop == l);
    assert_non_null(c.cl.multi);
    struct transfer t;
    start(&c, &t, sv.port, 0);
    run(l);
    assert_true(t.done);
    assert_int_equal(t.result, CURLE_OK);
    assert_string_equal(t.body, BODY);
    long code = 0;
    curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &code);
    assert_int_equal(code, 200);
    assert_int_equal(sv.served, 1);
    assert_non_null(strstr(sv.req[0], "GET /path HTTP/1.1\r\n"));
    assert_true(c.progress_calls > 0);
    finish(&c);
    server_stop(&sv);
    loop_free(l);
}

static void test_curl_loop_two_at_once(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct server sv;
    server_start(&sv, l);
    struct client c = {0};
    assert_int_equal(curl_loop_init(&c.cl, l, progress, &c), 0);
    struct transfer a, b;
    start(&c, &a, sv.port, 0);
    start(&c, &b, sv.port, 0);
    run(l);
    assert_true(a.done && b.done);
    assert_int_equal(a.result, CURLE_OK);
    assert_int_equal(b.result, CURLE_OK);
    assert_string_equal(a.body, BODY);
    assert_string_equal(b.body, BODY);
    assert_int_equal(sv.served, 2);
    finish(&c);
    server_stop(&sv);
    loop_free(l);
}

/* Nobody listens: curl's failure comes through progress too. */
static void test_curl_loop_refused(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct server sv;
    server_start(&sv, l);
    int port = sv.port;
    server_stop(&sv); /* the port is free again */
    struct client c = {0};
    assert_int_equal(curl_loop_init(&c.cl, l, progress, &c), 0);
    struct transfer t;
    start(&c, &t, port, 0);
    run(l);
    assert_true(t.done);
    assert_int_equal(t.result, CURLE_COULDNT_CONNECT);
    assert_int_equal(t.len, 0);
    finish(&c);
    loop_free(l);
}

/* The server reads the request and never answers: only curl's timeout,
 * a loop timer, ends the transfer. */
static void test_curl_loop_timeout(void **state)
{
    (void)state;
    struct loop *l = loop_new();
    struct server sv;
    server_start(&sv, l);
    sv.silent = true;
    struct client c = {0};
    assert_int_equal(curl_loop_init(&c.cl, l, progress, &c), 0);
    struct transfer t;
    int64_t t0 = loop_now(l);
    start(&c, &t, sv.port, 300);
    run(l);
    assert_true(t.done);
    assert_int_equal(t.result, CURLE_OPERATION_TIMEDOUT);
    assert_true(loop_now(l) - t0 >= 250);
    assert_int_equal(sv.served, 0);
    finish(&c);
    server_stop(&sv);
    loop_free(l);
}

static void test_curl_loop_free_zeroed(void **state)
{
    (void)state;
    struct curl_loop cl;
    memset(&cl, 0, sizeof cl);
    curl_loop_free(&cl);
    struct loop *l = loop_new();
    assert_int_equal(curl_loop_init(&cl, l, progress, NULL), 0);
    curl_loop_detach(&cl);
    assert_true(cl.detached);
    curl_loop_free(&cl);
    loop_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_curl_loop_transfer),
        cmocka_unit_test(test_curl_loop_two_at_once),
        cmocka_unit_test(test_curl_loop_refused),
        cmocka_unit_test(test_curl_loop_timeout),
        cmocka_unit_test(test_curl_loop_free_zeroed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
