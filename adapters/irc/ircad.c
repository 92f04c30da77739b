/*
 * The helpers every part of the IRC adapter uses (ircad.h).
 */
#include "adapters/irc/ircad.h"

#include <string.h>

#include "adapters/irc/nick.h"

void ircad_cancel(struct ircad *a, uint64_t *id)
{
    if (*id)
        loop_cancel(a->loop, *id);
    *id = 0;
}

void ircad_cancel_all(struct ircad *a)
{
    ircad_cancel(a, &a->t_kick);
    ircad_cancel(a, &a->t_refill);
    ircad_cancel(a, &a->t_keepalive);
    ircad_cancel(a, &a->t_reconnect);
    ircad_cancel(a, &a->t_regain);
    ircad_cancel(a, &a->t_rejoin);
    ircad_cancel(a, &a->t_stop);
}

bool ircad_stopping(const struct ircad *a)
{
    return a->state == ST_STOPPING || a->state == ST_STOPPED;
}

void ircad_emit(struct ircad *a, enum chat_event_kind kind, const char *room,
                const char *nick, const char *id, const char *text,
                const char *target)
{
    if (ircad_stopping(a))
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

void ircad_emit_sent(struct ircad *a, uint64_t cookie)
{
    if (ircad_stopping(a))
        return;
    struct chat_event ev = {.kind = CHAT_SENT, .cookie = cookie};
    a->base.on_event(a->base.ctx, &a->base, &ev);
}

bool ircad_is_me(const struct ircad *a, const char *nick)
{
    return ircad_name_equal(a->isup.casemap, nick, a->cur_nick);
}

int ircad_sender(const struct ircad_msg *m, char *nick, char *id)
{
    return ircad_origin_parse(m->origin, nick, NICK_MAX, id, ID_MAX);
}

bool ircad_is_person(void *ctx, const char *key)
{
    const struct ircad *a = ctx;
    return !strchr(a->isup.chantypes, key[0]);
}
