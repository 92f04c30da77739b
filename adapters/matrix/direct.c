/*
 * People's direct rooms, and the bot's m.direct map of them (direct.h).
 */
#include "adapters/matrix/direct.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/xjson.h"
#include "bot/common/msg.h"
#include "bot/common/xalloc.h"

/* A line sent into a direct room its person has not joined counts as
 * sent when they join, or this long after they were invited: a person
 * who never takes the invite must not hold a table up for ever. */
#define MX_AWAIT_JOIN_MS 120000

/* Dead rooms remembered, at most (the oldest is forgotten first). */
#define DEAD_MAX 4096

/* room is no direct room any more (see struct mx_adapter's `dead`). */
void mx_mark_dead(struct mx_adapter *a, const char *room)
{
    if (a->ndead >= DEAD_MAX && !mx_set_has(a->dead, a->ndead, room)) {
        free(a->dead[0]);
        memmove(a->dead, a->dead + 1, (a->ndead - 1) * sizeof *a->dead);
        a->ndead--;
    }
    mx_set_add(&a->dead, &a->ndead, room);
}

struct mx_dm *mx_dm_find(const struct mx_adapter *a, const char *user)
{
    for (size_t i = 0; user && i < a->ndms; i++)
        if (strcmp(a->dms[i].user, user) == 0)
            return &a->dms[i];
    return NULL;
}

struct mx_dm *mx_dm_of_room(const struct mx_adapter *a, const char *room)
{
    for (size_t i = 0; room && i < a->ndms; i++)
        if (strcmp(a->dms[i].room, room) == 0)
            return &a->dms[i];
    return NULL;
}

/* The person whose direct room `room` is (checked or not), or NULL. */
const char *mx_dm_user(const struct mx_adapter *a, const char *room)
{
    const struct mx_dm *d = mx_dm_of_room(a, room);
    return d ? d->user : NULL;
}

/* user's direct room if private lines may go into it now, else NULL. */
const char *mx_dm_room(const struct mx_adapter *a, const char *user)
{
    const struct mx_dm *d = mx_dm_find(a, user);
    return d && d->state == MX_DM_READY ? d->room : NULL;
}

/* What was sent to d while its person had not joined counts as sent. */
static void dm_release(struct mx_adapter *a, struct mx_dm *d)
{
    mx_report(a, d->held, d->nheld);
    free(d->held);
    d->held = NULL;
    d->nheld = 0;
}

void mx_dm_remove(struct mx_adapter *a, struct mx_dm *d)
{
    dm_release(a, d);
    free(d->user);
    free(d->room);
    *d = a->dms[--a->ndms];
}

void mx_want_del(struct mx_adapter *a, const char *user)
{
    for (size_t i = 0; i < a->nwants; i++)
        if (strcmp(a->wants[i].user, user) == 0) {
            free(a->wants[i].user);
            a->wants[i] = a->wants[--a->nwants];
            return;
        }
}

/* user's direct room is `room` from now, in `state`. */
struct mx_dm *mx_dm_set(struct mx_adapter *a, const char *user,
                        const char *room, enum mx_dm_state state)
{
    struct mx_dm *d = mx_dm_find(a, user);
    if (d && strcmp(d->room, room) != 0) {
        mx_dm_remove(a, d);
        d = NULL;
    }
    if (!d) {
        a->dms = xrealloc(a->dms, (a->ndms + 1) * sizeof *a->dms);
        d = &a->dms[a->ndms++];
        memset(d, 0, sizeof *d);
        d->user = xstrdup(user);
        d->room = xstrdup(room);
    }
    d->state = state;
    mx_set_del(a->made, &a->nmade, room);
    return d;
}

/* d may take private lines; `invite`: its person has not joined yet. */
void mx_dm_ready(struct mx_adapter *a, struct mx_dm *d, bool invited)
{
    d->state = MX_DM_READY;
    if (invited && !d->awaiting) {
        d->awaiting = true;
        d->invited = loop_now(a->loop);
    } else if (!invited && d->awaiting) {
        d->awaiting = false;
        dm_release(a, d);
    }
    mx_want_del(a, d->user);
}

/*
 * d's room may not take private lines (encrypted, or others in it): it
 * is no direct room any more (dead: not taken from m.direct again). What
 * waited for it goes back to its person, for a new direct room; the room
 * is told why, in `why`.
 */
void mx_dm_unusable(struct mx_adapter *a, struct mx_dm *d, const char *why)
{
    char *room = xstrdup(d->room), *user = xstrdup(d->user);
    log_warn("%s: %s is no longer a private room for %s: %s", a->base.network,
             room, user, why);
    mx_outbox_move(a->out, room, user);
    mx_mark_dead(a, room);
    mx_dm_remove(a, d);
    mx_say_once(
        a, room,
        strcmp(why, "encrypted") == 0
            ? M("This chat is encrypted, and I can neither read nor write "
                "encrypted messages, so your cards will not come here: I "
                "am starting a direct chat with you without encryption.")
            : M("Someone else is in this chat now, so your cards will not "
                "come here any more: I am starting a new direct chat with "
                "you."));
    mx_direct_map_record(a, user);
    free(room);
    free(user);
}

/* A room's whole state (GET /rooms/{room}/state) into what is known of
 * it, replacing that if `anew`. Whether it was taken. */
bool mx_feed_state(struct mx_adapter *a, const char *room, const char *body,
                   size_t len, bool anew)
{
    struct mx_sync st;
    char err[128];
    if (mx_state_parse(body, len, room, &st, err, sizeof err)) {
        log_warn("%s: the state of %s refused: %s", a->base.network, room, err);
        return false;
    }
    if (anew)
        mx_rooms_forget(a->facts, room);
    for (size_t i = 0; i < st.nitems; i++)
        mx_rooms_feed(a->facts, &st.items[i]);
    mx_sync_free(&st);
    return true;
}

/* What the room's facts say of d: usable (ready, perhaps still waiting
 * for its person), unusable, or gone (the person left it). */
static void dm_judge(struct mx_adapter *a, struct mx_dm *d)
{
    const char *m = mx_rooms_membership(a->facts, d->room, d->user);
    if (mx_rooms_encrypted(a->facts, d->room)) {
        mx_dm_unusable(a, d, "encrypted");
    } else if (mx_rooms_others(a->facts, d->room, a->cfg.user_id, d->user)) {
        mx_dm_unusable(a, d, "someone else is in it");
    } else if (m && (strcmp(m, "join") == 0 || strcmp(m, "invite") == 0)) {
        mx_dm_ready(a, d, strcmp(m, "invite") == 0);
    } else {
        /* they left it (or never were in it): a new one when needed */
        log_info("%s: %s has left the direct room %s", a->base.network, d->user,
                 d->room);
        mx_mark_dead(a, d->room);
        mx_dm_remove(a, d);
    }
}

static void dm_checked(struct mx_adapter *a, struct mx_call *c, long status,
                       const char *body, size_t len)
{
    (void)status;
    struct mx_dm *d = mx_dm_of_room(a, c->key);
    if (!d || d->state != MX_DM_CHECKING)
        return;
    /* what the state says replaces what was known */
    if (mx_feed_state(a, c->key, body, len, true))
        dm_judge(a, d);
    else
        d->state = MX_DM_UNCHECKED; /* asked again when next needed */
}

static void dm_check_failed(struct mx_adapter *a, struct mx_call *c,
                            long status, const char *body, size_t len)
{
    (void)body, (void)len;
    struct mx_dm *d = mx_dm_of_room(a, c->key);
    if (!d || d->state != MX_DM_CHECKING)
        return;
    if (status == 403 || status == 404) {
        /* the bot is not in it (any more): not a room to use */
        mx_mark_dead(a, d->room);
        mx_dm_remove(a, d);
    } else {
        d->state = MX_DM_UNCHECKED;
    }
}

/* Asks for the whole state of d's room (not made in this run). */
void mx_dm_check(struct mx_adapter *a, struct mx_dm *d)
{
    if (d->state != MX_DM_UNCHECKED)
        return;
    d->state = MX_DM_CHECKING;
    char *r = mx_url_encode(d->room);
    mx_call_send(a, mx_call_new(a, "GET", mx_printf("/rooms/%s/state", r), NULL,
                                d->room, dm_checked, dm_check_failed));
    free(r);
}

static void await_check(struct loop *l, void *ctx);

/* Arms the timer for the first awaiting direct room whose wait ends. */
void mx_await_arm(struct mx_adapter *a)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < a->ndms; i++)
        if (a->dms[i].awaiting && a->dms[i].nheld &&
            a->dms[i].invited + MX_AWAIT_JOIN_MS < first)
            first = a->dms[i].invited + MX_AWAIT_JOIN_MS;
    mx_timer_at(a, &a->await_timer, first, await_check);
}

static void await_check(struct loop *l, void *ctx)
{
    struct mx_adapter *a = ctx;
    a->await_timer = 0;
    int64_t now = loop_now(l);
    for (size_t i = 0; i < a->ndms; i++)
        if (a->dms[i].awaiting && a->dms[i].nheld &&
            now - a->dms[i].invited >= MX_AWAIT_JOIN_MS) {
            log_info("%s: %s has not joined %s yet: its lines count as sent",
                     a->base.network, a->dms[i].user, a->dms[i].room);
            dm_release(a, &a->dms[i]);
        }
    mx_await_arm(a);
}

static void created(struct mx_adapter *a, struct mx_call *c, long status,
                    const char *body, size_t len)
{
    (void)status;
    mx_set_del(a->creating, &a->ncreating, c->key);
    char *room = mx_body_string(body, len, "room_id", mx_is_room_id);
    if (!room) {
        log_warn("%s: createRoom for %s gave no room ID", a->base.network,
                 c->key);
        mx_drop(a, c->key);
        return;
    }
    log_info("%s: direct room %s for %s", a->base.network, room, c->key);
    /* made just now, as asked: the bot and the person, not encrypted */
    struct mx_dm *d = mx_dm_set(a, c->key, room, MX_DM_READY);
    /* the sync may have shown their join before this answer came */
    char *key = mx_printf("%s %s", room, c->key);
    mx_dm_ready(a, d, !mx_set_has(a->joins_seen, a->njoins_seen, key));
    free(key);
    mx_outbox_move(a->out, c->key, room);
    free(room);
    mx_direct_map_record(a, c->key);
}

static void create_failed(struct mx_adapter *a, struct mx_call *c, long status,
                          const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    mx_set_del(a->creating, &a->ncreating, c->key);
    mx_want_del(a, c->key);
    mx_drop(a, c->key);
}

/* A direct room for user, through the queue (a creation costs two slots:
 * the request and the bot's join). history_visibility "invited": the
 * person reads what was sent from their invite on, though they join
 * later. */
struct mx_call *mx_dm_create(struct mx_adapter *a, const char *user,
                             enum chat_priority prio, uint64_t seq)
{
    mx_set_add(&a->creating, &a->ncreating, user);
    struct json_object *o = json_object_new_object();
    struct json_object *inv = json_object_new_array();
    json_object_array_add(inv, json_object_new_string(user));
    json_object_object_add(o, "invite", inv);
    json_object_object_add(o, "is_direct", json_object_new_boolean(1));
    json_object_object_add(o, "preset",
                           json_object_new_string("trusted_private_chat"));
    struct json_object *hv = json_object_new_object();
    struct json_object *hvc = json_object_new_object();
    json_object_object_add(hv, "type",
                           json_object_new_string("m.room.history_visibility"));
    json_object_object_add(hv, "state_key", json_object_new_string(""));
    json_object_object_add(hvc, "history_visibility",
                           json_object_new_string("invited"));
    json_object_object_add(hv, "content", hvc);
    struct json_object *init = json_object_new_array();
    json_object_array_add(init, hv);
    json_object_object_add(o, "initial_state", init);
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    struct mx_call *c = mx_call_new(a, "POST", xstrdup("/createRoom"), body,
                                    user, created, create_failed);
    mx_call_paced(c, 2, prio, seq);
    return c;
}

void mx_made_settle(struct mx_adapter *a)
{
    if (!a->direct_known || a->ncreating > 0)
        return;
    while (a->nmade > 0) {
        char *room = xstrdup(a->made[a->nmade - 1]);
        mx_set_del(a->made, &a->nmade, room);
        size_t others = 0;
        const char *other =
            mx_rooms_other(a->facts, room, a->cfg.user_id, &others);
        if (mx_dm_of_room(a, room) || mx_cfg_by_id(a, room)) {
            /* in use */
        } else if (others == 1 && !mx_dm_find(a, other) &&
                   !mx_rooms_encrypted(a->facts, room)) {
            const char *m = mx_rooms_membership(a->facts, room, other);
            log_info("%s: taking %s, a room the bot made, as the direct "
                     "room of %s",
                     a->base.network, room, other);
            struct mx_dm *d = mx_dm_set(a, other, room, MX_DM_READY);
            mx_dm_ready(a, d, m && strcmp(m, "invite") == 0);
            mx_direct_map_record(a, d->user);
        } else {
            log_info("%s: leaving %s, a room the bot made that nobody needs",
                     a->base.network, room);
            mx_mark_dead(a, room);
            mx_leave_room(a, room);
        }
        free(room);
    }
}

static bool not_for_two(void *ctx, const char *room)
{
    struct mx_adapter *a = ctx;
    return mx_cfg_by_id(a, room) || mx_dm_of_room(a, room) ||
           mx_set_has(a->dead, a->ndead, room) ||
           mx_set_has(a->fetched, a->nfetched, room);
}

/* A room `user` made with only them and the bot in it, where nobody has
 * written to the bot as in a room, is taken as their direct room (and
 * checked before use). Whether one was. */
bool mx_dm_adopt(struct mx_adapter *a, const char *user)
{
    const char *room =
        mx_rooms_made_for_two(a->facts, user, a->cfg.user_id, not_for_two, a);
    if (!room)
        return false;
    log_info("%s: taking %s, which %s made with only the bot in it, as "
             "their direct room",
             a->base.network, room, user);
    char *r = xstrdup(room);
    struct mx_dm *d = mx_dm_set(a, user, r, MX_DM_UNCHECKED);
    free(r);
    mx_direct_map_record(a, d->user);
    mx_dm_check(a, d);
    return true;
}

/* A member event in a direct room: its person joined or left; anyone
 * else makes it no private room any more. */
void mx_dm_member(struct mx_adapter *a, struct mx_dm *d,
                  const struct mx_item *it)
{
    bool present = strcmp(it->membership, "join") == 0 ||
                   strcmp(it->membership, "invite") == 0;
    if (strcmp(it->user, d->user) != 0) {
        if (present && strcmp(it->user, a->cfg.user_id) != 0)
            mx_dm_unusable(a, d, "someone else is in it");
        return;
    }
    if (strcmp(it->membership, "join") == 0) {
        if (d->state == MX_DM_READY)
            mx_dm_ready(a, d, false);
    } else if (strcmp(it->membership, "leave") == 0 ||
               strcmp(it->membership, "ban") == 0) {
        /* they left (or refused) their direct room: what waits there is
         * dropped, the next line for them makes a new one */
        char *room = xstrdup(d->room);
        mx_mark_dead(a, room);
        mx_dm_remove(a, d);
        mx_drop(a, room);
        free(room);
    }
}

bool mx_dm_creation(const struct mx_call *c)
{
    return c->done == created;
}

bool mx_dm_call(const struct mx_call *c)
{
    return c->done == created || c->done == dm_checked;
}

/* Takes the map the server holds: per person the first of their rooms
 * that is not dead, unless they have one already. Checked before use. */
void mx_direct_map_merge(struct mx_adapter *a, const struct mx_direct *d,
                         size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (mx_dm_find(a, d[i].user) || strcmp(d[i].user, a->cfg.user_id) == 0)
            continue;
        for (size_t k = 0; k < d[i].nrooms; k++)
            if (!mx_set_has(a->dead, a->ndead, d[i].rooms[k]) &&
                !mx_dm_of_room(a, d[i].rooms[k])) {
                mx_dm_set(a, d[i].user, d[i].rooms[k], MX_DM_UNCHECKED);
                break;
            }
    }
}

static char *direct_path(const struct mx_adapter *a)
{
    char *u = mx_url_encode(a->cfg.user_id);
    char *p = mx_printf("/user/%s/account_data/m.direct", u);
    free(u);
    return p;
}

static void direct_put_done(struct mx_adapter *a, struct mx_call *c,
                            long status, const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    a->direct_busy = false;
    if (a->direct_again) {
        a->direct_again = false;
        mx_direct_map_record(a, c->key);
    }
}

/* The rooms of one person in the m.direct map: `room` first (the one in
 * use), then the others that are not dead. */
static void direct_entry(const struct mx_adapter *a, struct json_object *map,
                         const char *user, const char *room)
{
    struct json_object *old, *rooms = json_object_new_array();
    if (room)
        json_object_array_add(rooms, json_object_new_string(room));
    if (json_object_object_get_ex(map, user, &old) &&
        json_object_is_type(old, json_type_array))
        for (size_t i = 0; i < json_object_array_length(old); i++) {
            struct json_object *r = json_object_array_get_idx(old, i);
            const char *id = json_object_is_type(r, json_type_string)
                                 ? json_object_get_string(r)
                                 : NULL;
            if (id && (!room || strcmp(id, room) != 0) &&
                !mx_set_has(a->dead, a->ndead, id))
                json_object_array_add(rooms, json_object_new_string(id));
        }
    json_object_object_add(map, user, rooms);
}

char *mx_direct_map_rewrite(const struct mx_adapter *a, const char *body,
                            size_t len)
{
    struct json_tokener *tok = xjson_tokener(16);
    struct json_object *map =
        body ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
    json_tokener_free(tok);
    if (!map || !json_object_is_type(map, json_type_object)) {
        json_object_put(map);
        map = json_object_new_object();
    }
    for (size_t d = 0; d < a->ndms; d++)
        direct_entry(a, map, a->dms[d].user, a->dms[d].room);
    /* the others' lists lose their dead rooms */
    char **users = NULL;
    size_t nusers = 0;
    json_object_object_foreach(map, user, rooms)
    {
        (void)rooms;
        if (!mx_dm_find(a, user))
            mx_set_add(&users, &nusers, user);
    }
    for (size_t i = 0; i < nusers; i++)
        direct_entry(a, map, users[i], NULL);
    mx_set_free(users, nusers);
    char *out = xstrdup(json_object_to_json_string_ext(
        map, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(map);
    return out;
}

/* GET m.direct answered (or 404: none yet): the map rewritten, PUT back
 * whole (a write replaces the map). One read and write at a time: two at
 * once would each write back what the other did not add. */
static void direct_got(struct mx_adapter *a, struct mx_call *c, long status,
                       const char *body, size_t len)
{
    if (status != 200 && status != 404) {
        /* not read: the next room recorded writes this one's too */
        direct_put_done(a, c, status, body, len);
        return;
    }
    char *out = mx_direct_map_rewrite(a, status == 200 ? body : NULL, len);
    mx_call_send(a, mx_call_new(a, "PUT", direct_path(a), out, c->key,
                                direct_put_done, direct_put_done));
}

void mx_direct_map_record(struct mx_adapter *a, const char *user)
{
    if (a->direct_busy) {
        a->direct_again = true;
        return;
    }
    a->direct_busy = true;
    mx_call_send(a, mx_call_new(a, "GET", direct_path(a), NULL, user,
                                direct_got, direct_got));
}

static void got_direct(struct mx_adapter *a, struct mx_call *c, long status,
                       const char *body, size_t len)
{
    (void)c;
    struct mx_direct *d = NULL;
    size_t n = 0;
    a->direct_known = true;
    if (status == 200 && mx_direct_parse(body, len, &d, &n) == 0) {
        mx_direct_map_merge(a, d, n);
        mx_direct_free(d, n);
    }
    /* a restart's first sync waited for the map (see mx_begin) */
    a->hooks.first_sync(a);
}

void mx_direct_map_read(struct mx_adapter *a)
{
    mx_call_send(a, mx_call_new(a, "GET", direct_path(a), NULL, NULL,
                                got_direct, got_direct));
}

bool mx_direct_map_call(const struct mx_call *c)
{
    return c->done == direct_got || c->done == direct_put_done;
}
