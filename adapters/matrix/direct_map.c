/*
 * The bot's m.direct account data (direct_map.h).
 */
#include "adapters/matrix/direct_map.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/xalloc.h"

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
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok)
        abort();
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
