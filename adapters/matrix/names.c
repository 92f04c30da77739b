/*
 * Display names and what a room is (names.h).
 */
#include "adapters/matrix/names.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/members.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

static bool is_dm_room(void *ctx, const char *room)
{
    return mx_dm_user(ctx, room) != NULL;
}

void mx_renamed(void *ctx, const char *room, const char *user, const char *name)
{
    struct mx_adapter *a = ctx;
    /* a name in a direct room is not the one a table shows */
    if (strcmp(user, a->cfg.user_id) != 0 && !mx_dm_user(a, room))
        mx_emit_person(a, CHAT_RENAME, mx_room_shown(a, room), user, name, NULL,
                       NULL);
}

static void member_got(struct mx_adapter *a, struct mx_call *c, long status,
                       const char *body, size_t len)
{
    (void)status;
    mx_set_del(a->fetching, &a->nfetching, c->key);
    char *membership, *name;
    const char *user = strchr(c->key, ' ');
    if (!user || mx_member_parse(body, len, &membership, &name))
        return;
    char *room = xstrdup(c->key);
    room[user - c->key] = '\0';
    user++;
    bool known = mx_members_shown(a->members, room, user, (char[1]){0}, 1);
    mx_members_set(a->members, room, user, membership, name, mx_renamed, a);
    char now[MX_SHOWN_MAX];
    /* new here: the name is told as a rename (the message came first) */
    if (!known && mx_members_shown(a->members, room, user, now, sizeof now))
        mx_renamed(a, room, user, now);
    free(room);
    free(membership);
    free(name);
}

static void member_failed(struct mx_adapter *a, struct mx_call *c, long status,
                          const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    mx_set_del(a->fetching, &a->nfetching, c->key);
}

/* Asks the server for user's member event in room (lazy loading may not
 * have sent it), unless that is under way. */
static void fetch_member(struct mx_adapter *a, const char *room,
                         const char *user)
{
    char *key = mx_printf("%s %s", room, user);
    if (mx_set_has(a->fetching, a->nfetching, key) ||
        a->nfetching >= MX_MEMBERS_MAX) {
        free(key);
        return;
    }
    mx_set_add(&a->fetching, &a->nfetching, key);
    char *r = mx_url_encode(room), *u = mx_url_encode(user);
    mx_call_send(
        a, mx_call_new(a, "GET",
                       mx_printf("/rooms/%s/state/m.room.member/%s", r, u),
                       NULL, key, member_got, member_failed));
    free(r);
    free(u);
    free(key);
}

/* The name to show for user in room, in out, or NULL if not known (then
 * it is asked for). For a private message: their name in a room that is
 * not a direct one, else in the direct room. */
const char *mx_shown(struct mx_adapter *a, const char *room, const char *user,
                     bool private, char *out, size_t len)
{
    if (private &&
        mx_members_shown_anywhere(a->members, user, is_dm_room, a, out, len))
        return out;
    if (mx_members_shown(a->members, room, user, out, len))
        return out;
    fetch_member(a, room, user);
    return NULL;
}

/* How long a room's events wait for its members at most. */
#define MX_HOLD_MS 5000

struct mx_hold *mx_hold_of(const struct mx_adapter *a, const char *room)
{
    for (size_t i = 0; room && i < a->nholds; i++)
        if (strcmp(a->holds[i].room, room) == 0)
            return &a->holds[i];
    return NULL;
}

/* The room's held events are handled now, in order. */
static void release(struct mx_adapter *a, const char *room)
{
    struct mx_hold *h = mx_hold_of(a, room);
    if (!h)
        return;
    struct mx_hold mine = *h;
    *h = a->holds[--a->nholds];
    for (size_t i = 0; i < mine.n; i++) {
        if (!a->stopped)
            a->hooks.item(a, &mine.items[i]);
        mx_item_free(&mine.items[i]);
    }
    free(mine.items);
    free(mine.room);
}

static void hold_expired(struct loop *l, void *ctx);

static void hold_arm(struct mx_adapter *a)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < a->nholds; i++)
        if (a->holds[i].until < first)
            first = a->holds[i].until;
    mx_timer_at(a, &a->hold_timer, first, hold_expired);
}

static void hold_expired(struct loop *l, void *ctx)
{
    struct mx_adapter *a = ctx;
    a->hold_timer = 0;
    for (size_t i = 0; i < a->nholds;) {
        if (a->holds[i].until <= loop_now(l)) {
            log_warn("%s: no members of %s in time: going on without them",
                     a->base.network, a->holds[i].room);
            release(a, a->holds[i].room);
            i = 0;
            continue;
        }
        i++;
    }
    hold_arm(a);
}

static void joined_member(void *ctx, const char *user, const char *name)
{
    void **pair = ctx;
    struct mx_adapter *a = pair[0];
    mx_members_set(a->members, pair[1], user, "join", name, mx_renamed, a);
}

static void members_got(struct mx_adapter *a, struct mx_call *c, long status,
                        const char *body, size_t len)
{
    (void)status;
    void *pair[2] = {a, c->key};
    if (mx_joined_parse(body, len, joined_member, pair, MX_MEMBERS_MAX))
        log_warn("%s: the members of %s refused", a->base.network, c->key);
    release(a, c->key);
}

static void members_failed(struct mx_adapter *a, struct mx_call *c, long status,
                           const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    release(a, c->key);
}

static void name_got(struct mx_adapter *a, struct mx_call *c, long status,
                     const char *body, size_t len)
{
    (void)status;
    char *name = mx_body_string(body, len, "name", mx_is_name);
    mx_rooms_set_name(a->facts, c->key, name);
    free(name);
}

static void alias_got(struct mx_adapter *a, struct mx_call *c, long status,
                      const char *body, size_t len)
{
    (void)status;
    char *alias = mx_body_string(body, len, "alias", mx_is_alias);
    mx_rooms_set_alias(a->facts, c->key, alias);
    free(alias);
}

/* Asks once per run what a room (not a direct one) is: its members (so
 * that a display name shared with someone who has not spoken yet is told
 * apart), its name and canonical alias (to name it in direct messages).
 * With `hold`, its events wait for the members (at most MX_HOLD_MS). */
void mx_fetch_room(struct mx_adapter *a, const char *room, bool hold)
{
    if (mx_set_has(a->fetched, a->nfetched, room) ||
        a->nfetched >= MX_ROOMS_MAX)
        return;
    mx_set_add(&a->fetched, &a->nfetched, room);
    char *r = mx_url_encode(room);
    mx_call_send(a,
                 mx_call_new(a, "GET", mx_printf("/rooms/%s/joined_members", r),
                             NULL, room, members_got, members_failed));
    mx_call_send(a, mx_call_new(a, "GET",
                                mx_printf("/rooms/%s/state/m.room.name", r),
                                NULL, room, name_got, NULL));
    mx_call_send(
        a, mx_call_new(a, "GET",
                       mx_printf("/rooms/%s/state/m.room.canonical_alias", r),
                       NULL, room, alias_got, NULL));
    free(r);
    if (hold && !mx_hold_of(a, room)) {
        a->holds = xrealloc(a->holds, (a->nholds + 1) * sizeof *a->holds);
        a->holds[a->nholds++] = (struct mx_hold){
            .room = xstrdup(room), .until = loop_now(a->loop) + MX_HOLD_MS};
        hold_arm(a);
    }
}
