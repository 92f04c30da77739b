/*
 * Tests of adapters/irc/adapter.c and connection.c against a scripted IRC
 * server in this process: a listening socket on 127.0.0.1 on our own loop,
 * answering registration, JOIN and PING the way a server does, and sending
 * whatever lines a test wants. Covers registration and joins, nick
 * fallbacks and regain, every event kind, the parameter guards on
 * malformed lines, CTCP answers and their limit, pacing and priorities,
 * splitting, keep-alive and reconnect, a stalled input, and stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include "adapters/irc/irc_adapter.h"
#include "bot/common/log.h"
#include "bot/common/loop.h"

/* ---- The scripted server ----------------------------------------------- */

#define MAX_LINES 512

struct server {
    struct loop *l;
    int lfd, cfd;
    int port;
    int accepts;
    char buf[4096];
    size_t len;
    char *lines[MAX_LINES]; /* every line received, all connections */
    int nlines;
    /* per connection */
    bool have_nick, have_user, registered;
    bool capping; /* CAP LS answered, CAP END not yet seen */
    char nick[64];
    /* behaviour */
    int taken;            /* refuse this many NICKs before registration */
    bool ignore_ping;     /* do not answer PING */
    bool grant_nick;      /* accept a NICK change after registration */
    const char *isupport; /* the 005 tokens */
    const char *version;  /* the software 002 and 004 name, if any */
    int pong_delay_ms;    /* answer PING this late */
    const char *known[8]; /* USERHOST answers: "nick=+user@host" */
    const char *caps;     /* offered in CAP LS, every REQ acknowledged;
                             NULL: no CAP (like ngircd before 27) */
    char pong_due[64];    /* the PONG waiting for its delay */
};

__attribute__((format(printf, 2, 3))) static void srv_send(struct server *s,
                                                           const char *fmt, ...)
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

static void srv_drop_client(struct server *s)
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
    struct server *s = ctx;
    srv_send(s, ":irc.test PONG irc.test %s", s->pong_due);
}

static void srv_welcome(struct server *s)
{
    s->registered = true;
    srv_send(s, ":irc.test 001 %s :Welcome %s!u@127.0.0.1", s->nick, s->nick);
    if (s->version) {
        srv_send(s,
                 ":irc.test 002 %s :Your host is irc.test, running "
                 "version %s",
                 s->nick, s->version);
        srv_send(s, ":irc.test 004 %s irc.test %s io ntm", s->nick, s->version);
    }
    srv_send(s, ":irc.test 005 %s %s :are supported by this server", s->nick,
             s->isupport ? s->isupport : "CHANTYPES=#&");
    srv_send(s, ":irc.test 376 %s :End of MOTD", s->nick);
}

static void srv_line(struct server *s, const char *line)
{
    assert_true(s->nlines < MAX_LINES);
    s->lines[s->nlines] = strdup(line);
    assert_non_null(s->lines[s->nlines]);
    s->nlines++;
    if (strncmp(line, "NICK ", 5) == 0) {
        const char *n = line + 5;
        if (s->registered) {
            if (s->grant_nick) {
                srv_send(s, ":%s!u@127.0.0.1 NICK :%s", s->nick, n);
                snprintf(s->nick, sizeof s->nick, "%s", n);
            } else {
                srv_send(s, ":irc.test 433 %s %s :Nickname is already in use",
                         s->nick, n);
            }
            return;
        }
        if (s->taken > 0) {
            s->taken--;
            srv_send(s, ":irc.test 433 * %s :Nickname is already in use", n);
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
        srv_send(s, ":irc.test 302 %s :%s", s->nick, answer);
    } else if (strncmp(line, "USER ", 5) == 0) {
        s->have_user = true;
    } else if (strncmp(line, "CAP LS", 6) == 0 && s->caps) {
        s->capping = true;
        srv_send(s, ":irc.test CAP * LS :%s", s->caps);
    } else if (strncmp(line, "CAP REQ :", 9) == 0 && s->caps) {
        srv_send(s, ":irc.test CAP * ACK :%s", line + 9);
    } else if (strcmp(line, "CAP END") == 0) {
        s->capping = false;
    } else if (strncmp(line, "JOIN ", 5) == 0) {
        char chans[512];
        snprintf(chans, sizeof chans, "%s", line + 5);
        for (char *save, *c = strtok_r(chans, ",", &save); c;
             c = strtok_r(NULL, ",", &save))
            srv_send(s, ":%s!u@127.0.0.1 JOIN :%s", s->nick, c);
    } else if (strncmp(line, "PING ", 5) == 0) {
        if (s->ignore_ping)
            ;
        else if (s->pong_delay_ms) {
            snprintf(s->pong_due, sizeof s->pong_due, "%s", line + 5);
            loop_timer(s->l, s->pong_delay_ms, srv_send_pong, s);
        } else {
            srv_send(s, ":irc.test PONG irc.test %s", line + 5);
        }
    } else if (strncmp(line, "QUIT", 4) == 0) {
        srv_drop_client(s);
        return;
    }
    if (!s->registered && s->have_nick && s->have_user && !s->capping)
        srv_welcome(s);
}

static void srv_on_client(struct loop *l, int fd, int events, void *ctx)
{
    (void)l;
    (void)events;
    struct server *s = ctx;
    /* MSG_DONTWAIT: a readiness meant for a descriptor closed earlier in
     * the same loop round must not block the test */
    ssize_t n =
        recv(fd, s->buf + s->len, sizeof s->buf - s->len - 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        srv_drop_client(s);
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
    struct server *s = ctx;
    int c = accept(fd, NULL, NULL);
    if (c < 0)
        return;
    srv_drop_client(s);
    s->cfd = c;
    s->accepts++;
    s->len = 0;
    s->have_nick = s->have_user = s->registered = s->capping = false;
    loop_watch(l, c, LOOP_READ, srv_on_client, s);
}

/* Listens on 127.0.0.1, or on ::1 with v6; false if that is impossible
 * here (no IPv6). */
static bool srv_start(struct server *s, struct loop *l, bool v6)
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

static void srv_stop(struct server *s)
{
    srv_drop_client(s);
    loop_unwatch(s->l, s->lfd);
    close(s->lfd);
    for (int i = 0; i < s->nlines; i++)
        free(s->lines[i]);
}

/* The index of the first line starting with `prefix` from `from` on, or
 * -1. */
static int srv_find(const struct server *s, const char *prefix, int from)
{
    for (int i = from; i < s->nlines; i++)
        if (strncmp(s->lines[i], prefix, strlen(prefix)) == 0)
            return i;
    return -1;
}

static int srv_count(const struct server *s, const char *prefix)
{
    int n = 0;
    for (int i = 0; i < s->nlines; i++)
        n += strncmp(s->lines[i], prefix, strlen(prefix)) == 0;
    return n;
}

/* ---- The fixture: loop, server, adapter, recorded events --------------- */

struct rec {
    enum chat_event_kind kind;
    char room[64], nick[64], id[128], text[512], target[64], account[128];
    bool has_room, has_id;
    uint64_t cookie;
};

struct fx {
    struct loop *l;
    struct server srv;
    struct chat_adapter *a;
    struct protocol_room chans[2];
    struct irc_config cfg;
    struct rec ev[128];
    int nev;
    bool (*done)(struct fx *);
    int64_t deadline;
    uint64_t t_check;
    /* said once into the adapter when DISCONNECTED arrives */
    const char *say_on_disconnect;
};

static void copy(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

static void on_event(void *ctx, struct chat_adapter *a,
                     const struct chat_event *ev)
{
    struct fx *f = ctx;
    assert_ptr_equal(a, f->a);
    assert_true(f->nev < 128);
    struct rec *r = &f->ev[f->nev++];
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

static int count_events(const struct fx *f, enum chat_event_kind kind)
{
    int n = 0;
    for (int i = 0; i < f->nev; i++)
        n += f->ev[i].kind == kind;
    return n;
}

static void check(struct loop *l, void *ctx)
{
    struct fx *f = ctx;
    f->t_check = 0;
    if (f->done(f) || loop_now(l) >= f->deadline)
        loop_stop(l);
    else
        f->t_check = loop_timer(l, 5, check, f);
}

/* Runs the loop until done(f) or `ms` pass; returns done(f). */
static bool run_until(struct fx *f, bool (*done)(struct fx *), int64_t ms)
{
    f->done = done;
    f->deadline = loop_now(f->l) + ms;
    f->t_check = loop_timer(f->l, 0, check, f);
    loop_run(f->l);
    loop_cancel(f->l, f->t_check);
    f->t_check = 0;
    return done(f);
}

static bool never(struct fx *f)
{
    (void)f;
    return false;
}

static const struct ircad_timing fast = {
    .ping_after_ms = 60000,
    .dead_after_ms = 120000,
    .register_ms = 5000,
    .regain_ms = 60000,
    .rejoin_ms = 60000,
    .backoff_base_ms = 50,
    .backoff_cap_ms = 200,
};

/* The fixture; false (and nothing to free) if the server cannot listen
 * on the asked family. */
static bool fx_init_family(struct fx *f, bool v6)
{
    memset(f, 0, sizeof *f);
    f->l = loop_new();
    if (!srv_start(&f->srv, f->l, v6)) {
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

static void fx_init(struct fx *f)
{
    assert_true(fx_init_family(f, false));
}

static void fx_make(struct fx *f, const struct ircad_timing *t)
{
    f->a = ircad_new(f->l, &f->cfg, on_event, f);
    assert_non_null(f->a);
    ircad_set_timing(f->a, t ? t : &fast);
}

static void fx_free(struct fx *f)
{
    if (f->a)
        f->a->ops->free(f->a);
    srv_stop(&f->srv);
    loop_free(f->l);
}

static bool connected(struct fx *f);

/* The fixture with the default timings, started and registered. */
static void fx_up(struct fx *f)
{
    fx_init(f);
    fx_make(f, NULL);
    f->a->ops->start(f->a);
    assert_true(run_until(f, connected, 3000));
}

static bool connected(struct fx *f)
{
    return count_events(f, CHAT_CONNECTED) >= 1 &&
           srv_find(&f->srv, "JOIN ", 0) >= 0;
}

/* ---- Tests -------------------------------------------------------------- */

static bool identified(struct fx *f)
{
    return srv_find(&f->srv, "PRIVMSG NickServ :IDENTIFY", 0) >= 0;
}

/* Someone called NickServ who is not services (or nobody at all) never
 * gets the password; with the nick taken, IDENTIFY still names the
 * configured account. */
static void test_ircad_identify_only_to_services(void **state)
{
    (void)state;
    const char *who[] = {"NickServ=+NickServ@127.0.0.1",
                         "NickServ=+NickServ@services.test.evil.example",
                         "NickServX=+NickServ@services.test", NULL,
                         "nickserv*=-NickServ@services.test"};
    for (int i = 0; i < 5; i++) {
        struct fx f;
        fx_init(&f);
        f.cfg.nickserv_password = "sekrit";
        f.cfg.services_mask = "NickServ!NickServ@services.test";
        f.cfg.nickserv_account = i == 4 ? "acct" : NULL;
        f.srv.taken = i == 4 ? 1 : 0;
        f.srv.known[0] = who[i];
        fx_make(&f, NULL);
        f.a->ops->start(f.a);
        assert_true(run_until(&f, connected, 3000));
        /* the scripted server answers at once: 300 ms is plenty */
        run_until(&f, never, 300);
        if (i == 4) {
            assert_string_equal(ircad_nick(f.a), "hearts_");
            assert_true(srv_find(&f.srv,
                                 "PRIVMSG NickServ :IDENTIFY acct sekrit",
                                 0) > 0);
        } else {
            assert_true(srv_find(&f.srv, "USERHOST NickServ", 0) > 0);
            for (int k = 0; k < f.srv.nlines; k++)
                assert_null(strstr(f.srv.lines[k], "sekrit"));
        }
        fx_free(&f);
    }
}

static void test_ircad_start_registers_identifies_and_joins(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.nchannels = 2;
    f.cfg.password = "pa%ss";
    f.cfg.nickserv_password = "sekrit";
    f.srv.known[0] = "NickServ=+NickServ@services.test";
    fx_make(&f, NULL);
    assert_string_equal(f.a->network, "testnet");
    assert_int_equal(f.a->style, CHAT_STYLE_IRC);
    assert_int_equal(f.a->ops->start(f.a), 0);
    assert_true(run_until(&f, connected, 3000));

    /* capabilities first: registration waits for CAP END (or for a
     * server that has no CAP, like this one) */
    assert_int_equal(srv_find(&f.srv, "CAP LS 302", 0), 0);
    /* '%' reaches the server as it is, not read as a format */
    assert_int_equal(srv_find(&f.srv, "PASS pa%ss", 0), 1);
    assert_true(srv_find(&f.srv, "NICK hearts", 0) > 0);
    assert_true(srv_find(&f.srv, "USER hb ", 0) > 0);
    /* the password goes to NickServ once the server said it is services,
     * with the account named */
    int ask = srv_find(&f.srv, "USERHOST NickServ", 0);
    assert_true(ask > 0);
    assert_true(run_until(&f, identified, 3000));
    int id = srv_find(&f.srv, "PRIVMSG NickServ :IDENTIFY hearts sekrit", 0);
    int join = srv_find(&f.srv, "JOIN #hearts,#cards", 0);
    assert_true(id > ask);
    assert_true(join > 0);
    assert_int_equal(count_events(&f, CHAT_CONNECTED), 1);
    assert_string_equal(ircad_nick(f.a), "hearts");
    /* the bot's own JOIN is not an event for the manager */
    assert_int_equal(count_events(&f, CHAT_JOIN), 0);
    fx_free(&f);
}

static bool on_alternative(struct fx *f)
{
    return connected(f) && srv_find(&f->srv, "NICK hearts__", 0) >= 0;
}

static bool regained(struct fx *f)
{
    return strcmp(ircad_nick(f->a), "hearts") == 0;
}

static void test_ircad_nick_in_use_tries_alternatives_then_regains(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.taken = 2;
    f.cfg.flood_burst = 10; /* the channel's "I am hearts__" takes one */
    struct ircad_timing t = fast;
    t.regain_ms = 100;
    fx_make(&f, &t);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, on_alternative, 3000));
    int a = srv_find(&f.srv, "NICK hearts", 0);
    int b = srv_find(&f.srv, "NICK hearts_", a + 1);
    int c = srv_find(&f.srv, "NICK hearts__", b + 1);
    assert_true(a >= 0 && b > a && c > b);
    assert_string_equal(ircad_nick(f.a), "hearts__");
    /* the server still refuses: the bot keeps its nick and retries */
    assert_true(run_until(&f, never, 350) == false);
    assert_true(srv_count(&f.srv, "NICK hearts") >= 4);
    assert_string_equal(ircad_nick(f.a), "hearts__");
    /* the nick frees up: the next retry takes it */
    f.srv.grant_nick = true;
    assert_true(run_until(&f, regained, 2000));
    assert_int_equal(count_events(&f, CHAT_NICK), 0);
    fx_free(&f);
}

static bool announced_alternative(struct fx *f)
{
    return srv_find(&f->srv, "PRIVMSG #hearts :I am hearts_ for now", 0) >= 0;
}

static bool announced_regained(struct fx *f)
{
    return srv_find(&f->srv, "PRIVMSG #hearts :I have my nick back", 0) >= 0;
}

/* Up as hearts_: the channel is told which nick to talk to; when whoever
 * had "hearts" quits, the bot takes it at once (not at the next retry)
 * and says so. */
static void test_ircad_nick_taken_announced_and_regained_on_quit(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.taken = 1;
    fx_make(&f, NULL); /* regain_ms: a minute, far beyond this test */
    f.a->ops->start(f.a);
    assert_true(run_until(&f, announced_alternative, 3000));
    const char *said =
        f.srv.lines[srv_find(&f.srv, "PRIVMSG #hearts :I am", 0)];
    assert_non_null(strstr(said, "/msg hearts_"));
    assert_false(announced_regained(&f));
    int before = srv_count(&f.srv, "NICK hearts");
    /* someone else's QUIT changes nothing */
    srv_send(&f.srv, ":carol!c@h QUIT :bye");
    run_until(&f, never, 100);
    assert_int_equal(srv_count(&f.srv, "NICK hearts"), before);
    f.srv.grant_nick = true;
    srv_send(&f.srv, ":Hearts!squat@h QUIT :bye");
    assert_true(run_until(&f, announced_regained, 2000));
    assert_string_equal(ircad_nick(f.a), "hearts");
    assert_true(srv_find(&f.srv, "PRIVMSG #hearts :I have my nick back", 0) >
                srv_find(&f.srv, "NICK hearts", before));
    fx_free(&f);
}

static bool saw_end(struct fx *f)
{
    return f->nev > 0 && strcmp(f->ev[f->nev - 1].text, "end") == 0;
}

static void expect(const struct rec *r, enum chat_event_kind kind,
                   const char *room, const char *nick, const char *id,
                   const char *text, const char *target)
{
    assert_int_equal(r->kind, kind);
    assert_int_equal(r->has_room, room != NULL);
    if (room)
        assert_string_equal(r->room, room);
    assert_string_equal(r->nick, nick);
    assert_string_equal(r->id, id);
    assert_string_equal(r->text, text ? text : "");
    assert_string_equal(r->target, target ? target : "");
}

static void test_ircad_events_from_server_lines(void **state)
{
    (void)state;
    struct fx f;
    fx_up(&f);
    int base = f.nev;
    struct server *s = &f.srv;
    srv_send(s, ":alice!al@example.org PRIVMSG #hearts :!join");
    srv_send(s, ":alice!al@example.org PRIVMSG hearts :hand");
    srv_send(s, ":alice!al@example.org NOTICE hearts :never answered");
    srv_send(s, ":alice!al@example.org NOTICE #hearts :nor this");
    srv_send(s, ":bob!b@h.example JOIN :#hearts");
    srv_send(s, ":bob!b@h.example PART #hearts :bye now");
    srv_send(s, ":bob!b@h.example JOIN #hearts");
    srv_send(s, ":op!o@h.example KICK #hearts bob :out");
    srv_send(s, ":irc.test KICK #hearts bob :by the server");
    srv_send(s, ":bob!b@h.example NICK :bobby");
    srv_send(s, ":bobby!b@h.example QUIT :gone");
    /* malformed or not for the manager: no event, no crash */
    srv_send(s, ":irc.test PRIVMSG #hearts :from a server");
    srv_send(s, "PRIVMSG #hearts :no origin");
    srv_send(s, ":carol!c@h PRIVMSG #hearts");
    srv_send(s, ":carol PRIVMSG hearts :no user and host");
    srv_send(s, ":carol!c@h PRIVMSG #hearts :");
    /* a command with no parameter at all makes libircclient parse past
     * the end of its line; the trailing space gives zero parameters
     * without that */
    srv_send(s, ":carol!c@h JOIN ");
    srv_send(s, ":carol!c@h JOIN :");
    srv_send(s, ":carol!c@h PART ");
    srv_send(s, ":carol!c@h KICK #hearts");
    srv_send(s, ":carol!c@h NICK ");
    srv_send(s, ":carol!c@h NICK :");
    srv_send(s, ":carol QUIT :no user");
    srv_send(s, ":dave!d@h PRIVMSG @#hearts :to the ops");
    srv_send(s, ":dave!d@h PRIVMSG $* :a broadcast");
    srv_send(s, ":hearts!u@127.0.0.1 PRIVMSG #hearts :my own echo");
    srv_send(s, ":hearts!u@127.0.0.1 JOIN #hearts");
    srv_send(s, ":irc.test 999 ");
    srv_send(s, ":irc.test 005 ");
    srv_send(s, ":irc.test 433 hearts");
    srv_send(s, "FOO ");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(run_until(&f, saw_end, 3000));

    const struct rec *r = &f.ev[base];
    assert_int_equal(f.nev - base, 10);
    expect(&r[0], CHAT_MESSAGE, "#hearts", "alice", "al@example.org", "!join",
           NULL);
    expect(&r[1], CHAT_MESSAGE, NULL, "alice", "al@example.org", "hand", NULL);
    expect(&r[2], CHAT_JOIN, "#hearts", "bob", "b@h.example", NULL, NULL);
    expect(&r[3], CHAT_PART, "#hearts", "bob", "b@h.example", "bye now", NULL);
    expect(&r[4], CHAT_JOIN, "#hearts", "bob", "b@h.example", NULL, NULL);
    expect(&r[5], CHAT_KICK, "#hearts", "op", "o@h.example", "out", "bob");
    expect(&r[6], CHAT_KICK, "#hearts", "irc.test", "", "by the server", "bob");
    expect(&r[7], CHAT_NICK, NULL, "bob", "b@h.example", NULL, "bobby");
    expect(&r[8], CHAT_QUIT, NULL, "bobby", "b@h.example", "gone", NULL);
    expect(&r[9], CHAT_MESSAGE, "#hearts", "zed", "z@h", "end", NULL);
    /* a server without WHOX or account capabilities (ngircd): no WHO is
     * asked and nobody has an account */
    for (int i = base; i < f.nev; i++)
        assert_string_equal(f.ev[i].account, "");
    assert_int_equal(srv_find(&f.srv, "WHO ", 0), -1);
    /* nothing was answered to the NOTICEs */
    assert_int_equal(srv_find(&f.srv, "NOTICE", 0), -1);
    fx_free(&f);
}

static bool three_notices(struct fx *f)
{
    return srv_count(&f->srv, "NOTICE alice :\001") >= 3 &&
           f->a->ops->idle(f->a);
}

static void test_ircad_ctcp_answered_and_limited(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_interval_ms = 100;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    int base = f.nev;
    srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001VERSION\001");
    srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001PING 12345\001");
    srv_send(&f.srv, ":alice!al@h PRIVMSG hearts :\001TIME\001");
    for (int i = 0; i < 5; i++)
        srv_send(&f.srv, ":alice!al@h PRIVMSG #hearts :\001PING %d\001", i);
    assert_true(run_until(&f, three_notices, 3000));
    /* settle: nothing more may come */
    run_until(&f, never, 300);
    int v = srv_find(&f.srv, "NOTICE alice :\001VERSION heartsbot", 0);
    int p = srv_find(&f.srv, "NOTICE alice :\001PING 12345\001", 0);
    assert_true(v >= 0);
    assert_true(p > v);
    /* 3 answers at most in a burst (VERSION, PING 12345, PING 0; TIME is
     * not answered): the later PINGs are not */
    assert_int_equal(srv_count(&f.srv, "NOTICE"), 3);
    assert_int_equal(f.nev, base);
    fx_free(&f);
}

static bool privmsgs(struct fx *f, int n)
{
    return srv_count(&f->srv, "PRIVMSG #hearts :") >= n;
}

static bool got_first_burst(struct fx *f)
{
    return privmsgs(f, 3);
}

static bool told_alice(struct fx *f)
{
    return srv_count(&f->srv, "PRIVMSG Alice :") >= 1;
}

static bool got_all_eleven(struct fx *f)
{
    return privmsgs(f, 11);
}

static void test_ircad_say_paced_by_bucket_and_priority(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_interval_ms = 600;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    /* the JOIN took one token of four */
    char text[32];
    for (int i = 0; i < 10; i++) {
        snprintf(text, sizeof text, "normal %d", i);
        f.a->ops->say(f.a, "#hearts", text, CHAT_NORMAL);
    }
    assert_false(f.a->ops->idle(f.a));
    assert_true(run_until(&f, got_first_burst, 2000));
    /* well before the next token (600 ms after the JOIN): still three */
    run_until(&f, never, 150);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG #hearts :"), 3);
    /* a HIGH line to someone else overtakes the seven NORMAL ones still
     * waiting; one to the same channel does not: a channel's (and a
     * person's) lines arrive in the order they were queued */
    f.a->ops->tell(f.a, "Alice", "your turn", CHAT_HIGH);
    assert_true(run_until(&f, told_alice, 2000));
    f.a->ops->say(f.a, "#hearts", "last", CHAT_HIGH);
    assert_true(run_until(&f, got_all_eleven, 10000));
    int first = srv_find(&f.srv, "PRIVMSG #hearts :", 0);
    assert_string_equal(f.srv.lines[first], "PRIVMSG #hearts :normal 0");
    int high = srv_find(&f.srv, "PRIVMSG Alice :your turn", 0);
    int n3 = srv_find(&f.srv, "PRIVMSG #hearts :normal 3", 0);
    assert_true(high >= 0 && n3 > high);
    int n9 = srv_find(&f.srv, "PRIVMSG #hearts :normal 9", 0);
    int last = srv_find(&f.srv, "PRIVMSG #hearts :last", 0);
    assert_true(n9 >= 0 && last > n9);
    /* the NORMAL lines kept their order */
    int prev = -1;
    for (int i = 0; i < 10; i++) {
        char want[40];
        snprintf(want, sizeof want, "PRIVMSG #hearts :normal %d", i);
        int at = srv_find(&f.srv, want, 0);
        assert_true(at > prev);
        prev = at;
    }
    assert_true(f.a->ops->idle(f.a));
    fx_free(&f);
}

static bool four_chunks(struct fx *f)
{
    return srv_count(&f->srv, "PRIVMSG alice :") >= 4;
}

static bool lines_sent_20(struct fx *f)
{
    return privmsgs(f, 20);
}

static bool lines_sent_40(struct fx *f)
{
    return privmsgs(f, 40);
}

/* With room to adapt, the pace speeds up while the server answers the lag
 * probes at once, and slows down as soon as it answers late. */
static void test_ircad_pacing_follows_lag(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 100;
    f.cfg.flood_min_interval_ms = 10;
    f.cfg.flood_max_interval_ms = 1600;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    for (int i = 0; i < 60; i++)
        f.a->ops->say(f.a, "#hearts", "line", CHAT_NORMAL);
    assert_true(run_until(&f, lines_sent_20, 5000));
    assert_true(srv_find(&f.srv, "PING :lag1", 0) > 0);
    int64_t fast_pace = ircad_interval_ms(f.a);
    assert_true(fast_pace < 100);
    f.srv.pong_delay_ms = 1500;
    assert_true(run_until(&f, lines_sent_40, 10000));
    assert_true(ircad_interval_ms(f.a) >= 2 * fast_pace);
    fx_free(&f);
}

/* flood_min_interval_ms = 0: the floor follows the software RPL_MYINFO
 * names (faster only on a server that delays a flood), is the configured
 * pace until then and again on each new connection. */
static void test_ircad_floor_by_server(void **state)
{
    (void)state;
    static const struct {
        const char *version;
        int64_t floor;
    } cases[] = {
        {"ngircd-26.1", 400},
        {"ergo-2.11.1", 550},
        {"solanum-1.0-dev", 800},
        {"InspIRCd-3", 1100},
        {"UnrealIRCd-6.1.2", 1100},
        {"myircd-1.0", 1100},
        {NULL, 1100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct fx f;
        fx_init(&f);
        f.srv.version = cases[i].version;
        fx_make(&f, NULL);
        assert_int_equal(ircad_floor_ms(f.a), 1100);
        f.a->ops->start(f.a);
        assert_true(run_until(&f, connected, 3000));
        assert_int_equal(ircad_floor_ms(f.a), cases[i].floor);
        /* the pace starts at the configured interval all the same */
        assert_int_equal(ircad_interval_ms(f.a), 1100);
        fx_free(&f);
    }
}

static bool connected_twice(struct fx *f)
{
    return count_events(f, CHAT_CONNECTED) >= 2;
}

static void test_ircad_floor_forgotten_on_reconnect(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.version = "ngircd-26.1";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    assert_int_equal(ircad_floor_ms(f.a), 400);
    /* another server on the same address, that does not say what it is */
    f.srv.version = NULL;
    srv_drop_client(&f.srv);
    assert_true(run_until(&f, connected_twice, 5000));
    assert_int_equal(ircad_floor_ms(f.a), 1100);
    fx_free(&f);
}

/* An explicit flood_min_interval_ms overrides the server's floor. */
static void test_ircad_floor_configured_wins(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.version = "ngircd-26.1";
    f.cfg.flood_min_interval_ms = 900;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    assert_int_equal(ircad_floor_ms(f.a), 900);
    fx_free(&f);
}

static void test_ircad_tell_splits_long_text(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_interval_ms = 50;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    /* 300 hearts of 3 bytes with spaces between: 1199 bytes */
    char text[1300];
    size_t n = 0;
    for (int i = 0; i < 300; i++) {
        memcpy(text + n, "\xE2\x99\xA5 ", 4);
        n += 4;
    }
    text[--n] = '\0';
    f.a->ops->tell(f.a, "alice", text, CHAT_LOW);
    f.a->ops->tell(f.a, "bad target", "x", CHAT_LOW);
    assert_true(run_until(&f, four_chunks, 3000));
    size_t total = 0;
    for (int i = 0; i < f.srv.nlines; i++) {
        const char *l = f.srv.lines[i];
        if (strncmp(l, "PRIVMSG alice :", 15) != 0)
            continue;
        assert_true(100 + strlen(l) + 2 <= 512);
        /* whole hearts only */
        assert_int_equal((strlen(l) - 15 + 1) % 4, 0);
        total += strlen(l) - 15;
    }
    assert_int_equal(total + 3, n);
    assert_int_equal(srv_find(&f.srv, "PRIVMSG bad", 0), -1);
    fx_free(&f);
}

static bool reconnected(struct fx *f)
{
    return count_events(f, CHAT_CONNECTED) >= 2 &&
           srv_find(&f->srv, "PRIVMSG #hearts :while away", 0) >= 0;
}

static void test_ircad_keepalive_drops_silent_link_and_reconnects(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.ignore_ping = true;
    struct ircad_timing t = fast;
    t.ping_after_ms = 150;
    t.dead_after_ms = 400;
    fx_make(&f, &t);
    f.say_on_disconnect = "while away";
    f.a->ops->start(f.a);
    assert_true(run_until(&f, reconnected, 5000));
    int ping = srv_find(&f.srv, "PING :ka", 0);
    assert_true(ping >= 0);
    assert_int_equal(f.srv.accepts, 2);
    /* connected, disconnected, connected again: the tables carry on */
    int c = 0;
    for (int i = 0; i < f.nev; i++) {
        if (f.ev[i].kind == CHAT_CONNECTED || f.ev[i].kind == CHAT_DISCONNECTED)
            assert_int_equal(f.ev[i].kind,
                             c++ % 2 == 0 ? CHAT_CONNECTED : CHAT_DISCONNECTED);
    }
    assert_true(c >= 3);
    /* registration and JOIN again on the new link, before the chat line */
    int second_nick = srv_find(&f.srv, "NICK hearts", ping);
    int join = srv_find(&f.srv, "JOIN #hearts", second_nick);
    int away = srv_find(&f.srv, "PRIVMSG #hearts :while away", 0);
    assert_true(second_nick > ping && join > second_nick && away > join);
    fx_free(&f);
}

static bool two_identities(struct fx *f)
{
    return count_events(f, CHAT_IDENTITY) >= 2;
}

/* verify asks the server (USERHOST) and answers with who holds the nick,
 * or nobody. */
static void test_ircad_verify_answers_identity(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.known[0] = "Alice=+~al@host.test";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    f.a->ops->verify(f.a, "alice");
    f.a->ops->verify(f.a, "ghost");
    assert_true(run_until(&f, two_identities, 3000));
    const struct rec *r[2];
    int k = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_IDENTITY)
            r[k++] = &f.ev[i];
    assert_string_equal(r[0]->nick, "alice");
    assert_true(r[0]->has_id);
    assert_string_equal(r[0]->id, "~al@host.test");
    assert_string_equal(r[1]->nick, "ghost");
    assert_false(r[1]->has_id);
    fx_free(&f);
}

static bool tracked_sent(struct fx *f)
{
    return count_events(f, CHAT_SENT) >= 1;
}

/* A tracked text is reported once its last line is written, not when it
 * is queued behind the pacing. */
static void test_ircad_tell_tracked_reports_when_written(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_burst = 2;
    f.cfg.flood_interval_ms = 300;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    for (int i = 0; i < 3; i++)
        f.a->ops->say(f.a, "#hearts", "backlog", CHAT_NORMAL);
    f.a->ops->tell_tracked(f.a, "bob", "your turn", CHAT_NORMAL, 77);
    run_until(&f, never, 100);
    assert_int_equal(count_events(&f, CHAT_SENT), 0);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG bob :"), 0);
    assert_true(run_until(&f, tracked_sent, 3000));
    const struct rec *r = &f.ev[f.nev - 1];
    assert_int_equal(r->kind, CHAT_SENT);
    assert_int_equal(r->cookie, 77);
    run_until(&f, never, 50);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG bob :your turn"), 1);
    /* a text that cannot go is reported at once (next round) */
    f.a->ops->tell_tracked(f.a, "bad nick", "x", CHAT_NORMAL, 78);
    run_until(&f, never, 50);
    assert_int_equal(f.ev[f.nev - 1].kind, CHAT_SENT);
    assert_int_equal(f.ev[f.nev - 1].cookie, 78);
    fx_free(&f);
}

static bool reconnected_and_said(struct fx *f)
{
    return count_events(f, CHAT_CONNECTED) >= 2 &&
           srv_count(&f->srv, "PRIVMSG #hearts :kept") >= 1;
}

/* Lines to people queued when the link drops are not sent on the next
 * one (whoever has the nick then may be someone else); the channel's are;
 * a dropped tracked line is reported. */
static void test_ircad_disconnect_drops_private_lines(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 2000;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    f.a->ops->tell_tracked(f.a, "bob", "your cards", CHAT_HIGH, 5);
    f.a->ops->say(f.a, "#hearts", "kept", CHAT_NORMAL);
    run_until(&f, never, 100);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG "), 0);
    srv_send(&f.srv, "ERROR :Closing link (test)");
    srv_drop_client(&f.srv);
    assert_true(run_until(&f, reconnected_and_said, 8000));
    assert_int_equal(srv_count(&f.srv, "PRIVMSG bob"), 0);
    bool reported = false;
    for (int i = 0; i < f.nev; i++)
        reported |= f.ev[i].kind == CHAT_SENT && f.ev[i].cookie == 5;
    assert_true(reported);
    fx_free(&f);
}

static bool people_told(struct fx *f)
{
    return srv_count(&f->srv, "PRIVMSG ") >= 3;
}

/* Lines queued for people follow their NICK; what waited for a nick
 * someone takes after its holder renamed, and for a person who quit or
 * left the bot's last channel, never reaches anyone under that nick. */
static void test_ircad_queued_lines_follow_the_person(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_burst = 1;
    f.cfg.flood_interval_ms = 300;
    f.cfg.flood_min_interval_ms = 300;
    f.cfg.flood_max_interval_ms = 300;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    struct server *s = &f.srv;
    srv_send(s, ":bob!b@h JOIN :#hearts");
    srv_send(s, ":carol!c@h JOIN :#hearts");
    srv_send(s, ":dave!d@h JOIN :#hearts");
    srv_send(s, ":erin!e@h JOIN :#hearts");
    run_until(&f, never, 100);
    f.a->ops->tell_tracked(f.a, "bob", "bob's cards", CHAT_NORMAL, 1);
    f.a->ops->tell_tracked(f.a, "Bob", "bob's turn", CHAT_HIGH, 2);
    f.a->ops->tell_tracked(f.a, "carol", "carol's cards", CHAT_NORMAL, 3);
    f.a->ops->tell_tracked(f.a, "dave", "dave's cards", CHAT_NORMAL, 4);
    f.a->ops->tell_tracked(f.a, "erin", "erin's cards", CHAT_NORMAL, 5);
    /* bob -> tmp, carol -> bob (taking the nick its holder just left),
     * tmp -> Carol; dave quits; erin leaves the bot's only channel */
    srv_send(s, ":bob!b@h NICK :tmp");
    srv_send(s, ":carol!c@h NICK :bob");
    srv_send(s, ":tmp!b@h NICK :Carol");
    srv_send(s, ":dave!d@h QUIT :bye");
    srv_send(s, ":erin!e@h PART #hearts :later");
    assert_true(run_until(&f, people_told, 5000));
    run_until(&f, never, 700);
    assert_int_equal(srv_count(s, "PRIVMSG "), 3);
    int cards = srv_find(s, "PRIVMSG Carol :bob's cards", 0);
    int turn = srv_find(s, "PRIVMSG Carol :bob's turn", 0);
    assert_true(cards >= 0 && turn > cards);
    assert_true(srv_find(s, "PRIVMSG bob :carol's cards", 0) >= 0);
    assert_int_equal(srv_count(s, "PRIVMSG dave"), 0);
    assert_int_equal(srv_count(s, "PRIVMSG erin"), 0);
    /* the dropped lines are reported, so nothing waits for them */
    int reported = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_SENT)
            reported |= 1 << f.ev[i].cookie;
    assert_int_equal(reported, 0x3e);
    assert_true(f.a->ops->idle(f.a));
    fx_free(&f);
}

static bool back_after_close(struct fx *f)
{
    return count_events(f, CHAT_CONNECTED) >= 2;
}

static void test_ircad_reconnects_when_server_closes(void **state)
{
    (void)state;
    struct fx f;
    fx_up(&f);
    srv_send(&f.srv, "ERROR :Closing link (test)");
    srv_drop_client(&f.srv);
    assert_true(run_until(&f, back_after_close, 3000));
    assert_int_equal(count_events(&f, CHAT_DISCONNECTED), 1);
    assert_int_equal(f.srv.accepts, 2);
    fx_free(&f);
}

static bool two_messages(struct fx *f)
{
    return count_events(f, CHAT_MESSAGE) >= 2;
}

/* A line longer than libircclient's 1 KiB buffer (which used to stall it
 * for good) reaches the adapter cut; one longer than IRC allows at all
 * (8191 bytes of tags and 512 of message) is dropped whole, its rest too,
 * and the link goes on. */
static void test_ircad_overlong_input_lines_cut_or_dropped(void **state)
{
    (void)state;
    struct fx f;
    fx_up(&f);
    char big[1500];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    srv_send(&f.srv, ":alice!a@h PRIVMSG #hearts :%s", big);
    static char huge[12000];
    memset(huge, 'y', sizeof huge);
    send(f.srv.cfd, huge, sizeof huge, MSG_NOSIGNAL);
    srv_send(&f.srv, " still the huge line");
    srv_send(&f.srv, ":bob!b@h PRIVMSG #hearts :after");
    assert_true(run_until(&f, two_messages, 3000));
    assert_int_equal(count_events(&f, CHAT_DISCONNECTED), 0);
    assert_int_equal(count_events(&f, CHAT_MESSAGE), 2);
    const struct rec *first = NULL, *second = NULL;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_MESSAGE)
            (first ? &second : &first)[0] = &f.ev[i];
    assert_string_equal(first->nick, "alice");
    assert_true(strlen(first->text) > 400);
    assert_true(strspn(first->text, "x") == strlen(first->text));
    assert_string_equal(second->nick, "bob");
    assert_string_equal(second->text, "after");
    fx_free(&f);
}

/* Bytes as they are: no CR LF added, NUL allowed. */
static void srv_send_raw(struct server *s, const void *data, size_t len)
{
    if (s->cfd >= 0)
        assert_int_equal(send(s->cfd, data, len, MSG_NOSIGNAL), (ssize_t)len);
}

static bool said_alive(struct fx *f)
{
    for (int i = 0; i < f->nev; i++)
        if (f->ev[i].kind == CHAT_MESSAGE &&
            strcmp(f->ev[i].text, "alive") == 0)
            return true;
    return false;
}

/* Lines a broken or hostile server may send, each of which crashed or
 * deafened the bot inside libircclient before the transport checked
 * them: none reaches the library, the link stays up, and the line after
 * them is heard. */
static void test_ircad_malformed_server_lines_survived(void **state)
{
    (void)state;
    static const char bad[] =
        "NICK x\r\n"                       /* no prefix: who? */
        ":irc.test 000 hearts :zero\r\n"   /* numeric 000 */
        "NOTICE\r\n"                       /* no parameters */
        ":irc.test NOTICE hearts\r\n"      /* one parameter */
        ":x\r\n"                           /* a prefix alone */
        "001\r\n"                          /* a numeric alone */
        "\r\n\r\n\n\r"                     /* empty lines */
        ":a!b@c PRIVMSG #hearts :\x01\r\n" /* a lone CTCP byte */
        ":a!b@c PRIVMSG hearts :\x01"
        "DCC SEND x 1 2 3\x01\r\n"                 /* DCC */
        ":a!b@c PRIVMSG #hearts :\xc3\x28\xff\r\n" /* invalid UTF-8 */
        "@bad=\\ :a!b@c PRIVMSG\r\n"               /* tags, no params */
        ":a!b@c PRIVMSG #hearts :nul\0here\r\n"    /* NUL inside */
        ":a!b@c KICK #hearts\r\n"                  /* KICK without victim */
        ":a!b@c JOIN\r\n"                          /* JOIN without channel */
        ":irc.test 005 hearts A B C D E F G H I J K L M N :x\r\n"
        "@account=alice;time=2026-11-24T00:00:00.000Z "
        ":alice!a@h PRIVMSG #hearts :tagged\r\n"
        ":bob!b@h PRIVMSG #hearts :alive\r\n";
    struct fx f;
    fx_up(&f);
    srv_send_raw(&f.srv, bad, sizeof bad - 1);
    assert_true(run_until(&f, said_alive, 3000));
    assert_int_equal(count_events(&f, CHAT_DISCONNECTED), 0);
    assert_int_equal(f.srv.accepts, 1);
    /* what could be heard was: the broken UTF-8 as U+FFFD, the tagged
     * line without its tags */
    bool fffd = false, tagged = false;
    for (int i = 0; i < f.nev; i++) {
        if (f.ev[i].kind != CHAT_MESSAGE)
            continue;
        fffd |= strstr(f.ev[i].text, "\xef\xbf\xbd") != NULL;
        tagged |= strcmp(f.ev[i].text, "tagged") == 0 &&
                  strcmp(f.ev[i].nick, "alice") == 0;
        assert_null(strstr(f.ev[i].text, "DCC"));
        assert_null(strstr(f.ev[i].text, "nul"));
    }
    assert_true(fffd);
    assert_true(tagged);
    fx_free(&f);
}

static bool ponged(struct fx *f)
{
    return srv_find(&f->srv, "PONG ", 0) >= 0;
}

/* A PING whose token carries a raw CR: the CR ends the line, and the
 * PONG carries only what came before it. */
static void test_ircad_ping_with_cr_not_reflected(void **state)
{
    (void)state;
    struct fx f;
    fx_up(&f);
    static const char ping[] = "PING :tok\rPRIVMSG #x :injected\r\n";
    srv_send_raw(&f.srv, ping, sizeof ping - 1);
    assert_true(run_until(&f, ponged, 3000));
    run_until(&f, never, 100);
    int i = srv_find(&f.srv, "PONG ", 0);
    assert_string_equal(f.srv.lines[i], "PONG :tok");
    assert_int_equal(srv_find(&f.srv, "PRIVMSG #x", 0), -1);
    fx_free(&f);
}

/* Delivered a byte at a time, a line is heard once, whole. */
static void test_ircad_byte_by_byte_delivery(void **state)
{
    (void)state;
    struct fx f;
    fx_up(&f);
    static const char line[] =
        "@account=bob :bob!b@h PRIVMSG #hearts :alive\r\n";
    for (size_t i = 0; i < sizeof line - 1; i++) {
        srv_send_raw(&f.srv, line + i, 1);
        run_until(&f, never, 2);
    }
    assert_true(run_until(&f, said_alive, 3000));
    assert_int_equal(count_events(&f, CHAT_MESSAGE), 1);
    fx_free(&f);
}

struct trickle {
    struct fx *f;
    uint64_t timer;
};

static void on_trickle(struct loop *l, void *ctx)
{
    struct trickle *t = ctx;
    srv_send_raw(&t->f->srv, "x", 1);
    t->timer = loop_timer(l, 30, on_trickle, t);
}

static bool dropped_once(struct fx *f)
{
    return count_events(f, CHAT_DISCONNECTED) >= 1;
}

/* A server that trickles a byte now and then but never a whole line
 * (nor a PONG) is as dead as a silent one: the keep-alive counts answers
 * to our PINGs, not bytes. */
static void test_ircad_keepalive_drops_trickling_server(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    struct ircad_timing t = fast;
    t.ping_after_ms = 150;
    t.dead_after_ms = 400;
    fx_make(&f, &t);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    f.srv.ignore_ping = true;
    struct trickle tr = {.f = &f};
    tr.timer = loop_timer(f.l, 30, on_trickle, &tr);
    assert_true(run_until(&f, dropped_once, 3000));
    loop_cancel(f.l, tr.timer);
    bool why = false;
    for (int i = 0; i < f.nev; i++)
        why |= f.ev[i].kind == CHAT_DISCONNECTED &&
               strstr(f.ev[i].text, "no answer to our PING") != NULL;
    assert_true(why);
    fx_free(&f);
}

static bool quit_seen(struct fx *f)
{
    return srv_find(&f->srv, "QUIT", 0) >= 0 && f->srv.cfd < 0;
}

static bool stopped(struct fx *f)
{
    return quit_seen(f) && f->a->ops->idle(f->a);
}

static void test_ircad_stop_drains_queue_then_quits(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_interval_ms = 100;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    char text[32];
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, "goodbye %d", i);
        f.a->ops->say(f.a, "#hearts", text, CHAT_NORMAL);
    }
    f.a->ops->tell(f.a, "alice", "a long help text", CHAT_LOW);
    f.a->ops->stop(f.a, "Good night\r\nJOIN #evil");
    /* nothing new after stop, and not idle until the QUIT is out */
    f.a->ops->say(f.a, "#hearts", "too late", CHAT_HIGH);
    assert_false(f.a->ops->idle(f.a));
    int nev = f.nev;
    assert_true(run_until(&f, stopped, 5000));
    int quit = srv_find(&f.srv, "QUIT", 0);
    assert_string_equal(f.srv.lines[quit], "QUIT :Good nightJOIN #evil");
    assert_int_equal(quit, f.srv.nlines - 1);
    /* every goodbye went, in order, before the QUIT; LOW lines did not */
    int prev = -1;
    for (int i = 0; i < 6; i++) {
        snprintf(text, sizeof text, "PRIVMSG #hearts :goodbye %d", i);
        int at = srv_find(&f.srv, text, 0);
        assert_true(at > prev && at < quit);
        prev = at;
    }
    assert_int_equal(srv_find(&f.srv, "PRIVMSG alice", 0), -1);
    assert_int_equal(srv_find(&f.srv, "PRIVMSG #hearts :too late", 0), -1);
    /* no reconnect and no events after stop */
    run_until(&f, never, 200);
    assert_int_equal(f.srv.accepts, 1);
    assert_int_equal(f.nev, nev);
    assert_int_equal(f.a->ops->start(f.a), -1);
    fx_free(&f);
}

static void test_ircad_free_while_stopping_sends_quit(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.flood_interval_ms = 5000;
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    for (int i = 0; i < 6; i++)
        f.a->ops->say(f.a, "#hearts", "bye all", CHAT_HIGH);
    f.a->ops->stop(f.a, "bye");
    /* the JOIN took one token of four: three lines, then a long wait */
    run_until(&f, never, 200);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG #hearts :bye all"), 3);
    assert_false(f.a->ops->idle(f.a));
    /* the bot's deadline passes: free sends the QUIT at once */
    f.a->ops->free(f.a);
    f.a = NULL;
    assert_true(run_until(&f, quit_seen, 3000));
    int quit = srv_find(&f.srv, "QUIT", 0);
    assert_string_equal(f.srv.lines[quit], "QUIT :bye");
    assert_int_equal(quit, f.srv.nlines - 1);
    assert_int_equal(srv_count(&f.srv, "PRIVMSG #hearts :bye all"), 3);
    fx_free(&f);
}

static bool casemap_known(struct fx *f)
{
    return connected(f) && !f->a->ops->same_nick(f->a, "[bot]", "{bot}");
}

static void test_ircad_same_nick_follows_server_casemapping(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.isupport = "CASEMAPPING=ascii CHANTYPES=#";
    fx_make(&f, NULL);
    /* RFC 1459 until the server says otherwise */
    assert_true(f.a->ops->same_nick(f.a, "[bot]", "{BOT}"));
    assert_true(f.a->ops->same_nick(f.a, "Alice", "aLICE"));
    f.a->ops->start(f.a);
    assert_true(run_until(&f, casemap_known, 3000));
    assert_true(f.a->ops->same_nick(f.a, "Alice", "aLICE"));
    assert_false(f.a->ops->same_nick(f.a, "alice", "alicia"));
    fx_free(&f);
}

/* The fold that names a channel's files: RFC 1459 until the server says
 * CASEMAPPING=ascii, then [ ] stay apart from { }. */
static void test_ircad_fold_follows_server_casemapping(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.isupport = "CASEMAPPING=ascii CHANTYPES=#";
    fx_make(&f, NULL);
    char out[64];
    f.a->ops->fold(f.a, "#Hearts[1]", out, sizeof out);
    assert_string_equal(out, "#hearts{1}");
    f.a->ops->start(f.a);
    assert_true(run_until(&f, casemap_known, 3000));
    f.a->ops->fold(f.a, "#Hearts[1]", out, sizeof out);
    assert_string_equal(out, "#hearts[1]");
    fx_free(&f);
}

static bool refused_or_connected(struct fx *f)
{
    return f->srv.accepts > 0 || f->nev > 0;
}

static void test_ircad_start_retries_when_refused(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    /* a port nobody listens on: take one and close it */
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t len = sizeof sa;
    getsockname(s, (struct sockaddr *)&sa, &len);
    close(s);
    f.cfg.port = ntohs(sa.sin_port);
    fx_make(&f, NULL);
    assert_int_equal(f.a->ops->start(f.a), 0);
    /* refused attempts are retried quietly: no events */
    assert_false(run_until(&f, refused_or_connected, 400));
    assert_int_equal(f.nev, 0);
    fx_free(&f);
}

static void test_ircad_start_connects_over_ipv6(void **state)
{
    (void)state;
    struct fx f;
    if (!fx_init_family(&f, true)) {
        skip();
        return;
    }
    f.cfg.host = "::1";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    assert_int_equal(f.srv.accepts, 1);
    fx_free(&f);
}

/* A name with several addresses: each is tried in turn, so the first
 * refusing (nobody listens on 127.0.0.2, or on ::1) does not stop the
 * bot from reaching the one that answers. */
static void test_ircad_start_tries_every_address(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.host = "irc.multi.test";
    fx_make(&f, NULL);
    char entry[128];
    snprintf(entry, sizeof entry, "irc.multi.test:%d:[::1],127.0.0.2,127.0.0.1",
             f.srv.port);
    ircad_set_test_resolve(f.a, entry);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 5000));
    assert_int_equal(f.srv.accepts, 1);
    fx_free(&f);
}

struct ticks {
    int n;
    uint64_t t;
};

static void on_tick(struct loop *l, void *ctx)
{
    struct ticks *k = ctx;
    k->n++;
    k->t = loop_timer(l, 10, on_tick, k);
}

/* Resolving a name happens off the loop: while it goes on (here a name
 * no resolver knows, which may take seconds where a DNS server is
 * configured but unreachable), timers keep firing on time. */
static void test_ircad_start_resolves_without_blocking(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.cfg.host = "heartsbot-no-such-host.invalid";
    fx_make(&f, NULL);
    struct ticks k = {0, 0};
    k.t = loop_timer(f.l, 10, on_tick, &k);
    int64_t before = loop_now(f.l);
    assert_int_equal(f.a->ops->start(f.a), 0);
    assert_true(loop_now(f.l) - before < 100);
    run_until(&f, never, 400);
    loop_cancel(f.l, k.t);
    /* 400 ms of 10 ms ticks: most of them, whatever the resolver does */
    assert_true(k.n >= 20);
    assert_int_equal(f.srv.accepts, 0);
    fx_free(&f);
}

static void test_ircad_start_refuses_bad_config(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    const struct {
        char *nick, *chan, *host;
        int port;
    } bad[] = {
        {"bad nick", "#hearts", "127.0.0.1", f.srv.port},
        {"pct%s", "#hearts", "127.0.0.1", f.srv.port},
        {"hearts", "nochan", "127.0.0.1", f.srv.port},
        {"hearts", "#a,#b", "127.0.0.1", f.srv.port},
        {"hearts", "#hearts", "", f.srv.port},
        {"hearts", "#hearts", NULL, f.srv.port},
        {"hearts", "#hearts", "127.0.0.1", 0},
        {"hearts", "#hearts", "127.0.0.1", 70000},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f.cfg.nick = bad[i].nick;
        f.chans[0].name = bad[i].chan;
        f.cfg.host = bad[i].host;
        f.cfg.port = bad[i].port;
        struct chat_adapter *a = ircad_new(f.l, &f.cfg, on_event, &f);
        assert_non_null(a);
        assert_int_equal(a->ops->start(a), -1);
        a->ops->free(a);
    }
    /* nothing even tried to connect */
    run_until(&f, never, 50);
    assert_int_equal(f.srv.accepts, 0);
    f.cfg.nick = "hearts";
    f.chans[0].name = "#hearts";
    f.cfg.host = "127.0.0.1";
    f.cfg.port = f.srv.port;
    fx_make(&f, NULL);
    assert_int_equal(f.a->ops->start(f.a), 0);
    fx_free(&f);
}

static bool one_identity(struct fx *f)
{
    return count_events(f, CHAT_IDENTITY) >= 1;
}

static bool whox_asked(struct fx *f)
{
    return srv_find(&f->srv, "WHO #hearts %tcna,417", 0) >= 0;
}

/* The account on the last event from `nick` of `kind` ("" for none). */
static const char *account_of(const struct fx *f, enum chat_event_kind kind,
                              const char *nick)
{
    for (int i = f->nev - 1; i >= 0; i--)
        if (f->ev[i].kind == kind && strcmp(f->ev[i].nick, nick) == 0)
            return f->ev[i].account;
    fail_msg("no event from %s", nick);
    return NULL;
}

/* A server with WHOX and no account capabilities: the bot asks who is in
 * the channel with which account when it joins, and the events of those
 * people carry it; it follows NICK and forgets on QUIT and PART; replies
 * to another token and junk change nothing. */
static void test_ircad_whox_accounts_reach_events(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.isupport = "CHANTYPES=#& WHOX";
    f.srv.known[0] = "Alicia=+al@h";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    assert_true(run_until(&f, whox_asked, 3000));
    struct server *s = &f.srv;
    srv_send(s, ":irc.test 354 hearts 417 #hearts alice AliceAcct");
    srv_send(s, ":irc.test 354 hearts 417 #hearts bob 0");
    srv_send(s, ":irc.test 354 hearts 417 #hearts hearts HeartsAcct");
    srv_send(s, ":irc.test 354 hearts 999 #hearts carol NotOurs");
    srv_send(s, ":irc.test 354 hearts 417 #elsewhere dave Elsewhere");
    srv_send(s, ":irc.test 354 hearts 417 #hearts");
    srv_send(s, ":irc.test 354 hearts 417 #hearts erin :two words");
    srv_send(s, ":irc.test 315 hearts #hearts :End of /WHO list.");
    srv_send(s, ":alice!al@h PRIVMSG #hearts :one");
    srv_send(s, ":bob!b@h PRIVMSG #hearts :two");
    srv_send(s, ":carol!c@h PRIVMSG #hearts :three");
    srv_send(s, ":dave!d@h PRIVMSG #hearts :four");
    srv_send(s, ":erin!e@h PRIVMSG hearts :five");
    srv_send(s, ":alice!al@h NICK :Alicia");
    srv_send(s, ":Alicia!al@h PRIVMSG hearts :six");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(run_until(&f, saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_NICK, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "Alicia"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "carol"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "dave"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "erin"), "");
    /* verify's answer carries what is known of the nick */
    f.a->ops->verify(f.a, "alicia");
    assert_true(run_until(&f, one_identity, 3000));
    srv_send(s, ":Alicia!al@h PART #hearts :bye");
    f.a->ops->verify(f.a, "alicia");
    assert_true(run_until(&f, two_identities, 3000));
    int k = 0;
    for (int i = 0; i < f.nev; i++)
        if (f.ev[i].kind == CHAT_IDENTITY)
            assert_string_equal(f.ev[i].account, k++ ? "" : "AliceAcct");
    /* she left the only channel: back, she is unknown until asked */
    srv_send(s, ":Alicia!al@h JOIN #hearts");
    srv_send(s, ":Alicia!al@h PRIVMSG #hearts :seven");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(run_until(&f, saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_JOIN, "Alicia"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "Alicia"), "");
    fx_free(&f);
}

/* A server with extended-join and account-notify but no account-tag:
 * the accounts come from the JOINs and ACCOUNT lines, follow nicks, and
 * a logout is none. */
static void test_ircad_accounts_from_extended_join_and_notify(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.caps = "account-notify extended-join multi-prefix";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    assert_true(srv_find(&f.srv, "CAP REQ :", 0) >= 0);
    assert_true(srv_find(&f.srv, "CAP END", 0) >= 0);
    struct server *s = &f.srv;
    srv_send(s, ":alice!al@h JOIN #hearts AliceAcct :Alice A.");
    srv_send(s, ":bob!b@h JOIN #hearts * :Bob");
    srv_send(s, ":alice!al@h PRIVMSG #hearts :one");
    srv_send(s, ":bob!b@h PRIVMSG #hearts :two");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(run_until(&f, saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_JOIN, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "alice"), "AliceAcct");
    assert_string_equal(account_of(&f, CHAT_JOIN, "bob"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    /* alice logs out, bob logs in; alice changes nick */
    srv_send(s, ":alice!al@h ACCOUNT *");
    srv_send(s, ":bob!b@h ACCOUNT BobAcct");
    srv_send(s, ":alice!al@h NICK ally");
    srv_send(s, ":ally!al@h PRIVMSG hearts :three");
    srv_send(s, ":bob!b@h PRIVMSG hearts :four");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(run_until(&f, saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "ally"), "");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "BobAcct");
    /* bob quits: whoever comes as bob without extended-join is unknown */
    srv_send(s, ":bob!b@h QUIT :bye");
    srv_send(s, ":bob!x@elsewhere PRIVMSG hearts :five");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    f.nev = 0;
    assert_true(run_until(&f, saw_end, 3000));
    assert_string_equal(account_of(&f, CHAT_QUIT, "bob"), "BobAcct");
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "bob"), "");
    fx_free(&f);
}

/* With account-tag the tag of each line is the truth: a line without one
 * is from someone logged out, whatever was tracked. */
static void test_ircad_account_tag_decides(void **state)
{
    (void)state;
    struct fx f;
    fx_init(&f);
    f.srv.caps = "account-tag account-notify extended-join message-tags";
    fx_make(&f, NULL);
    f.a->ops->start(f.a);
    assert_true(run_until(&f, connected, 3000));
    struct server *s = &f.srv;
    srv_send(s, "@account=AliceAcct :alice!al@h JOIN #hearts AliceAcct :A");
    srv_send(s, "@account=AliceAcct;time=2026-01-01T00:00:00.000Z "
                ":alice!al@h PRIVMSG #hearts :one");
    srv_send(s, ":alice!al@h PRIVMSG hearts :two");
    srv_send(s, "@account=Other :alice!al@h PRIVMSG hearts :three");
    srv_send(s, "@account=Carol\\sX :carol!c@h PRIVMSG hearts :four");
    srv_send(s, ":zed!z@h PRIVMSG #hearts :end");
    assert_true(run_until(&f, saw_end, 3000));
    const struct rec *r = f.ev;
    int k = 0;
    const char *want[] = {"AliceAcct", "AliceAcct", "", "Other"};
    for (int i = 0; i < f.nev; i++)
        if (strcmp(r[i].nick, "alice") == 0 && k < 4)
            assert_string_equal(r[i].account, want[k++]);
    assert_int_equal(k, 4);
    /* an account tag with a space in it (escaped) is not a name */
    assert_string_equal(account_of(&f, CHAT_MESSAGE, "carol"), "");
    fx_free(&f);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    log_level_set(LOG_ERROR);
    if (getenv("HEARTS_TEST_DEBUG"))
        log_level_set(LOG_DEBUG);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ircad_start_registers_identifies_and_joins),
        cmocka_unit_test(
            test_ircad_nick_in_use_tries_alternatives_then_regains),
        cmocka_unit_test(test_ircad_events_from_server_lines),
        cmocka_unit_test(test_ircad_ctcp_answered_and_limited),
        cmocka_unit_test(test_ircad_say_paced_by_bucket_and_priority),
        cmocka_unit_test(test_ircad_pacing_follows_lag),
        cmocka_unit_test(test_ircad_floor_by_server),
        cmocka_unit_test(test_ircad_floor_forgotten_on_reconnect),
        cmocka_unit_test(test_ircad_floor_configured_wins),
        cmocka_unit_test(test_ircad_verify_answers_identity),
        cmocka_unit_test(test_ircad_tell_tracked_reports_when_written),
        cmocka_unit_test(test_ircad_disconnect_drops_private_lines),
        cmocka_unit_test(test_ircad_queued_lines_follow_the_person),
        cmocka_unit_test(test_ircad_nick_taken_announced_and_regained_on_quit),
        cmocka_unit_test(test_ircad_identify_only_to_services),
        cmocka_unit_test(test_ircad_tell_splits_long_text),
        cmocka_unit_test(test_ircad_keepalive_drops_silent_link_and_reconnects),
        cmocka_unit_test(test_ircad_keepalive_drops_trickling_server),
        cmocka_unit_test(test_ircad_malformed_server_lines_survived),
        cmocka_unit_test(test_ircad_ping_with_cr_not_reflected),
        cmocka_unit_test(test_ircad_byte_by_byte_delivery),
        cmocka_unit_test(test_ircad_reconnects_when_server_closes),
        cmocka_unit_test(test_ircad_overlong_input_lines_cut_or_dropped),
        cmocka_unit_test(test_ircad_stop_drains_queue_then_quits),
        cmocka_unit_test(test_ircad_free_while_stopping_sends_quit),
        cmocka_unit_test(test_ircad_same_nick_follows_server_casemapping),
        cmocka_unit_test(test_ircad_fold_follows_server_casemapping),
        cmocka_unit_test(test_ircad_start_retries_when_refused),
        cmocka_unit_test(test_ircad_start_connects_over_ipv6),
        cmocka_unit_test(test_ircad_start_tries_every_address),
        cmocka_unit_test(test_ircad_start_resolves_without_blocking),
        cmocka_unit_test(test_ircad_start_refuses_bad_config),
        cmocka_unit_test(test_ircad_whox_accounts_reach_events),
        cmocka_unit_test(test_ircad_accounts_from_extended_join_and_notify),
        cmocka_unit_test(test_ircad_account_tag_decides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
