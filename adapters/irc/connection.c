/*
 * The connection layer on libircclient 1.9 (connection.h), bridging its
 * select() API to our poll() loop: after every round we ask the library
 * which of read and write it wants (irc_add_select_descriptors into
 * fd_sets), watch the socket for exactly that, and on readiness hand the
 * result back in fd_sets to irc_process_select_descriptors.
 *
 * The library's traps shape this file:
 * - One session per connection: a reconnected session keeps stale buffers.
 * - Its output buffer is 1 KiB: irc_send_raw fails with LIBIRC_ERR_NOMEM
 *   when full, reported as IRCAD_CONN_FULL and retried after a write.
 * - Its input buffer is 1 KiB: a longer line stalls it for good (it stops
 *   asking to read), which we treat as a dead connection.
 * - A write attempt with an empty buffer counts as a closed connection, so
 *   the socket is offered for writing only when the library asked.
 * - PASS, NICK and USER are built with snprintf and then used as a printf
 *   format, so '%' in them is doubled here.
 * - Callbacks run inside irc_process_select_descriptors: a close asked for
 *   there is done when it returns, never under the library's feet.
 * - select() takes descriptors below FD_SETSIZE only; a socket above it is
 *   refused before the library sees it.
 */
#include "connection.h"

#include <errno.h>
#include <libircclient.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

struct ircad_conn {
    struct loop *loop;
    irc_session_t *s;
    struct ircad_conn_handlers h;
    int fd;
    int events; /* what we watch the fd for */
    bool tcp_up;
    bool out_pending; /* something of ours waits in the library's buffer */
    bool want_drain;
    int busy; /* inside the library or a handler: close later */
    bool close_pending;
    bool close_flush;
    int64_t last_rx;
};

/* ---- From libircclient's callbacks to ours ----------------------------- */

static void deliver(irc_session_t *s, const char *command, int numeric,
                    const char *origin, const char **params, unsigned count)
{
    struct ircad_conn *c = irc_get_ctx(s);
    if (!c || c->close_pending || !command)
        return;
    struct ircad_msg m = {command, numeric, origin, (const char *const *)params,
                          count,   NULL};
    c->h.msg(c->h.ctx, &m);
}

static void on_generic(irc_session_t *s, const char *event, const char *origin,
                       const char **params, unsigned count)
{
    deliver(s, event, 0, origin, params, count);
}

/* The library splits PRIVMSG by comparing the target with a nick it
 * tracks badly (prefix match, not updated before registration); the
 * adapter decides from the target itself, so both become PRIVMSG. */
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
    if (event > 999)
        return;
    snprintf(code, sizeof code, "%03u", event);
    deliver(s, code, (int)event, origin, params, count);
}

/* ---- The poll bridge --------------------------------------------------- */

static void on_fd(struct loop *l, int fd, int events, void *ctx);

static void finish_close(struct ircad_conn *c);

/* Tears the connection down and tells the adapter. */
static void fail(struct ircad_conn *c, const char *why)
{
    char reason[160];
    snprintf(reason, sizeof reason, "%s", why);
    struct ircad_conn_handlers h = c->h;
    if (c->fd >= 0)
        loop_unwatch(c->loop, c->fd);
    irc_destroy_session(c->s);
    free(c);
    h.closed(h.ctx, reason, false);
}

/* Why the library gave up, in words; for a refused connect, errno's. */
static void reason_of(struct ircad_conn *c, char *buf, size_t len)
{
    int err = 0;
    socklen_t elen = sizeof err;
    if (!c->tcp_up && c->fd >= 0 &&
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err) {
        snprintf(buf, len, "connect: %s", strerror(err));
        return;
    }
    int e = irc_errno(c->s);
    if (c->tcp_up && (e == LIBIRC_ERR_TERMINATED || e == LIBIRC_ERR_CLOSED))
        snprintf(buf, len, "connection closed or reset by the server");
    else
        snprintf(buf, len, "%s", irc_strerror(e));
}

/* Asks the library what it wants and watches for that. Returns -1 if the
 * session is stalled (connected but no longer willing to read). */
static int rearm(struct ircad_conn *c)
{
    fd_set in, out;
    FD_ZERO(&in);
    FD_ZERO(&out);
    int maxfd = -1;
    if (irc_add_select_descriptors(c->s, &in, &out, &maxfd) != 0)
        return -1;
    int ev = 0;
    if (FD_ISSET(c->fd, &in))
        ev |= LOOP_READ;
    if (FD_ISSET(c->fd, &out))
        ev |= LOOP_WRITE;
    c->out_pending = (ev & LOOP_WRITE) != 0;
    c->events = ev;
    loop_watch(c->loop, c->fd, ev, on_fd, c);
    return c->tcp_up && !(ev & LOOP_READ) ? -1 : 0;
}

static void on_fd(struct loop *l, int fd, int events, void *ctx)
{
    struct ircad_conn *c = ctx;
    fd_set in, out;
    FD_ZERO(&in);
    FD_ZERO(&out);
    /* only what we asked for: a write with nothing buffered would read as
     * a closed connection; POLLHUP also arrives as READ */
    if ((events & LOOP_READ) && (c->events & LOOP_READ))
        FD_SET(fd, &in);
    if ((events & LOOP_WRITE) && (c->events & LOOP_WRITE))
        FD_SET(fd, &out);
    bool connecting = !c->tcp_up;

    c->busy++;
    int rc = irc_process_select_descriptors(c->s, &in, &out);
    c->busy--;
    if (c->close_pending) {
        finish_close(c);
        return;
    }
    if (rc != 0 || !irc_is_connected(c->s)) {
        char why[160];
        reason_of(c, why, sizeof why);
        fail(c, why);
        return;
    }
    if (!connecting && FD_ISSET(fd, &in))
        c->last_rx = loop_now(l);
    if (connecting && FD_ISSET(fd, &out))
        c->tcp_up = true;
    if (rearm(c) != 0) {
        fail(c, "input stalled (a line longer than libircclient's 1 KiB)");
        return;
    }
    if (c->tcp_up && c->want_drain && !c->out_pending) {
        c->want_drain = false;
        c->busy++;
        c->h.drain(c->h.ctx);
        c->busy--;
        if (c->close_pending)
            finish_close(c);
    }
}

/* ---- Opening, sending, closing ----------------------------------------- */

/* Copies s for a line libircclient uses as a printf format: '%' doubled,
 * CR, LF (and for a username, spaces and '@') dropped, cut to fit. */
static void format_safe(char *out, size_t outlen, const char *s, bool word)
{
    size_t n = 0;
    for (; s && *s; s++) {
        char ch = *s;
        if (ch == '\r' || ch == '\n' || (word && (ch == ' ' || ch == '@')))
            continue;
        size_t need = ch == '%' ? 2 : 1;
        if (n + need + 1 > outlen)
            break;
        out[n++] = ch;
        if (ch == '%')
            out[n++] = '%';
    }
    out[n] = '\0';
}

int ircad_conn_open(struct loop *l, const struct ircad_conn_params *p,
                    const struct ircad_conn_handlers *h,
                    struct ircad_conn **out, char *err, size_t errlen)
{
    if (!p->host || !*p->host || !p->nick || !*p->nick ||
        strchr(p->nick, '%') || p->port <= 0 || p->port > 65535) {
        snprintf(err, errlen, "invalid host, port or nick");
        return -1;
    }
    /* socket() takes the lowest free descriptor: see that it will fit an
     * fd_set before the library FD_SETs it */
    int probe = socket(AF_INET, SOCK_STREAM, 0);
    if (probe < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return -1;
    }
    close(probe);
    if (probe >= FD_SETSIZE) {
        snprintf(err, errlen, "descriptor %d is too high for select()", probe);
        return -1;
    }

    irc_callbacks_t cb;
    memset(&cb, 0, sizeof cb);
    cb.event_nick = on_generic;
    cb.event_quit = on_generic;
    cb.event_join = on_generic;
    cb.event_part = on_generic;
    cb.event_kick = on_generic;
    cb.event_unknown = on_generic;
    cb.event_channel = on_privmsg;
    cb.event_privmsg = on_privmsg;
    cb.event_notice = on_notice;
    cb.event_channel_notice = on_notice;
    cb.event_ctcp_req = on_ctcp;
    cb.event_numeric = on_numeric;

    irc_session_t *s = irc_create_session(&cb);
    if (!s) {
        snprintf(err, errlen, "cannot create an IRC session");
        return -1;
    }
    struct ircad_conn *c = calloc(1, sizeof *c);
    if (!c)
        abort();
    c->loop = l;
    c->s = s;
    c->h = *h;
    c->fd = -1;
    irc_set_ctx(s, c);

    /* the library builds "USER %s unknown unknown :%s" and "PASS %s" in
     * 256 bytes: keep within that */
    char pass[200], user[33], real[150];
    format_safe(pass, sizeof pass, p->password, true);
    format_safe(user, sizeof user, p->username, true);
    format_safe(real, sizeof real, p->realname, false);
    int rc;
    if (strchr(p->host, ':'))
        rc = irc_connect6(s, p->host, (unsigned short)p->port,
                          *pass ? pass : NULL, p->nick, *user ? user : NULL,
                          *real ? real : NULL);
    else
        rc = irc_connect(s, p->host, (unsigned short)p->port,
                         *pass ? pass : NULL, p->nick, *user ? user : NULL,
                         *real ? real : NULL);
    if (rc != 0) {
        int e = irc_errno(s);
        if (e == LIBIRC_ERR_CONNECT && errno)
            snprintf(err, errlen, "connect: %s", strerror(errno));
        else
            snprintf(err, errlen, "%s", irc_strerror(e));
        irc_destroy_session(s);
        free(c);
        return -1;
    }

    fd_set in, wr;
    FD_ZERO(&in);
    FD_ZERO(&wr);
    int maxfd = -1;
    irc_add_select_descriptors(s, &in, &wr, &maxfd);
    if (maxfd < 0 || maxfd >= FD_SETSIZE) {
        snprintf(err, errlen, "no usable socket");
        irc_destroy_session(s);
        free(c);
        return -1;
    }
    c->fd = maxfd;
    c->last_rx = loop_now(l);
    rearm(c);
    *out = c;
    return 0;
}

int ircad_conn_send(struct ircad_conn *c, const char *line)
{
    if (c->close_pending)
        return IRCAD_CONN_ERROR;
    if (!c->tcp_up || c->out_pending) {
        c->want_drain = true;
        return IRCAD_CONN_FULL;
    }
    if (strlen(line) > 510 || strpbrk(line, "\r\n"))
        return IRCAD_CONN_ERROR;
    if (irc_send_raw(c->s, "%s", line) != 0) {
        if (irc_errno(c->s) == LIBIRC_ERR_NOMEM) {
            c->want_drain = true;
            return IRCAD_CONN_FULL;
        }
        return IRCAD_CONN_ERROR;
    }
    /* no library call here: inside a callback its input buffer is half
     * parsed; the end of the round asks it properly */
    c->out_pending = true;
    if (!(c->events & LOOP_WRITE)) {
        c->events |= LOOP_WRITE;
        loop_watch(c->loop, c->fd, c->events, on_fd, c);
    }
    return IRCAD_CONN_SENT;
}

int64_t ircad_conn_last_rx(const struct ircad_conn *c)
{
    return c->last_rx;
}

/* Writes the library's buffer while the socket takes it without
 * blocking; true if it is empty afterwards. */
static bool write_out(struct ircad_conn *c)
{
    for (int round = 0; round < 4; round++) {
        if (!irc_is_connected(c->s))
            return false;
        fd_set in, out;
        FD_ZERO(&in);
        FD_ZERO(&out);
        int maxfd = -1;
        if (irc_add_select_descriptors(c->s, &in, &out, &maxfd) != 0)
            return false;
        if (!FD_ISSET(c->fd, &out))
            return true;
        struct pollfd pfd = {.fd = c->fd, .events = POLLOUT};
        if (poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLOUT))
            return false;
        FD_ZERO(&in);
        c->busy++;
        int rc = irc_process_select_descriptors(c->s, &in, &out);
        c->busy--;
        if (rc != 0)
            return false;
    }
    return false;
}

int ircad_conn_flush(struct ircad_conn *c)
{
    if (c->busy || c->close_pending || !c->tcp_up)
        return -1;
    bool empty = write_out(c);
    /* what we watch for must follow the buffer: a write round with
     * nothing buffered would read as a closed connection */
    rearm(c);
    return empty ? 0 : -1;
}

/* Writes what is buffered if the socket takes it now, reads and drops
 * what has arrived (closing with unread input sends a reset, which can
 * discard our QUIT at the server), then frees everything. */
static void finish_close(struct ircad_conn *c)
{
    if (c->close_flush && c->tcp_up && irc_is_connected(c->s)) {
        write_out(c);
        char sink[1024];
        for (int i = 0; i < 64; i++)
            if (recv(c->fd, sink, sizeof sink, MSG_DONTWAIT) <= 0)
                break;
    }
    if (c->fd >= 0)
        loop_unwatch(c->loop, c->fd);
    irc_destroy_session(c->s);
    free(c);
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

bool ircad_conn_cap(const struct ircad_conn *c, unsigned bit)
{
    (void)c;
    (void)bit;
    return false; /* no negotiation yet: the transport lands next */
}
