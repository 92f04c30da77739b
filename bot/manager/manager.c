/*
 * The game manager (manager.h): its life, and its entry, the events of the
 * adapters, handed to the part of the manager they concern: people coming
 * and going (presence.h), commands (commands.h), the connection.
 *
 * A table lives in one room of one adapter. Its seats hold people (bound
 * to their nick, followed through nick changes, and to their identity,
 * user@host on IRC, so a nick taken over by someone else does not own the
 * seat) or computer players. An absent person's seat is played by a
 * computer player: after timeouts, after leaving, until "back".
 *
 * Tables are freed only between loop rounds (a before-sleep hook), never
 * inside an engine or adapter callback that may still touch them.
 */
#include "bot/manager/manager.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/cmd.h"
#include "bot/manager/cmd_table.h"
#include "bot/manager/cmd_teach.h"
#include "bot/manager/commands.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/life.h"
#include "bot/manager/limit.h"
#include "bot/manager/notify.h"
#include "bot/manager/played.h"
#include "bot/manager/presence.h"
#include "bot/manager/replay.h"
#include "bot/manager/render.h"
#include "bot/manager/restore.h"
#include "bot/manager/results.h"
#include "bot/manager/say.h"
#include "bot/manager/slow.h"
#include "bot/manager/store.h"
#include "bot/manager/table.h"
#include "bot/manager/text.h"
#include "bot/think.h"
#include "engine/ai/ai.h"

/* The before-sleep hook: frees tables closed during the round. */
static void reap(struct loop *l, void *ctx)
{
    (void)l;
    struct manager *m = ctx;
    /* seat changes no channel line told (a nick, autoplay) */
    for (int i = 0; i < m->ntables; i++) {
        int lost;
        if (mgr_journal_sync_seats(m->tables[i], &lost))
            mgr_table_journal_lost(m->tables[i], lost);
    }
    if (!m->closing)
        return;
    int k = 0;
    for (int i = 0; i < m->ntables; i++) {
        if (m->tables[i]->closing)
            mgr_table_free(m->tables[i]);
        else
            m->tables[k++] = m->tables[i];
    }
    m->ntables = k;
    m->closing = 0;
}

struct manager *manager_new(struct loop *l, const struct config *cfg)
{
    struct manager *m = xcalloc(1, sizeof *m);
    m->loop = l;
    m->limit = limit_new();
    m->replays = mgr_replays_new();
    m->played = played_new();
    m->hint_interval_ms = MGR_HINT_INTERVAL_MS;
    m->slow_check_ms = SLOW_CHECK_MS;
    m->notify_interval_ms = MGR_NOTIFY_INTERVAL_MS;
    mgr_store_init(m);
    manager_reload(m, cfg);
    loop_before_sleep(l, reap, m);
    mgr_sync_start(m);
    return m;
}

void manager_reload(struct manager *m, const struct config *cfg)
{
    m->cfg = cfg;
    m->ai_level = ai_level_find(cfg->bot_level);
    if (m->ai_level < 0)
        m->ai_level = AI_EASY;
}

void manager_on_archived(struct manager *m, manager_archived_fn fn, void *ctx)
{
    m->archived = fn;
    m->archived_ctx = ctx;
}

void manager_set_site(struct manager *m, const char *secret)
{
    snprintf(m->site_secret, sizeof m->site_secret, "%s", secret ? secret : "");
}

void manager_on_reload(struct manager *m, manager_reload_fn fn, void *ctx)
{
    m->reload = fn;
    m->reload_ctx = ctx;
}

int manager_tables(const struct manager *m)
{
    int k = 0;
    for (int i = 0; i < m->ntables; i++)
        k += !m->tables[i]->closing;
    return k;
}

/* Message id in lang, its {dir} the data directory. */
static void text_of(const struct manager *m, int lang, const char *id,
                    char *out, size_t outlen)
{
    struct strbuf sb;
    strbuf_init(&sb, out, outlen);
    msg_add(&sb, lang, id,
            MSG_S("dir", m->cfg->data_dir ? m->cfg->data_dir : ""), MSG_END);
}

int manager_shutdown(struct manager *m, const char *why)
{
    m->keep_journals = true;
    int ended = 0;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->closing)
            continue;
        int lang = mgr_lang_room(m, t->a, t->room);
        char text[MGR_TEXT_SIZE];
        /* a game journaled goes on at the next start */
        if (t->playing && t->journal[0]) {
            text_of(m, lang,
                    M("heartsbot is shutting down: this game goes on when it "
                      "is back."),
                    text, sizeof text);
            mgr_table_stop(t, text);
        } else if (t->playing) {
            text_of(m, lang, why, text, sizeof text);
            mgr_table_stop(t, text);
            ended++;
        } else {
            mgr_table_close(t);
        }
    }
    return ended;
}

bool manager_is_admin(void *ctx, const struct chat_user *u)
{
    return ctx && u && u->nick && u->id && mgr_cmd_is_admin(ctx, u);
}

bool manager_room_busy(void *ctx, struct chat_adapter *a, const char *room)
{
    struct table *t = mgr_table_find(ctx, a, room);
    return t && t->playing;
}

int manager_lang(const struct manager *m)
{
    return mgr_lang_default(m);
}

void manager_text(struct manager *m, struct chat_adapter *a,
                  const struct chat_user *u, const char *id, char *out,
                  size_t outlen)
{
    text_of(m, u ? mgr_lang_person(m, a, u, NULL) : mgr_lang_default(m), id,
            out, outlen);
}

bool manager_storage_ok(const struct manager *m)
{
    return m->storage_ok;
}

void manager_free(struct manager *m)
{
    if (!m)
        return;
    /* first: no decision comes back to a table freed */
    think_free(m->think);
    /* what was written so far reaches the disk before the bot stops */
    mgr_sync_stop(m);
    mgr_teach_free(m);
    for (int i = 0; i < m->ntables; i++) {
        mgr_table_cancel_all(m->tables[i]);
        mgr_table_free(m->tables[i]);
    }
    free(m->tables);
    mgr_results_free(m);
    free(m->notices);
    loop_remove_hook(m->loop, reap, m);
    limit_free(m->limit);
    mgr_replays_free(m->replays);
    played_free(m->played);
    mgr_store_free(m);
    mgr_people_free(m);
    mgr_notify_free(m);
    free(m);
}

int manager_thinking(const struct manager *m)
{
    return m->think ? think_pending(m->think) : 0;
}

static bool usable(const char *s, size_t max)
{
    return s && *s && strlen(s) < max;
}

/* The account of a person if it can be a seat's, else NULL (none). */
static const char *account_of(const struct chat_user *u)
{
    return usable(u->account, 192) ? u->account : NULL;
}

void manager_on_event(void *ctx, struct chat_adapter *a,
                      const struct chat_event *ev)
{
    struct manager *m = ctx;
    /* every field a handler touches is checked here first */
    switch (ev->kind) {
    case CHAT_CONNECTED:
    case CHAT_DISCONNECTED:
        if (ev->kind == CHAT_CONNECTED)
            mgr_restore_connected(m, a);
        else
            played_forget(m->played, a);
        for (int i = 0; i < m->ntables; i++)
            if (m->tables[i]->a == a && !m->tables[i]->closing)
                mgr_table_set_online(m->tables[i], ev->kind == CHAT_CONNECTED);
        return;
    case CHAT_SENT:
        mgr_sent(m, a, ev->cookie);
        return;
    case CHAT_IDENTITY:
        /* an identity too long to be a seat's is someone else's */
        if (usable(ev->from.nick, 64))
            mgr_identity(m, a, ev->from.nick,
                         !ev->from.id || usable(ev->from.id, 192) ? ev->from.id
                                                                  : "",
                         account_of(&ev->from));
        return;
    default:
        break;
    }
    if (!usable(ev->from.nick, 64) || !usable(ev->from.id, 192))
        return;
    /* an account too long to be a seat's is taken as none */
    struct chat_event checked = *ev;
    checked.from.account = account_of(&ev->from);
    ev = &checked;
    if (ev->kind == CHAT_MESSAGE || ev->kind == CHAT_JOIN ||
        ev->kind == CHAT_NICK)
        mgr_seen(m, a, &ev->from);
    switch (ev->kind) {
    case CHAT_MESSAGE:
        if (ev->text && (!ev->room || usable(ev->room, 64))) {
            /* a private message's name is from another room than the
             * table's: it only fills in a name not known yet (a restored
             * game from an old journal) */
            mgr_display(m, a, ev->room, &ev->from, false, !ev->room);
            mgr_spoke(m, a, &ev->from);
            if (ev->room)
                mgr_notify_nick(m, a, &ev->from, ev->from.nick);
            mgr_on_message(m, a, ev);
        }
        break;
    case CHAT_JOIN:
        if (usable(ev->room, 64)) {
            mgr_display(m, a, ev->room, &ev->from, false, false);
            mgr_on_join(m, a, ev);
        }
        break;
    case CHAT_RENAME:
        if (!ev->room || usable(ev->room, 64))
            mgr_display(m, a, ev->room, &ev->from, true, false);
        break;
    case CHAT_PART:
        if (usable(ev->room, 64))
            mgr_on_gone(m, a, ev->room, ev->from.nick);
        break;
    case CHAT_KICK:
        if (usable(ev->room, 64) && usable(ev->target, 64))
            mgr_on_gone(m, a, ev->room, ev->target);
        break;
    case CHAT_QUIT:
        played_quit(m->played, a, ev->from.nick, ev->from.id);
        mgr_on_gone(m, a, NULL, ev->from.nick);
        break;
    case CHAT_NICK:
        if (usable(ev->target, 64)) {
            played_nick(m->played, a, ev->from.nick, ev->from.id, ev->target);
            mgr_notify_nick(m, a, &ev->from, ev->target);
            mgr_on_nick(m, a, ev);
        }
        break;
    case CHAT_OPERATOR:
        if (usable(ev->room, 64) && a->ops->part) {
            struct cmd c = {.m = m, .a = a, .room = ev->room, .u = &ev->from};
            render_name(c.shown, sizeof c.shown, ev->from.nick);
            if (ev->text)
                mgr_cmd_part_now(&c, false);
            else
                mgr_cmd_replym(&c,
                               M("Only an operator of this channel or an "
                                 "admin can send me away."),
                               MSG_END);
        }
        break;
    default:
        break;
    }
}

void manager_restore(struct manager *m, struct chat_adapter *a)
{
    mgr_restore(m, a);
}

int manager_storage_start(struct manager *m, char *err, size_t errlen)
{
    if (mgr_store_start(m, err, errlen))
        return -1;
    mgr_people_start(m);
    return 0;
}

int manager_rebuild_stats(const char *data_dir)
{
    return mgr_results_rebuild_all(data_dir);
}
