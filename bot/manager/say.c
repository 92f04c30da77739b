/*
 * What a table says and tells (say.h).
 */
#include "bot/manager/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bot/common/msg.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/limit.h"
#include "bot/manager/store.h"
#include "bot/manager/text.h"

/* How often a seat that may not be told anything has its nick checked. */
#define VERIFY_EVERY_MS 3000

void mgr_table_say(struct table *t, const char *text)
{
    if (t->m->restoring)
        return;
    /* what the channel hears of the seats is journaled first */
    int lost;
    if (mgr_journal_sync_seats(t, &lost))
        mgr_table_journal_lost(t, lost);
    if (t->a->ops->tell_tracked) {
        /* a room is a target like a nick: its lines are reported sent */
        t->said_pending = ++t->m->cookies;
        t->a->ops->tell_tracked(t->a, t->room, text, CHAT_NORMAL,
                                t->said_pending);
    } else {
        t->a->ops->say(t->a, t->room, text, CHAT_NORMAL);
    }
}

static void verify_again(struct loop *l, void *ctx)
{
    (void)l;
    struct grace *gr = ctx;
    struct seat *s = &gr->t->seats[gr->seat];
    s->verify_timer = 0;
    if (s->human && !s->away && (s->gone || s->unconfirmed))
        mgr_seat_verify(gr->t, gr->seat, true);
}

/* Asks the adapter who holds a seat's nick now (the answer comes as a
 * CHAT_IDENTITY, mgr_identity); unless `now`, at most every
 * VERIFY_EVERY_MS, the last wish kept for then. */
void mgr_seat_verify(struct table *t, int seat, bool now)
{
    struct seat *s = &t->seats[seat];
    int64_t at = loop_now(t->m->loop);
    if (!t->a->ops->verify || !t->online)
        return;
    int64_t wait = s->verify_asked ? s->verify_asked + VERIFY_EVERY_MS - at : 0;
    if (!now && wait > 0) {
        if (!s->verify_timer) {
            t->graces[seat].t = t;
            t->graces[seat].seat = seat;
            s->verify_timer =
                loop_timer(t->m->loop, wait, verify_again, &t->graces[seat]);
        }
        return;
    }
    s->verify_asked = at;
    t->a->ops->verify(t->a, s->nick);
}

void mgr_table_tell(struct table *t, int seat, const char *text,
                    enum chat_priority prio)
{
    /* whatever goes privately to a seat may show its cards: never to a
     * nick whose person left (someone else may hold it now) or, after a
     * reconnect, before the adapter confirmed who holds it; they get what
     * they need again when they are back (mgr_table_seat_ready) */
    struct seat *s = &t->seats[seat];
    if (!s->human || t->m->restoring)
        return;
    if (s->gone || s->unconfirmed) {
        /* they may be back unseen (their JOIN came before ours after a
         * server restart): if the network confirms them, they are told */
        mgr_seat_verify(t, seat, false);
        return;
    }
    if (t->a->ops->tell_tracked) {
        s->pending = ++t->m->cookies;
        t->a->ops->tell_tracked(t->a, s->nick, text, prio, s->pending);
    } else {
        t->a->ops->tell(t->a, s->nick, text, prio);
    }
}

void mgr_table_saym(struct table *t, const char *id, ...)
{
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    va_list ap;
    va_start(ap, id);
    msg_vadd(&sb, mgr_lang_room(t->m, t->a, t->room), id, ap);
    va_end(ap);
    mgr_table_say(t, text);
}

void mgr_table_tellm(struct table *t, int seat, enum chat_priority prio,
                     const char *id, ...)
{
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    va_list ap;
    va_start(ap, id);
    msg_vadd(&sb, mgr_lang_seat(t, seat), id, ap);
    va_end(ap);
    mgr_table_tell(t, seat, text, prio);
}

const char *mgr_room_label(const struct chat_adapter *a, const char *room,
                           char *out, size_t outlen)
{
    if (a->ops->room_label)
        a->ops->room_label(a, room, out, outlen);
    else
        snprintf(out, outlen, "%s", room);
    /* a room's name is the network's (a Matrix room's, anyone's to set):
     * nothing in it may hide or reorder the line it is put in */
    render_clean_text(out);
    return out;
}

void mgr_table_journal_lost(struct table *t, int cause)
{
    char text[300];
    if (mgr_store_journal_lost(t, cause, text, sizeof text))
        mgr_table_say(t, text);
}

bool mgr_table_storage_ok(struct table *t, bool game_over)
{
    char text[300] = "";
    bool ok = mgr_store_ok(t, game_over, text, sizeof text);
    if (text[0])
        mgr_table_say(t, text);
    return ok;
}

void mgr_table_archive(struct table *t, bool finished)
{
    char *json = mgr_store_record(t);
    if (!json)
        return;
    /* storage known not to work (told): the game waits without a try */
    bool now = mgr_table_storage_ok(t, true);
    char text[300] = "";
    mgr_store_archive(t, json, finished, now, text, sizeof text);
    if (text[0])
        mgr_table_say(t, text);
    free(json);
}

bool mgr_chatter_shared(struct manager *m, struct chat_adapter *a,
                        const struct chat_user *u)
{
    const struct config *cfg = m->cfg;
    enum limit_verdict v =
        limit_shared_for(m->limit, a->network, u->id, cfg->chatter_burst,
                         cfg->chatter_interval * 1000LL, loop_now(m->loop));
    if (v == LIMIT_WARN) {
        char text[MGR_TEXT_SIZE];
        struct strbuf sb;
        strbuf_init(&sb, text, sizeof text);
        msg_add(&sb, mgr_lang_person(m, a, u, NULL),
                /* TRANSLATORS: said once to a person whose private
                 * messages go unanswered while the bot's output is full
                 * (many people write at once); a game's moves (play,
                 * pass) are still taken */
                M("Too many messages are waiting to go out: I leave private "
                  "questions unanswered for a while. Your moves in a game "
                  "still count."),
                MSG_END);
        a->ops->tell(a, u->nick, text, CHAT_LOW);
    }
    return v == LIMIT_ANSWER;
}
