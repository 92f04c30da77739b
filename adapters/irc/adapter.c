/*
 * The IRC adapter's ops and lifecycle (irc_adapter.h): construction from
 * the config, start, stop, the sending ops, and free. The parts it ties
 * are listed in ircad.h.
 */
#include "adapters/irc/irc_adapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/irc/channels.h"
#include "adapters/irc/identity.h"
#include "adapters/irc/inbound.h"
#include "adapters/irc/invites.h"
#include "adapters/irc/ircad.h"
#include "adapters/irc/link.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/output.h"
#include "adapters/irc/remembered.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

/* CTCP answers: 3 at once, then one per 10 s; a CTCP flood costs us at
 * most that, and the answers go LOW, behind the game. */
#define CTCP_BURST 3
#define CTCP_INTERVAL_MS 10000
/* Invites answered (asked about, joined or refused): 3 at once, then one
 * per 20 s; a flood of invites costs the network a few WHOIS at most. */
#define INVITE_BURST 3
#define INVITE_INTERVAL_MS 20000
/* stop() lets the queue drain this long at most before the QUIT goes
 * anyway (the bot's main loop usually frees the adapter sooner). */
#define STOP_GRACE_MS 10000

static struct ircad *self(struct chat_adapter *ca)
{
    return (struct ircad *)ca;
}

static const struct ircad *cself(const struct chat_adapter *ca)
{
    return (const struct ircad *)ca;
}

/* A copy; NULL becomes "". */
static char *dup_text(const char *s)
{
    return xstrdup(s ? s : "");
}

/* ---- The ops ----------------------------------------------------------- */

static int op_start(struct chat_adapter *ca)
{
    struct ircad *a = self(ca);
    if (a->unusable) {
        log_error("%s: not started: the [[irc]] settings cannot work", a->name);
        return -1;
    }
    if (ircad_stopping(a)) {
        log_error("%s: start after stop", a->name);
        return -1;
    }
    if (a->state == ST_IDLE)
        ircad_link_connect(a);
    return 0;
}

static void on_stop_deadline(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_stop = 0;
    if (a->state == ST_STOPPING && a->conn)
        ircad_out_quit(a, true);
}

/* The QUIT goes last, after what was queued before stop() (the manager's
 * goodbyes), paced like the rest; idle() turns true once it is sent and
 * the link closed. */
static void op_stop(struct chat_adapter *ca, const char *goodbye)
{
    struct ircad *a = self(ca);
    if (ircad_stopping(a))
        return;
    char reason[400];
    ircad_sanitize(reason, sizeof reason, goodbye ? goodbye : "");
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "QUIT :%s", reason);
    a->quit_line = dup_text(line);
    ircad_cancel(a, &a->t_keepalive);
    ircad_cancel(a, &a->t_regain);
    ircad_cancel(a, &a->t_rejoin);
    ircad_cancel(a, &a->t_reconnect);
    bool up = a->state == ST_REGISTERED;
    if (!a->conn) {
        ircad_out_finish_stop(a);
        return;
    }
    a->state = ST_STOPPING;
    if (!up) {
        /* before registration nothing else may go: QUIT at once */
        ircad_out_quit(a, true);
        return;
    }
    /* long help is not worth delaying a shutdown for */
    ircad_queue_clear_prio(&a->q, IRCAD_LOW);
    a->t_stop = loop_timer(a->loop, STOP_GRACE_MS, on_stop_deadline, a);
    log_info("%s: stopping", a->name);
    ircad_out_kick(a);
}

static void op_say(struct chat_adapter *ca, const char *room, const char *text,
                   enum chat_priority prio)
{
    ircad_out_text(self(ca), room, text, prio);
}

static void op_tell(struct chat_adapter *ca, const char *nick, const char *text,
                    enum chat_priority prio)
{
    ircad_out_text(self(ca), nick, text, prio);
}

/* The answer to a person's channel command: a NOTICE, which their client
 * shows where they are looking (or a PRIVMSG if the config says so). */
static void op_notice(struct chat_adapter *ca, const char *nick,
                      const char *text, enum chat_priority prio)
{
    struct ircad *a = self(ca);
    if (a->answer_notice)
        ircad_out_notice(a, nick, text, prio);
    else
        ircad_out_text(a, nick, text, prio);
}

static void op_tell_tracked(struct chat_adapter *ca, const char *nick,
                            const char *text, enum chat_priority prio,
                            uint64_t cookie)
{
    struct ircad *a = self(ca);
    if (ircad_stopping(a))
        return;
    a->q.last = NULL;
    a->pushed = 0;
    ircad_out_text(a, nick, text, prio);
    if (!ircad_queue_tag_last(&a->q, cookie, a->pushed == 1))
        ircad_out_dropped(a, cookie); /* refused: nothing will be written */
}

static bool op_retract(struct chat_adapter *ca, uint64_t cookie)
{
    return ircad_queue_retract(&self(ca)->q, cookie);
}

static void op_verify(struct chat_adapter *ca, const char *nick)
{
    struct ircad *a = self(ca);
    if (a->state == ST_REGISTERED && nick)
        ircad_identity_ask(a, Q_VERIFY, nick);
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
        ircad_out_quit(a, true);
    ircad_cancel_all(a);
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
    free(a->invited);
    free(a->dropped);
    free(a->data_dir);
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

/* The configured channels and those it was invited to (invites.h). */
static bool op_serves(const struct chat_adapter *ca, const char *room)
{
    return ircad_channels_serves(cself(ca), room);
}

static void op_ask_operator(struct chat_adapter *ca, const char *room,
                            const struct chat_user *u)
{
    struct ircad *a = self(ca);
    if (a->state == ST_REGISTERED && room && u && u->nick && u->id)
        ircad_invites_ask_operator(a, room, u->nick, u->id);
}

static void op_part(struct chat_adapter *ca, const char *room,
                    const char *goodbye)
{
    struct ircad *a = self(ca);
    if (!ircad_stopping(a) && room)
        ircad_channels_part(a, room, goodbye);
}

/* Seen joining or in the channel's NAMES or WHO replies, and not seen
 * leaving (accounts.h). */
static bool op_present(struct chat_adapter *ca, const char *room,
                       const char *nick)
{
    struct ircad *a = self(ca);
    int ch = room && nick ? ircad_channels_index(a, room) : -1;
    return ch >= 0 && ircad_accounts_in(&a->accts, nick, ch);
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
    .notice = op_notice,
    .ask_operator = op_ask_operator,
    .part = op_part,
    .present = op_present,
};

/* ---- Construction ------------------------------------------------------ */

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
static bool config_ok(const struct irc_config *cfg)
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
        if (!ircad_channel_name_ok(ch, "#&")) {
            log_error("%s: '%s' is not a valid channel name", name,
                      ch ? ch : "");
            return false;
        }
    }
    return true;
}

struct chat_adapter *ircad_new(struct loop *l, const struct irc_config *cfg,
                               chat_event_fn on_event, void *ctx)
{
    struct ircad *a = xcalloc(1, sizeof *a);
    a->unusable = !config_ok(cfg);
    a->loop = l;
    a->name = dup_text(cfg->name && *cfg->name ? cfg->name
                       : cfg->host             ? cfg->host
                                               : "irc");
    a->host = dup_text(cfg->host);
    a->port = cfg->port;
    a->nick = dup_text(cfg->nick);
    a->username =
        dup_text(cfg->username && *cfg->username ? cfg->username : a->nick);
    /* the realname names who runs the bot, where the config says */
    const char *real =
        cfg->realname && *cfg->realname ? cfg->realname : "Hearts bot";
    if (cfg->admin_contact && *cfg->admin_contact) {
        char both[400];
        snprintf(both, sizeof both, "%s (admin: %s)", real, cfg->admin_contact);
        a->realname = dup_text(both);
    } else {
        a->realname = dup_text(real);
    }
    a->password = dup_text(cfg->password);
    /* the password ends up on one line: no CR or LF may reach it */
    char nickserv[256];
    ircad_sanitize(nickserv, sizeof nickserv,
                   cfg->nickserv_password ? cfg->nickserv_password : "");
    a->nickserv = dup_text(nickserv);
    ircad_sanitize(nickserv, sizeof nickserv,
                   cfg->nickserv_account && *cfg->nickserv_account
                       ? cfg->nickserv_account
                       : a->nick);
    a->ns_account = dup_text(nickserv);
    a->services_mask = dup_text(cfg->services_mask && *cfg->services_mask
                                    ? cfg->services_mask
                                    : "NickServ!*@services.*");
    a->tls = cfg->tls;
    a->tls_verify = cfg->tls_verify;
    a->tls_ca = dup_text(cfg->tls_ca_file);
    a->tls_cert = dup_text(cfg->tls_cert_file);
    a->tls_key = dup_text(cfg->tls_key_file);
    const char *mech = cfg->sasl_mechanism ? cfg->sasl_mechanism : "none";
    a->sasl_mech = strcmp(mech, "plain") == 0      ? IRCAD_SASL_PLAIN
                   : strcmp(mech, "external") == 0 ? IRCAD_SASL_EXTERNAL
                                                   : IRCAD_SASL_NONE;
    a->sasl_user = dup_text(cfg->sasl_username);
    a->sasl_pass = dup_text(cfg->sasl_password);
    a->sasl_required = cfg->sasl_required;
    a->answer_notice = !cfg->answers || strcmp(cfg->answers, "privmsg") != 0;
    for (int i = 0; i < cfg->nchannels; i++)
        if (ircad_channels_add(a, cfg->channels[i].name, false) < 0) {
            log_error("%s: more than %d channels", a->name, CHANNELS_MAX);
            a->unusable = true;
            break;
        }
    a->invites = !cfg->invites                      ? INVITES_ADMINS
                 : strcmp(cfg->invites, "off") == 0 ? INVITES_OFF
                 : strcmp(cfg->invites, "ops") == 0 ? INVITES_OPS
                                                    : INVITES_ADMINS;
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
    a->q.dropped = ircad_out_dropped;
    a->q.dropped_ctx = a;
    bucket_init(&a->ctcp, CTCP_BURST, CTCP_INTERVAL_MS, now);
    bucket_init(&a->invite_rate, INVITE_BURST, INVITE_INTERVAL_MS, now);
    /* two bots started together must not retry in step */
    uint64_t seed = random_os_seed(a);
    ircad_backoff_init(&a->backoff, a->t.backoff_base_ms, a->t.backoff_cap_ms,
                       seed);
    random_init(&a->rng, seed ^ 0x9e3779b97f4a7c15u);
    ircad_isupport_init(&a->isup);
    ircad_accounts_init(&a->accts, 0);
    snprintf(a->cur_nick, sizeof a->cur_nick, "%s", a->nick);
    a->state = ST_IDLE;
    a->on_line = ircad_inbound_line;

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

void ircad_reload_channels(struct chat_adapter *ca,
                           const struct irc_config *cfg,
                           bool (*busy)(void *ctx, struct chat_adapter *a,
                                        const char *room),
                           void *ctx)
{
    struct ircad *a = self(ca);
    if (ircad_stopping(a) || a->unusable)
        return;
    bool save = false;
    for (int k = 0; k < cfg->nchannels; k++) {
        const char *room = cfg->channels[k].name;
        if (!ircad_channel_name_ok(room, "#&"))
            continue;
        int i = ircad_channels_index(a, room);
        if (i >= 0 && !a->dropped[i]) {
            save |= a->invited[i];
            a->invited[i] = false; /* configured now */
            continue;
        }
        if (i >= 0) {
            a->dropped[i] = a->invited[i] = false;
        } else if (ircad_channels_add(a, room, false) < 0) {
            log_warn("%s: reload: more than %d channels, %s not joined",
                     a->name, CHANNELS_MAX, room);
            continue;
        }
        log_info("%s: reload: joining %s", a->name, room);
        if (a->state == ST_REGISTERED) {
            char line[IRCAD_LINE_MAX];
            snprintf(line, sizeof line, "JOIN %s", room);
            ircad_out_push(a, IRCAD_URGENT, line);
        }
    }
    if (save)
        ircad_remembered_save(a);
    for (int i = 0; i < a->nchannels; i++) {
        if (a->dropped[i] || a->invited[i])
            continue;
        bool kept = false;
        for (int k = 0; k < cfg->nchannels && !kept; k++)
            kept = ircad_name_equal(a->isup.casemap, a->channels[i],
                                    cfg->channels[k].name);
        if (kept)
            continue;
        if (busy && busy(ctx, ca, a->channels[i])) {
            log_warn("%s: reload: %s is no longer configured, but a game is "
                     "on there: staying until the next start",
                     a->name, a->channels[i]);
            continue;
        }
        log_info("%s: reload: leaving %s", a->name, a->channels[i]);
        char bye[300];
        struct strbuf sb;
        strbuf_init(&sb, bye, sizeof bye);
        msg_add(&sb, a->base.lang,
                M("Goodbye! The people who run me took this channel out of "
                  "my configuration."),
                MSG_END);
        ircad_out_text(a, a->channels[i], bye, CHAT_NORMAL);
        ircad_channels_part(a, a->channels[i], bye);
    }
}

void ircad_set_data_dir(struct chat_adapter *ca, const char *data_dir)
{
    ircad_remembered_load(self(ca), data_dir);
}

void ircad_set_test_resolve(struct chat_adapter *ca, const char *entry)
{
    struct ircad *a = self(ca);
    free(a->test_resolve);
    a->test_resolve = entry ? dup_text(entry) : NULL;
}
