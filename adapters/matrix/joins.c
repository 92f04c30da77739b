/*
 * The configured rooms and joining (joins.h).
 */
#include "adapters/matrix/joins.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/xalloc.h"

/* The configured room that resolved to room ID `id`, or NULL. */
struct mx_cfg_room *mx_cfg_by_id(const struct mx_adapter *a, const char *id)
{
    for (int i = 0; id && i < a->cfg.nrooms; i++)
        if (a->rooms[i].id && strcmp(a->rooms[i].id, id) == 0)
            return &a->rooms[i];
    return NULL;
}

/* The configured room named `name` (ID or alias, as in the config). */
struct mx_cfg_room *mx_cfg_by_name(const struct mx_adapter *a, const char *name)
{
    for (int i = 0; name && i < a->cfg.nrooms; i++)
        if (strcmp(a->cfg.rooms[i].name, name) == 0)
            return &a->rooms[i];
    return NULL;
}

/* How events name room ID `id`: a room configured by alias by its alias
 * (per-room settings, data files and what people read use the name the
 * config gives), any other by its ID. */
const char *mx_room_shown(const struct mx_adapter *a, const char *id)
{
    const struct mx_cfg_room *r = mx_cfg_by_id(a, id);
    return r ? a->cfg.rooms[r->i].name : id;
}

/* A configured room's ID if it resolved, else what was asked. */
const char *mx_room_id_of(const struct mx_adapter *a, const char *room)
{
    const struct mx_cfg_room *r = mx_cfg_by_name(a, room);
    return r && r->id ? r->id : room;
}

/* One of the configured rooms' joins is answered: the first sync starts
 * once all are, so that no event names an alias room by its ID. */
static void join_answered(struct mx_adapter *a, struct mx_call *c)
{
    struct mx_cfg_room *r = mx_cfg_by_name(a, c->key);
    if (!r || a->joins_pending == 0)
        return;
    a->joins_pending--;
    a->hooks.first_sync(a);
}

static void joined(struct mx_adapter *a, struct mx_call *c, long status,
                   const char *body, size_t len)
{
    (void)status;
    char *room = mx_body_string(body, len, "room_id", mx_is_room_id);
    log_info("%s: joined %s%s%s", a->base.network, c->key,
             room && strcmp(room, c->key) ? " as " : "",
             room && strcmp(room, c->key) ? room : "");
    struct mx_cfg_room *r = mx_cfg_by_name(a, c->key);
    if (!r) /* invited back to a room configured by alias */
        r = mx_cfg_by_id(a, c->key);
    if (r && room) {
        mx_session_set(&r->id, room);
        r->out = r->lost = false;
        /* what was said to it by its alias before it resolved */
        mx_outbox_move(a->out, c->key, room);
    }
    if (room && mx_set_has(a->warn_joined, a->nwarn_joined, room)) {
        mx_set_del(a->warn_joined, &a->nwarn_joined, room);
        mx_say_once(
            a, room,
            M("This chat is encrypted, and I can neither read nor write "
              "encrypted messages, so I will not answer or send your cards "
              "here: I will write to you in a direct chat without "
              "encryption."));
    }
    free(room);
    join_answered(a, c);
}

static void join_failed(struct mx_adapter *a, struct mx_call *c, long status,
                        const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    struct mx_cfg_room *r = mx_cfg_by_name(a, c->key);
    if (r && (r->out || !r->id)) {
        /* the rejoin after a kick refused (not tried again), or an alias
         * that never resolved: what is said there goes nowhere */
        if (r->out)
            log_error("%s: cannot join %s again after the kick: its tables "
                      "go on without it",
                      a->base.network, c->key);
        r->out = false;
        r->lost = true;
        mx_drop(a, c->key);
        if (r->id)
            mx_drop(a, r->id);
    }
    join_answered(a, c);
}

/* Joins a room (a configured one, or one the bot is invited to); a join
 * counts against the rate limit (and Synapse's join limit). */
void mx_join(struct mx_adapter *a, const char *target)
{
    char *t = mx_url_encode(target);
    char *path = mx_printf("/join/%s", t);
    free(t);
    struct mx_call *c = mx_call_new(a, "POST", path, xstrdup("{}"), target,
                                    joined, join_failed);
    mx_call_paced(c, 1, CHAT_HIGH, mx_outbox_tick(a->out));
}

static void left(struct mx_adapter *a, struct mx_call *c, long status,
                 const char *body, size_t len)
{
    (void)a, (void)c, (void)status, (void)body, (void)len;
}

void mx_leave_room(struct mx_adapter *a, const char *room)
{
    char *r = mx_url_encode(room);
    struct mx_call *c = mx_call_new(a, "POST", mx_printf("/rooms/%s/leave", r),
                                    xstrdup("{}"), room, left, left);
    free(r);
    mx_call_paced(c, 1, CHAT_LOW, mx_outbox_tick(a->out));
}

static void rejoin(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_cfg_room *r = ctx;
    r->rejoin_timer = 0;
    if (!r->a->stopped)
        mx_join(r->a, r->a->cfg.rooms[r->i].name);
}

#define REJOIN_MAX_MS 3600000

/* The bot left configured room r by another's hand (it->sender): kicked,
 * it joins again later (the wait doubles for each kick within the hour
 * after the last one); banned, it stays out and says so. */
void mx_kicked(struct mx_adapter *a, struct mx_cfg_room *r,
               const struct mx_item *it)
{
    const char *name = a->cfg.rooms[r->i].name;
    loop_cancel(a->loop, r->rejoin_timer);
    r->rejoin_timer = 0;
    if (strcmp(it->membership, "ban") == 0) {
        log_error("%s: banned from %s by %s: not joining it again (unban the "
                  "bot and restart it, or invite it)",
                  a->base.network, name, it->sender);
        r->out = false;
        r->lost = true;
        mx_drop(a, it->room);
        return;
    }
    int64_t now = loop_now(a->loop);
    if (r->last_kick && now - r->last_kick < REJOIN_MAX_MS)
        r->delay = r->delay * 2 < REJOIN_MAX_MS ? r->delay * 2 : REJOIN_MAX_MS;
    else
        r->delay = a->cfg.rejoin_delay_ms;
    r->last_kick = now;
    r->out = true;
    log_warn("%s: kicked from %s (by %s); rejoining in %" PRId64 " ms",
             a->base.network, name, it->sender, r->delay);
    r->rejoin_timer = loop_timer(a->loop, r->delay, rejoin, r);
}
