/*
 * A scripted homeserver for the Matrix adapter's unit tests, on the test's
 * own loop (as the curl bridge's test serves; tests/unit/bot/common/
 * test_curl_loop.c), on 127.0.0.1: each request is answered by the first
 * route whose pattern is part of "METHOD PATH" (the path after the
 * client-server API's prefix, with its query), a route with status 0
 * holding the connection open unanswered (a long-poll that never ends);
 * no route: 404 M_NOT_FOUND. Every request is kept (method, path, body,
 * Authorization, loop time) for the test to read. With it: an adapter
 * started against it with its session in a temporary data directory,
 * the loop run until a condition, and the log captured.
 */
#ifndef HEARTS_TEST_MX_SERVER_H
#define HEARTS_TEST_MX_SERVER_H

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "adapters/matrix/matrix_adapter.h"
#include "adapters/matrix/matrix_internal.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"
#include "bot/common/xalloc.h"
#include "mx_fixture.h"

#define SV_ROUTES 16
#define SV_SEEN 64
#define SV_CLIENTS 16
#define SV_REQ_MAX 65536

struct sv_route {
    char *pattern;
    int status; /* 0: held, never answered */
    char *body;
    int times; /* answers left; -1: every time */
};

struct sv_seen {
    char *method, *path, *body, *auth;
    int64_t at; /* loop time */
};

struct sv_client {
    int fd; /* -1: free */
    char *buf;
    size_t len;
};

struct sv {
    struct loop *loop;
    int fd, port;
    struct sv_route routes[SV_ROUTES];
    int nroutes;
    struct sv_seen seen[SV_SEEN];
    int nseen;
    struct sv_client clients[SV_CLIENTS];
};

/* Answers requests matching `pattern` with status and body, `times`
 * times (-1: always); routes are tried in the order they were added. */
static inline void sv_route(struct sv *sv, const char *pattern, int status,
                            const char *body, int times)
{
    assert_true(sv->nroutes < SV_ROUTES);
    sv->routes[sv->nroutes++] = (struct sv_route){.pattern = xstrdup(pattern),
                                                  .status = status,
                                                  .body = xstrdup(body),
                                                  .times = times};
}

/* How many requests matching `pattern` came. */
static inline int sv_count(const struct sv *sv, const char *pattern)
{
    int n = 0;
    for (int i = 0; i < sv->nseen; i++) {
        char line[4096];
        snprintf(line, sizeof line, "%s %s", sv->seen[i].method,
                 sv->seen[i].path);
        if (strstr(line, pattern))
            n++;
    }
    return n;
}

/* The k-th (from 0) request matching `pattern`, or NULL. */
static inline const struct sv_seen *sv_nth(const struct sv *sv,
                                           const char *pattern, int k)
{
    for (int i = 0; i < sv->nseen; i++) {
        char line[4096];
        snprintf(line, sizeof line, "%s %s", sv->seen[i].method,
                 sv->seen[i].path);
        if (strstr(line, pattern) && k-- == 0)
            return &sv->seen[i];
    }
    return NULL;
}

static inline void sv_close(struct sv *sv, struct sv_client *c)
{
    loop_unwatch(sv->loop, c->fd);
    close(c->fd);
    free(c->buf);
    *c = (struct sv_client){.fd = -1};
}

static inline char *sv_header(const char *head, const char *name)
{
    for (const char *p = strstr(head, "\r\n"); p; p = strstr(p + 2, "\r\n")) {
        size_t n = strlen(name);
        if (strncasecmp(p + 2, name, n) == 0 && p[2 + n] == ':') {
            const char *v = p + 2 + n + 1;
            while (*v == ' ')
                v++;
            size_t vl = strcspn(v, "\r\n");
            char *out = xcalloc(1, vl + 1);
            memcpy(out, v, vl);
            return out;
        }
    }
    return NULL;
}

static inline void sv_write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            return;
        s += w;
        n -= (size_t)w;
    }
}

/* A whole request in c's buffer: kept, answered (or held). */
static inline void sv_answer(struct sv *sv, struct sv_client *c, char *head,
                             const char *body, size_t blen)
{
    assert_true(sv->nseen < SV_SEEN);
    struct sv_seen *s = &sv->seen[sv->nseen++];
    char method[16] = "", target[4096] = "";
    assert_int_equal(sscanf(head, "%15s %4095s", method, target), 2);
    const char *path = target;
    if (strncmp(path, MX_API, strlen(MX_API)) == 0)
        path += strlen(MX_API);
    s->method = xstrdup(method);
    s->path = xstrdup(path);
    s->body = xcalloc(1, blen + 1);
    memcpy(s->body, body, blen);
    s->auth = sv_header(head, "Authorization");
    s->at = loop_now(sv->loop);
    char line[4200];
    snprintf(line, sizeof line, "%s %s", method, path);
    const struct sv_route *r = NULL;
    for (int i = 0; i < sv->nroutes && !r; i++) {
        struct sv_route *t = &sv->routes[i];
        if (t->times != 0 && strstr(line, t->pattern)) {
            if (t->times > 0)
                t->times--;
            r = t;
        }
    }
    int status = r ? r->status : 404;
    const char *answer = r ? r->body : "{\"errcode\":\"M_NOT_FOUND\"}";
    if (status == 0)
        return; /* held: the client waits until it gives up or is freed */
    char top[256];
    int tl = snprintf(top, sizeof top,
                      "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      status, strlen(answer));
    int fl = fcntl(c->fd, F_GETFL);
    fcntl(c->fd, F_SETFL, fl & ~O_NONBLOCK);
    sv_write_all(c->fd, top, (size_t)tl);
    sv_write_all(c->fd, answer, strlen(answer));
    sv_close(sv, c);
}

static inline void sv_readable(struct loop *l, int fd, int events, void *ctx)
{
    (void)l, (void)events;
    struct sv *sv = ctx;
    struct sv_client *c = NULL;
    for (int i = 0; i < SV_CLIENTS; i++)
        if (sv->clients[i].fd == fd)
            c = &sv->clients[i];
    assert_non_null(c);
    if (c->len + 4096 > SV_REQ_MAX) {
        sv_close(sv, c);
        return;
    }
    ssize_t r = read(fd, c->buf + c->len, 4096);
    if (r <= 0) {
        sv_close(sv, c);
        return;
    }
    c->len += (size_t)r;
    c->buf[c->len] = '\0';
    char *end = strstr(c->buf, "\r\n\r\n");
    if (!end)
        return;
    *end = '\0';
    char *clen = sv_header(c->buf, "Content-Length");
    size_t need = clen ? (size_t)strtoul(clen, NULL, 10) : 0;
    free(clen);
    size_t have = c->len - (size_t)(end + 4 - c->buf);
    if (have < need) {
        *end = '\r'; /* not all of the body yet */
        return;
    }
    sv_answer(sv, c, c->buf, end + 4, need);
}

static inline void sv_accept(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct sv *sv = ctx;
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return;
    int i = 0;
    while (i < SV_CLIENTS && sv->clients[i].fd >= 0)
        i++;
    assert_true(i < SV_CLIENTS);
    fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK);
    sv->clients[i] = (struct sv_client){.fd = c, .buf = xcalloc(1, SV_REQ_MAX)};
    loop_watch(l, c, LOOP_READ, sv_readable, sv);
}

static inline void sv_start(struct sv *sv, struct loop *l)
{
    memset(sv, 0, sizeof *sv);
    sv->loop = l;
    for (int i = 0; i < SV_CLIENTS; i++)
        sv->clients[i].fd = -1;
    sv->fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(sv->fd >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(sv->fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(sv->fd, 16), 0);
    socklen_t alen = sizeof a;
    assert_int_equal(getsockname(sv->fd, (struct sockaddr *)&a, &alen), 0);
    sv->port = ntohs(a.sin_port);
    fcntl(sv->fd, F_SETFL, fcntl(sv->fd, F_GETFL) | O_NONBLOCK);
    loop_watch(l, sv->fd, LOOP_READ, sv_accept, sv);
}

static inline void sv_stop(struct sv *sv)
{
    for (int i = 0; i < SV_CLIENTS; i++)
        if (sv->clients[i].fd >= 0)
            sv_close(sv, &sv->clients[i]);
    loop_unwatch(sv->loop, sv->fd);
    close(sv->fd);
    for (int i = 0; i < sv->nroutes; i++) {
        free(sv->routes[i].pattern);
        free(sv->routes[i].body);
    }
    for (int i = 0; i < sv->nseen; i++) {
        free(sv->seen[i].method);
        free(sv->seen[i].path);
        free(sv->seen[i].body);
        free(sv->seen[i].auth);
    }
}

/* ---- the log, captured ---------------------------------------------------
 * Standard error goes to a temporary file from sv_log_begin; sv_log_end
 * puts it back, writes what was captured there too (a failed assertion's
 * message among it) and returns it. */

static int sv_saved_stderr = -1;
static FILE *sv_log_file;

static inline void sv_log_begin(void)
{
    fflush(stderr);
    sv_log_file = tmpfile();
    assert_non_null(sv_log_file);
    sv_saved_stderr = dup(2);
    dup2(fileno(sv_log_file), 2);
}

static inline char *sv_log_end(void)
{
    if (sv_saved_stderr < 0)
        return xstrdup("");
    fflush(stderr);
    dup2(sv_saved_stderr, 2);
    close(sv_saved_stderr);
    sv_saved_stderr = -1;
    long n = ftell(sv_log_file);
    char *s = xcalloc(1, n > 0 ? (size_t)n + 1 : 1);
    rewind(sv_log_file);
    if (n > 0 && fread(s, 1, (size_t)n, sv_log_file) != (size_t)n)
        s[0] = '\0';
    fclose(sv_log_file);
    fputs(s, stderr);
    return s;
}

/* ---- an adapter against the server ---------------------------------------
 */

struct sv_opts {
    const char *password, *access_token, *device_id;
    const char *const *rooms; /* NULL-ended, or NULL */
    int sync_timeout_ms;
    int request_timeout_ms;
};

/* The test: the loop, the server, an adapter for @bot:hs whose session
 * is kept under a temporary data directory (dir), the log captured. */
struct st {
    struct fx f;
    struct sv sv;
    char dir[64];
    char session[128]; /* dir/mx/matrix-session.json */
};

static inline void st_init(struct st *t, const struct sv_opts *o)
{
    memset(t, 0, sizeof *t);
    snprintf(t->dir, sizeof t->dir, "/tmp/test_mx_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->session, sizeof t->session, "%s/mx/matrix-session.json",
             t->dir);
    t->f.loop = loop_new();
    sv_start(&t->sv, t->f.loop);
    char hs[64];
    snprintf(hs, sizeof hs, "http://127.0.0.1:%d", t->sv.port);
    struct protocol_room ch[8];
    int n = 0;
    for (; o->rooms && o->rooms[n] && n < 8; n++)
        ch[n] = (struct protocol_room){.name = (char *)o->rooms[n],
                                       .rules = (char *)"standard"};
    struct matrix_config cfg = {
        .name = (char *)"mx",
        .homeserver = hs,
        .user_id = (char *)"@bot:hs",
        .password = (char *)(o->password ? o->password : ""),
        .access_token = (char *)(o->access_token ? o->access_token : ""),
        .device_id = (char *)(o->device_id ? o->device_id : ""),
        .rooms = n ? ch : NULL,
        .nrooms = n,
        .sync_timeout_ms = o->sync_timeout_ms ? o->sync_timeout_ms : 30000,
        .request_timeout_ms =
            o->request_timeout_ms ? o->request_timeout_ms : 5000,
        .auto_join_invites = true,
        .rejoin_delay_ms = 1000};
    t->f.a = (struct mx_adapter *)mx_adapter_new(t->f.loop, &cfg, t->dir,
                                                 fx_on_event, &t->f);
    mx_adapter_set_retry(&t->f.a->base, 40, 400);
    sv_log_begin();
}

/* Writes the session file before the start (JSON text). */
static inline void st_session(struct st *t, const char *json)
{
    char d[96];
    snprintf(d, sizeof d, "%s/mx", t->dir);
    mkdir(d, 0700);
    FILE *f = fopen(t->session, "w");
    assert_non_null(f);
    fputs(json, f);
    fclose(f);
}

/* Ends the test: frees everything, removes the data directory; returns
 * the log (to free). */
static inline char *st_free(struct st *t)
{
    t->f.a->base.ops->free(&t->f.a->base);
    sv_stop(&t->sv);
    loop_free(t->f.loop);
    fx_clear(&t->f);
    char *log = sv_log_end();
    char d[96];
    snprintf(d, sizeof d, "%s/mx", t->dir);
    DIR *dh = opendir(d);
    if (dh) {
        for (struct dirent *e; (e = readdir(dh));)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
                char p[512];
                snprintf(p, sizeof p, "%s/%s", d, e->d_name);
                unlink(p);
            }
        closedir(dh);
        rmdir(d);
    }
    rmdir(t->dir);
    return log;
}

/* The log a test left (st_free's), freed by st_teardown. */
static char *st_logged;

/* A test's teardown: the log freed; after a failed test, its log (the
 * failure among it) back on stderr. */
static inline int st_teardown(void **state)
{
    (void)state;
    free(st_logged);
    st_logged = NULL;
    free(sv_log_end());
    return 0;
}

/* The start's requests besides the joins and the syncs, answered: no
 * m.direct yet (by its path: the sync filter names it too), no device
 * keys. */
static inline void sv_routes_start(struct sv *sv)
{
    sv_route(sv, "/account_data/m.direct", 404, "{\"errcode\":\"M_NOT_FOUND\"}",
             -1);
    sv_route(sv, "POST /keys/query", 200, "{\"device_keys\":{}}", -1);
}

typedef bool (*st_cond)(struct st *t);

struct st_run {
    struct st *t;
    st_cond cond;
    bool met;
};

static inline void st_check(struct loop *l, void *ctx)
{
    struct st_run *r = ctx;
    if (r->cond(r->t)) {
        r->met = true;
        loop_stop(l);
    }
}

static inline void st_give_up(struct loop *l, void *ctx)
{
    (void)ctx;
    loop_stop(l);
}

/* Runs the loop until cond holds (checked before each sleep) or ms have
 * passed; whether it held. */
static inline bool st_run(struct st *t, st_cond cond, int64_t ms)
{
    struct st_run r = {.t = t, .cond = cond};
    if (cond(t))
        return true;
    uint64_t timer = loop_timer(t->f.loop, ms, st_give_up, NULL);
    loop_before_sleep(t->f.loop, st_check, &r);
    loop_run(t->f.loop);
    loop_remove_hook(t->f.loop, st_check, &r);
    loop_cancel(t->f.loop, timer);
    return r.met;
}

static inline bool st_never(struct st *t)
{
    (void)t;
    return false;
}

/* Runs the loop for ms, whatever happens. */
static inline void st_wait(struct st *t, int64_t ms)
{
    st_run(t, st_never, ms);
}

#endif
