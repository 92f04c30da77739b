/*
 * The application-service listener on libmicrohttpd (listen.h). MHD runs
 * without a thread of its own (neither MHD_USE_INTERNAL_POLLING_THREAD nor
 * thread-per-connection): its epoll descriptor is one watch of the bot's
 * loop, MHD_run is called when it is ready and when MHD_get_timeout says,
 * and every handler runs on the loop like the rest of the adapter.
 */
#include "adapters/matrix/listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "bot/common/err.h"
#include "bot/common/log.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

/* Bytes of one connection's MHD memory: its request line and headers. */
#define HEADERS_MAX 16384

/* One open connection, as MHD tells of it. */
struct conn {
    struct mx_listen *s;
    int fd;
    int64_t since;   /* loop time: connected, or last answered */
    bool waiting;    /* a request of it waits for the handler's answer */
    bool shut;       /* timed out: shut down, MHD closes it */
    struct req *req; /* the request that waits */
    struct conn *next;
};

enum req_state { REQ_READING, REQ_REFUSED, REQ_HANDED, REQ_ANSWERED };

struct req {
    struct mx_request pub;
    struct mx_listen *s;
    struct MHD_Connection *c;
    struct conn *conn;
    enum req_state state;
    char *method, *path;
    struct strbuf body; /* up to the limits' body_max */
    bool suspended;
    int status;
    char *answer;
};

struct mx_listen {
    struct loop *loop;
    struct MHD_Daemon *d;
    int epfd;
    int port;
    char *token;
    struct mx_listen_limits lim;
    mx_request_fn fn;
    void *ctx;
    struct conn *conns;
    uint64_t run_timer;   /* MHD's own timeout */
    uint64_t watch_timer; /* the connections' time */
    bool watching;        /* epfd is watched */
    bool run_soon;        /* run_timer is a 0 ms one */
};

bool mx_token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    volatile unsigned char d = la != lb;
    for (size_t i = 0; i < lb; i++)
        d |= (unsigned char)((i < la ? (unsigned char)a[i] : 0) ^
                             (unsigned char)b[i]);
    return d == 0;
}

static void rearm(struct mx_listen *s);

static void run(struct mx_listen *s)
{
    s->run_soon = false;
    MHD_run(s->d);
    rearm(s);
}

static void on_fd(struct loop *l, int fd, int events, void *ctx)
{
    (void)l, (void)fd, (void)events;
    run(ctx);
}

static void on_run_timer(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_listen *s = ctx;
    s->run_timer = 0;
    run(s);
}

/* MHD_run at the next turn of the loop, whatever MHD's timeout says. */
static void run_soon(struct mx_listen *s)
{
    if (s->run_soon)
        return;
    s->run_soon = true;
    loop_cancel(s->loop, s->run_timer);
    s->run_timer = loop_timer(s->loop, 0, on_run_timer, s);
}

/* Connections that have not delivered a whole request in time are shut
 * down: MHD reads their end and closes them. */
static void on_watch_timer(struct loop *l, void *ctx)
{
    struct mx_listen *s = ctx;
    s->watch_timer = 0;
    int64_t now = loop_now(l);
    bool shut = false;
    for (struct conn *c = s->conns; c; c = c->next)
        if (!c->waiting && !c->shut && now - c->since >= s->lim.request_ms) {
            log_debug("appservice listener: a connection sent no whole "
                      "request in %" PRId64 " ms: closed",
                      s->lim.request_ms);
            shutdown(c->fd, SHUT_RDWR);
            c->shut = shut = true;
        }
    if (shut)
        run(s);
    else
        rearm(s);
}

static void rearm(struct mx_listen *s)
{
    MHD_UNSIGNED_LONG_LONG t;
    if (s->run_soon)
        t = 0; /* a 0 ms run is due */
    else {
        loop_cancel(s->loop, s->run_timer);
        s->run_timer = 0;
    }
    if (!s->run_soon && MHD_get_timeout(s->d, &t) == MHD_YES)
        s->run_timer = loop_timer(s->loop, t > 60000 ? 60000 : (int64_t)t,
                                  on_run_timer, s);
    if (s->watch_timer || !s->conns)
        return;
    /* the next deadline of a connection that is not waiting */
    int64_t next = -1, now = loop_now(s->loop);
    for (struct conn *c = s->conns; c; c = c->next)
        if (!c->waiting && !c->shut) {
            int64_t due = c->since + s->lim.request_ms - now;
            if (next < 0 || due < next)
                next = due;
        }
    if (next >= 0)
        s->watch_timer =
            loop_timer(s->loop, next > 0 ? next : 0, on_watch_timer, s);
}

static void on_connection(void *cls, struct MHD_Connection *connection,
                          void **socket_context,
                          enum MHD_ConnectionNotificationCode toe)
{
    struct mx_listen *s = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
            connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn *c = xcalloc(1, sizeof *c);
        c->s = s;
        c->fd = ci ? ci->connect_fd : -1;
        c->since = loop_now(s->loop);
        c->next = s->conns;
        s->conns = c;
        *socket_context = c;
        /* its deadline counts from now */
        loop_cancel(s->loop, s->watch_timer);
        s->watch_timer = 0;
        return;
    }
    struct conn *c = *socket_context;
    /* MHD stops accepting at its limit and takes the listening socket
     * back in the next MHD_run: make there be one */
    run_soon(s);
    for (struct conn **p = &s->conns; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            free(c);
            break;
        }
    *socket_context = NULL;
}

static void on_completed(void *cls, struct MHD_Connection *connection,
                         void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)connection, (void)toe;
    struct mx_listen *s = cls;
    struct req *r = *con_cls;
    if (!r)
        return;
    if (r->conn) {
        r->conn->since = loop_now(s->loop);
        r->conn->waiting = false;
    }
    free(r->method);
    free(r->path);
    strbuf_free(&r->body);
    free(r->answer);
    free(r);
    *con_cls = NULL;
}

static enum MHD_Result queue(struct req *r, int status, const char *json)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer(
        strlen(json), (void *)json, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                            "application/json");
    enum MHD_Result ret = MHD_queue_response(r->c, (unsigned)status, resp);
    MHD_destroy_response(resp);
    return ret;
}

/* A refusal before the body is read (or while it is). */
static enum MHD_Result refuse(struct req *r, int status, const char *code,
                              const char *why)
{
    char json[256];
    snprintf(json, sizeof json, "{\"errcode\":\"%s\",\"error\":\"%s\"}", code,
             why);
    r->state = REQ_REFUSED;
    log_debug("appservice listener: %s %s refused: %d %s", r->method, r->path,
              status, code);
    return queue(r, status, json);
}

/* The token of the request: the Authorization header's Bearer token, or
 * the access_token argument (Synapse 1.67 sends that). NULL if none. */
static const char *token_of(struct MHD_Connection *c)
{
    const char *h =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (h && strncmp(h, "Bearer ", 7) == 0)
        return h + 7;
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
                                       "access_token");
}

static enum MHD_Result first_call(struct mx_listen *s, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  void **con_cls)
{
    struct req *r = xcalloc(1, sizeof *r);
    strbuf_init_heap(&r->body, s->lim.body_max);
    r->s = s;
    r->c = c;
    r->method = xstrdup(method);
    r->path = xstrdup(url);
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    r->conn = ci ? ci->socket_context : NULL;
    *con_cls = r;
    const char *token = token_of(c);
    if (!token)
        return refuse(r, 401, "M_UNAUTHORIZED", "no token");
    if (!mx_token_equal(token, s->token))
        return refuse(r, 403, "M_FORBIDDEN", "wrong token");
    const char *cl = MHD_lookup_connection_value(
        c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(cl, &end, 10);
        if (errno || end == cl || *end || n > s->lim.body_max)
            return refuse(r, 413, "M_TOO_LARGE", "body too large");
    }
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
                                  const char *url, const char *method,
                                  const char *version, const char *data,
                                  size_t *size, void **con_cls)
{
    (void)version;
    struct mx_listen *s = cls;
    struct req *r = *con_cls;
    if (!r)
        return first_call(s, c, url, method, con_cls);
    if (r->state == REQ_REFUSED) {
        *size = 0; /* what comes after the refusal is not read */
        return MHD_YES;
    }
    if (*size) {
        bool fits = strbuf_add_whole(&r->body, data, *size);
        *size = 0;
        if (!fits) {
            /* in the middle of a body MHD takes no answer: the refusal
             * fails and the connection is closed */
            return refuse(r, 413, "M_TOO_LARGE", "body too large");
        }
        return MHD_YES;
    }
    if (r->state == REQ_READING) {
        r->state = REQ_HANDED;
        strbuf_add(&r->body, "", 0); /* a text even when there is none */
        r->pub = (struct mx_request){.method = r->method,
                                     .path = r->path,
                                     .body = r->body.buf,
                                     .len = r->body.len};
        s->fn(s->ctx, &r->pub);
        if (r->state != REQ_ANSWERED) {
            /* answered later: the connection waits, its time stopped */
            r->suspended = true;
            if (r->conn) {
                r->conn->waiting = true;
                r->conn->req = r;
            }
            MHD_suspend_connection(c);
            return MHD_YES;
        }
    }
    if (r->state == REQ_ANSWERED && r->answer) {
        enum MHD_Result ret = queue(r, r->status, r->answer);
        free(r->answer);
        r->answer = NULL;
        return ret;
    }
    return MHD_YES;
}

void mx_request_answer(struct mx_request *pub, int status, const char *json)
{
    struct req *r = (struct req *)pub;
    if (r->state != REQ_HANDED)
        return;
    r->state = REQ_ANSWERED;
    r->status = status;
    r->answer = xstrdup(json);
    if (r->suspended) {
        struct mx_listen *s = r->s;
        r->suspended = false;
        if (r->conn) {
            r->conn->waiting = false;
            r->conn->req = NULL;
            r->conn->since = loop_now(s->loop);
        }
        MHD_resume_connection(r->c);
        run_soon(s);
    }
}

__attribute__((format(printf, 2, 0))) static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    line[strcspn(line, "\r\n")] = '\0';
    log_debug("appservice listener: %s", line);
}

/* The listening socket on host:port, or -1 with err set. */
static int bind_to(const char *host, int port, int *bound, char *err,
                   size_t errlen)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof *v4;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof *v6;
    } else {
        return err_set(err, errlen, "%s is not a numeric IP address", host);
    }
    int fd =
        socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (fd < 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 32) != 0 ||
        getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        err_set(err, errlen, "cannot listen on %s port %d: %s", host, port,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *bound = ntohs(ss.ss_family == AF_INET ? v4->sin_port : v6->sin6_port);
    return fd;
}

struct mx_listen *mx_listen_new(struct loop *l, const char *host, int port,
                                const char *token,
                                const struct mx_listen_limits *lim,
                                mx_request_fn fn, void *ctx, char *err,
                                size_t errlen)
{
    struct mx_listen *s = xcalloc(1, sizeof *s);
    s->loop = l;
    s->token = xstrdup(token);
    s->lim = *lim;
    s->fn = fn;
    s->ctx = ctx;
    s->epfd = -1;
    int fd = bind_to(host, port, &s->port, err, errlen);
    if (fd < 0) {
        mx_listen_free(s);
        return NULL;
    }
    /* MHD's own idle timeout backs up the watch (whole seconds) */
    unsigned idle = (unsigned)((lim->request_ms + 999) / 1000) + 1;
    s->d = MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL,
        NULL, on_request, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
        MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_CONNECTION_LIMIT,
        lim->conn_max, MHD_OPTION_CONNECTION_TIMEOUT, idle,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HEADERS_MAX,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_NOTIFY_CONNECTION, on_connection, s, MHD_OPTION_END);
    if (!s->d) {
        err_set(err, errlen, "cannot start the HTTP listener on %s port %d",
                host, port);
        close(fd);
        mx_listen_free(s);
        return NULL;
    }
    const union MHD_DaemonInfo *di =
        MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
    s->epfd = di ? di->epoll_fd : -1;
    if (s->epfd < 0) {
        err_set(err, errlen, "the HTTP listener has no epoll descriptor");
        mx_listen_free(s);
        return NULL;
    }
    loop_watch(l, s->epfd, LOOP_READ, on_fd, s);
    s->watching = true;
    rearm(s);
    return s;
}

int mx_listen_port(const struct mx_listen *s)
{
    return s->port;
}

void mx_listen_free(struct mx_listen *s)
{
    if (!s)
        return;
    if (s->watching)
        loop_unwatch(s->loop, s->epfd);
    /* MHD stops only with no connection suspended */
    for (struct conn *c = s->conns; c; c = c->next)
        if (c->req)
            mx_request_answer(&c->req->pub, 503,
                              "{\"errcode\":\"M_UNKNOWN\",\"error\":"
                              "\"stopping\"}");
    loop_cancel(s->loop, s->run_timer);
    loop_cancel(s->loop, s->watch_timer);
    if (s->d)
        MHD_stop_daemon(s->d);
    while (s->conns) { /* MHD tells of every close; this is a backstop */
        struct conn *c = s->conns;
        s->conns = c->next;
        free(c);
    }
    free(s->token);
    free(s);
}
