/*
 * Registration, nicks, NickServ and the server's identity (identity.h).
 */
#include "adapters/irc/identity.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "adapters/irc/channels.h"
#include "adapters/irc/invites.h"
#include "adapters/irc/link.h"
#include "adapters/irc/nick.h"
#include "adapters/irc/output.h"
#include "adapters/irc/split.h"
#include "bot/common/log.h"

/* After this many refused nicks the attempt counts as a failed connect. */
#define NICK_ATTEMPTS 8

/* ---- Nicks ------------------------------------------------------------- */

static void on_regain(struct loop *l, void *ctx);

static void arm_regain(struct ircad *a)
{
    ircad_cancel(a, &a->t_regain);
    a->t_regain = loop_timer(a->loop, a->t.regain_ms, on_regain, a);
}

/* Asks for the configured nick; the NICK echo tells when it worked. */
static void ask_nick(struct ircad *a)
{
    char line[NICK_MAX + 8];
    snprintf(line, sizeof line, "NICK %s", a->nick);
    ircad_out_push(a, IRCAD_URGENT, line);
}

/* Not on the wanted nick (it was taken at connect): ask for it now and
 * then. */
static void on_regain(struct loop *l, void *ctx)
{
    (void)l;
    struct ircad *a = ctx;
    a->t_regain = 0;
    if (a->state != ST_REGISTERED || ircad_is_me(a, a->nick))
        return;
    ask_nick(a);
    arm_regain(a);
}

void ircad_identity_squatter_gone(struct ircad *a, const char *nick)
{
    if (a->state != ST_REGISTERED || ircad_is_me(a, a->nick) ||
        !ircad_name_equal(a->isup.casemap, nick, a->nick))
        return;
    log_info("%s: %s is free again: taking it", a->name, a->nick);
    ask_nick(a);
}

void ircad_identity_renamed(struct ircad *a, const char *from, const char *to)
{
    if (strlen(to) >= sizeof a->cur_nick)
        return;
    snprintf(a->cur_nick, sizeof a->cur_nick, "%s", to);
    log_info("%s: now known as %s", a->name, a->cur_nick);
    if (ircad_is_me(a, a->nick)) {
        ircad_cancel(a, &a->t_regain);
        if (!ircad_name_equal(a->isup.casemap, from, a->nick))
            ircad_channels_announce_nick(a, NULL);
    } else if (!a->t_regain && a->state == ST_REGISTERED) {
        arm_regain(a);
    }
}

/* 432/433/436/437 before registration: try the next alternative. After
 * it, the refusal answers our regain attempt: keep the nick we have. */
void ircad_identity_nick_refused(struct ircad *a, const struct ircad_msg *m)
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
        ircad_link_drop(a, "the server refused every nick we tried");
        return;
    }
    ircad_nick_variant(a->nick, a->nick_attempt, random_below(&a->rng, 1000),
                       a->nick_maxlen, a->cur_nick, sizeof a->cur_nick);
    log_info("%s: nick %s unavailable, trying %s", a->name, tried, a->cur_nick);
    char line[NICK_MAX + 8];
    snprintf(line, sizeof line, "NICK %s", a->cur_nick);
    ircad_out_push(a, IRCAD_URGENT, line);
}

/* ---- Who someone is ---------------------------------------------------- */

void ircad_identity_ask(struct ircad *a, enum query_kind kind, const char *nick)
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
    ircad_out_push(a, IRCAD_URGENT, line);
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
        ircad_out_push(a, IRCAD_URGENT, line);
        break;
    }
    case Q_VERIFY:
        if (id)
            ircad_channels_account_of(a, nick);
        ircad_emit(a, CHAT_IDENTITY, NULL, nick, id, NULL, NULL);
        break;
    }
}

/* RPL_USERHOST (302): "nick[*]=[+-]user@host", or nothing for a nick not
 * on the network; one nick per question, so the oldest question is the
 * one answered. */
void ircad_identity_userhost(struct ircad *a, const struct ircad_msg *m)
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

/* ---- Registration ------------------------------------------------------ */

void ircad_identity_welcome(struct ircad *a, const struct ircad_msg *m)
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
    ircad_invites_reset(a);
    log_info("%s: registered as %s", a->name, a->cur_nick);
    /* the password goes only to the services client the config names:
     * first ask the server who "NickServ" is */
    if (*a->nickserv)
        ircad_identity_ask(a, Q_SERVICES, "NickServ");
    ircad_channels_join(a, false);
    ircad_link_arm_keepalive(a, a->t.ping_after_ms);
    if (!ircad_is_me(a, a->nick))
        arm_regain(a);
    ircad_out_kick(a);
    ircad_emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL, NULL);
}

/* ---- The server -------------------------------------------------------- */

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

void ircad_identity_yourhost(struct ircad *a, const struct ircad_msg *m)
{
    if (a->state != ST_REGISTERED)
        return;
    const char *text = m->params[1];
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

void ircad_identity_myinfo(struct ircad *a, const struct ircad_msg *m)
{
    if (a->state == ST_REGISTERED)
        server_identified(a, m->params[2]);
}

void ircad_identity_isupport(struct ircad *a, const struct ircad_msg *m)
{
    enum ircad_casemap before = a->isup.casemap;
    ircad_isupport_parse(&a->isup, m->params, m->nparams);
    /* names are tracked folded: under another mapping, afresh */
    if (a->isup.casemap != before)
        ircad_accounts_reset(&a->accts, a->isup.casemap);
    if (a->isup.nicklen && a->isup.nicklen < a->nick_maxlen)
        a->nick_maxlen = a->isup.nicklen;
    ircad_invites_bot_mode(a);
}
