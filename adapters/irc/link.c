/*
 * The IRC adapter's link: connect, keep-alive, loss, reconnect (link.h).
 */
#include "adapters/irc/link.h"

#include <stdio.h>

#include "adapters/irc/ircad.h"
#include "adapters/irc/output.h"
#include "bot/common/log.h"

static void on_reconnect(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_reconnect = 0;
    if (a->state == ST_WAITING)
        ircad_link_connect(a);
}

static void schedule_reconnect(struct ircad *a)
{
    a->state = ST_WAITING;
    int64_t d = ircad_backoff_next(&a->backoff);
    log_info("%s: reconnecting in %lld ms", a->name, (long long)d);
    ircad_cancel(a, &a->t_reconnect);
    a->t_reconnect = loop_timer(a->loop, d, on_reconnect, a);
}

/* The link is gone (the connection is already closed and freed).
 * `permanent`: no retry can help until the config changes. */
static void lost(struct ircad *a, const char *why, bool permanent)
{
    bool was_up = a->state == ST_REGISTERED;
    a->conn = NULL;
    ircad_cancel(a, &a->t_kick);
    ircad_cancel(a, &a->t_refill);
    ircad_cancel(a, &a->t_keepalive);
    ircad_cancel(a, &a->t_regain);
    ircad_cancel(a, &a->t_rejoin);
    /* PINGs, NICKs and JOINs belonged to that connection; the chat waits
     * for the next one */
    ircad_queue_clear_prio(&a->q, IRCAD_URGENT);
    /* lines to people wait for no reconnect: whoever holds a nick then
     * may be someone else (the core confirms its players first) */
    ircad_queue_clear_targets(&a->q, ircad_is_person, a);
    a->qhead = a->nqueries = 0;
    for (int i = 0; i < a->nchannels; i++)
        a->kicked[i] = a->joined[i] = false;
    if (a->state == ST_STOPPED)
        return;
    if (a->state == ST_STOPPING) {
        log_info("%s: disconnected while stopping: %s", a->name, why);
        ircad_out_finish_stop(a);
        return;
    }
    if (permanent) {
        log_error("%s: %s; not connecting again (fix the config and "
                  "restart the bot)",
                  a->name, why);
        ircad_cancel_all(a);
        a->state = ST_WAITING;
        if (was_up)
            ircad_emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, why, NULL);
        return;
    }
    log_warn("%s: disconnected: %s", a->name, why);
    schedule_reconnect(a);
    if (was_up)
        ircad_emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, why, NULL);
}

static void on_closed(void *ctx, const char *why, bool permanent)
{
    lost(ctx, why, permanent);
}

void ircad_link_drop(struct ircad *a, const char *why)
{
    ircad_conn_close(a->conn, false);
    lost(a, why, false);
}

static void on_keepalive(struct loop *l, void *ctx);

void ircad_link_arm_keepalive(struct ircad *a, int64_t ms)
{
    ircad_cancel(a, &a->t_keepalive);
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
            ircad_link_drop(a, "registration timed out");
        else
            ircad_link_arm_keepalive(a, left);
        return;
    }
    int64_t quiet = now - a->last_alive;
    if (quiet >= a->t.dead_after_ms) {
        char why[96];
        snprintf(why, sizeof why,
                 "ping timeout: no answer to our PING for %lld s",
                 (long long)(quiet / 1000));
        ircad_link_drop(a, why);
        return;
    }
    if (quiet >= a->t.ping_after_ms) {
        if (a->ping_sent <= a->last_alive) {
            char line[32];
            snprintf(line, sizeof line, "PING :ka%u", ++a->ka_token);
            ircad_out_push(a, IRCAD_URGENT, line);
            a->ping_sent = now;
        }
        ircad_link_arm_keepalive(a, a->last_alive + a->t.dead_after_ms - now);
    } else {
        ircad_link_arm_keepalive(a, a->last_alive + a->t.ping_after_ms - now);
    }
}

void ircad_link_connect(struct ircad *a)
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
    struct ircad_conn_handlers h = {.msg = a->on_line,
                                    .closed = on_closed,
                                    .drain = ircad_out_drain,
                                    .ctx = a};
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
    bucket_init(&a->q.bucket, a->flood_burst, a->pace.interval_ms, now);
    /* until the server says what it is, the configured pace is the floor
     * (another server may answer on the same address after a restart) */
    a->server_seen = false;
    if (!a->floor_cfg)
        ircad_flood_set_floor(&a->pace, a->flood_interval_ms);
    ircad_link_arm_keepalive(a, a->t.register_ms);
}
