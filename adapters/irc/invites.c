/*
 * Invites, the channels they brought, and the bot mode (invites.h).
 */
#include "adapters/irc/invites.h"

#include <stdio.h>
#include <string.h>

#include "adapters/irc/channels.h"
#include "adapters/irc/ircad.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/output.h"
#include "adapters/irc/remembered.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"

/* A WHOIS unanswered this long is dropped (the server lost it). */
#define ASK_TIMEOUT_MS 60000

/* Tells the inviter why not (a NOTICE: never answered), and the log. */
static void refuse(struct ircad *a, const char *nick, const char *room,
                   const char *why, const char *id)
{
    log_info("%s: invite to %s from %s refused: %s", a->name, room, nick, why);
    char text[600];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, a->base.lang, id, MSG_S("channel", room), MSG_END);
    ircad_out_notice(a, nick, text, CHAT_LOW);
}

/* Joins `room`, remembered as invited unless it is configured. */
static void accept(struct ircad *a, const char *nick, const char *room,
                   const char *as)
{
    int i = ircad_channels_index(a, room);
    if (i >= 0 && a->dropped[i]) {
        /* left by a !part before: back, as invited */
        a->dropped[i] = false;
        a->invited[i] = true;
        ircad_remembered_save(a);
    } else if (i < 0) {
        i = ircad_channels_add(a, room, true);
        if (i < 0) {
            refuse(a, nick, room, "too many channels",
                   M("I am in too many channels on this network to join "
                     "{channel} too."));
            return;
        }
        ircad_remembered_save(a);
    }
    log_info("%s: invited to %s by %s (%s): joining", a->name, room, nick, as);
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "JOIN %s", room);
    ircad_out_push(a, IRCAD_URGENT, line);
}

/* Drops questions the server never answered. */
static void expire_asks(struct ircad *a)
{
    int64_t now = loop_now(a->loop);
    int k = 0;
    for (int i = 0; i < a->nasks; i++)
        if (now - a->asks[i].asked < ASK_TIMEOUT_MS)
            a->asks[k++] = a->asks[i];
        else
            log_warn("%s: no answer to the WHOIS of %s (invite to %s)", a->name,
                     a->asks[i].nick, a->asks[i].room);
    a->nasks = k;
}

/* Asks the server whether `nick` is an operator of `room` (WHOIS), for
 * an invite or a !part; a question already asked is not asked again. */
static void ask(struct ircad *a, bool leave, const char *nick, const char *id,
                const char *room)
{
    expire_asks(a);
    for (int k = 0; k < a->nasks; k++)
        if (a->asks[k].leave == leave &&
            ircad_name_equal(a->isup.casemap, a->asks[k].nick, nick) &&
            ircad_name_equal(a->isup.casemap, a->asks[k].room, room))
            return; /* asked already */
    if (a->nasks == INVITE_ASKS_MAX) {
        log_info("%s: %s %s from %s ignored: %d WHOIS in flight", a->name,
                 leave ? "!part in" : "invite to", room, nick, INVITE_ASKS_MAX);
        return;
    }
    struct invite_ask *q = &a->asks[a->nasks++];
    q->leave = leave;
    snprintf(q->nick, sizeof q->nick, "%s", nick);
    snprintf(q->id, sizeof q->id, "%s", id);
    snprintf(q->room, sizeof q->room, "%s", room);
    q->op = false;
    q->asked = loop_now(a->loop);
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "WHOIS %s", nick);
    ircad_out_push(a, IRCAD_URGENT, line);
}

void ircad_invites_on_invite(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    const char *room = m->params[1];
    /* invite-notify tells of invites of others too */
    if (!m->params[0] || !room || !ircad_is_me(a, m->params[0]) ||
        ircad_sender(m, nick, id) != 0 || ircad_is_me(a, nick))
        return;
    if (!ircad_channel_name_ok(room, a->isup.chantypes)) {
        log_info("%s: invite from %s to a channel name the bot does not "
                 "join: ignored",
                 a->name, nick);
        return;
    }
    int i = ircad_channels_index(a, room);
    if (i >= 0 && a->joined[i] && !a->dropped[i])
        return;
    if (!bucket_take(&a->invite_rate, loop_now(a->loop))) {
        log_info("%s: invite to %s from %s ignored: too many invites", a->name,
                 room, nick);
        return;
    }
    if (a->invites == INVITES_OFF) {
        refuse(a, nick, room, "invites = \"off\"",
               M("I join only the channels my configuration names, so not "
                 "{channel}: ask the people who run me."));
        return;
    }
    struct chat_user u = {.nick = nick,
                          .id = id,
                          .account = a->ev_account[0] ? a->ev_account : NULL};
    if (a->base.is_admin && a->base.is_admin(a->base.ctx, &u)) {
        accept(a, nick, room, "a bot admin");
        return;
    }
    if (a->invites == INVITES_ADMINS) {
        refuse(a, nick, room, "not a bot admin (invites = \"admins\")",
               M("I join {channel} only when one of the people who run me "
                 "invites me."));
        return;
    }
    ask(a, false, nick, id, room);
}

void ircad_invites_ask_operator(struct ircad *a, const char *room,
                                const char *nick, const char *id)
{
    if (!ircad_channels_serves(a, room) || !ircad_target_valid(nick) ||
        strlen(nick) >= NICK_MAX || strlen(id) >= ID_MAX)
        return;
    /* the same budget as invites: a flood of !part costs a few WHOIS */
    if (!bucket_take(&a->invite_rate, loop_now(a->loop))) {
        log_info("%s: !part in %s from %s ignored: too many questions", a->name,
                 room, nick);
        return;
    }
    ask(a, true, nick, id, room);
}

void ircad_invites_whois_channels(struct ircad *a, const struct ircad_msg *m)
{
    const char *nick = m->params[1], *list = m->params[2];
    if (!nick || !list)
        return;
    for (int k = 0; k < a->nasks; k++) {
        struct invite_ask *q = &a->asks[k];
        if (q->op || !ircad_name_equal(a->isup.casemap, q->nick, nick))
            continue;
        const char *p = list;
        while (*p && !q->op) {
            size_t n = strcspn(p, " ");
            char word[IRCAD_LINE_MAX];
            if (n < sizeof word) {
                memcpy(word, p, n);
                word[n] = '\0';
                q->op = ircad_isupport_is_op(&a->isup, word, q->room);
            }
            p += n;
            p += strspn(p, " ");
        }
    }
}

void ircad_invites_whois_end(struct ircad *a, const struct ircad_msg *m)
{
    const char *nick = m->params[1];
    if (!nick)
        return;
    /* taken out first: accepting may add a channel, refusing queues */
    struct invite_ask done[INVITE_ASKS_MAX];
    int nd = 0, k = 0;
    for (int i = 0; i < a->nasks; i++) {
        if (ircad_name_equal(a->isup.casemap, a->asks[i].nick, nick))
            done[nd++] = a->asks[i];
        else
            a->asks[k++] = a->asks[i];
    }
    a->nasks = k;
    for (int i = 0; i < nd; i++) {
        if (done[i].leave) {
            if (m->numeric != 401)
                ircad_emit(a, CHAT_OPERATOR, done[i].room, done[i].nick,
                           done[i].id, done[i].op ? "yes" : NULL, NULL);
            continue;
        }
        if (m->numeric == 401)
            log_info("%s: invite to %s from %s dropped: gone from the network",
                     a->name, done[i].room, done[i].nick);
        else if (done[i].op)
            accept(a, done[i].nick, done[i].room, "a channel operator there");
        else
            refuse(a, done[i].nick, done[i].room,
                   "not seen as a channel operator there",
                   M("I join {channel} only when one of its channel "
                     "operators invites me, and the server does not show "
                     "me that you are one."));
    }
}

void ircad_invites_reset(struct ircad *a)
{
    a->nasks = 0;
    a->bot_mode_set = false;
}

void ircad_invites_bot_mode(struct ircad *a)
{
    if (a->bot_mode_set || !a->isup.bot_mode || a->state != ST_REGISTERED)
        return;
    a->bot_mode_set = true;
    char line[NICK_MAX + 16];
    snprintf(line, sizeof line, "MODE %s +%c", a->cur_nick, a->isup.bot_mode);
    ircad_out_push(a, IRCAD_URGENT, line);
    log_info("%s: marking the bot as a bot (user mode +%c)", a->name,
             a->isup.bot_mode);
}
