/*
 * The IRC adapter's channels and members (channels.h).
 */
#include "adapters/irc/channels.h"

#include <stdio.h>
#include <string.h>

#include "adapters/irc/ircad.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/output.h"
#include "adapters/irc/remembered.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

/* A JOIN line carries channels up to this many bytes. */
#define JOIN_LINE_MAX 400
/* The WHOX query type of our "WHO #chan %tcna,417": replies with another
 * token answer someone else's question. */
#define WHOX_TOKEN "417"

bool ircad_channel_name_ok(const char *name, const char *types)
{
    return ircad_target_valid(name) && strlen(name) <= CHANNEL_NAME_MAX &&
           strchr(types, name[0]);
}

int ircad_channels_index(const struct ircad *a, const char *room)
{
    for (int i = 0; i < a->nchannels; i++)
        if (ircad_name_equal(a->isup.casemap, a->channels[i], room))
            return i;
    return -1;
}

int ircad_channels_add(struct ircad *a, const char *room, bool invited)
{
    if (a->nchannels >= CHANNELS_MAX)
        return -1;
    if (a->nchannels == a->capchannels) {
        int cap = a->capchannels ? 2 * a->capchannels : 8;
        if (cap > CHANNELS_MAX)
            cap = CHANNELS_MAX;
        a->channels = xrealloc(a->channels, (size_t)cap * sizeof *a->channels);
        a->kicked = xrealloc(a->kicked, (size_t)cap * sizeof *a->kicked);
        a->joined = xrealloc(a->joined, (size_t)cap * sizeof *a->joined);
        a->invited = xrealloc(a->invited, (size_t)cap * sizeof *a->invited);
        a->dropped = xrealloc(a->dropped, (size_t)cap * sizeof *a->dropped);
        a->capchannels = cap;
    }
    int i = a->nchannels++;
    a->channels[i] = xstrdup(room);
    a->kicked[i] = a->joined[i] = false;
    a->invited[i] = invited;
    a->dropped[i] = false;
    return i;
}

bool ircad_channels_serves(const struct ircad *a, const char *room)
{
    int i = ircad_channels_index(a, room);
    return i >= 0 && !a->dropped[i];
}

void ircad_channels_part(struct ircad *a, const char *room, const char *why)
{
    int i = ircad_channels_index(a, room);
    if (i < 0 || a->dropped[i])
        return;
    bool invited = a->invited[i];
    a->dropped[i] = true;
    a->invited[i] = a->kicked[i] = false;
    if (invited)
        ircad_remembered_save(a);
    char reason[300];
    ircad_sanitize(reason, sizeof reason, why ? why : "");
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "PART %s :%s", a->channels[i], reason);
    /* in the channel's queue: after what was said there */
    ircad_out_push_to(a, IRCAD_NORMAL, a->channels[i], line);
}

/* Notes whether we are in a configured channel. */
static void mark_joined(struct ircad *a, const char *room, bool in)
{
    for (int i = 0; i < a->nchannels; i++)
        if (ircad_name_equal(a->isup.casemap, a->channels[i], room))
            a->joined[i] = in;
}

void ircad_channels_announce_nick(struct ircad *a, const char *room)
{
    char text[3 * NICK_MAX + 120];
    if (ircad_is_me(a, a->nick))
        snprintf(text, sizeof text,
                 "I have my nick back: talk to me as /msg %s again.",
                 a->cur_nick);
    else
        snprintf(text, sizeof text,
                 "I am %s for now (%s is taken): talk to me as /msg %s, "
                 "not %s.",
                 a->cur_nick, a->nick, a->cur_nick, a->nick);
    if (room) {
        ircad_out_text(a, room, text, CHAT_NORMAL);
        return;
    }
    for (int i = 0; i < a->nchannels; i++)
        if (a->joined[i])
            ircad_out_text(a, a->channels[i], text, CHAT_NORMAL);
}

void ircad_channels_join(struct ircad *a, bool only_kicked)
{
    char line[JOIN_LINE_MAX + NICK_MAX];
    size_t n = 0;
    for (int i = 0; i < a->nchannels; i++) {
        if ((only_kicked && !a->kicked[i]) || a->dropped[i])
            continue;
        a->kicked[i] = false;
        size_t len = strlen(a->channels[i]);
        if (n && n + 1 + len > JOIN_LINE_MAX) {
            ircad_out_push(a, IRCAD_URGENT, line);
            n = 0;
        }
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s",
                              n ? "," : "JOIN ", a->channels[i]);
    }
    if (n)
        ircad_out_push(a, IRCAD_URGENT, line);
}

static void on_rejoin(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_rejoin = 0;
    if (a->state == ST_REGISTERED)
        ircad_channels_join(a, true);
}

/* ---- Events ------------------------------------------------------------ */

void ircad_channels_on_join(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (!m->params[0] || !*m->params[0] || ircad_sender(m, nick, id) != 0)
        return;
    if (ircad_is_me(a, nick)) {
        log_info("%s: joined %s", a->name, m->params[0]);
        mark_joined(a, m->params[0], true);
        if (!ircad_is_me(a, a->nick))
            ircad_channels_announce_nick(a, m->params[0]);
        return;
    }
    ircad_emit(a, CHAT_JOIN, m->params[0], nick, id, NULL, NULL);
}

void ircad_channels_on_part(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (!m->params[0] || !*m->params[0] || ircad_sender(m, nick, id) != 0)
        return;
    if (ircad_is_me(a, nick)) {
        log_info("%s: left %s", a->name, m->params[0]);
        mark_joined(a, m->params[0], false);
        return;
    }
    const char *why = m->nparams >= 2 && m->params[1] ? m->params[1] : "";
    ircad_emit(a, CHAT_PART, m->params[0], nick, id, why, NULL);
}

void ircad_channels_on_kick(struct ircad *a, const struct ircad_msg *m)
{
    if (!m->params[0] || !m->params[1] || !*m->params[0] || !*m->params[1] ||
        !m->origin)
        return;
    const char *room = m->params[0];
    const char *victim = m->params[1];
    const char *why = m->nparams >= 3 && m->params[2] ? m->params[2] : "";
    if (ircad_is_me(a, victim)) {
        log_warn("%s: kicked from %s (%s); rejoining later", a->name, room,
                 why);
        mark_joined(a, room, false);
        for (int i = 0; i < a->nchannels; i++) {
            if (ircad_name_equal(a->isup.casemap, a->channels[i], room) &&
                !a->dropped[i]) {
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
    if (ircad_sender(m, nick, id) != 0) {
        if (strlen(m->origin) >= sizeof nick || strchr(m->origin, ' '))
            return;
        snprintf(nick, sizeof nick, "%s", m->origin);
        id[0] = '\0';
    }
    ircad_emit(a, CHAT_KICK, room, nick, id, why, victim);
}

void ircad_channels_refused(struct ircad *a, const struct ircad_msg *m)
{
    if (m->params[1])
        log_warn("%s: cannot join %s (%03d)", a->name, m->params[1],
                 m->numeric);
}

/* ---- Services accounts ------------------------------------------------- */

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

void ircad_channels_account_of(struct ircad *a, const char *nick)
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
    if (!ircad_target_valid(room) || ircad_channels_index(a, room) < 0)
        return;
    char line[IRCAD_LINE_MAX];
    snprintf(line, sizeof line, "WHO %s %%tcna," WHOX_TOKEN, room);
    ircad_out_push(a, IRCAD_URGENT, line);
}

/* RPL_WHOSPCRPL (354) to our "%tcna": me, token, channel, nick, account
 * ("0": logged out). Anything else is someone else's question or junk. */
void ircad_channels_track_whox(struct ircad *a, const struct ircad_msg *m)
{
    if (!m->params[1] || !m->params[2] || !m->params[3] || !m->params[4] ||
        strcmp(m->params[1], WHOX_TOKEN) != 0 || !*m->params[3] ||
        ircad_is_me(a, m->params[3]))
        return;
    int ch = ircad_channels_index(a, m->params[2]);
    if (ch < 0)
        return;
    const char *acc = strcmp(m->params[4], "0") == 0 ? NULL : m->params[4];
    ircad_accounts_join(&a->accts, m->params[3], ch, true, acc);
}

/* RPL_NAMREPLY (353): me, symbol, channel, the members, each after its
 * rank prefixes (several with multi-prefix) and perhaps with "!user@host"
 * (userhost-in-names): who is in the channel, their accounts unsaid. */
void ircad_channels_track_names(struct ircad *a, const struct ircad_msg *m)
{
    if (!m->params[2] || !m->params[3])
        return;
    int ch = ircad_channels_index(a, m->params[2]);
    if (ch < 0)
        return;
    const char *p = m->params[3];
    while (*p) {
        while (*p == ' ')
            p++;
        const char *start = p;
        while (*p && *p != ' ')
            p++;
        const char *nick = start;
        while (nick < p && strchr(a->isup.prefix_chars, *nick))
            nick++;
        size_t len = 0;
        while (nick + len < p && nick[len] != '!')
            len++;
        char name[NICK_MAX];
        if (len == 0 || len >= sizeof name)
            continue;
        memcpy(name, nick, len);
        name[len] = '\0';
        if (!ircad_is_me(a, name))
            ircad_accounts_join(&a->accts, name, ch, false, NULL);
    }
}

/* RPL_WHOISACCOUNT (330): me, nick, account. */
void ircad_channels_track_whois(struct ircad *a, const struct ircad_msg *m)
{
    ircad_accounts_set(&a->accts, m->params[1], m->params[2]);
}

void ircad_channels_track_join(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0 || !m->params[0])
        return;
    bool me = ircad_is_me(a, nick);
    if (me && a->isup.whox) {
        ask_whox(a, m->params[0]);
    } else if (!me) {
        bool ext = m->nparams >= 2 && m->params[1] &&
                   cap_on(a, IRCAD_CAP_EXTENDED_JOIN);
        ircad_accounts_join(&a->accts, nick,
                            ircad_channels_index(a, m->params[0]), ext,
                            ext ? m->params[1] : NULL);
    }
}

void ircad_channels_track_account(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0)
        return;
    ircad_accounts_set(&a->accts, nick, m->params[0]);
}

void ircad_channels_line_account(struct ircad *a, const struct ircad_msg *m)
{
    a->ev_account[0] = '\0';
    char nick[NICK_MAX], id[ID_MAX];
    if (m->numeric || ircad_sender(m, nick, id) != 0)
        return;
    if (cap_on(a, IRCAD_CAP_ACCOUNT_TAG)) {
        ircad_accounts_set(&a->accts, nick, m->account);
        set_ev_account(a, m->account);
    } else {
        ircad_channels_account_of(a, nick);
    }
}

/* Whether a queue key is a person the bot no longer shares a channel
 * with (it left one): their nick changes go unseen from now on. */
static bool unseen_person(void *ctx, const char *key)
{
    struct ircad *a = ctx;
    return ircad_is_person(ctx, key) && !ircad_accounts_seen(&a->accts, key);
}

/* `nick` left channel `ch` (-1: not one of ours); if it was us, everyone
 * we no longer share a channel with is forgotten. */
static void left(struct ircad *a, const char *nick, bool me, int ch)
{
    if (me) {
        ircad_accounts_left(&a->accts, ch);
        ircad_queue_clear_targets(&a->q, unseen_person, a);
    } else {
        ircad_accounts_part(&a->accts, nick, ch);
        if (!ircad_accounts_seen(&a->accts, nick))
            ircad_out_drop_person(a, nick, "left our last shared channel");
    }
}

void ircad_channels_after_kick(struct ircad *a, const struct ircad_msg *m)
{
    if (!m->params[0] || !m->params[1])
        return;
    left(a, m->params[1], ircad_is_me(a, m->params[1]),
         ircad_channels_index(a, m->params[0]));
}

void ircad_channels_after_part(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0 || !m->params[0])
        return;
    left(a, nick, ircad_is_me(a, nick), ircad_channels_index(a, m->params[0]));
}

void ircad_channels_after_quit(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0)
        return;
    ircad_accounts_forget(&a->accts, nick);
}

void ircad_channels_after_nick(struct ircad *a, const struct ircad_msg *m)
{
    char nick[NICK_MAX], id[ID_MAX];
    if (ircad_sender(m, nick, id) != 0 || !m->params[0])
        return;
    ircad_accounts_rename(&a->accts, nick, m->params[0]);
}
