/*
 * The /sync parser (sync.h). Walks rooms.join (state, then timeline),
 * rooms.invite (invite_state: who invited the bot, is_direct), rooms.leave
 * and account_data (m.direct), checking every field it uses before it
 * copies it. What is malformed is skipped and counted, never trusted.
 */
#include "adapters/matrix/sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bot/common/err.h"
#include "bot/common/xjson.h"
#include "bot/common/utf8.h"
#include "bot/common/xalloc.h"

/* Deeper JSON than this is refused by the tokenizer (no stack blowing).
 * Deep enough for any event a homeserver passes on: an answer refused
 * whole would be asked for again forever (a /sync from the same since, a
 * transaction sent again), so one person's deeply nested message must
 * not be refused. Synapse cannot even serialize an event nested deeper
 * than Python's recursion limit (1,000). */
#define MX_JSON_DEPTH 1100

bool mx_utf8_valid(const char *s, size_t n)
{
    return utf8_valid(s, n, NULL) && !memchr(s, '\0', n);
}

void mx_utf8_trim(char *s)
{
    s[utf8_trim(s, strlen(s))] = '\0';
}

/* Printable ASCII without spaces, 2..MX_ID_MAX bytes, starting with
 * sigil; with a ':' after at least one byte if colon is required. */
static bool is_id(const char *s, char sigil, bool colon)
{
    if (!s || s[0] != sigil)
        return false;
    size_t n = strlen(s);
    if (n < 2 || n > MX_ID_MAX)
        return false;
    for (size_t i = 1; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return false;
    const char *c = strchr(s, ':');
    return !colon || (c && c > s + 1 && c[1]);
}

bool mx_is_user_id(const char *s)
{
    return is_id(s, '@', true);
}

bool mx_is_room_id(const char *s)
{
    return is_id(s, '!', false);
}

bool mx_is_alias(const char *s)
{
    return is_id(s, '#', true);
}

/* The string at key if it is one, within max bytes, valid UTF-8 and, unless
 * lines is set, free of control characters; else NULL. */
static const char *get_str(struct json_object *o, const char *key, size_t max,
                           bool lines)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    if (n > max || strlen(s) != n || !mx_utf8_valid(s, n))
        return NULL;
    if (!lines)
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
                return NULL;
    return s;
}

static struct json_object *get_type(struct json_object *o, const char *key,
                                    enum json_type type)
{
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, key, &v) ||
        !json_object_is_type(v, type))
        return NULL;
    return v;
}

static struct mx_item *add_item(struct mx_sync *s, enum mx_item_kind kind,
                                const char *room)
{
    s->items = xrealloc(s->items, (s->nitems + 1) * sizeof *s->items);
    struct mx_item *it = &s->items[s->nitems++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->room = xstrdup(room);
    return it;
}

static const char *get_user(struct json_object *o, const char *key)
{
    const char *s = get_str(o, key, MX_ID_MAX, false);
    return mx_is_user_id(s) ? s : NULL;
}

static bool is_membership(const char *m)
{
    static const char *const known[] = {"join", "leave", "ban", "invite",
                                        "knock"};
    for (size_t i = 0; m && i < sizeof known / sizeof *known; i++)
        if (strcmp(m, known[i]) == 0)
            return true;
    return false;
}

/* A member event's display name: a bad, empty or missing one is no name
 * (the user ID shows), not a bad event. NULL or a copy. */
static char *member_name(struct json_object *content)
{
    const char *name = get_str(content, "displayname", MX_NAME_MAX, false);
    return name && *name ? xstrdup(name) : NULL;
}

/* One event of a joined room's state or timeline. */
static void room_event(struct mx_sync *s, const char *room,
                       struct json_object *ev)
{
    const char *type = get_str(ev, "type", MX_ID_MAX, false);
    const char *sender = get_user(ev, "sender");
    struct json_object *content = get_type(ev, "content", json_type_object);
    if (!json_object_is_type(ev, json_type_object) || !type || !sender ||
        !content) {
        s->refused++;
        return;
    }
    if (strcmp(type, "m.room.message") == 0) {
        const char *id = get_str(ev, "event_id", MX_ID_MAX, false);
        struct json_object *ts =
            get_type(ev, "origin_server_ts", json_type_int);
        const char *msgtype = get_str(content, "msgtype", MX_ID_MAX, false);
        const char *body = get_str(content, "body", MX_BODY_MAX, true);
        if (!id || id[0] != '$' || !ts || !msgtype || !body) {
            s->refused++;
            return;
        }
        struct mx_item *it = add_item(s, MX_ITEM_MESSAGE, room);
        it->sender = xstrdup(sender);
        it->event_id = xstrdup(id);
        it->msgtype = xstrdup(msgtype);
        it->body = xstrdup(body);
        it->ts = json_object_get_int64(ts);
    } else if (strcmp(type, "m.room.member") == 0) {
        const char *user = get_user(ev, "state_key");
        const char *m = get_str(content, "membership", 16, false);
        if (!user || !is_membership(m)) {
            s->refused++;
            return;
        }
        struct mx_item *it = add_item(s, MX_ITEM_MEMBER, room);
        it->sender = xstrdup(sender);
        it->user = xstrdup(user);
        it->membership = xstrdup(m);
        it->name = member_name(content);
        struct json_object *d =
            get_type(content, "is_direct", json_type_boolean);
        it->is_direct = d && json_object_get_boolean(d);
    } else if (strcmp(type, "m.room.encrypted") == 0 ||
               strcmp(type, "m.room.encryption") == 0) {
        struct mx_item *it = add_item(s, MX_ITEM_ENCRYPTED, room);
        it->sender = xstrdup(sender);
        if (type[strlen("m.room.encrypt")] == 'e')
            it->event_id = xstrdup(get_str(ev, "event_id", MX_ID_MAX, false));
    } else if (strcmp(type, "m.room.name") == 0 ||
               strcmp(type, "m.room.canonical_alias") == 0) {
        bool name = type[strlen("m.room.")] == 'n';
        const char *key = get_str(ev, "state_key", 0, false);
        if (!key) { /* not the room's state */
            s->refused++;
            return;
        }
        /* an empty, missing or bad value is no name: the next one shows */
        const char *v = get_str(content, name ? "name" : "alias",
                                name ? MX_NAME_MAX : MX_ID_MAX, false);
        if (v && !name && !mx_is_alias(v))
            v = NULL;
        struct mx_item *it =
            add_item(s, name ? MX_ITEM_NAME : MX_ITEM_ALIAS, room);
        it->sender = xstrdup(sender);
        it->name = v && *v ? xstrdup(v) : NULL;
    } else if (strcmp(type, "m.room.create") == 0) {
        struct mx_item *it = add_item(s, MX_ITEM_CREATE, room);
        it->sender = xstrdup(sender);
    }
}

/* The event IDs taken from one room's events in one answer (lent by
 * json-c): an open-addressing hash set, never more than half full. */
struct seen {
    const char **slot;
    size_t cap, n;
};

static size_t id_hash(const char *s)
{
    size_t h = 14695981039346656037u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* Whether an event with ID `id` was taken before in this room's part of
 * the answer (Synapse 1.67 may give a newly joined room's newest event
 * both in its state and in its timeline): it is taken once. */
static bool seen_before(const struct seen *seen, const char *id)
{
    if (!id || !seen->cap)
        return false;
    for (size_t i = id_hash(id) & (seen->cap - 1); seen->slot[i];
         i = (i + 1) & (seen->cap - 1))
        if (strcmp(seen->slot[i], id) == 0)
            return true;
    return false;
}

static void seen_add(struct seen *seen, const char *id)
{
    if (2 * (seen->n + 1) > seen->cap) {
        struct seen grown = {.cap = seen->cap ? 2 * seen->cap : 64};
        grown.slot = xcalloc(grown.cap, sizeof *grown.slot);
        for (size_t i = 0; i < seen->cap; i++)
            if (seen->slot[i])
                seen_add(&grown, seen->slot[i]);
        free(seen->slot);
        *seen = grown;
    }
    size_t i = id_hash(id) & (seen->cap - 1);
    while (seen->slot[i])
        i = (i + 1) & (seen->cap - 1);
    seen->slot[i] = id;
    seen->n++;
}

static void room_events(struct mx_sync *s, const char *room,
                        struct json_object *section, struct seen *seen)
{
    struct json_object *events = get_type(section, "events", json_type_array);
    size_t n = events ? json_object_array_length(events) : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(events, i);
        const char *id = json_object_is_type(ev, json_type_object)
                             ? get_str(ev, "event_id", MX_ID_MAX, false)
                             : NULL;
        if (seen_before(seen, id))
            continue;
        size_t before = s->nitems;
        room_event(s, room, ev);
        if (id && s->nitems > before)
            seen_add(seen, id);
    }
}

static void joined_rooms(struct mx_sync *s, struct json_object *join)
{
    json_object_object_foreach(join, room, data)
    {
        if (!mx_is_room_id(room) ||
            !json_object_is_type(data, json_type_object)) {
            s->refused++;
            continue;
        }
        add_item(s, MX_ITEM_JOINED, room);
        struct seen seen = {0};
        room_events(s, room, get_type(data, "state", json_type_object), &seen);
        room_events(s, room, get_type(data, "timeline", json_type_object),
                    &seen);
        free(seen.slot);
    }
}

static void invited_rooms(struct mx_sync *s, const char *self,
                          struct json_object *invite)
{
    json_object_object_foreach(invite, room, data)
    {
        struct json_object *st =
            get_type(data, "invite_state", json_type_object);
        struct json_object *events = get_type(st, "events", json_type_array);
        const char *inviter = NULL;
        bool direct = false, encrypted = false;
        size_t n = events ? json_object_array_length(events) : 0;
        for (size_t i = 0; i < n; i++) {
            struct json_object *ev = json_object_array_get_idx(events, i);
            struct json_object *c = get_type(ev, "content", json_type_object);
            const char *type = get_str(ev, "type", MX_ID_MAX, false);
            const char *key = get_str(ev, "state_key", MX_ID_MAX, false);
            const char *m = get_str(c, "membership", 16, false);
            if (type && strcmp(type, "m.room.encryption") == 0)
                encrypted = true;
            if (!type || strcmp(type, "m.room.member") != 0 || !key || !self ||
                strcmp(key, self) != 0 || !m || strcmp(m, "invite") != 0)
                continue;
            inviter = get_user(ev, "sender");
            struct json_object *d = get_type(c, "is_direct", json_type_boolean);
            direct = d && json_object_get_boolean(d);
        }
        if (!mx_is_room_id(room) || !inviter) {
            s->refused++;
            continue;
        }
        struct mx_item *it = add_item(s, MX_ITEM_INVITE, room);
        it->sender = xstrdup(inviter);
        it->is_direct = direct;
        it->encrypted = encrypted;
    }
}

static void left_rooms(struct mx_sync *s, const char *self,
                       struct json_object *leave)
{
    json_object_object_foreach(leave, room, data)
    {
        if (!mx_is_room_id(room)) {
            s->refused++;
            continue;
        }
        struct mx_item *it = add_item(s, MX_ITEM_LEFT, room);
        /* who made the bot leave, and how: its last member event */
        struct json_object *tl = get_type(data, "timeline", json_type_object);
        struct json_object *events = get_type(tl, "events", json_type_array);
        size_t n = events ? json_object_array_length(events) : 0;
        for (size_t i = 0; self && i < n; i++) {
            struct json_object *ev = json_object_array_get_idx(events, i);
            struct json_object *c = get_type(ev, "content", json_type_object);
            const char *type = get_str(ev, "type", MX_ID_MAX, false);
            const char *key = get_str(ev, "state_key", MX_ID_MAX, false);
            const char *m = get_str(c, "membership", 16, false);
            const char *sender = get_user(ev, "sender");
            if (!type || strcmp(type, "m.room.member") != 0 || !key ||
                strcmp(key, self) != 0 || !sender || !m ||
                (strcmp(m, "leave") != 0 && strcmp(m, "ban") != 0))
                continue;
            free(it->sender);
            free(it->membership);
            it->sender = xstrdup(sender);
            it->membership = xstrdup(m);
        }
    }
}

/* m.direct's content: {user: [room, ...]}. Returns how many entries or
 * rooms were skipped. */
static int direct_map(struct json_object *content, struct mx_direct **out,
                      size_t *nout)
{
    int bad = 0;
    struct mx_direct *d = NULL;
    size_t nd = 0;
    json_object_object_foreach(content, user, rooms)
    {
        if (!mx_is_user_id(user) ||
            !json_object_is_type(rooms, json_type_array)) {
            bad++;
            continue;
        }
        d = xrealloc(d, (nd + 1) * sizeof *d);
        struct mx_direct *e = &d[nd++];
        e->user = xstrdup(user);
        e->rooms = NULL;
        e->nrooms = 0;
        size_t n = json_object_array_length(rooms);
        for (size_t i = 0; i < n; i++) {
            struct json_object *r = json_object_array_get_idx(rooms, i);
            const char *id = json_object_is_type(r, json_type_string)
                                 ? json_object_get_string(r)
                                 : NULL;
            if (!mx_is_room_id(id)) {
                bad++;
                continue;
            }
            e->rooms = xrealloc(e->rooms, (e->nrooms + 1) * sizeof *e->rooms);
            e->rooms[e->nrooms++] = xstrdup(id);
        }
    }
    *out = d;
    *nout = nd;
    return bad;
}

static void account_data(struct mx_sync *s, struct json_object *ad)
{
    struct json_object *events = get_type(ad, "events", json_type_array);
    size_t n = events ? json_object_array_length(events) : 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(events, i);
        const char *type = get_str(ev, "type", MX_ID_MAX, false);
        if (!type || strcmp(type, "m.direct") != 0)
            continue;
        struct json_object *c = get_type(ev, "content", json_type_object);
        if (!c) {
            s->refused++;
            continue;
        }
        mx_direct_free(s->direct, s->ndirect);
        s->refused += direct_map(c, &s->direct, &s->ndirect);
        s->has_direct = true;
    }
}

/* The JSON value of type `want` in body, or NULL with err set. */
static struct json_object *parse_json(const char *body, size_t len,
                                      enum json_type want, char *err,
                                      size_t errlen)
{
    if (len > (size_t)INT32_MAX) {
        err_set(err, errlen, "body too large");
        return NULL;
    }
    struct json_tokener *tok = xjson_tokener(MX_JSON_DEPTH);
    /* no UTF-8 check here: one bad byte in one message must not refuse
     * the whole response (the bot would fetch it again forever); every
     * string the parser uses is checked where it is used */
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    struct json_object *o = json_tokener_parse_ex(tok, body, (int)len);
    enum json_tokener_error e = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (!o || e != json_tokener_success) {
        err_set(err, errlen, "not JSON: %s",
                json_tokener_error_desc(
                    e == json_tokener_success ? json_tokener_continue : e));
        json_object_put(o);
        return NULL;
    }
    for (; used < len; used++)
        if (!strchr(" \t\r\n", body[used])) {
            err_set(err, errlen, "trailing bytes after the JSON");
            json_object_put(o);
            return NULL;
        }
    if (!json_object_is_type(o, want)) {
        err_set(err, errlen, "not a JSON %s",
                want == json_type_array ? "array" : "object");
        json_object_put(o);
        return NULL;
    }
    return o;
}

static struct json_object *parse_object(const char *body, size_t len, char *err,
                                        size_t errlen)
{
    return parse_json(body, len, json_type_object, err, errlen);
}

/* A whole answer's object, for the parsers that say why they refuse one:
 * *err becomes `dummy` (one byte) when the caller wants no reason. */
static struct json_object *open_body(const char *body, size_t len, char **err,
                                     size_t *errlen, char dummy[1])
{
    if (!*err || *errlen == 0) {
        *err = dummy;
        *errlen = 1;
    }
    return parse_object(body, len, *err, *errlen);
}

int mx_sync_parse(const char *body, size_t len, const char *self,
                  struct mx_sync *out, char *err, size_t errlen)
{
    char dummy[1];
    struct json_object *o = open_body(body, len, &err, &errlen, dummy);
    if (!o)
        return -1;
    const char *next = get_str(o, "next_batch", MX_TOKEN_MAX, false);
    if (!next || !*next) {
        err_set(err, errlen, "no valid next_batch");
        json_object_put(o);
        return -1;
    }
    struct mx_sync s = {0};
    s.next_batch = xstrdup(next);
    struct json_object *rooms = get_type(o, "rooms", json_type_object);
    struct json_object *sec;
    if ((sec = get_type(rooms, "join", json_type_object)))
        joined_rooms(&s, sec);
    if ((sec = get_type(rooms, "invite", json_type_object)))
        invited_rooms(&s, self, sec);
    if ((sec = get_type(rooms, "leave", json_type_object)))
        left_rooms(&s, self, sec);
    if ((sec = get_type(o, "account_data", json_type_object)))
        account_data(&s, sec);
    json_object_put(o);
    *out = s;
    return 0;
}

/* An event of a transaction about the bot's own membership: the sync's
 * rooms.invite, rooms.join and rooms.leave, from the member event itself.
 * Whether it was one. */
static bool own_member(struct mx_sync *s, const char *self, const char *room,
                       struct json_object *ev)
{
    const char *type = get_str(ev, "type", MX_ID_MAX, false);
    const char *key = get_str(ev, "state_key", MX_ID_MAX, false);
    if (!self || !type || strcmp(type, "m.room.member") != 0 || !key ||
        strcmp(key, self) != 0)
        return false;
    struct json_object *c = get_type(ev, "content", json_type_object);
    const char *m = get_str(c, "membership", 16, false);
    const char *sender = get_user(ev, "sender");
    if (!m || !sender)
        return false; /* refused by room_event */
    if (strcmp(m, "invite") == 0) {
        struct mx_item *it = add_item(s, MX_ITEM_INVITE, room);
        it->sender = xstrdup(sender);
        struct json_object *d = get_type(c, "is_direct", json_type_boolean);
        it->is_direct = d && json_object_get_boolean(d);
        /* the stripped state the inviter shares (Synapse: unsigned) */
        struct json_object *u = get_type(ev, "unsigned", json_type_object);
        struct json_object *st =
            get_type(u, "invite_room_state", json_type_array);
        size_t n = st ? json_object_array_length(st) : 0;
        for (size_t i = 0; i < n; i++) {
            const char *t = get_str(json_object_array_get_idx(st, i), "type",
                                    MX_ID_MAX, false);
            if (t && strcmp(t, "m.room.encryption") == 0)
                it->encrypted = true;
        }
        return true;
    }
    if (strcmp(m, "leave") == 0 || strcmp(m, "ban") == 0) {
        struct mx_item *it = add_item(s, MX_ITEM_LEFT, room);
        it->sender = xstrdup(sender);
        it->membership = xstrdup(m);
        return true;
    }
    if (strcmp(m, "join") == 0)
        add_item(s, MX_ITEM_JOINED, room);
    return false; /* a join is a member event too */
}

int mx_txn_parse(const char *body, size_t len, const char *self,
                 struct mx_sync *out, char *err, size_t errlen)
{
    char dummy[1];
    struct json_object *o = open_body(body, len, &err, &errlen, dummy);
    if (!o)
        return -1;
    struct json_object *events = get_type(o, "events", json_type_array);
    if (!events) {
        err_set(err, errlen, "no events array");
        json_object_put(o);
        return -1;
    }
    struct mx_sync s = {0};
    struct seen seen = {0};
    size_t n = json_object_array_length(events);
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(events, i);
        const char *room = get_str(ev, "room_id", MX_ID_MAX, false);
        if (!json_object_is_type(ev, json_type_object) || !room ||
            !mx_is_room_id(room)) {
            s.refused++;
            continue;
        }
        const char *id = get_str(ev, "event_id", MX_ID_MAX, false);
        if (seen_before(&seen, id))
            continue;
        size_t before = s.nitems;
        if (!own_member(&s, self, room, ev))
            room_event(&s, room, ev);
        if (id && s.nitems > before)
            seen_add(&seen, id);
    }
    free(seen.slot);
    json_object_put(o);
    *out = s;
    return 0;
}

void mx_item_free(struct mx_item *it)
{
    free(it->room);
    free(it->sender);
    free(it->event_id);
    free(it->msgtype);
    free(it->body);
    free(it->user);
    free(it->membership);
    free(it->name);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void mx_item_copy(struct mx_item *to, const struct mx_item *from)
{
    *to = *from;
    to->room = dup_or_null(from->room);
    to->sender = dup_or_null(from->sender);
    to->event_id = dup_or_null(from->event_id);
    to->msgtype = dup_or_null(from->msgtype);
    to->body = dup_or_null(from->body);
    to->user = dup_or_null(from->user);
    to->membership = dup_or_null(from->membership);
    to->name = dup_or_null(from->name);
}

void mx_direct_free(struct mx_direct *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(d[i].user);
        for (size_t j = 0; j < d[i].nrooms; j++)
            free(d[i].rooms[j]);
        free(d[i].rooms);
    }
    free(d);
}

void mx_sync_free(struct mx_sync *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nitems; i++)
        mx_item_free(&s->items[i]);
    free(s->items);
    free(s->next_batch);
    mx_direct_free(s->direct, s->ndirect);
    memset(s, 0, sizeof *s);
}

int mx_member_parse(const char *body, size_t len, char **membership,
                    char **name)
{
    char err[8];
    struct json_object *o = parse_object(body, len, err, sizeof err);
    if (!o)
        return -1;
    const char *m = get_str(o, "membership", 16, false);
    if (!is_membership(m)) {
        json_object_put(o);
        return -1;
    }
    *membership = xstrdup(m);
    *name = member_name(o);
    json_object_put(o);
    return 0;
}

int mx_state_parse(const char *body, size_t len, const char *room,
                   struct mx_sync *out, char *err, size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    if (!mx_is_room_id(room)) {
        return err_set(err, errlen, "not a room ID");
    }
    struct json_object *o = parse_json(body, len, json_type_array, err, errlen);
    if (!o)
        return -1;
    struct mx_sync s = {0};
    size_t n = json_object_array_length(o);
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(o, i);
        /* state only: a message here is not one */
        const char *type = get_str(ev, "type", MX_ID_MAX, false);
        if (!json_object_is_type(ev, json_type_object) || !type ||
            strcmp(type, "m.room.message") == 0 ||
            strcmp(type, "m.room.encrypted") == 0 ||
            !get_str(ev, "state_key", MX_ID_MAX, false)) {
            s.refused++;
            continue;
        }
        room_event(&s, room, ev);
    }
    json_object_put(o);
    *out = s;
    return 0;
}

int mx_joined_parse(const char *body, size_t len,
                    void (*fn)(void *ctx, const char *user, const char *name),
                    void *ctx, size_t max)
{
    char err[8];
    struct json_object *o = parse_object(body, len, err, sizeof err);
    if (!o)
        return -1;
    struct json_object *joined = get_type(o, "joined", json_type_object);
    if (!joined) {
        json_object_put(o);
        return -1;
    }
    size_t n = 0;
    json_object_object_foreach(joined, user, data)
    {
        if (n >= max)
            break;
        if (!mx_is_user_id(user) ||
            !json_object_is_type(data, json_type_object))
            continue;
        const char *name = get_str(data, "display_name", MX_NAME_MAX, false);
        fn(ctx, user, name && *name ? name : NULL);
        n++;
    }
    json_object_put(o);
    return 0;
}

int mx_direct_parse(const char *body, size_t len, struct mx_direct **out,
                    size_t *n)
{
    char err[8];
    struct json_object *o = parse_object(body, len, err, sizeof err);
    if (!o)
        return -1;
    direct_map(o, out, n);
    json_object_put(o);
    return 0;
}

/* The state the bot keeps: members, encryption, and what names a room. */
#define STATE_TYPES                                                            \
    "\"m.room.member\",\"m.room.encryption\",\"m.room.name\","                 \
    "\"m.room.canonical_alias\",\"m.room.create\""

#define FILTER_HEAD                                                            \
    "{\"presence\":{\"types\":[]},"                                            \
    "\"account_data\":{\"types\":[\"m.direct\"]},"                             \
    "\"room\":{\"ephemeral\":{\"types\":[]},"                                  \
    "\"account_data\":{\"types\":[]},"                                         \
    "\"state\":{\"types\":[" STATE_TYPES "],"                                  \
    "\"lazy_load_members\":true,\"include_redundant_members\":true},"          \
    "\"timeline\":{\"types\":[\"m.room.message\",\"m.room."                    \
    "encrypted\"," STATE_TYPES "]"

const char *mx_sync_filter(bool history)
{
    return history ? FILTER_HEAD "}}}" : FILTER_HEAD ",\"limit\":0}}}";
}
