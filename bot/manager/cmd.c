/*
 * What every group of commands uses (cmd.h).
 */
#include "bot/manager/cmd.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/msg.h"
#include "bot/manager/lang.h"

/* Splits text into words (blank-separated) into c->storage. */
void mgr_cmd_split_words(struct cmd *c, const char *text)
{
    snprintf(c->storage, sizeof c->storage, "%s", text);
    c->nwords = 0;
    char *p = c->storage;
    while (*p && c->nwords < MAX_WORDS) {
        while (*p && isspace((unsigned char)*p))
            *p++ = '\0';
        if (!*p)
            break;
        c->words[c->nwords++] = p;
        while (*p && !isspace((unsigned char)*p))
            p++;
    }
}

/* Where the asker looks: a channel command is answered beside the
 * channel (the adapter's notice) where the adapter has one. */
void mgr_cmd_tell(const struct cmd *c, const char *text,
                  enum chat_priority prio)
{
    if (c->room && c->a->ops->notice)
        c->a->ops->notice(c->a, c->u->nick, text, prio);
    else
        c->a->ops->tell(c->a, c->u->nick, text, prio);
}

void mgr_cmd_reply(const struct cmd *c, const char *fmt, ...)
{
    char text[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* chatter waits behind the game's own lines */
    mgr_cmd_tell(c, text, c->game ? CHAT_NORMAL : CHAT_LOW);
}

int mgr_cmd_lang_of(const struct cmd *c)
{
    return mgr_lang_person(c->m, c->a, c->u, c->room);
}

/* Sends what sb holds as a reply; a cut message is still sent (cut
 * whole characters, by strbuf). */
static void reply_sb(const struct cmd *c, const struct strbuf *sb)
{
    mgr_cmd_tell(c, sb->buf, c->game ? CHAT_NORMAL : CHAT_LOW);
}

void mgr_cmd_replym(const struct cmd *c, const char *id, ...)
{
    char text[700];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    va_list ap;
    va_start(ap, id);
    msg_vadd(&sb, mgr_cmd_lang_of(c), id, ap);
    va_end(ap);
    reply_sb(c, &sb);
}

void mgr_cmd_replymn(const struct cmd *c, const char *one, const char *many,
                     unsigned long n, ...)
{
    char text[700];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    va_list ap;
    va_start(ap, n);
    msg_vaddn(&sb, mgr_cmd_lang_of(c), one, many, n, ap);
    va_end(ap);
    reply_sb(c, &sb);
}

void mgr_cmd_reply_lines(const struct cmd *c, const char *text)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len)
            mgr_cmd_reply(c, "%.*s", (int)len, line);
        line += len;
        line += *line == '\n';
    }
}

const char *mgr_cmd_prefix(const struct manager *m)
{
    return m->cfg->command_prefix;
}

/* Glob match, * and ?, case-insensitive (hostmasks). */
static bool glob(const char *p, const char *s)
{
    for (; *p; p++, s++) {
        if (*p == '*') {
            while (p[1] == '*')
                p++;
            if (!p[1])
                return true;
            for (; *s; s++)
                if (glob(p + 1, s))
                    return true;
            return false;
        }
        if (!*s)
            return false;
        if (*p != '?' &&
            tolower((unsigned char)*p) != tolower((unsigned char)*s))
            return false;
    }
    return !*s;
}

bool mgr_cmd_is_admin(const struct manager *m, const struct chat_user *u)
{
    char mask[300];
    snprintf(mask, sizeof mask, "%s!%s", u->nick, u->id);
    for (int i = 0; i < m->cfg->nadmins; i++) {
        const char *a = m->cfg->admins[i];
        if (strncmp(a, "account:", 8) == 0) {
            if (u->account && strcasecmp(a + 8, u->account) == 0)
                return true;
        } else if (glob(a, mask) || strcmp(a, u->id) == 0) {
            return true;
        }
    }
    return false;
}

/* The seat this person holds at t, or -1. */
int mgr_cmd_seat_of(const struct table *t, const struct chat_user *u)
{
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && mgr_same_person(t, s, u))
            return s;
    return -1;
}

/* The caller is named as their seat shows them (unique at the table). */
void mgr_cmd_shown_as_seat(struct cmd *c, const struct table *t, int s)
{
    if (s >= 0)
        snprintf(c->shown, sizeof c->shown, "%s", mgr_seat_name(t, s));
}

/* The default rules of a room: its own from the config, else the bot's. */
const char *mgr_cmd_room_rules(const struct manager *m,
                               const struct chat_adapter *a, const char *room)
{
    const char *rules = config_room_rules(m->cfg, a, room);
    return rules ? rules : m->cfg->default_rules;
}

/* The same answer twice in a row of askers is said once in the room:
 * twenty !status would otherwise be twenty channel lines naming every
 * player. Another question (!stats alice after !stats bob) is another
 * answer, and a repeat is still answered, to the asker alone. */
bool mgr_cmd_room_hears(const struct cmd *c, struct limit_echo *e,
                        const char *text)
{
    if (!c->room)
        return false;
    return !limit_echo_heard(e, text, c->m->cfg->channel_repeat * 1000LL,
                             loop_now(c->m->loop));
}
