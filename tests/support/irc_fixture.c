/*
 * The IRC adapter tests' scripted server and fixture (irc_fixture.h).
 */
#include "tests/support/irc_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- The scripted server ----------------------------------------------- */

__attribute__((format(printf, 2, 3))) void
ircfx_srv_send(struct ircfx_server *s, const char *fmt, ...)
{
    if (s->cfd < 0)
        return;
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 2, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof line - 2);
    memcpy(line + n, "\r\n", 2);
    size_t off = 0, len = (size_t)n + 2;
    while (off < len) {
        ssize_t w = send(s->cfd, line + off, len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        off += (size_t)w;
    }
}

void ircfx_srv_drop_client(struct ircfx_server *s)
{
    if (s->cfd < 0)
        return;
    loop_unwatch(s->l, s->cfd);
    close(s->cfd);
    s->cfd = -1;
}

static void srv_send_pong(struct loop *l, void *ctx)
{
    (void)l;
    struct ircfx_server *s = ctx;
    ircfx_srv_send(s, ":irc.test PONG irc.test %s", s->pong_due);
}

static void srv_welcome(struct ircfx_server *s)
{
    s->registered = true;
    ircfx_srv_send(s, ":irc.test 001 %s :Welcome %s!u@127.0.0.1", s->nick,
                   s->nick);
    if (s->version) {
        ircfx_srv_send(s,
                       ":irc.test 002 %s :Your host is irc.test, running "
                       "version %s",
                       s->nick, s->version);
        ircfx_srv_send(s, ":irc.test 004 %s irc.test %s io ntm", s->nick,
                       s->version);
    }
    ircfx_srv_send(s, ":irc.test 005 %s %s :are supported by this server",
                   s->nick, s->isupport ? s->isupport : "CHANTYPES=#&");
    ircfx_srv_send(s, ":irc.test 376 %s :End of MOTD", s->nick);
}

static void srv_line(struct ircfx_server *s, const char *line)
{
    assert_true(s->nlines < IRCFX_MAX_LINES);
    s->lines[s->nlines] = strdup(line);
    assert_non_null(s->lines[s->nlines]);
    s->nlines++;
    if (strncmp(line, "NICK ", 5) == 0) {
        const char *n = line + 5;
        if (s->registered) {
            if (s->grant_nick) {
                ircfx_srv_send(s, ":%s!u@127.0.0.1 NICK :%s", s->nick, n);
                snprintf(s->nick, sizeof s->nick, "%s", n);
            } else {
                ircfx_srv_send(
                    s, ":irc.test 433 %s %s :Nickname is already in use",
                    s->nick, n);
            }
            return;
        }
        if (s->taken > 0) {
            s->taken--;
            ircfx_srv_send(s, ":irc.test 433 * %s :Nickname is already in use",
                           n);
            return;
        }
        snprintf(s->nick, sizeof s->nick, "%s", n);
        s->have_nick = true;
    } else if (strncmp(line, "USERHOST ", 9) == 0) {
        const char *who = line + 9;
        const char *answer = "";
        for (int i = 0; i < 8 && s->known[i]; i++)
            if (strncasecmp(s->known[i], who, strlen(who)) == 0 &&
                s->known[i][strlen(who)] &&
                strchr("=*", s->known[i][strlen(who)]))
                answer = s->known[i];
        ircfx_srv_send(s, ":irc.test 302 %s :%s", s->nick, answer);
    } else if (strncmp(line, "USER ", 5) == 0) {
        s->have_user = true;
    } else if (strncmp(line, "CAP LS", 6) == 0 && s->caps) {
        s->capping = true;
        ircfx_srv_send(s, ":irc.test CAP * LS :%s", s->caps);
    } else if (strncmp(line, "CAP REQ :", 9) == 0 && s->caps) {
        ircfx_srv_send(s, ":irc.test CAP * ACK :%s", line + 9);
    } else if (strcmp(line, "CAP END") == 0) {
        s->capping = false;
    } else if (strncmp(line, "JOIN ", 5) == 0) {
        char chans[512];
        snprintf(chans, sizeof chans, "%s", line + 5);
        for (char *save, *c = strtok_r(chans, ",", &save); c;
             c = strtok_r(NULL, ",", &save))
            ircfx_srv_send(s, ":%s!u@127.0.0.1 JOIN :%s", s->nick, c);
    } else if (strncmp(line, "PING ", 5) == 0) {
        if (s->ignore_ping)
            ;
        else if (s->pong_delay_ms) {
            snprintf(s->pong_due, sizeof s->pong_due, "%s", line + 5);
            loop_timer(s->l, s->pong_delay_ms, srv_send_pong, s);
        } else {
            ircfx_srv_send(s, ":irc.test PONG irc.test %s", line + 5);
        }
    } else if (strncmp(line, "QUIT", 4) == 0) {
        ircfx_srv_drop_client(s);
        return;
    }
    if (!s->registered && s->have_nick && s->have_user && !s->capping)
        srv_welcome(s);
}

static void srv_on_client(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)events;
    struct ircfx_server *s = ctx;
    /* MSG_DONTWAIT: a readiness meant for a descriptor closed earlier in
     * the same loop round must not block the test */
    ssize_t n =
        recv(fd, s->buf + s->len, sizeof s->buf - s->len - 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        ircfx_srv_drop_client(s);
        return;
    }
    s->len += (size_t)n;
    s->buf[s->len] = '\0';
    char *start = s->buf;
    char *crlf;
    while (s->cfd >= 0 && (crlf = strstr(start, "\r\n"))) {
        *crlf = '\0';
        srv_line(s, start);
        start = crlf + 2;
    }
    if (s->cfd < 0) {
        s->len = 0;
        return;
    }
    s->len -= (size_t)(start - s->buf);
    memmove(s->buf, start, s->len);
}

static void srv_on_accept(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct ircfx_server *s = ctx;
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return;
    ircfx_srv_drop_client(s);
    s->cfd = c;
    s->accepts++;
    s->len = 0;
    s->have_nick = s->have_user = s->registered = s->capping = false;
    loop_watch(l, c, LOOP_READ, srv_on_client, s);
}

bool ircfx_srv_start(struct ircfx_server *s, struct loop *l, bool v6)
{
    memset(s, 0, sizeof *s);
    s->l = l;
    s->cfd = -1;
    s->lfd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    if (s->lfd < 0)
        return false;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len;
    if (v6) {
        struct sockaddr_in6 *sa = (struct sockaddr_in6 *)&ss;
        sa->sin6_family = AF_INET6;
        sa->sin6_addr = in6addr_loopback;
        len = sizeof *sa;
    } else {
        struct sockaddr_in *sa = (struct sockaddr_in *)&ss;
        sa->sin_family = AF_INET;
        sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        len = sizeof *sa;
    }
    if (bind(s->lfd, (struct sockaddr *)&ss, len) != 0 ||
        listen(s->lfd, 4) != 0 ||
        getsockname(s->lfd, (struct sockaddr *)&ss, &len) != 0) {
        close(s->lfd);
        return false;
    }
    s->port = v6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                 : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    loop_watch(l, s->lfd, LOOP_READ, srv_on_accept, s);
    return true;
}

void ircfx_srv_stop(struct ircfx_server *s)
{
    ircfx_srv_drop_client(s);
    loop_unwatch(s->l, s->lfd);
    close(s->lfd);
    for (int i = 0; i < s->nlines; i++)
        free(s->lines[i]);
}

int ircfx_srv_find(const struct ircfx_server *s, const char *prefix, int from)
{
    for (int i = from; i < s->nlines; i++)
        if (strncmp(s->lines[i], prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

int ircfx_srv_count(const struct ircfx_server *s, const char *prefix)
{
    int n = 0;
    for (int i = 0; i < s->nlines; i++)
        n += strncmp(s->lines[i], prefix, strlen(prefix)) == 0;
    return n;
}

/* ---- The fixture: loop, server, adapter, recorded events --------------- */

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

void ircfx_on_event(void *ctx, struct chat_adapter *a,
                    const struct chat_event *ev)
{
    struct ircfx *f = ctx;
    assert_ptr_equal(a, f->a);
    assert_true(f->nev < 128);
    struct ircfx_event *r = &f->ev[f->nev++];
    memset(r, 0, sizeof *r);
    r->kind = ev->kind;
    r->has_room = ev->room != NULL;
    r->has_id = ev->from.id != NULL;
    copy(r->room, sizeof r->room, ev->room);
    copy(r->nick, sizeof r->nick, ev->from.nick);
    copy(r->id, sizeof r->id, ev->from.id);
    copy(r->text, sizeof r->text, ev->text);
    copy(r->target, sizeof r->target, ev->target);
    r->cookie = ev->cookie;
    copy(r->account, sizeof r->account, ev->from.account);
    /* an account is a name or absent, never "" or "*" */
    if (ev->from.account)
        assert_true(*ev->from.account && strcmp(ev->from.account, "*"));
    if (ev->kind == CHAT_DISCONNECTED && f->say_on_disconnect) {
        a->ops->say(a, "#hearts", f->say_on_disconnect, CHAT_NORMAL);
        f->say_on_disconnect = NULL;
    }
}

int ircfx_count_events(const struct ircfx *f, enum chat_event_kind kind)
{
    int n = 0;
    for (int i = 0; i < f->nev; i++)
        n += f->ev[i].kind == kind;
    return n;
}

static void check(struct loop *l, void *ctx)
{
    struct ircfx *f = ctx;
    f->t_check = 0;
    if (f->done(f) || loop_now(l) >= f->deadline)
        loop_stop(l);
    else
        f->t_check = loop_timer(l, 5, check, f);
}

bool ircfx_run_until(struct ircfx *f, bool (*done)(struct ircfx *), int64_t ms)
{
    f->done = done;
    f->deadline = loop_now(f->l) + ms;
    f->t_check = loop_timer(f->l, 0, check, f);
    loop_run(f->l);
    loop_cancel(f->l, f->t_check);
    f->t_check = 0;
    return done(f);
}

bool ircfx_never(struct ircfx *f)
{
    (void)f;
    return false;
}

const struct ircad_timing ircfx_fast = {
    .ping_after_ms = 60000,
    .dead_after_ms = 120000,
    .register_ms = 5000,
    .regain_ms = 60000,
    .rejoin_ms = 60000,
    .backoff_base_ms = 50,
    .backoff_cap_ms = 200,
};

bool ircfx_init_family(struct ircfx *f, bool v6)
{
    memset(f, 0, sizeof *f);
    f->l = loop_new();
    if (!ircfx_srv_start(&f->srv, f->l, v6)) {
        loop_free(f->l);
        return false;
    }
    f->chans[0].name = "#hearts";
    f->chans[1].name = "#cards";
    f->cfg.name = "testnet";
    f->cfg.host = "127.0.0.1";
    f->cfg.port = f->srv.port;
    f->cfg.nick = "hearts";
    f->cfg.username = "hb";
    f->cfg.realname = "Hearts bot";
    f->cfg.password = "";
    f->cfg.nickserv_password = "";
    f->cfg.channels = f->chans;
    f->cfg.nchannels = 1;
    f->cfg.flood_burst = 4;
    f->cfg.flood_interval_ms = 1100;
    return true;
}

void ircfx_init(struct ircfx *f)
{
    assert_true(ircfx_init_family(f, false));
}

void ircfx_make(struct ircfx *f, const struct ircad_timing *t)
{
    f->a = ircad_new(f->l, &f->cfg, ircfx_on_event, f);
    assert_non_null(f->a);
    ircad_set_timing(f->a, t ? t : &ircfx_fast);
}

void ircfx_free(struct ircfx *f)
{
    if (f->a)
        f->a->ops->free(f->a);
    ircfx_srv_stop(&f->srv);
    loop_free(f->l);
}

void ircfx_start(struct ircfx *f)
{
    ircfx_make(f, NULL);
    f->a->ops->start(f->a);
    assert_true(ircfx_run_until(f, ircfx_connected, 3000));
}

void ircfx_up(struct ircfx *f)
{
    ircfx_init(f);
    ircfx_start(f);
}

bool ircfx_connected(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_CONNECTED) >= 1 &&
           ircfx_srv_find(&f->srv, "JOIN ", 0) >= 0;
}

bool ircfx_saw_end(struct ircfx *f)
{
    return f->nev > 0 && strcmp(f->ev[f->nev - 1].text, "end") == 0;
}

bool ircfx_two_identities(struct ircfx *f)
{
    return ircfx_count_events(f, CHAT_IDENTITY) >= 2;
}

void ircfx_srv_send_raw(struct ircfx_server *s, const void *data, size_t len)
{
    if (s->cfd >= 0)
        assert_int_equal(send(s->cfd, data, len, MSG_NOSIGNAL), (ssize_t)len);
}
