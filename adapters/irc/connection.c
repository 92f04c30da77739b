/*
 * The connection layer (connection.h): our own transport under
 * libircclient, which keeps parsing and dispatching lines but never
 * touches the network.
 *
 * - libcurl in connect-only mode makes the connection: name resolution in
 *   its resolver thread (the loop never blocks), every address of the
 *   name tried in turn, IPv6 and IPv4, TLS with the certificate and host
 *   name checked against the system's CA store or a CA file, a client
 *   certificate if configured. libcurl is already a dependency (Matrix),
 *   and is one Debian builds for exactly this. After connecting we read
 *   and write through curl_easy_recv / curl_easy_send on our loop.
 * - Every byte from the server goes through line.h: framing, tags, the
 *   checks that refuse what would crash or stall libircclient, and a
 *   clean line. PING is answered here (the server's token, which framing
 *   keeps free of CR and LF); CAP, AUTHENTICATE and the SASL numerics go
 *   to cap.h; the rest goes to libircclient one line at a time.
 * - libircclient lives on one end of a socketpair: it is connected (its
 *   irc_connect needs a TCP peer, so for an instant to a listening socket
 *   on 127.0.0.1 that never accepts) and its socket is then replaced by
 *   the socketpair's end with dup2. We write one clean line into our end
 *   and let it read and dispatch exactly that line, so the callbacks it
 *   makes belong to the line we know (and to its account tag). Its own
 *   output (the PASS, NICK and USER it queues on connecting) is never
 *   sent: we register ourselves, after CAP LS.
 * - Our output goes straight to the server from a 16 KiB buffer at a
 *   fixed address (OpenSSL wants a write that could not finish retried
 *   from the same place).
 */
#include "adapters/irc/connection.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libircclient.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bot/common/curl_loop.h"
#include "bot/common/err.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

/* Our output buffer: a few dozen lines; the out-queue paces the rest. */
#define OUT_MAX 16384
/* Bytes read from the server in one round at most (others get a turn). */
#define READ_ROUND 65536
/* Connecting (resolution, TCP, TLS) takes this long at most. */
#define CONNECT_TIMEOUT_MS 30000
/* Refused lines logged per connection, at most (a hostile server could
 * otherwise fill the log). */
#define REFUSED_LOGGED 20

struct ircad_conn {
    struct loop *loop;
    struct ircad_conn_handlers h;
    char name[64]; /* for the log */
    char host[256];
    int port;
    bool tls, verify;

    struct curl_loop cl; /* while connecting */
    CURL *easy;
    struct curl_slist *resolve;
    char curl_err[CURL_ERROR_SIZE];
    int fd; /* the server's socket once up, else -1 */
    bool up;
    int events; /* what we watch fd for, once up */

    /* registration, sent once up */
    char *reg_pass, *reg_nick, *reg_user, *reg_real;
    struct ircad_cap cap;

    struct ircad_framer fr;
    struct ircad_line line;
    unsigned refused;
    bool told_login; /* the SASL outcome is in the log */

    char out[OUT_MAX];
    size_t out_len;
    bool want_drain;

    irc_session_t *s;
    int lib_fd;          /* libircclient's end of the socketpair */
    int feed_fd;         /* ours */
    const char *account; /* the account tag of the line being dispatched */

    uint64_t t_more; /* reading goes on next round (a round's limit hit) */
    int busy;        /* inside a handler: close later */
    bool close_pending;
    bool close_flush;
};

/* ---- From libircclient's callbacks to ours ----------------------------- */

static void deliver(irc_session_t *s, const char *command, int numeric,
                    const char *origin, const char **params, unsigned count)
{
    struct ircad_conn *c = irc_get_ctx(s);
    if (!c || c->close_pending || !command)
        return;
    struct ircad_msg m = {command, numeric,
                          origin,  (const char *const *)params,
                          count,   c->account};
    c->h.msg(c->h.ctx, &m);
}

static void on_generic(irc_session_t *s, const char *event, const char *origin,
                       const char **params, unsigned count)
{
    deliver(s, event, 0, origin, params, count);
}

/* The library splits PRIVMSG by comparing the target with a nick it
 * tracks badly (prefix match); the adapter decides from the target
 * itself, so both become PRIVMSG. */
static void on_privmsg(irc_session_t *s, const char *event, const char *origin,
                       const char **params, unsigned count)
{
    (void)event;
    deliver(s, "PRIVMSG", 0, origin, params, count);
}

static void on_notice(irc_session_t *s, const char *event, const char *origin,
                      const char **params, unsigned count)
{
    (void)event;
    deliver(s, "NOTICE", 0, origin, params, count);
}

/* Set so the library's own CTCP answerer (unlimited) never runs. */
static void on_ctcp(irc_session_t *s, const char *event, const char *origin,
                    const char **params, unsigned count)
{
    (void)event;
    deliver(s, "CTCP", 0, origin, params, count);
}

static void on_numeric(irc_session_t *s, unsigned event, const char *origin,
                       const char **params, unsigned count)
{
    char code[8];
    if (event < 1 || event > 999)
        return;
    snprintf(code, sizeof code, "%03u", event);
    deliver(s, code, (int)event, origin, params, count);
}

/* ---- libircclient on a socketpair -------------------------------------- */

/* A session whose socket is our socketpair's end, in the CONNECTED
 * state. Returns 0, or -1 with a reason. */
static int library_open(struct ircad_conn *c, char *err, size_t errlen)
{
    irc_callbacks_t cb;
    memset(&cb, 0, sizeof cb);
    cb.event_nick = on_generic;
    cb.event_quit = on_generic;
    cb.event_join = on_generic;
    cb.event_part = on_generic;
    cb.event_kick = on_generic;
    cb.event_invite = on_generic;
    cb.event_unknown = on_generic;
    cb.event_channel = on_privmsg;
    cb.event_privmsg = on_privmsg;
    cb.event_notice = on_notice;
    cb.event_channel_notice = on_notice;
    cb.event_ctcp_req = on_ctcp;
    cb.event_numeric = on_numeric;
    c->s = irc_create_session(&cb);
    if (!c->s)
        return err_set(err, errlen, "cannot create an IRC session");
    irc_set_ctx(c->s, c);

    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0)
        return err_set(err, errlen, "socket: %s", strerror(errno));
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t slen = sizeof sa;
    int rc = -1;
    if (bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(ls, 1) != 0 ||
        getsockname(ls, (struct sockaddr *)&sa, &slen) != 0) {
        err_set(err, errlen, "loopback listener: %s", strerror(errno));
        goto out;
    }
    if (irc_connect(c->s, "127.0.0.1", ntohs(sa.sin_port), NULL, "heartsbot",
                    NULL, NULL) != 0) {
        err_set(err, errlen, "libircclient: %s", irc_strerror(irc_errno(c->s)));
        goto out;
    }
    fd_set in, wr;
    FD_ZERO(&in);
    FD_ZERO(&wr);
    int maxfd = -1;
    irc_add_select_descriptors(c->s, &in, &wr, &maxfd);
    if (maxfd < 0 || maxfd >= FD_SETSIZE) {
        err_set(err, errlen, "no descriptor below FD_SETSIZE for libircclient");
        goto out;
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        err_set(err, errlen, "socketpair: %s", strerror(errno));
        goto out;
    }
    /* the library's socket number now means our pair's end */
    if (dup2(sv[1], maxfd) < 0) {
        err_set(err, errlen, "dup2: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        goto out;
    }
    close(sv[1]);
    fcntl(maxfd, F_SETFL, fcntl(maxfd, F_GETFL) | O_NONBLOCK);
    fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    c->lib_fd = maxfd;
    c->feed_fd = sv[0];
    /* "connected": it checks the peer and queues its registration, which
     * stays in its buffer for good */
    FD_ZERO(&in);
    FD_ZERO(&wr);
    FD_SET(c->lib_fd, &wr);
    if (irc_process_select_descriptors(c->s, &in, &wr) != 0 ||
        !irc_is_connected(c->s)) {
        err_set(err, errlen, "libircclient would not take the socketpair");
        goto out;
    }
    rc = 0;
out:
    close(ls);
    return rc;
}

/* Gives libircclient one clean line and lets it dispatch it. Returns -1
 * if the library has stopped reading (it should never). */
static int library_feed(struct ircad_conn *c, const char *line, size_t len)
{
    char buf[IRCAD_LIB_LINE_MAX + 3];
    if (len > IRCAD_LIB_LINE_MAX)
        return -1;
    memcpy(buf, line, len);
    buf[len] = '\r';
    buf[len + 1] = '\n';
    ssize_t n = send(c->feed_fd, buf, len + 2, MSG_NOSIGNAL);
    if (n != (ssize_t)(len + 2))
        return -1;
    fd_set in, wr;
    FD_ZERO(&in);
    FD_ZERO(&wr);
    FD_SET(c->lib_fd, &in);
    c->busy++;
    int rc = irc_process_select_descriptors(c->s, &in, &wr);
    c->busy--;
    if (c->close_pending)
        return 0;
    if (rc != 0 || !irc_is_connected(c->s))
        return -1;
    /* it must be ready for the next line, its buffer empty */
    FD_ZERO(&in);
    FD_ZERO(&wr);
    int maxfd = -1;
    if (irc_add_select_descriptors(c->s, &in, &wr, &maxfd) != 0 ||
        !FD_ISSET(c->lib_fd, &in))
        return -1;
    return 0;
}

/* ---- Output ------------------------------------------------------------- */

static void watch(struct ircad_conn *c);

/* Writes as much of the output buffer as the server takes now. Returns
 * -1 on a broken connection. */
static int write_out(struct ircad_conn *c)
{
    while (c->out_len > 0) {
        size_t n = 0;
        CURLcode rc = curl_easy_send(c->easy, c->out, c->out_len, &n);
        if (rc == CURLE_AGAIN)
            break;
        if (rc != CURLE_OK) {
            snprintf(c->curl_err, sizeof c->curl_err, "write: %s",
                     curl_easy_strerror(rc));
            return -1;
        }
        if (n == 0)
            break;
        memmove(c->out, c->out + n, c->out_len - n);
        c->out_len -= n;
    }
    return 0;
}

/* Writes what waits, if anything, and watches for what is left. Returns
 * -1 if the connection failed (then it is freed). */
static int send_pending(struct ircad_conn *c);

/* Appends a line and CR LF; false if it does not fit. */
static bool out_append(struct ircad_conn *c, const char *line)
{
    size_t n = strlen(line);
    if (c->out_len + n + 2 > sizeof c->out)
        return false;
    memcpy(c->out + c->out_len, line, n);
    c->out_len += n;
    c->out[c->out_len++] = '\r';
    c->out[c->out_len++] = '\n';
    return true;
}

/* A protocol line of ours (CAP, AUTHENTICATE, PONG, registration):
 * ahead of nothing, but never refused for room (they are few). */
static void send_proto(void *ctx, const char *line)
{
    struct ircad_conn *c = ctx;
    if (strpbrk(line, "\r\n") || strlen(line) > 510)
        return;
    if (!out_append(c, line))
        return; /* 16 KiB of unsent output: the link is failing anyway */
    if (strncmp(line, "AUTHENTICATE ", 13) == 0 && strlen(line) > 15)
        log_debug("%s -> AUTHENTICATE (the payload not logged)", c->name);
    else if (strncmp(line, "PONG ", 5) != 0)
        log_debug("%s -> %s", c->name, line);
    watch(c);
}

/* ---- Closing ------------------------------------------------------------ */

static void fail(struct ircad_conn *c, const char *why, bool permanent);

static int send_pending(struct ircad_conn *c)
{
    if (c->out_len && write_out(c) != 0) {
        fail(c, c->curl_err, false); /* fail copies the text first */
        return -1;
    }
    watch(c);
    return 0;
}

static void free_conn(struct ircad_conn *c)
{
    if (c->fd >= 0 && c->up)
        loop_unwatch(c->loop, c->fd);
    if (c->t_more)
        loop_cancel(c->loop, c->t_more);
    if (c->easy) {
        curl_multi_remove_handle(c->cl.multi, c->easy);
        curl_easy_cleanup(c->easy);
    }
    curl_loop_free(&c->cl);
    curl_slist_free_all(c->resolve);
    if (c->s)
        irc_destroy_session(c->s); /* closes lib_fd */
    if (c->feed_fd >= 0)
        close(c->feed_fd);
    free(c->reg_pass);
    free(c->reg_nick);
    free(c->reg_user);
    free(c->reg_real);
    free(c);
}

/* Tears the connection down and tells the adapter (once). */
static void fail(struct ircad_conn *c, const char *why, bool permanent)
{
    char reason[400];
    snprintf(reason, sizeof reason, "%s", why);
    struct ircad_conn_handlers h = c->h;
    free_conn(c);
    h.closed(h.ctx, reason, permanent);
}

static void finish_close(struct ircad_conn *c)
{
    if (c->close_flush && c->up) {
        write_out(c);
        /* read and drop what has arrived: closing with unread input sends
         * a reset, which can discard our QUIT at the server */
        char sink[4096];
        for (int i = 0; i < 16; i++) {
            size_t n = 0;
            if (curl_easy_recv(c->easy, sink, sizeof sink, &n) != CURLE_OK ||
                n == 0)
                break;
        }
    }
    free_conn(c);
}

/* ---- Input -------------------------------------------------------------- */

static void refused(struct ircad_conn *c, const char *why, const char *raw)
{
    if (++c->refused > REFUSED_LOGGED)
        return;
    /* the line is hostile: show only its safe start */
    char shown[64];
    size_t n = 0;
    for (; *raw && n + 1 < sizeof shown; raw++)
        shown[n++] = (*raw >= 0x20 && *raw < 0x7f) ? *raw : '?';
    shown[n] = '\0';
    log_warn("%s: dropped a line from the server (%s): %s%s", c->name, why,
             shown,
             c->refused == REFUSED_LOGGED ? " (no more such warnings)" : "");
}

/* Says once in the log how SASL went, when it is settled. */
static void tell_login(struct ircad_conn *c)
{
    if (c->told_login || c->cap.state != IRCAD_CAP_DONE)
        return;
    c->told_login = true;
    if (c->cap.logged_in)
        log_info("%s: logged in to the account %s (SASL)", c->name,
                 c->cap.account);
    else if (c->cap.why[0])
        log_warn("%s: %s; going on without the account (sasl_required = "
                 "false)",
                 c->name, c->cap.why);
}

/* One framed line. Returns -1 if the connection failed (freed). */
static int take_line(struct ircad_conn *c, const char *raw, size_t len)
{
    const char *why = NULL;
    if (ircad_line_parse(raw, len, &c->line, &why) != 0) {
        refused(c, why ? why : "malformed", raw);
        return 0;
    }
    struct ircad_line *l = &c->line;
    if (strcmp(l->command, "PING") == 0) {
        /* the token comes back as it came; framing and parsing keep CR,
         * LF and NUL out of it, and a long one is cut */
        char pong[512];
        snprintf(pong, sizeof pong, "PONG :%.400s",
                 l->nparams ? l->params[l->nparams - 1] : "");
        send_proto(c, pong);
        return 0;
    }
    /* negotiation's lines end here; an 001 from a server without CAP
     * goes on (and may settle a required SASL as failed) */
    bool negotiation = ircad_cap_feed(&c->cap, l, send_proto, c);
    if (c->cap.state == IRCAD_CAP_FAILED) {
        fail(c, c->cap.why, c->cap.permanent);
        return -1;
    }
    tell_login(c);
    if (negotiation)
        return 0;
    c->account = l->has_account ? l->account : NULL;
    char clean[IRCAD_LIB_LINE_MAX + 1];
    for (unsigned part = 0;
         ircad_line_for_library(l, part, clean, sizeof clean) == 1; part++) {
        if (library_feed(c, clean, strlen(clean)) != 0) {
            c->account = NULL;
            fail(c, "libircclient stopped reading", false);
            return -1;
        }
        if (c->close_pending)
            break;
    }
    c->account = NULL;
    return 0;
}

static void on_sock(struct loop *l, int fd, int events, void *ctx);

/* The rest of what a round left unread: TLS may hold decrypted bytes
 * that no poll() will announce. */
static void on_more(struct loop *l, void *ctx)
{
    struct ircad_conn *c = ctx;
    c->t_more = 0;
    on_sock(l, c->fd, LOOP_READ, c);
}

/* Reads what the server has sent and handles every complete line.
 * Returns -1 if the connection failed (freed) or was closed. */
static int read_in(struct ircad_conn *c)
{
    size_t total = 0;
    while (total < READ_ROUND) {
        size_t room = 0, n = 0;
        char *at = ircad_framer_space(&c->fr, &room);
        CURLcode rc = curl_easy_recv(c->easy, at, room, &n);
        if (rc == CURLE_AGAIN)
            break;
        if (rc != CURLE_OK) {
            char why[CURL_ERROR_SIZE + 32];
            snprintf(why, sizeof why, "read: %s",
                     *c->curl_err ? c->curl_err : curl_easy_strerror(rc));
            fail(c, why, false);
            return -1;
        }
        if (n == 0) {
            fail(c, "connection closed by the server", false);
            return -1;
        }
        total += n;
        ircad_framer_added(&c->fr, n);
        const char *line;
        size_t len;
        while ((line = ircad_framer_next(&c->fr, &len))) {
            c->busy++;
            int r = take_line(c, line, len);
            if (r != 0)
                return -1; /* failed and freed: busy no longer matters */
            c->busy--;
            if (c->close_pending) {
                finish_close(c);
                return -1;
            }
        }
    }
    if (total >= READ_ROUND && !c->t_more)
        c->t_more = loop_timer(c->loop, 0, on_more, c);
    return 0;
}

static void on_sock(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)fd;
    struct ircad_conn *c = ctx;
    if (events & LOOP_READ) {
        if (read_in(c) != 0)
            return;
    }
    if (send_pending(c) != 0)
        return;
    if (c->want_drain && c->out_len == 0) {
        c->want_drain = false;
        c->busy++;
        c->h.drain(c->h.ctx);
        c->busy--;
        if (c->close_pending)
            finish_close(c);
    }
}

/* Watches the socket for reading, and for writing while output waits. */
static void watch(struct ircad_conn *c)
{
    if (!c->up)
        return;
    int ev = LOOP_READ | (c->out_len ? LOOP_WRITE : 0);
    if (ev != c->events) {
        c->events = ev;
        loop_watch(c->loop, c->fd, ev, on_sock, c);
    }
}

/* ---- Connecting (curl's multi interface on our loop) --------------------- */

static void connected(struct ircad_conn *c)
{
    curl_socket_t s = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(c->easy, CURLINFO_ACTIVESOCKET, &s) != CURLE_OK ||
        s == CURL_SOCKET_BAD) {
        fail(c, "connected, but no socket", false);
        return;
    }
    curl_loop_detach(&c->cl);
    c->fd = (int)s;
    c->up = true;
    c->curl_err[0] = '\0';
    char *ip = NULL;
    long port = 0;
    curl_easy_getinfo(c->easy, CURLINFO_PRIMARY_IP, &ip);
    curl_easy_getinfo(c->easy, CURLINFO_PRIMARY_PORT, &port);
    if (c->tls && c->verify)
        log_info("%s: connected to %s port %ld with TLS, certificate verified",
                 c->name, ip ? ip : "?", port);
    else if (c->tls)
        log_warn("%s: connected to %s port %ld with TLS, but the "
                 "certificate was NOT verified (tls_verify = false): anyone "
                 "on the path can read and change this connection",
                 c->name, ip ? ip : "?", port);
    else
        log_info("%s: connected to %s port %ld (no TLS)", c->name,
                 ip ? ip : "?", port);
    /* capabilities first: the server holds registration until CAP END */
    ircad_cap_start(&c->cap, send_proto, c);
    char line[520];
    if (c->reg_pass && *c->reg_pass) {
        snprintf(line, sizeof line, "PASS %s", c->reg_pass);
        out_append(c, line);
    }
    snprintf(line, sizeof line, "NICK %s", c->reg_nick);
    send_proto(c, line);
    snprintf(line, sizeof line, "USER %s 0 * :%s", c->reg_user, c->reg_real);
    send_proto(c, line);
    /* send_proto's watch has replaced curl's: the socket is ours */
    send_pending(c);
}

/* Why connecting failed, in words for the log. */
static void connect_error(struct ircad_conn *c, CURLcode rc, char *out,
                          size_t outlen)
{
    const char *what = *c->curl_err ? c->curl_err : curl_easy_strerror(rc);
    switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_INITFAILED:
        snprintf(out, outlen, "TLS refused: %s", what);
        break;
    case CURLE_COULDNT_RESOLVE_HOST:
        snprintf(out, outlen, "cannot resolve the host name: %s", what);
        break;
    default:
        snprintf(out, outlen, "connect: %s", what);
    }
}

static void check_done(struct ircad_conn *c)
{
    CURLMsg *msg;
    int left;
    while (!c->up && (msg = curl_multi_info_read(c->cl.multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        if (msg->data.result != CURLE_OK) {
            char why[CURL_ERROR_SIZE + 64];
            connect_error(c, msg->data.result, why, sizeof why);
            fail(c, why, false);
            return;
        }
        connected(c);
        return;
    }
}

/* curl_loop's progress while connecting. */
static void on_progress(void *ctx)
{
    check_done(ctx);
}

/* A host curl may put in a URL: a name, IPv4, or IPv6 (then bracketed).
 * Nothing that could make the URL mean something else. */
static bool host_ok(const char *h)
{
    size_t n = strlen(h);
    if (n == 0 || n > 253)
        return false;
    bool colon = strchr(h, ':') != NULL;
    for (const char *p = h; *p; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' ||
                  ch == '_' || (colon && ch == ':');
        if (!ok)
            return false;
    }
    return true;
}

/* Copies s for a registration line: CR, LF and NUL can't be in it (the
 * config refuses them), and spaces not in a word. */
static char *reg_copy(const char *s, bool word)
{
    char *d = xstrdup(s ? s : "");
    char *w = d;
    for (char *r = d; *r; r++)
        if (*r != '\r' && *r != '\n' && !(word && *r == ' '))
            *w++ = *r;
    *w = '\0';
    if (strlen(d) > 200)
        d[200] = '\0';
    return d;
}

int ircad_conn_open(struct loop *l, const struct ircad_conn_params *p,
                    const struct ircad_conn_handlers *h,
                    struct ircad_conn **out, char *err, size_t errlen)
{
    if (!p->host || !host_ok(p->host) || !p->nick || !*p->nick ||
        strpbrk(p->nick, " \r\n") || p->port <= 0 || p->port > 65535)
        return err_set(err, errlen, "invalid host, port or nick");
    struct ircad_conn *c = xcalloc(1, sizeof *c);
    c->loop = l;
    c->h = *h;
    c->fd = -1;
    c->lib_fd = -1;
    c->feed_fd = -1;
    c->port = p->port;
    c->tls = p->tls;
    c->verify = !p->tls || p->tls_verify;
    snprintf(c->host, sizeof c->host, "%s", p->host);
    snprintf(c->name, sizeof c->name, "%s", p->name ? p->name : p->host);
    c->reg_pass = reg_copy(p->password, true);
    c->reg_nick = reg_copy(p->nick, true);
    c->reg_user =
        reg_copy(p->username && *p->username ? p->username : p->nick, true);
    c->reg_real =
        reg_copy(p->realname && *p->realname ? p->realname : p->nick, false);
    ircad_framer_init(&c->fr);
    ircad_cap_init(&c->cap, &p->sasl);
    if (library_open(c, err, errlen) != 0) {
        free_conn(c);
        return -1;
    }

    char url[300];
    bool v6 = strchr(p->host, ':') != NULL;
    snprintf(url, sizeof url, "%s://%s%s%s:%d/", p->tls ? "https" : "http",
             v6 ? "[" : "", p->host, v6 ? "]" : "", p->port);
    if (curl_loop_init(&c->cl, l, on_progress, c) != 0) {
        err_set(err, errlen, "libcurl would not start");
        free_conn(c);
        return -1;
    }
    c->easy = curl_easy_init();
    if (!c->easy) {
        err_set(err, errlen, "libcurl: out of memory");
        free_conn(c);
        return -1;
    }
    CURL *e = c->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->curl_err);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)CONNECT_TIMEOUT_MS);
    /* an IRC connection never goes through the HTTP proxy of the
     * environment, and says nothing of HTTP in its TLS hello */
    curl_easy_setopt(e, CURLOPT_PROXY, "");
    curl_easy_setopt(e, CURLOPT_SSL_ENABLE_ALPN, 0L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_PRIVATE, c);
    if (p->test_resolve) {
        c->resolve = curl_slist_append(NULL, p->test_resolve);
        curl_easy_setopt(e, CURLOPT_RESOLVE, c->resolve);
    }
    if (p->tls) {
        curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, p->tls_verify ? 1L : 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, p->tls_verify ? 2L : 0L);
        if (p->tls_ca_file && *p->tls_ca_file)
            curl_easy_setopt(e, CURLOPT_CAINFO, p->tls_ca_file);
        if (p->tls_cert_file && *p->tls_cert_file) {
            curl_easy_setopt(e, CURLOPT_SSLCERT, p->tls_cert_file);
            curl_easy_setopt(e, CURLOPT_SSLKEY,
                             p->tls_key_file && *p->tls_key_file
                                 ? p->tls_key_file
                                 : p->tls_cert_file);
        }
        if (!p->tls_verify)
            log_warn("%s: TLS certificate checks are OFF (tls_verify = false): "
                     "use this only for a test server",
                     c->name);
    }
    if (p->sasl.mech == IRCAD_SASL_PLAIN && !p->tls)
        log_warn("%s: SASL PLAIN without TLS sends the password in the clear",
                 c->name);
    if (curl_multi_add_handle(c->cl.multi, e) != CURLM_OK) {
        err_set(err, errlen, "libcurl would not take the connection");
        free_conn(c);
        return -1;
    }
    *out = c;
    return 0;
}

int ircad_conn_send(struct ircad_conn *c, const char *line)
{
    if (c->close_pending)
        return IRCAD_CONN_ERROR;
    if (strlen(line) > 510 || strpbrk(line, "\r\n"))
        return IRCAD_CONN_ERROR;
    /* before the server has said hello (001) nothing of the adapter's
     * goes ahead of registration, except what the adapter sends to
     * register (nick changes), which the server holds in order anyway */
    if (!c->up || c->out_len + strlen(line) + 2 > sizeof c->out) {
        c->want_drain = true;
        return IRCAD_CONN_FULL;
    }
    out_append(c, line);
    /* written from the loop (never from inside a handler of ours: a
     * failure there would free what the caller still uses) */
    watch(c);
    return IRCAD_CONN_SENT;
}

int ircad_conn_flush(struct ircad_conn *c)
{
    if (c->busy || c->close_pending || !c->up)
        return -1;
    if (write_out(c) != 0)
        return -1;
    watch(c);
    return c->out_len == 0 ? 0 : -1;
}

bool ircad_conn_cap(const struct ircad_conn *c, unsigned bit)
{
    return ircad_cap_has(&c->cap, bit);
}

void ircad_conn_close(struct ircad_conn *c, bool flush)
{
    if (!c)
        return;
    c->close_flush = c->close_flush || flush;
    if (c->busy) {
        c->close_pending = true;
        return;
    }
    finish_close(c);
}
