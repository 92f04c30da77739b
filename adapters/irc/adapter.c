/*
 * The IRC adapter's lifecycle and protocol callbacks (irc_adapter.h): what
 * to do on registration, on a taken nick, on each message from the server,
 * when the link goes quiet, and when it breaks. Everything it sends goes
 * through the out-queue (queue.c) and the connection layer
 * (connection.c); it never sees libircclient.
 *
 * Every handler checks its parameters before touching them (WeeChat's
 * guards): a line from the network may lack any of them. Strings from a
 * line live only during the handler; events hand them on for the duration
 * of the manager's callback and nothing is kept.
 */
#include "adapters/irc/irc_adapter.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "adapters/irc/accounts.h"
#include "adapters/irc/backoff.h"
#include "adapters/irc/connection.h"
#include "adapters/irc/ctcp.h"
#include "adapters/irc/isupport.h"
#include "bot/common/log.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/flood.h"
#include "adapters/irc/queue.h"
#include "adapters/irc/split.h"

#define NICK_MAX 64
#define ID_MAX 256
/* After this many refused nicks the attempt counts as a failed connect. */
#define NICK_ATTEMPTS 8
/* CTCP answers: 3 at once, then one per 10 s; a CTCP flood costs us at
 * most that, and the answers go LOW, behind the game. */
#define CTCP_BURST 3
#define CTCP_INTERVAL_MS 10000
#define CTCP_VERSION "heartsbot (a Hearts card game bot)"
/* A JOIN line carries channels up to this many bytes. */
#define JOIN_LINE_MAX 400
/* stop() lets the queue drain this long at most before the QUIT goes
 * anyway (the bot's main loop usually frees the adapter sooner). */
#define STOP_GRACE_MS 10000
/* USERHOST questions in flight at most (one nick each). */
#define QUERY_MAX 256
/* The WHOX query type of our "WHO #chan %tcna,417": replies with another
 * token answer someone else's question. */
#define WHOX_TOKEN "417"
/* An account handed to the manager at most (bytes, NUL included). */
#define ACCOUNT_MAX 128

/* Why we asked the server who someone is (USERHOST, answered in order). */
enum query_kind {
    Q_SERVICES, /* is NickServ the services client the config names? */
    Q_VERIFY    /* the manager asked (verify): answer with CHAT_IDENTITY */
};

struct query {
    enum query_kind kind;
    char nick[NICK_MAX];
};

enum state {
    ST_IDLE,       /* made, not started */
    ST_CONNECTING, /* TCP and registration */
    ST_REGISTERED, /* 001 seen: in business */
    ST_WAITING,    /* between connections, the reconnect timer runs */
    ST_STOPPING,   /* stop() was called: the queue drains, then QUIT */
    ST_STOPPED     /* done: nothing more happens */
};

struct ircad {
    struct chat_adapter base; /* first: the ops get &base */
    struct loop *loop;
    char *name, *host, *nick, *username, *realname, *password, *nickserv;
    char *ns_account;    /* the account IDENTIFY names */
    char *services_mask; /* who NickServ must be */
    bool tls, tls_verify;
    char *tls_ca, *tls_cert, *tls_key;
    enum ircad_sasl_mech sasl_mech;
    char *sasl_user, *sasl_pass;
    bool sasl_required;
    char *test_resolve; /* ircad_set_test_resolve, NULL */
    int pushed;         /* lines one text became (op_tell_tracked) */
    int port;
    char **channels;
    bool *kicked; /* per channel: rejoin when t_rejoin fires */
    bool *joined; /* per channel: we are in it */
    int nchannels;
    int flood_burst;
    int64_t flood_interval_ms;
    struct ircad_flood pace; /* the interval follows the server's lag */
    int64_t floor_cfg;      /* flood_min_interval_ms; 0: by the server */
    bool server_seen;       /* this connection's server is identified */
    struct ircad_timing t;
    bool unusable; /* the config cannot work: start refuses */

    struct ircad_queue q;
    struct ircad_bucket ctcp;
    struct ircad_backoff backoff;
    struct engine_prng rng;

    enum state state;
    struct ircad_conn *conn;
    struct ircad_isupport isup;
    char cur_nick[NICK_MAX];
    unsigned nick_attempt;
    size_t nick_maxlen;
    int64_t conn_started;
    int64_t ping_sent;  /* when our keep-alive PING was queued, 0: none */
    int64_t last_alive; /* the last PONG to a PING of ours (or 001) */
    unsigned ka_token;  /* the keep-alive PING's token: "ka<n>" */
    char *quit_line;    /* while stopping: the QUIT to send last */
    struct query queries[QUERY_MAX]; /* a ring, oldest at qhead */
    int qhead, nqueries;
    /* cookies of tracked lines the queue dropped: reported as CHAT_SENT
     * on the next round, never from inside the manager's call */
    uint64_t *late;
    size_t nlate, caplate;
    /* who is logged in to which services account (accounts.h), and the
     * account the events of the line being handled carry ("": none) */
    struct ircad_accounts accts;
    char ev_account[ACCOUNT_MAX];

    uint64_t t_kick, t_refill, t_keepalive, t_reconnect, t_regain, t_rejoin;
    uint64_t t_stop;
};

static struct ircad *self(struct chat_adapter *ca)
{
    return (struct ircad *)ca;
}

static const struct ircad *cself(const struct chat_adapter *ca)
{
    return (const struct ircad *)ca;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        abort();
    return d;
}

static void cancel(struct ircad *a, uint64_t *id)
{
    if (*id)
        loop_cancel(a->loop, *id);
    *id = 0;
}

static void cancel_all(struct ircad *a)
{
    cancel(a, &a->t_kick);
    cancel(a, &a->t_refill);
    cancel(a, &a->t_keepalive);
    cancel(a, &a->t_reconnect);
    cancel(a, &a->t_regain);
    cancel(a, &a->t_rejoin);
    cancel(a, &a->t_stop);
}

static bool stopping(const struct ircad *a)
{
    return a->state == ST_STOPPING || a->state == ST_STOPPED;
}

static void emit(struct ircad *a, enum chat_event_kind kind, const char *room,
                 const char *nick, const char *id, const char *text,
                 const char *target)
{
    if (stopping(a))
        return;
    struct chat_event ev = {
        .kind = kind,
        .room = room,
        .from = {.nick = nick,
                 .id = id,
                 .account = nick && a->ev_account[0] ? a->ev_account : NULL},
        .text = text,
        .target = target,
    };
    a->base.on_event(a->base.ctx, &a->base, &ev);
}

/* CHAT_SENT for a tracked line. */
static void emit_sent(struct ircad *a, uint64_t cookie)
{
    if (stopping(a))
        return;
    struct chat_event ev = {.kind = CHAT_SENT, .cookie = cookie};
    a->base.on_event(a->base.ctx, &a->base, &ev);
}

static bool is_me(const struct ircad *a, const char *nick)
{
    return ircad_name_equal(a->isup.casemap, nick, a->cur_nick);
}

/* ---- Output ------------------------------------------------------------ */

static void pump(struct ircad *a);

static void on_kick(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_kick = 0;
    /* one at a time off the end: a handler may drop more */
    while (a->nlate > 0)
        emit_sent(a, a->late[--a->nlate]);
    pump(a);
}

/* The queue dropped a tracked line (its cap, a clear): it will never be
 * written, so whoever waits for it stops waiting, on the next round. */
static void on_dropped(void *ctx, uint64_t cookie)
{
    struct ircad *a = ctx;
    if (stopping(a))
        return; /* no events after stop; and no timer may outlive free */
    if (a->nlate == a->caplate) {
        a->caplate = a->caplate ? 2 * a->caplate : 16;
        a->late = realloc(a->late, a->caplate * sizeof *a->late);
        if (!a->late)
            abort();
    }
    a->late[a->nlate++] = cookie;
    if (!a->t_kick)
        a->t_kick = loop_timer(a->loop, 0, on_kick, a);
}

static void on_sent(void *ctx, uint64_t cookie)
{
    emit_sent(ctx, cookie);
}

static void on_refill(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_refill = 0;
    pump(a);
}

/* Pumps on the next loop round, so the lines one event queues go out
 * together and never from inside the library's parser. */
static void kick(struct ircad *a)
{
    if (a->conn && !a->t_kick)
        a->t_kick = loop_timer(a->loop, 0, on_kick, a);
}

/* The queue's key for a destination: its name casefolded, so "Bob" and
 * "bob" share one FIFO. */
static void target_key(const struct ircad *a, const char *name, char *key,
                       size_t keylen)
{
    ircad_fold(a->isup.casemap, name, key, keylen);
}

/* Queues one finished line for `target` (NULL for protocol lines). */
static void push_to(struct ircad *a, enum ircad_prio prio, const char *target,
                    const char *line)
{
    char key[IRCAD_LINE_MAX];
    target_key(a, target, key, sizeof key);
    int r = ircad_queue_push(&a->q, prio, key, line);
    if (r < 0)
        log_warn("%s: output queue full (%zu bytes): a line was dropped",
                 a->name, a->q.bytes);
    else if (r > 0)
        log_warn("%s: output queue full: dropped %d lower-priority lines",
                 a->name, r);
    kick(a);
}

/* Queues a protocol line. */
static void push(struct ircad *a, enum ircad_prio prio, const char *line)
{
    push_to(a, prio, NULL, line);
}

/* Drops what waits for a person who left (QUIT, or the last channel the
 * bot shares with them): under that nick it may reach someone else, and
 * the bot would not see where they went. */
static void drop_person(struct ircad *a, const char *nick, const char *why)
{
    char key[IRCAD_LINE_MAX];
    target_key(a, nick, key, sizeof key);
    size_t n = ircad_queue_drop_target(&a->q, key);
    if (n)
        log_info("%s: %s %s: %zu line(s) queued for them dropped", a->name,
                 nick, why, n);
}

/* A person changed nick: what waits for them follows them. What still
 * waits for the new nick was made for someone who held it before and
 * left it unseen (the server let this person take it): it is dropped,
 * never delivered to the new holder. */
static void follow_nick(struct ircad *a, const char *from, const char *to)
{
    if (!ircad_target_valid(to) || strlen(to) >= NICK_MAX) {
        drop_person(a, from, "took a nick we cannot write to");
        return;
    }
    char kf[IRCAD_LINE_MAX], kt[IRCAD_LINE_MAX];
    target_key(a, from, kf, sizeof kf);
    target_key(a, to, kt, sizeof kt);
    if (strcmp(kf, kt) != 0) {
        size_t stale = ircad_queue_drop_target(&a->q, kt);
        if (stale)
            log_info("%s: %zu line(s) queued for an earlier holder of %s "
                     "dropped",
                     a->name, stale, to);
    }
    size_t n = ircad_queue_retarget(&a->q, kf, kt, to);
    if (n)
        log_debug("%s: %zu queued line(s) for %s now go to %s", a->name, n,
                  from, to);
}

struct push_ctx {
    struct ircad *a;
    enum ircad_prio prio;
    const char *target;
};

static void push_line(void *ctx, const char *line)
{
    struct push_ctx *p = ctx;
    p->a->pushed++;
    push_to(p->a, p->prio, p->target, line);
}

/* The bucket's interval, as the pacing decides; logged when it moves. */
static void set_interval(struct ircad *a, int64_t ms)
{
    if (a->q.bucket.interval_ms == ms)
        return;
    log_debug("%s: pacing %lld ms a line (lag base %lld ms)", a->name,
              (long long)ms, (long long)a->pace.base_ms);
    a->q.bucket.interval_ms = ms;
}

static int send_line(void *ctx, const char *line)
{
    struct ircad *a = ctx;
    int rc = ircad_conn_send(a->conn, line);
    if (rc == IRCAD_CONN_SENT) {
        if (strncmp(line, "PING :lag", 9) == 0)
            ircad_flood_probe_sent(&a->pace, loop_now(a->loop));
        else if (strncmp(line, "PRIVMSG ", 8) == 0 ||
                 strncmp(line, "NOTICE ", 7) == 0)
            ircad_flood_line_sent(&a->pace);
        /* the NickServ password stays out of the log */
        if (strstr(line, " :IDENTIFY "))
            log_debug("%s -> (IDENTIFY, the password not logged)", a->name);
        else
            log_debug("%s -> %s", a->name, line);
    }
    return rc;
}

static void finish_stop(struct ircad *a)
{
    cancel_all(a);
    a->state = ST_STOPPED;
    ircad_queue_clear(&a->q);
    free(a->quit_line);
    a->quit_line = NULL;
    log_info("%s: stopped", a->name);
}

/* Sends the QUIT and closes. Without `force` it waits for room in the
 * connection's buffer (the drain handler pumps again); with it, it makes
 * room by writing the buffer out, and closes even if the QUIT cannot go. */
static void send_quit(struct ircad *a, bool force)
{
    int rc = send_line(a, a->quit_line);
    if (rc == IRCAD_CONN_FULL && force && ircad_conn_flush(a->conn) == 0)
        rc = send_line(a, a->quit_line);
    if (rc == IRCAD_CONN_FULL && !force)
        return;
    if (rc == IRCAD_CONN_SENT)
        ircad_bucket_take(&a->q.bucket, loop_now(a->loop));
    ircad_conn_close(a->conn, true);
    a->conn = NULL;
    finish_stop(a);
}

/* Sends what the bucket and the connection allow; before registration
 * only protocol lines may go; when stopping, the QUIT follows the last
 * line. */
static void pump(struct ircad *a)
{
    if (!a->conn)
        return;
    bool up = a->state == ST_REGISTERED || a->state == ST_STOPPING;
    int64_t now = loop_now(a->loop);
    int64_t wait = 0;
    if (a->state == ST_REGISTERED) {
        ircad_flood_tick(&a->pace, now);
        if (ircad_flood_want_probe(&a->pace, now,
                                  ircad_queue_front(&a->q, true) != NULL)) {
            char line[32];
            snprintf(line, sizeof line, "PING :lag%u",
                     ircad_flood_next_token(&a->pace));
            push(a, IRCAD_URGENT, line);
        }
        set_interval(a, a->pace.interval_ms);
    }
    enum ircad_flush r =
        ircad_queue_flush(&a->q, now, up, send_line, on_sent, a, &wait);
    if (r == IRCAD_FLUSH_EMPTY && a->state == ST_STOPPING) {
        wait = ircad_bucket_wait(&a->q.bucket, now);
        if (wait == 0) {
            send_quit(a, false);
            return;
        }
        r = IRCAD_FLUSH_WAIT;
    }
    if (r == IRCAD_FLUSH_WAIT && !a->t_refill)
        a->t_refill = loop_timer(a->loop, wait, on_refill, a);
    /* FULL: the drain handler pumps again; ERROR: the connection is
     * failing and its closed handler follows */
}

static void on_drain(void *ctx)
{
    pump(ctx);
}

/* ---- Connection lifecycle --------------------------------------------- */

static void connect_now(struct ircad *a);
static void on_msg(void *ctx, const struct ircad_msg *m);
static void on_closed(void *ctx, const char *why, bool permanent);

static void on_reconnect(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_reconnect = 0;
    if (a->state == ST_WAITING)
        connect_now(a);
}

static void schedule_reconnect(struct ircad *a)
{
    a->state = ST_WAITING;
    int64_t d = ircad_backoff_next(&a->backoff);
    log_info("%s: reconnecting in %lld ms", a->name, (long long)d);
    cancel(a, &a->t_reconnect);
    a->t_reconnect = loop_timer(a->loop, d, on_reconnect, a);
}

/* Whether a queue key (a casefolded target) is a person, not a channel. */
static bool is_person(void *ctx, const char *key)
{
    const struct ircad *a = ctx;
    return !strchr(a->isup.chantypes, key[0]);
}

/* The link is gone (the connection is already closed and freed).
 * `permanent`: no retry can help until the config changes. */
static void lost(struct ircad *a, const char *why, bool permanent)
{
    bool was_up = a->state == ST_REGISTERED;
    a->conn = NULL;
    cancel(a, &a->t_kick);
    cancel(a, &a->t_refill);
    cancel(a, &a->t_keepalive);
    cancel(a, &a->t_regain);
    cancel(a, &a->t_rejoin);
    /* PINGs, NICKs and JOINs belonged to that connection; the chat waits
     * for the next one */
    ircad_queue_clear_prio(&a->q, IRCAD_URGENT);
    /* lines to people wait for no reconnect: whoever holds a nick then
     * may be someone else (the core confirms its players first) */
    ircad_queue_clear_targets(&a->q, is_person, a);
    a->qhead = a->nqueries = 0;
    for (int i = 0; i < a->nchannels; i++)
        a->kicked[i] = a->joined[i] = false;
    if (a->state == ST_STOPPED)
        return;
    if (a->state == ST_STOPPING) {
        log_info("%s: disconnected while stopping: %s", a->name, why);
        finish_stop(a);
        return;
    }
    if (permanent) {
        log_error("%s: %s; not connecting again (fix the config and "
                  "restart the bot)",
                  a->name, why);
        cancel_all(a);
        a->state = ST_WAITING;
        if (was_up)
            emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, why, NULL);
        return;
    }
    log_warn("%s: disconnected: %s", a->name, why);
    schedule_reconnect(a);
    if (was_up)
        emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, why, NULL);
}

static void on_closed(void *ctx, const char *why, bool permanent)
{
    lost(ctx, why, permanent);
}

/* We give up on the link ourselves. */
static void drop_link(struct ircad *a, const char *why)
{
    ircad_conn_close(a->conn, false);
    lost(a, why, false);
}

static void on_keepalive(struct loop *l, void *ctx);

static void arm_keepalive(struct ircad *a, int64_t ms)
{
    cancel(a, &a->t_keepalive);
    a->t_keepalive = loop_timer(a->loop, ms > 0 ? ms : 1, on_keepalive, a);
}

/* The link is alive while the server answers our PINGs: a PING once
 * ping_after_ms have passed since the last answer, and the link is
 * dropped once dead_after_ms have. Other traffic does not count: a
 * server that trickles bytes, or sends lines but no longer reads ours,
 * is as dead as a silent one. */
static void on_keepalive(struct loop *l, void *ctx)
{
    struct ircad *a = ctx;
    a->t_keepalive = 0;
    if (!a->conn)
        return;
    int64_t now = loop_now(l);
    if (a->state == ST_CONNECTING) {
        int64_t left = a->conn_started + a->t.register_ms - now;
        if (left <= 0)
            drop_link(a, "registration timed out");
        else
            arm_keepalive(a, left);
        return;
    }
    int64_t quiet = now - a->last_alive;
    if (quiet >= a->t.dead_after_ms) {
        char why[96];
        snprintf(why, sizeof why,
                 "ping timeout: no answer to our PING for %lld s",
                 (long long)(quiet / 1000));
        drop_link(a, why);
        return;
    }
    if (quiet >= a->t.ping_after_ms) {
        if (a->ping_sent <= a->last_alive) {
            char line[32];
            snprintf(line, sizeof line, "PING :ka%u", ++a->ka_token);
            push(a, IRCAD_URGENT, line);
            a->ping_sent = now;
        }
        arm_keepalive(a, a->last_alive + a->t.dead_after_ms - now);
    } else {
        arm_keepalive(a, a->last_alive + a->t.ping_after_ms - now);
    }
}

static void connect_now(struct ircad *a)
{
    ircad_isupport_init(&a->isup);
    snprintf(a->cur_nick, sizeof a->cur_nick, "%s", a->nick);
    a->nick_attempt = 0;
    a->nick_maxlen = NICK_MAX - 1;
    a->ping_sent = 0;
    struct ircad_conn_params p = {
        .name = a->name,
        .host = a->host,
        .port = a->port,
        .password = a->password,
        .nick = a->nick,
        .username = a->username,
        .realname = a->realname,
        .tls = a->tls,
        .tls_verify = a->tls_verify,
        .tls_ca_file = a->tls_ca,
        .tls_cert_file = a->tls_cert,
        .tls_key_file = a->tls_key,
        .test_resolve = a->test_resolve,
        .sasl = {.mech = a->sasl_mech,
                 .username = *a->sasl_user ? a->sasl_user : a->nick,
                 .password = a->sasl_pass,
                 .required = a->sasl_required},
    };
    struct ircad_conn_handlers h = {
        .msg = on_msg, .closed = on_closed, .drain = on_drain, .ctx = a};
    char err[160];
    log_info("%s: connecting to %s port %d%s", a->name, a->host, a->port,
             a->tls ? " (TLS)" : "");
    if (ircad_conn_open(a->loop, &p, &h, &a->conn, err, sizeof err) != 0) {
        a->conn = NULL;
        log_warn("%s: cannot connect to %s port %d: %s", a->name, a->host,
                 a->port, err);
        schedule_reconnect(a);
        return;
    }
    a->state = ST_CONNECTING;
    int64_t now = loop_now(a->loop);
    a->conn_started = now;
    /* the server counts per connection: a new one starts with a burst,
     * at the configured pace */
    ircad_flood_reset(&a->pace, a->flood_interval_ms);
    ircad_bucket_init(&a->q.bucket, a->flood_burst, a->pace.interval_ms, now);
    /* until the server says what it is, the configured pace is the floor
     * (another server may answer on the same address after a restart) */
    a->server_seen = false;
    if (!a->floor_cfg)
        ircad_flood_set_floor(&a->pace, a->flood_interval_ms);
    arm_keepalive(a, a->t.register_ms);
}

/* ---- Registration and nicks -------------------------------------------- */

static void on_regain(struct loop *l, void *ctx);

static void arm_regain(struct ircad *a)
{
    cancel(a, &a->t_regain);
    a->t_regain = loop_timer(a->loop, a->t.regain_ms, on_regain, a);
}

/* Asks for the configured nick; the NICK echo tells when it worked. */
static void ask_nick(struct ircad *a)
{
    char line[NICK_MAX + 8];
    snprintf(line, sizeof line, "NICK %s", a->nick);
    push(a, IRCAD_URGENT, line);
}

/* Not on the wanted nick (it was taken at connect): ask for it now and
 * then. */
static void on_regain(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_regain = 0;
    if (a->state != ST_REGISTERED || is_me(a, a->nick))
        return;
    ask_nick(a);
    arm_regain(a);
}

static void queue_text(struct ircad *a, const char *target, const char *text,
                       enum chat_priority prio);

/* Notes whether we are in a configured channel. */
static void mark_joined(struct ircad *a, const char *room, bool in)
{
    for (int i = 0; i < a->nchannels; i++)
        if (ircad_name_equal(a->isup.casemap, a->channels[i], room))
            a->joined[i] = in;
}

/* Tells a channel (`room`), or every channel we are in (NULL), which nick
 * the bot has: people who /msg the configured nick would reach whoever
 * took it. */
static void announce_nick(struct ircad *a, const char *room)
{
    char text[3 * NICK_MAX + 120];
    if (is_me(a, a->nick))
        snprintf(text, sizeof text,
                 "I have my nick back: talk to me as /msg %s again.",
                 a->cur_nick);
    else
        snprintf(text, sizeof text,
                 "I am %s for now (%s is taken): talk to me as /msg %s, "
                 "not %s.",
                 a->cur_nick, a->nick, a->cur_nick, a->nick);
    if (room) {
        queue_text(a, room, text, CHAT_NORMAL);
        return;
    }
    for (int i = 0; i < a->nchannels; i++)
        if (a->joined[i])
            queue_text(a, a->channels[i], text, CHAT_NORMAL);
}

/* Whoever had our nick quit or changed nick: ask for it at once rather
 * than at the next regain timer. */
static void squatter_gone(struct ircad *a, const char *nick)
{
    if (a->state != ST_REGISTERED || is_me(a, a->nick) ||
        !ircad_name_equal(a->isup.casemap, nick, a->nick))
        return;
    log_info("%s: %s is free again: taking it", a->name, a->nick);
    ask_nick(a);
}

/* JOINs for the given channels (all, or the kicked ones), as few lines as
 * fit: each line costs a token. */
static void join_channels(struct ircad *a, bool only_kicked)
{
    char line[JOIN_LINE_MAX + NICK_MAX];
    size_t n = 0;
    for (int i = 0; i < a->nchannels; i++) {
        if (only_kicked && !a->kicked[i])
            continue;
        a->kicked[i] = false;
        size_t len = strlen(a->channels[i]);
        if (n && n + 1 + len > JOIN_LINE_MAX) {
            push(a, IRCAD_URGENT, line);
            n = 0;
        }
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s",
                              n ? "," : "JOIN ", a->channels[i]);
    }
    if (n)
        push(a, IRCAD_URGENT, line);
}

static void on_rejoin(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_rejoin = 0;
    if (a->state == ST_REGISTERED)
        join_channels(a, true);
}

static void ev_account_of(struct ircad *a, const char *nick);

/* Asks the server who `nick` is; the answer (302) comes in order. */
static void ask_userhost(struct ircad *a, enum query_kind kind,
                         const char *nick)
{
    if (a->nqueries == QUERY_MAX || !ircad_target_valid(nick) ||
        strlen(nick) >= NICK_MAX) {
        /* unanswered: a seat stays unconfirmed until its person speaks */
        log_warn("%s: cannot ask who %s is now", a->name, nick);
        return;
    }
    struct query *q = &a->queries[(a->qhead + a->nqueries++) % QUERY_MAX];
    q->kind = kind;
    snprintf(q->nick, sizeof q->nick, "%s", nick);
    char line[NICK_MAX + 16];
    snprintf(line, sizeof line, "USERHOST %s", nick);
    push(a, IRCAD_URGENT, line);
}

/* The answer to a USERHOST question: `id` is "user@host", or NULL if the
 * nick is not on the network. */
static void answered(struct ircad *a, enum query_kind kind, const char *nick,
                     const char *id)
{
    switch (kind) {
    case Q_SERVICES: {
        if (!id) {
            log_warn("%s: nobody is called %s here: not identifying", a->name,
                     nick);
            return;
        }
        char who[NICK_MAX + ID_MAX + 2];
        snprintf(who, sizeof who, "%s!%s", nick, id);
        if (!ircad_mask_match(a->isup.casemap, a->services_mask, who)) {
            log_warn("%s: %s is not services (%s): not identifying", a->name,
                     who, a->services_mask);
            return;
        }
        char line[IRCAD_LINE_MAX];
        snprintf(line, sizeof line, "PRIVMSG %s :IDENTIFY %s %s", nick,
                 a->ns_account, a->nickserv);
        push(a, IRCAD_URGENT, line);
        break;
    }
    case Q_VERIFY:
        if (id)
            ev_account_of(a, nick);
        emit(a, CHAT_IDENTITY, NULL, nick, id, NULL, NULL);
        break;
    }
}

/* RPL_USERHOST (302): "nick[*]=[+-]user@host", or nothing for a nick not
 * on the network; one nick per question, so the oldest question is the
 * one answered. */
static void on_userhost(struct ircad *a, const struct ircad_msg *m)
{
    if (a->nqueries == 0)
        return;
    struct query q = a->queries[a->qhead];
    a->qhead = (a->qhead + 1) % QUERY_MAX;
    a->nqueries--;
    const char *text = m->nparams >= 2 && m->params[m->nparams - 1]
                           ? m->params[m->nparams - 1]
                           : "";
    char entry[NICK_MAX + ID_MAX + 4];
    size_t n = strcspn(text, " ");
    if (n >= sizeof entry)
        n = 0;
    memcpy(entry, text, n);
    entry[n] = '\0';
    char *eq = strchr(entry, '=');
    const char *id = NULL;
    if (eq) {
        *eq = '\0';
        size_t nl = strlen(entry);
        if (nl && entry[nl - 1] == '*')
            entry[nl - 1] = '\0';
        id = eq + 1;
        if (*id == '+' || *id == '-')
            id++;
        const char *at = strchr(id, '@');
        if (!at || at == id || !at[1] || strlen(id) >= ID_MAX ||
            !ircad_name_equal(a->isup.casemap, entry, q.nick))
            id = NULL;
    }
    answered(a, q.kind, q.nick, id);
}

static void registered(struct ircad *a, const struct ircad_msg *m)
{
    if (a->state != ST_CONNECTING)
        return;
    /* 001's first parameter is the nick the server gave us */
    if (m->nparams >= 1 && ircad_nick_valid(m->params[0]) &&
        strlen(m->params[0]) < sizeof a->cur_nick)
        snprintf(a->cur_nick, sizeof a->cur_nick, "%s", m->params[0]);
    a->state = ST_REGISTERED;
    ircad_backoff_reset(&a->backoff);
    a->last_alive = loop_now(a->loop);
    /* a new connection: what the last one told of accounts is stale */
    ircad_accounts_reset(&a->accts, a->isup.casemap);
    log_info("%s: registered as %s", a->name, a->cur_nick);
    /* the password goes only to the services client the config names:
     * first ask the server who "NickServ" is */
    if (*a->nickserv)
        ask_userhost(a, Q_SERVICES, "NickServ");
    join_channels(a, false);
    arm_keepalive(a, a->t.ping_after_ms);
    if (!is_me(a, a->nick))
        arm_regain(a);
    kick(a);
    emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL, NULL);
}

/* 432/433/436/437 before registration: try the next alternative. After
 * it, the refusal answers our regain attempt: keep the nick we have. */
static void nick_refused(struct ircad *a, const struct ircad_msg *m)
{
    if (a->state != ST_CONNECTING) {
        log_debug("%s: nick %s still unavailable", a->name, a->nick);
        return;
    }
    const char *tried =
        m->nparams >= 2 && m->params[1] ? m->params[1] : a->cur_nick;
    if (m->numeric == 432) {
        /* erroneous: most likely too long for a server that does not say
         * its NICKLEN before registration; RFC 1459's 9 is the usual */
        size_t n = strlen(tried);
        size_t limit = n > 9 ? 9 : (n > 4 ? n - 1 : 4);
        if (limit < a->nick_maxlen)
            a->nick_maxlen = limit;
    }
    if (++a->nick_attempt > NICK_ATTEMPTS) {
        drop_link(a, "the server refused every nick we tried");
        return;
    }
    ircad_nick_variant(a->nick, a->nick_attempt,
                       engine_prng_below(&a->rng, 1000), a->nick_maxlen,
                       a->cur_nick, sizeof a->cur_nick);
    log_info("%s: nick %s unavailable, trying %s", a->name, tried, a->cur_nick);
    char line[NICK_MAX + 8];
    snprintf(line, sizeof line, "NICK %s", a->cur_nick);
    push(a, IRCAD_URGENT, line);
}

/* The server's software, from RPL_YOURHOST (002, "... running version
 * X") or RPL_MYINFO (004, "nick server X modes..."): with
 * flood_min_interval_ms = 0 it sets the pacing floor (flood.h). Once per
 * connection; the version is only matched, and logged only as the bytes
 * that are safe in a log line. */
static void server_identified(struct ircad *a, const char *version)
{
    if (a->server_seen || !version || !*version)
        return;
    a->server_seen = true;
    char shown[48];
    size_t n = 0;
    for (const char *c = version; *c && n + 1 < sizeof shown; c++)
        if (isalnum((unsigned char)*c) || strchr(".-_+()/", *c))
            shown[n++] = *c;
    shown[n] = '\0';
    if (a->floor_cfg) {
        log_info("%s: server %s; pacing %lld to %lld ms a line as "
                 "configured (flood_min_interval_ms)",
                 a->name, shown, (long long)a->pace.min_ms,
                 (long long)a->pace.max_ms);
        return;
    }
    struct ircad_flood_server sp;
    ircad_flood_for_server(version, a->flood_interval_ms, &sp);
    ircad_flood_set_floor(&a->pace, sp.floor_ms);
    log_info("%s: server %s is %s: pacing from %lld ms a line down to %lld "
             "while its lag stays low, up to %lld (%s)",
             a->name, shown, sp.server, (long long)a->pace.interval_ms,
             (long long)a->pace.min_ms, (long long)a->pace.max_ms, sp.why);
}

static void on_yourhost(struct ircad *a, const struct ircad_msg *m)
{
    const char *text = m->nparams >= 2 ? m->params[1] : NULL;
    const char *v = text ? strstr(text, "running version ") : NULL;
    if (!v)
        return;
    /* the version is the word after it: "ngircd-26.1 (x86_64/...)" */
    char word[64];
    v += strlen("running version ");
    size_t n = strcspn(v, " ");
    if (n >= sizeof word)
        n = sizeof word - 1;
    memcpy(word, v, n);
    word[n] = '\0';
    server_identified(a, word);
}

static void on_numeric(struct ircad *a, const struct ircad_msg *m)
{
    switch (m->numeric) {
    case 1:
        registered(a, m);
        break;
    case 2:
        if (a->state == ST_REGISTERED)
            on_yourhost(a, m);
        break;
    case 4:
        if (a->state == ST_REGISTERED && m->nparams >= 3)
            server_identified(a, m->params[2]);
        break;
    case 302:
        on_userhost(a, m);
        break;
    case 5: {
        enum ircad_casemap before = a->isup.casemap;
        ircad_isupport_parse(&a->isup, m->params, m->nparams);
        /* names are tracked folded: under another mapping, afresh */
        if (a->isup.casemap != before)
            ircad_accounts_reset(&a->accts, a->isup.casemap);
        if (a->isup.nicklen && a->isup.nicklen < a->nick_maxlen)
            a->nick_maxlen = a->isup.nicklen;
        break;
    }
    case 432:
    case 433:
    case 436:
    case 437:
        nick_refused(a, m);
        break;
    case 471: /* channel is full */
    case 473: /* invite only */
    case 474: /* banned */
    case 475: /* bad key */
    case 477: /* needs a registered nick */
        if (m->nparams >= 2 && m->params[1])
            log_warn("%s: cannot join %s (%03d)", a->name, m->params[1],
                     m->numeric);
        break;
    default:
        break;
    }
}

/* ---- Messages from people ----------------------------------------------- */

/* The sender of a message, as nick and "user@host"; -1 if the origin is
 * a server or malformed (then it is not a person we talk to). */
static int sender(const struct ircad_msg *m, char *nick, char *id)
{
    return ircad_origin_parse(m->origin, nick, NICK_MAX, id, ID_MAX);
}

static void on_privmsg(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (m->nparams < 2 || !m->params[0] || !m->params[1] || !*m->params[0] ||
        !*m->params[1] || sender(m, nick, id) != 0 || is_me(a, nick))
        return;
    const char *target = m->params[0];
    const char *room = NULL;
    if (strchr(a->isup.chantypes, target[0])) {
        room = target;
    } else if (target[0] == '$' ||
               (target[1] && strchr(a->isup.chantypes, target[1]))) {
        /* a server broadcast ($mask) or a message to a channel's ops
         * (@#chan): not a conversation with the bot */
        return;
    }
    /* anything else the server delivered to us is private, even if our
     * idea of our own nick lags behind */
    emit(a, CHAT_MESSAGE, room, nick, id, m->params[1], NULL);
}

static void on_ctcp(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (m->nparams < 1 || !m->params[0] || sender(m, nick, id) != 0 ||
        !ircad_target_valid(nick))
        return;
    char reply[IRCAD_CTCP_ARG_MAX + 64];
    if (ircad_ctcp_reply(m->params[0], CTCP_VERSION, reply, sizeof reply) != 0)
        return;
    if (!ircad_bucket_take(&a->ctcp, loop_now(a->loop))) {
        log_debug("%s: CTCP from %s not answered (rate limit)", a->name, nick);
        return;
    }
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "NOTICE %s :\001%s\001", nick, reply);
    push_to(a, IRCAD_LOW, nick, line);
}

static void on_join(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (m->nparams < 1 || !m->params[0] || !*m->params[0] ||
        sender(m, nick, id) != 0)
        return;
    if (is_me(a, nick)) {
        log_info("%s: joined %s", a->name, m->params[0]);
        mark_joined(a, m->params[0], true);
        if (!is_me(a, a->nick))
            announce_nick(a, m->params[0]);
        return;
    }
    emit(a, CHAT_JOIN, m->params[0], nick, id, NULL, NULL);
}

static void on_part(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (m->nparams < 1 || !m->params[0] || !*m->params[0] ||
        sender(m, nick, id) != 0)
        return;
    if (is_me(a, nick)) {
        log_info("%s: left %s", a->name, m->params[0]);
        mark_joined(a, m->params[0], false);
        return;
    }
    const char *why = m->nparams >= 2 && m->params[1] ? m->params[1] : "";
    emit(a, CHAT_PART, m->params[0], nick, id, why, NULL);
}

static void on_kick_msg(struct ircad *a, const struct ircad_msg *m)
{
    if (m->nparams < 2 || !m->params[0] || !m->params[1] || !*m->params[0] ||
        !*m->params[1] || !m->origin)
        return;
    const char *room = m->params[0];
    const char *victim = m->params[1];
    const char *why = m->nparams >= 3 && m->params[2] ? m->params[2] : "";
    if (is_me(a, victim)) {
        log_warn("%s: kicked from %s (%s); rejoining later", a->name, room,
                 why);
        mark_joined(a, room, false);
        for (int i = 0; i < a->nchannels; i++) {
            if (ircad_name_equal(a->isup.casemap, a->channels[i], room)) {
                a->kicked[i] = true;
                if (!a->t_rejoin)
                    a->t_rejoin =
                        loop_timer(a->loop, a->t.rejoin_ms, on_rejoin, a);
            }
        }
        return;
    }
    /* a server or a service may kick too: then the "nick" is its name */
    char nick[NICK_MAX], id[ID_MAX];
    if (sender(m, nick, id) != 0) {
        if (strlen(m->origin) >= sizeof nick || strchr(m->origin, ' '))
            return;
        snprintf(nick, sizeof nick, "%s", m->origin);
        id[0] = '\0';
    }
    emit(a, CHAT_KICK, room, nick, id, why, victim);
}

static void on_quit(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (sender(m, nick, id) != 0 || is_me(a, nick))
        return;
    squatter_gone(a, nick);
    drop_person(a, nick, "quit");
    const char *why = m->nparams >= 1 && m->params[0] ? m->params[0] : "";
    emit(a, CHAT_QUIT, NULL, nick, id, why, NULL);
}

static void on_nick(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (m->nparams < 1 || !m->params[0] || !*m->params[0] ||
        sender(m, nick, id) != 0)
        return;
    const char *to = m->params[0];
    if (is_me(a, nick)) {
        if (strlen(to) >= sizeof a->cur_nick)
            return;
        snprintf(a->cur_nick, sizeof a->cur_nick, "%s", to);
        log_info("%s: now known as %s", a->name, a->cur_nick);
        if (is_me(a, a->nick)) {
            cancel(a, &a->t_regain);
            if (!ircad_name_equal(a->isup.casemap, nick, a->nick))
                announce_nick(a, NULL);
        } else if (!a->t_regain && a->state == ST_REGISTERED) {
            arm_regain(a);
        }
        return;
    }
    /* before the manager hears of it: what it queues then is for `to` */
    follow_nick(a, nick, to);
    squatter_gone(a, nick);
    emit(a, CHAT_NICK, NULL, nick, id, NULL, to);
}

/* The answer to a lag probe ("PONG server :lag<token>"): only from the
 * server (no user!host origin), only the token in flight counts. */
static void on_pong(struct ircad *a, const struct ircad_msg *m)
{
    if (m->origin && strchr(m->origin, '!'))
        return;
    for (unsigned i = 0; i < m->nparams; i++) {
        const char *p = m->params[i];
        unsigned token;
        char end;
        if (p && strncmp(p, "ka", 2) == 0 &&
            sscanf(p + 2, "%u%c", &token, &end) == 1 && token == a->ka_token &&
            a->ping_sent) {
            a->last_alive = loop_now(a->loop);
            return;
        }
        if (p && strncmp(p, "lag", 3) == 0 &&
            sscanf(p + 3, "%u%c", &token, &end) == 1 &&
            ircad_flood_pong(&a->pace, token, loop_now(a->loop))) {
            /* an answer to our PING: the link is alive too */
            a->last_alive = loop_now(a->loop);
            log_debug("%s: lag probe back after %lld ms", a->name,
                      (long long)(loop_now(a->loop) - a->pace.probe_sent));
            set_interval(a, a->pace.interval_ms);
            return;
        }
    }
}

/* ---- Services accounts ------------------------------------------------ */

/* The index of a configured channel, or -1. */
static int chan_index(const struct ircad *a, const char *room)
{
    for (int i = 0; i < a->nchannels; i++)
        if (ircad_name_equal(a->isup.casemap, a->channels[i], room))
            return i;
    return -1;
}

static bool cap_on(const struct ircad *a, unsigned bit)
{
    return a->conn && ircad_conn_cap(a->conn, bit);
}

/* The account the events of this line carry: a name, or none. */
static void set_ev_account(struct ircad *a, const char *account)
{
    if (account && *account && strcmp(account, "*") != 0 &&
        strlen(account) < sizeof a->ev_account)
        memcpy(a->ev_account, account, strlen(account) + 1);
    else
        a->ev_account[0] = '\0';
}

/* The tracked account of nick as the account events carry. */
static void ev_account_of(struct ircad *a, const char *nick)
{
    const char *acc = NULL;
    if (ircad_accounts_get(&a->accts, nick, &acc) == IRCAD_ACCOUNT_KNOWN)
        set_ev_account(a, acc);
    else
        a->ev_account[0] = '\0';
}

/* Asks for the nick and account of everyone in a channel we joined (the
 * replies are 354s with our token). */
static void ask_whox(struct ircad *a, const char *room)
{
    if (!ircad_target_valid(room) || chan_index(a, room) < 0)
        return;
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "WHO %s %%tcna," WHOX_TOKEN, room);
    push(a, IRCAD_URGENT, line);
}

/* RPL_WHOSPCRPL (354) to our "%tcna": me, token, channel, nick, account
 * ("0": logged out). Anything else is someone else's question or junk. */
static void on_whox(struct ircad *a, const struct ircad_msg *m)
{
    if (m->nparams < 5 || !m->params[1] || !m->params[2] || !m->params[3] ||
        !m->params[4] || strcmp(m->params[1], WHOX_TOKEN) != 0 ||
        !*m->params[3] || is_me(a, m->params[3]))
        return;
    int ch = chan_index(a, m->params[2]);
    if (ch < 0)
        return;
    const char *acc = strcmp(m->params[4], "0") == 0 ? NULL : m->params[4];
    ircad_accounts_join(&a->accts, m->params[3], ch, true, acc);
}

/*
 * What a line tells of accounts before its events go out (extended-join,
 * account-notify, the account tag), and the account those events carry:
 * with account-tag, the line's tag (none: logged out); else what the
 * tracker knows, which account-notify keeps current; else none.
 */
static void accounts_before(struct ircad *a, const struct ircad_msg *m)
{
    a->ev_account[0] = '\0';
    if (m->numeric == 354)
        on_whox(a, m);
    else if (m->numeric == 330 && m->nparams >= 3) /* RPL_WHOISACCOUNT */
        ircad_accounts_set(&a->accts, m->params[1], m->params[2]);
    char nick[NICK_MAX], id[ID_MAX];
    if (m->numeric || sender(m, nick, id) != 0)
        return;
    const char *c = m->command;
    bool me = is_me(a, nick);
    if (strcmp(c, "JOIN") == 0 && m->nparams >= 1 && m->params[0]) {
        if (me && a->isup.whox) {
            ask_whox(a, m->params[0]);
        } else if (!me) {
            bool ext = m->nparams >= 2 && m->params[1] &&
                       cap_on(a, IRCAD_CAP_EXTENDED_JOIN);
            ircad_accounts_join(&a->accts, nick, chan_index(a, m->params[0]),
                                ext, ext ? m->params[1] : NULL);
        }
    } else if (strcmp(c, "ACCOUNT") == 0 && m->nparams >= 1) {
        ircad_accounts_set(&a->accts, nick, m->params[0]);
    }
    if (cap_on(a, IRCAD_CAP_ACCOUNT_TAG)) {
        ircad_accounts_set(&a->accts, nick, m->account);
        set_ev_account(a, m->account);
    } else {
        ev_account_of(a, nick);
    }
}

/* Whether a queue key is a person the bot no longer shares a channel
 * with (it left one): their nick changes go unseen from now on. */
static bool unseen_person(void *ctx, const char *key)
{
    struct ircad *a = ctx;
    return is_person(ctx, key) && !ircad_accounts_seen(&a->accts, key);
}

/* Who left, after the line's events went out: PART, KICK, QUIT, NICK;
 * what waited for a person the bot can no longer follow is dropped. */
static void accounts_after(struct ircad *a, const struct ircad_msg *m)
{
    const char *c = m->command;
    if (strcmp(c, "KICK") == 0 && m->nparams >= 2 && m->params[0] &&
        m->params[1]) {
        int ch = chan_index(a, m->params[0]);
        if (is_me(a, m->params[1])) {
            ircad_accounts_left(&a->accts, ch);
            ircad_queue_clear_targets(&a->q, unseen_person, a);
        } else {
            ircad_accounts_part(&a->accts, m->params[1], ch);
            if (!ircad_accounts_seen(&a->accts, m->params[1]))
                drop_person(a, m->params[1], "left our last shared channel");
        }
        return;
    }
    char nick[NICK_MAX], id[ID_MAX];
    if (m->numeric || sender(m, nick, id) != 0)
        return;
    bool me = is_me(a, nick);
    if (strcmp(c, "PART") == 0 && m->nparams >= 1 && m->params[0]) {
        int ch = chan_index(a, m->params[0]);
        if (me) {
            ircad_accounts_left(&a->accts, ch);
            ircad_queue_clear_targets(&a->q, unseen_person, a);
        } else {
            ircad_accounts_part(&a->accts, nick, ch);
            if (!ircad_accounts_seen(&a->accts, nick))
                drop_person(a, nick, "left our last shared channel");
        }
    } else if (strcmp(c, "QUIT") == 0) {
        ircad_accounts_forget(&a->accts, nick);
    } else if (strcmp(c, "NICK") == 0 && m->nparams >= 1 && m->params[0]) {
        ircad_accounts_rename(&a->accts, nick, m->params[0]);
    }
}

/* ---- Dispatch ---------------------------------------------------------- */

static void dispatch(struct ircad *a, const struct ircad_msg *m)
{
    if (m->numeric) {
        on_numeric(a, m);
        return;
    }
    const char *c = m->command;
    if (strcmp(c, "PRIVMSG") == 0)
        on_privmsg(a, m);
    else if (strcmp(c, "CTCP") == 0)
        on_ctcp(a, m);
    else if (strcmp(c, "JOIN") == 0)
        on_join(a, m);
    else if (strcmp(c, "PART") == 0)
        on_part(a, m);
    else if (strcmp(c, "KICK") == 0)
        on_kick_msg(a, m);
    else if (strcmp(c, "QUIT") == 0)
        on_quit(a, m);
    else if (strcmp(c, "NICK") == 0)
        on_nick(a, m);
    else if (strcmp(c, "PONG") == 0)
        on_pong(a, m);
    else if (strcmp(c, "ERROR") == 0)
        log_warn("%s: server error: %s", a->name,
                 m->nparams >= 1 && m->params[0] ? m->params[0] : "");
    /* NOTICE: never answered, by the protocol's rule; PONG and the rest
     * only count as life on the link (the connection notes the time) */
}

static void on_msg(void *ctx, const struct ircad_msg *m)
{
    struct ircad *a = ctx;
    if (stopping(a) || !m->command)
        return;
    accounts_before(a, m);
    dispatch(a, m);
    accounts_after(a, m);
}

/* ---- The ops ----------------------------------------------------------- */

static int op_start(struct chat_adapter *ca)
{
    struct ircad *a = self(ca);
    if (a->unusable) {
        log_error("%s: not started: the [[irc]] settings cannot work", a->name);
        return -1;
    }
    if (stopping(a)) {
        log_error("%s: start after stop", a->name);
        return -1;
    }
    if (a->state == ST_IDLE)
        connect_now(a);
    return 0;
}

static void on_stop_deadline(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_stop = 0;
    if (a->state == ST_STOPPING && a->conn)
        send_quit(a, true);
}

/* The QUIT goes last, after what was queued before stop() (the manager's
 * goodbyes), paced like the rest; idle() turns true once it is sent and
 * the link closed. */
static void op_stop(struct chat_adapter *ca, const char *goodbye)
{
    struct ircad *a = self(ca);
    if (stopping(a))
        return;
    char reason[400];
    ircad_sanitize(reason, sizeof reason, goodbye ? goodbye : "");
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "QUIT :%s", reason);
    a->quit_line = xstrdup(line);
    cancel(a, &a->t_keepalive);
    cancel(a, &a->t_regain);
    cancel(a, &a->t_rejoin);
    cancel(a, &a->t_reconnect);
    bool up = a->state == ST_REGISTERED;
    if (!a->conn) {
        finish_stop(a);
        return;
    }
    a->state = ST_STOPPING;
    if (!up) {
        /* before registration nothing else may go: QUIT at once */
        send_quit(a, true);
        return;
    }
    /* long help is not worth delaying a shutdown for */
    ircad_queue_clear_prio(&a->q, IRCAD_LOW);
    a->t_stop = loop_timer(a->loop, STOP_GRACE_MS, on_stop_deadline, a);
    log_info("%s: stopping", a->name);
    kick(a);
}

static void queue_text(struct ircad *a, const char *target, const char *text,
                       enum chat_priority prio)
{
    if (stopping(a))
        return;
    struct push_ctx p = {a,
                         prio == CHAT_HIGH     ? IRCAD_HIGH
                         : prio == CHAT_NORMAL ? IRCAD_NORMAL
                                               : IRCAD_LOW,
                         target};
    if (ircad_split("PRIVMSG", target, text, push_line, &p) < 0)
        log_warn("%s: not sending to the invalid target '%s'", a->name,
                 target ? target : "(null)");
}

static void op_say(struct chat_adapter *ca, const char *room, const char *text,
                   enum chat_priority prio)
{
    queue_text(self(ca), room, text, prio);
}

static void op_tell(struct chat_adapter *ca, const char *nick, const char *text,
                    enum chat_priority prio)
{
    queue_text(self(ca), nick, text, prio);
}

static void op_tell_tracked(struct chat_adapter *ca, const char *nick,
                            const char *text, enum chat_priority prio,
                            uint64_t cookie)
{
    struct ircad *a = self(ca);
    if (stopping(a))
        return;
    a->q.last = NULL;
    a->pushed = 0;
    queue_text(a, nick, text, prio);
    if (!ircad_queue_tag_last(&a->q, cookie, a->pushed == 1))
        on_dropped(a, cookie); /* refused: nothing will be written */
}

static bool op_retract(struct chat_adapter *ca, uint64_t cookie)
{
    return ircad_queue_retract(&self(ca)->q, cookie);
}

static void op_verify(struct chat_adapter *ca, const char *nick)
{
    struct ircad *a = self(ca);
    if (a->state == ST_REGISTERED && nick)
        ask_userhost(a, Q_VERIFY, nick);
}

static bool op_same_nick(const struct chat_adapter *ca, const char *x,
                         const char *y)
{
    return ircad_name_equal(cself(ca)->isup.casemap, x, y);
}

/* Names as the server folds them (CASEMAPPING, RFC 1459 until it says):
 * the keys of files and leaderboards. */
static void op_fold(const struct chat_adapter *ca, const char *name, char *out,
                    size_t outlen)
{
    if (outlen > 0)
        ircad_fold(cself(ca)->isup.casemap, name, out, outlen);
}

static bool op_idle(const struct chat_adapter *ca)
{
    const struct ircad *a = cself(ca);
    return a->state != ST_STOPPING && ircad_queue_empty(&a->q);
}

static void op_free(struct chat_adapter *ca)
{
    if (!ca)
        return;
    struct ircad *a = self(ca);
    /* stopping and not done: the QUIT goes now, the rest is dropped */
    if (a->state == ST_STOPPING && a->conn)
        send_quit(a, true);
    cancel_all(a);
    a->state = ST_STOPPED;
    if (a->conn)
        ircad_conn_close(a->conn, false);
    ircad_queue_clear(&a->q);
    free(a->quit_line);
    for (int i = 0; i < a->nchannels; i++)
        free(a->channels[i]);
    free(a->channels);
    free(a->kicked);
    free(a->joined);
    free(a->late);
    ircad_accounts_free(&a->accts);
    free(a->name);
    free(a->host);
    free(a->nick);
    free(a->username);
    free(a->realname);
    free(a->password);
    free(a->nickserv);
    free(a->ns_account);
    free(a->tls_ca);
    free(a->tls_cert);
    free(a->tls_key);
    free(a->sasl_user);
    free(a->sasl_pass);
    free(a->test_resolve);
    free(a->services_mask);
    free(a);
}

/* Only the configured channels: the bot joins no other (an INVITE does
 * not move it). */
static bool op_serves(const struct chat_adapter *ca, const char *room)
{
    return chan_index(cself(ca), room) >= 0;
}

static const struct chat_adapter_ops ops = {
    .start = op_start,
    .stop = op_stop,
    .say = op_say,
    .tell = op_tell,
    .same_nick = op_same_nick,
    .idle = op_idle,
    .free = op_free,
    .verify = op_verify,
    .tell_tracked = op_tell_tracked,
    .fold = op_fold,
    .retract = op_retract,
    .serves = op_serves,
};

/* ---- Construction ------------------------------------------------------ */

/* A seed for the jitter and the nick digits: two bots started together
 * must not retry in step. */
static uint64_t random_seed(const void *salt)
{
    uint64_t seed = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, &seed, sizeof seed);
        close(fd);
        if (n == (ssize_t)sizeof seed)
            return seed;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
           ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)salt;
}

static const struct ircad_timing default_timing = {
    .ping_after_ms = 90000,
    .dead_after_ms = 180000,
    .register_ms = 60000,
    .regain_ms = 60000,
    .rejoin_ms = 30000,
    .backoff_base_ms = IRCAD_BACKOFF_BASE_MS,
    .backoff_cap_ms = IRCAD_BACKOFF_CAP_MS,
};

/* The checks the config reader leaves to the adapter (it checks types,
 * ranges and '%'; the IRC rules for nicks and channels are here). */
static bool config_ok(const struct config_irc *cfg)
{
    const char *name = cfg->name ? cfg->name : "irc";
    if (!cfg->host || !*cfg->host || strchr(cfg->host, ' ')) {
        log_error("%s: no valid host", name);
        return false;
    }
    if (cfg->port <= 0 || cfg->port > 65535) {
        log_error("%s: port %d is out of range", name, cfg->port);
        return false;
    }
    if (!ircad_nick_valid(cfg->nick)) {
        log_error("%s: '%s' is not a valid IRC nick", name,
                  cfg->nick ? cfg->nick : "");
        return false;
    }
    for (int i = 0; i < cfg->nchannels; i++) {
        const char *ch = cfg->channels[i].name;
        if (!ircad_target_valid(ch) || strlen(ch) > 50 ||
            (ch[0] != '#' && ch[0] != '&')) {
            log_error("%s: '%s' is not a valid channel name", name,
                      ch ? ch : "");
            return false;
        }
    }
    return true;
}

struct chat_adapter *ircad_new(struct loop *l, const struct config_irc *cfg,
                               chat_event_fn on_event, void *ctx)
{
    struct ircad *a = calloc(1, sizeof *a);
    if (!a)
        abort();
    a->unusable = !config_ok(cfg);
    a->loop = l;
    a->name = xstrdup(cfg->name && *cfg->name ? cfg->name
                      : cfg->host             ? cfg->host
                                              : "irc");
    a->host = xstrdup(cfg->host);
    a->port = cfg->port;
    a->nick = xstrdup(cfg->nick);
    a->username =
        xstrdup(cfg->username && *cfg->username ? cfg->username : a->nick);
    a->realname =
        xstrdup(cfg->realname && *cfg->realname ? cfg->realname : "Hearts bot");
    a->password = xstrdup(cfg->password);
    /* the password ends up on one line: no CR or LF may reach it */
    char nickserv[256];
    ircad_sanitize(nickserv, sizeof nickserv,
                   cfg->nickserv_password ? cfg->nickserv_password : "");
    a->nickserv = xstrdup(nickserv);
    ircad_sanitize(nickserv, sizeof nickserv,
                   cfg->nickserv_account && *cfg->nickserv_account
                       ? cfg->nickserv_account
                       : a->nick);
    a->ns_account = xstrdup(nickserv);
    a->services_mask = xstrdup(cfg->services_mask && *cfg->services_mask
                                   ? cfg->services_mask
                                   : "NickServ!*@services.*");
    a->tls = cfg->tls;
    a->tls_verify = cfg->tls_verify;
    a->tls_ca = xstrdup(cfg->tls_ca_file);
    a->tls_cert = xstrdup(cfg->tls_cert_file);
    a->tls_key = xstrdup(cfg->tls_key_file);
    const char *mech = cfg->sasl_mechanism ? cfg->sasl_mechanism : "none";
    a->sasl_mech = strcmp(mech, "plain") == 0      ? IRCAD_SASL_PLAIN
                   : strcmp(mech, "external") == 0 ? IRCAD_SASL_EXTERNAL
                                                   : IRCAD_SASL_NONE;
    a->sasl_user = xstrdup(cfg->sasl_username);
    a->sasl_pass = xstrdup(cfg->sasl_password);
    a->sasl_required = cfg->sasl_required;
    a->nchannels = cfg->nchannels;
    if (a->nchannels > 0) {
        a->channels = calloc((size_t)a->nchannels, sizeof *a->channels);
        a->kicked = calloc((size_t)a->nchannels, sizeof *a->kicked);
        a->joined = calloc((size_t)a->nchannels, sizeof *a->joined);
        if (!a->channels || !a->kicked || !a->joined)
            abort();
        for (int i = 0; i < a->nchannels; i++)
            a->channels[i] = xstrdup(cfg->channels[i].name);
    }
    a->flood_burst =
        cfg->flood_burst > 0 ? cfg->flood_burst : IRCAD_FLOOD_BURST;
    a->flood_interval_ms = cfg->flood_interval_ms > 0 ? cfg->flood_interval_ms
                                                      : IRCAD_FLOOD_INTERVAL_MS;
    /* flood_min_interval_ms 0: the floor waits for the server's name */
    a->floor_cfg =
        cfg->flood_min_interval_ms > 0 ? cfg->flood_min_interval_ms : 0;
    ircad_flood_init(&a->pace, a->flood_interval_ms,
                    a->floor_cfg ? a->floor_cfg : a->flood_interval_ms,
                    cfg->flood_max_interval_ms > 0 ? cfg->flood_max_interval_ms
                                                   : a->flood_interval_ms);
    a->t = default_timing;

    int64_t now = loop_now(l);
    ircad_queue_init(&a->q, a->flood_burst, a->flood_interval_ms,
                     IRCAD_QUEUE_MAX_BYTES, now);
    a->q.dropped = on_dropped;
    a->q.dropped_ctx = a;
    ircad_bucket_init(&a->ctcp, CTCP_BURST, CTCP_INTERVAL_MS, now);
    uint64_t seed = random_seed(a);
    ircad_backoff_init(&a->backoff, a->t.backoff_base_ms, a->t.backoff_cap_ms,
                       seed);
    engine_prng_seed(&a->rng, seed ^ 0x9e3779b97f4a7c15u);
    ircad_isupport_init(&a->isup);
    ircad_accounts_init(&a->accts, 0);
    snprintf(a->cur_nick, sizeof a->cur_nick, "%s", a->nick);
    a->state = ST_IDLE;

    a->base.ops = &ops;
    a->base.network = a->name;
    a->base.style = CHAT_STYLE_IRC;
    a->base.on_event = on_event;
    a->base.ctx = ctx;
    return &a->base;
}

const char *ircad_nick(const struct chat_adapter *ca)
{
    return cself(ca)->cur_nick;
}

int64_t ircad_interval_ms(const struct chat_adapter *ca)
{
    return cself(ca)->q.bucket.interval_ms;
}

int64_t ircad_floor_ms(const struct chat_adapter *ca)
{
    return cself(ca)->pace.min_ms;
}

void ircad_set_timing(struct chat_adapter *ca, const struct ircad_timing *t)
{
    struct ircad *a = self(ca);
    a->t = *t;
    a->backoff.base_ms = t->backoff_base_ms > 0 ? t->backoff_base_ms : 1;
    a->backoff.cap_ms = t->backoff_cap_ms >= a->backoff.base_ms
                            ? t->backoff_cap_ms
                            : a->backoff.base_ms;
    ircad_backoff_reset(&a->backoff);
}

void ircad_set_test_resolve(struct chat_adapter *ca, const char *entry)
{
    struct ircad *a = self(ca);
    free(a->test_resolve);
    a->test_resolve = entry ? xstrdup(entry) : NULL;
}
