/*
 * The IRC command table and messages from people (inbound.h).
 */
#include "adapters/irc/inbound.h"

#include <stdio.h>
#include <string.h>

#include "adapters/irc/channels.h"
#include "adapters/irc/ctcp.h"
#include "adapters/irc/identity.h"
#include "adapters/irc/invites.h"
#include "adapters/irc/ircad.h"
#include "adapters/irc/output.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"

/* What CTCP VERSION answers (rate-limited by a->ctcp; the answers go LOW,
 * behind the game). */
#define CTCP_VERSION "heartsbot (a Hearts card game bot)"

/* ---- Messages from people ---------------------------------------------- */

static void on_privmsg(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (!m->params[0] || !m->params[1] || !*m->params[0] || !*m->params[1] ||
        ircad_sender(m, nick, id) != 0 || ircad_is_me(a, nick))
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
    ircad_emit(a, CHAT_MESSAGE, room, nick, id, m->params[1], NULL);
}

static void on_ctcp(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (!m->params[0] || ircad_sender(m, nick, id) != 0 ||
        !ircad_target_valid(nick))
        return;
    char reply[IRCAD_CTCP_ARG_MAX + 64];
    if (ircad_ctcp_reply(m->params[0], CTCP_VERSION, reply, sizeof reply) != 0)
        return;
    if (!bucket_take(&a->ctcp, loop_now(a->loop))) {
        log_debug("%s: CTCP from %s not answered (rate limit)", a->name, nick);
        return;
    }
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "NOTICE %s :\001%s\001", nick, reply);
    ircad_out_push_to(a, IRCAD_LOW, nick, line);
}

static void on_quit(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0 || ircad_is_me(a, nick))
        return;
    ircad_identity_squatter_gone(a, nick);
    ircad_out_drop_person(a, nick, "quit");
    const char *why = m->nparams >= 1 && m->params[0] ? m->params[0] : "";
    ircad_emit(a, CHAT_QUIT, NULL, nick, id, why, NULL);
}

static void on_nick(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (!m->params[0] || !*m->params[0] || ircad_sender(m, nick, id) != 0)
        return;
    const char *to = m->params[0];
    if (ircad_is_me(a, nick)) {
        ircad_identity_renamed(a, nick, to);
        return;
    }
    /* before the manager hears of it: what it queues then is for `to` */
    ircad_out_follow_nick(a, nick, to);
    ircad_identity_squatter_gone(a, nick);
    ircad_emit(a, CHAT_NICK, NULL, nick, id, NULL, to);
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
            ircad_out_set_interval(a, a->pace.interval_ms);
            return;
        }
    }
}

static void on_error(struct ircad *a, const struct ircad_msg *m)
{
    log_warn("%s: server error: %s", a->name,
             m->nparams >= 1 && m->params[0] ? m->params[0] : "");
}

/* ---- The table --------------------------------------------------------- */

/* NOTICE is not here: never answered, by the protocol's rule; it, PING
 * and the rest only count as life on the link (the connection notes the
 * time, and answers PING itself). */
static const struct ircad_command commands[] = {
    /* name, fewest parameters, track, handle, after */
    {"PRIVMSG", 2, NULL, on_privmsg, NULL},
    {"CTCP", 1, NULL, on_ctcp, NULL},
    {"JOIN", 1, ircad_channels_track_join, ircad_channels_on_join, NULL},
    {"PART", 1, NULL, ircad_channels_on_part, ircad_channels_after_part},
    {"KICK", 2, NULL, ircad_channels_on_kick, ircad_channels_after_kick},
    {"QUIT", 0, NULL, on_quit, ircad_channels_after_quit},
    {"NICK", 1, NULL, on_nick, ircad_channels_after_nick},
    {"ACCOUNT", 1, ircad_channels_track_account, NULL, NULL},
    {"INVITE", 2, NULL, ircad_invites_on_invite, NULL},
    {"PONG", 0, NULL, on_pong, NULL},
    {"ERROR", 0, NULL, on_error, NULL},
    {"001", 0, NULL, ircad_identity_welcome, NULL},
    {"002", 2, NULL, ircad_identity_yourhost, NULL},
    {"004", 3, NULL, ircad_identity_myinfo, NULL},
    {"005", 0, NULL, ircad_identity_isupport, NULL},
    {"302", 0, NULL, ircad_identity_userhost, NULL},
    {"318", 2, NULL, ircad_invites_whois_end, NULL},
    {"319", 3, NULL, ircad_invites_whois_channels, NULL},
    {"330", 3, ircad_channels_track_whois, NULL, NULL},
    {"353", 4, ircad_channels_track_names, NULL, NULL},
    {"354", 5, ircad_channels_track_whox, NULL, NULL},
    {"401", 2, NULL, ircad_invites_whois_end, NULL},
    {"432", 0, NULL, ircad_identity_nick_refused, NULL},
    {"433", 0, NULL, ircad_identity_nick_refused, NULL},
    {"436", 0, NULL, ircad_identity_nick_refused, NULL},
    {"437", 0, NULL, ircad_identity_nick_refused, NULL},
    {"471", 2, NULL, ircad_channels_refused, NULL}, /* channel is full */
    {"473", 2, NULL, ircad_channels_refused, NULL}, /* invite only */
    {"474", 2, NULL, ircad_channels_refused, NULL}, /* banned */
    {"475", 2, NULL, ircad_channels_refused, NULL}, /* bad key */
    {"477", 2, NULL, ircad_channels_refused, NULL}, /* registered only */
};

const struct ircad_command *ircad_inbound_find(const char *command)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, command) == 0)
            return &commands[i];
    return NULL;
}

void ircad_inbound_line(void *ctx, const struct ircad_msg *m)
{
    struct ircad *a = ctx;
    if (ircad_stopping(a) || !m->command)
        return;
    const struct ircad_command *c = ircad_inbound_find(m->command);
    if (c && m->nparams < c->min_params) {
        log_debug("%s: %s with %u parameter(s) ignored (it needs %u)", a->name,
                  m->command, m->nparams, c->min_params);
        c = NULL;
    }
    if (c && c->track)
        c->track(a, m);
    ircad_channels_line_account(a, m);
    if (c && c->handle)
        c->handle(a, m);
    if (c && c->after)
        c->after(a, m);
}
