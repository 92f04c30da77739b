/*
 * The Matrix adapter's lifecycle and protocol flow (matrix_adapter.h).
 *
 * Every request is a `call`: method, path, body, and what to do with a
 * 2xx answer or a final refusal. The retry policy (retry.c) is applied in
 * one place, call_done: waits, backoff, logging in again. A 429 on any
 * call also pauses the sends of every room until its wait is over (the
 * limit is per user on the homeserver).
 *
 * Start: session file -> (login) -> epoch raised and saved -> joins of
 * the configured rooms, the m.direct map, the first /sync (no history on
 * a new session) -> CHAT_CONNECTED -> /sync long-polls, one after the
 * other. Sends run beside it: one message in flight per room, the rest
 * of that room's lines coalesced behind it.
 */
#include "matrix_adapter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "http.h"
#include "log.h"
#include "members.h"
#include "outbox.h"
#include "retry.h"
#include "session.h"
#include "storage.h"
#include "sync.h"
#include "xalloc.h"

#define API "/_matrix/client/v3"

struct mxad;
struct call;

typedef void (*call_fn)(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len);

struct call {
    struct mxad *a;
    char *method;
    char *path; /* after API, already encoded */
    char *body; /* JSON or NULL */
    char *key;  /* what it is about: a room, a person */
    int64_t timeout_ms;
    uint64_t req, timer;
    struct mx_retry retry;
    call_fn done;   /* 2xx */
    call_fn failed; /* a refusal retrying cannot change (status 0: gave up) */
    uint64_t *cookies; /* a send's tracked texts, reported when it ends */
    size_t ncookies;
    struct call *next;
};

/* A room of the config (cfg.rooms[i]), by ID or alias. */
struct cfg_room {
    struct mxad *a;
    int i;
    char *id;          /* what it resolved to when joined; NULL before */
    bool out;          /* kicked: its lines wait for the rejoin */
    bool lost;         /* banned, or the rejoin refused: its lines go */
    int64_t last_kick; /* loop time */
    int64_t delay;     /* the last wait before a rejoin */
    uint64_t rejoin_timer;
};

/* A person's direct room. */
struct dm {
    char *user;
    char *room;
};

struct mxad {
    struct chat_adapter base;
    struct loop *loop;
    struct mx_http *http;
    struct config_matrix cfg; /* strings owned */
    char *session_path;       /* NULL: nothing kept */
    char *session_dir;
    char *data_dir;
    char *base_url;
    struct mx_session s;
    struct mx_txn txn;
    char *token; /* in use */
    int64_t retry_base_ms, retry_cap_ms;
    uint64_t seed;

    struct call *calls;
    struct call *sync;
    char *good_since; /* a since the server last answered well */
    uint64_t sync_timer;
    struct mx_retry sync_retry;
    bool started, stopped, connected, logging_in;
    bool first_sync_done;
    bool direct_known;      /* m.direct read: a missing direct room is made */
    bool direct_busy;       /* an m.direct read and write in flight */
    bool direct_again;      /* another direct room to record after it */
    struct cfg_room *rooms; /* cfg.nrooms */
    int joins_pending;      /* the first sync waits for the rooms' joins */
    int64_t pause_until;    /* sends wait for a 429 until then */
    bool told_limited;      /* the note on rate limits is in the log */
    uint64_t pause_timer;

    struct mx_outbox *out;
    char **sending; /* rooms with a message in flight */
    size_t nsending;
    char **creating; /* people whose direct room is being created */
    size_t ncreating;
    struct dm *dms;
    size_t ndms;
    char **awaiting; /* direct rooms whose person has not joined yet */
    size_t nawaiting;
    char **joins_seen; /* "room user": joins in rooms not (yet) known as
                          direct, the last JOINS_SEEN_MAX */
    size_t njoins_seen;
    char **warned; /* rooms told about encryption */
    size_t nwarned;
    struct mx_members *members; /* display names per room (members.h) */
    char **fetching;            /* "room user": member events being fetched */
    size_t nfetching;

    /* answers to the ops, given from a timer (never from inside an op) */
    uint64_t *reports; /* CHAT_SENT cookies */
    size_t nreports;
    char **verifies; /* CHAT_IDENTITY questions */
    size_t nverifies;
    char **left; /* people last seen leaving a room (verify: gone) */
    size_t nleft;
    uint64_t answer_timer;
};

/* ---- small helpers ------------------------------------------------------ */

static char *xprintf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    char *p = xcalloc(1, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Percent-encodes s for a URL path segment or query value. */
static char *enc(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = xcalloc(1, strlen(s) * 3 + 1), *o = out;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || strchr("-._~", c)) {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    return out;
}

/* Set of strings (rooms in flight, people being served). */
static bool set_has(char **set, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i], s) == 0)
            return true;
    return false;
}

static void set_add(char ***set, size_t *n, const char *s)
{
    if (set_has(*set, *n, s))
        return;
    *set = xrealloc(*set, (*n + 1) * sizeof **set);
    (*set)[(*n)++] = xstrdup(s);
}

static void set_del(char **set, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i], s) == 0) {
            free(set[i]);
            set[i] = set[--*n];
            return;
        }
}

static void set_free(char **set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(set[i]);
    free(set);
}

/* A string field of a JSON body that passes `ok`, copied; else NULL. */
static char *body_string(const char *body, size_t len, const char *key,
                         bool (*ok)(const char *))
{
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok)
        abort();
    struct json_object *o =
        json_tokener_parse_ex(tok, body, len > INT32_MAX ? 0 : (int)len);
    json_tokener_free(tok);
    struct json_object *v;
    char *out = NULL;
    if (o && json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, key, &v) &&
        json_object_is_type(v, json_type_string) &&
        strlen(json_object_get_string(v)) ==
            (size_t)json_object_get_string_len(v) &&
        ok(json_object_get_string(v)))
        out = xstrdup(json_object_get_string(v));
    json_object_put(o);
    return out;
}

/* Printable ASCII without spaces, 1..1024 bytes: tokens, device IDs. */
static bool is_word(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 1024)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return false;
    return true;
}

/* An event from a person (from: their user ID, also the account results
 * count for) shown as `display` (NULL: not known). */
static void emit_person(struct mxad *a, enum chat_event_kind kind,
                        const char *room, const char *from, const char *display,
                        const char *text, const char *target)
{
    if (a->stopped)
        return;
    struct chat_event ev = {
        .kind = kind,
        .room = room,
        .from = {.nick = from, .id = from, .account = from, .display = display},
        .text = text,
        .target = target};
    a->base.on_event(a->base.ctx, &a->base, &ev);
}

static void emit(struct mxad *a, enum chat_event_kind kind, const char *room,
                 const char *from, const char *text, const char *target)
{
    emit_person(a, kind, room, from, NULL, text, target);
}

static void answer(struct loop *l, void *ctx)
{
    (void)l;
    struct mxad *a = ctx;
    a->answer_timer = 0;
    /* taken first: a handler may ask again */
    uint64_t *reports = a->reports;
    size_t nreports = a->nreports;
    char **verifies = a->verifies;
    size_t nverifies = a->nverifies;
    a->reports = NULL;
    a->verifies = NULL;
    a->nreports = a->nverifies = 0;
    for (size_t i = 0; i < nreports; i++) {
        if (a->stopped)
            break;
        struct chat_event ev = {.kind = CHAT_SENT, .cookie = reports[i]};
        a->base.on_event(a->base.ctx, &a->base, &ev);
    }
    /* a Matrix user ID never changes hands: whoever sat down holds it,
     * unless they were last seen leaving a room (no netsplit or lost
     * connection makes anyone leave on Matrix: they meant it) */
    for (size_t i = 0; i < nverifies && !a->stopped; i++) {
        const char *v = verifies[i];
        bool here = mx_is_user_id(v) && !set_has(a->left, a->nleft, v);
        struct chat_event ev = {.kind = CHAT_IDENTITY,
                                .from = {.nick = v, .id = here ? v : NULL}};
        a->base.on_event(a->base.ctx, &a->base, &ev);
    }
    free(reports);
    set_free(verifies, nverifies);
}

static void answer_soon(struct mxad *a)
{
    if (!a->answer_timer)
        a->answer_timer = loop_timer(a->loop, 0, answer, a);
}

/* Tracked texts are sent (or dropped): CHAT_SENT for each, soon. */
static void report(struct mxad *a, const uint64_t *cookies, size_t n)
{
    if (a->stopped || n == 0)
        return;
    a->reports = xrealloc(a->reports, (a->nreports + n) * sizeof *a->reports);
    memcpy(a->reports + a->nreports, cookies, n * sizeof *cookies);
    a->nreports += n;
    answer_soon(a);
}

/* Drops what waits for dest, reporting its tracked texts. */
static void drop(struct mxad *a, const char *dest)
{
    const uint64_t *cookies;
    mx_outbox_drop(a->out, dest);
    report(a, cookies, mx_outbox_removed(a->out, &cookies));
}

static void save_session(struct mxad *a)
{
    if (!a->session_path)
        return;
    char err[512];
    if (storage_mkdirs(a->data_dir, a->session_dir, err, sizeof err) ||
        mx_session_save(a->session_path, &a->s, err, sizeof err))
        log_error("%s: cannot keep the Matrix session: %s", a->base.network,
                  err);
}

/* ---- calls -------------------------------------------------------------- */

static void call_send(struct mxad *a, struct call *c);

static void call_free(struct mxad *a, struct call *c)
{
    for (struct call **p = &a->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    if (a->sync == c)
        a->sync = NULL;
    mx_http_cancel(a->http, c->req);
    loop_cancel(a->loop, c->timer);
    /* sent, given up or cut short: what it held is no longer waiting */
    report(a, c->cookies, c->ncookies);
    free(c->cookies);
    free(c->method);
    free(c->path);
    free(c->body);
    free(c->key);
    free(c);
}

static struct call *call_new(struct mxad *a, const char *method, char *path,
                             char *body, const char *key, call_fn done,
                             call_fn failed)
{
    struct call *c = xcalloc(1, sizeof *c);
    c->a = a;
    c->method = xstrdup(method);
    c->path = path;
    c->body = body;
    c->key = xstrdup(key);
    c->timeout_ms = a->cfg.request_timeout_ms;
    c->done = done;
    c->failed = failed;
    mx_retry_init(&c->retry, a->retry_base_ms, a->retry_cap_ms, ++a->seed);
    c->next = a->calls;
    a->calls = c;
    return c;
}

static void start_login(struct mxad *a);

static void on_retry_timer(struct loop *l, void *ctx)
{
    (void)l;
    struct call *c = ctx;
    c->timer = 0;
    call_send(c->a, c);
}

static void unpause(struct loop *l, void *ctx);

static void call_done(void *ctx, enum mx_http_result result, long status,
                      const char *body, size_t len)
{
    struct call *c = ctx;
    struct mxad *a = c->a;
    c->req = 0;
    int64_t wait = 0;
    enum mx_retry_action act =
        mx_retry_decide(&c->retry, result, status, body, len, &wait);
    /* the sync's callbacks start the next one */
    if (act != MX_RETRY_WAIT && act != MX_RETRY_LOGIN && a->sync == c)
        a->sync = NULL;
    switch (act) {
    case MX_RETRY_DONE:
        c->done(a, c, status, body, len);
        call_free(a, c);
        return;
    case MX_RETRY_WAIT:
        if (status == 429) {
            log_info("%s: rate-limited on %s %s: waiting %" PRId64 " ms",
                     a->base.network, c->method, c->path, wait);
            if (!a->told_limited) {
                a->told_limited = true;
                log_warn("%s: the homeserver rate-limits %s, so tables will "
                         "be slow: the bot waits as told and loses "
                         "nothing. Ask its admin to exempt the account "
                         "(Synapse: override_ratelimit; see "
                         "docs/hosting.md, \"Rate limits\")",
                         a->base.network, a->cfg.user_id);
            }
            int64_t until = loop_now(a->loop) + wait;
            if (until > a->pause_until)
                a->pause_until = until;
        } else {
            log_warn("%s: %s %s: %s%s%ld; again in %" PRId64 " ms",
                     a->base.network, c->method, c->path,
                     mx_http_result_name(result),
                     result == MX_HTTP_OK ? " HTTP " : "",
                     result == MX_HTTP_OK ? status : 0L, wait);
            if (c == a->sync && a->connected) {
                a->connected = false;
                emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
            }
        }
        c->timer = loop_timer(a->loop, wait, on_retry_timer, c);
        return;
    case MX_RETRY_LOGIN:
        if (*a->cfg.password) {
            log_warn("%s: the access token is no longer valid: logging in "
                     "again",
                     a->base.network);
            mx_session_set(&a->s.access_token, NULL);
            free(a->token);
            a->token = NULL;
            if (!a->logging_in)
                start_login(a);
            /* this call goes again once the new token is there */
            c->timer = loop_timer(a->loop, a->retry_base_ms, on_retry_timer, c);
            return;
        }
        log_error("%s: the homeserver refuses the access token and no "
                  "password is configured: set a new access_token (or a "
                  "password) in the [[matrix]] section and restart",
                  a->base.network);
        break;
    case MX_RETRY_FAIL:
        break;
    }
    char code[64];
    mx_errcode(body, len, code, sizeof code);
    /* a 404 is an answer too (no m.direct yet) */
    log_msg(status == 404 ? LOG_DEBUG : LOG_WARN,
            "%s: %s %s refused: HTTP %ld %s", a->base.network, c->method,
            c->path, status, code);
    if (c->failed)
        c->failed(a, c, status, body, len);
    call_free(a, c);
}

static void call_send(struct mxad *a, struct call *c)
{
    if (!a->token && strcmp(c->path, "/login") != 0) {
        /* waiting for a login */
        c->timer = loop_timer(a->loop, a->retry_base_ms, on_retry_timer, c);
        return;
    }
    char *url = xprintf("%s%s%s", a->base_url, API, c->path);
    struct mx_http_request rq = {.method = c->method,
                                 .url = url,
                                 .body = c->body,
                                 .token = a->token,
                                 .timeout_ms = c->timeout_ms};
    c->req = mx_http_start(a->http, &rq, call_done, c);
    free(url);
    if (!c->req) {
        log_error("%s: cannot make the request %s %s", a->base.network,
                  c->method, c->path);
        call_free(a, c);
    }
}

/* ---- direct rooms ---------------------------------------------------------
 */

static const char *dm_room(const struct mxad *a, const char *user)
{
    for (size_t i = 0; i < a->ndms; i++)
        if (strcmp(a->dms[i].user, user) == 0)
            return a->dms[i].room;
    return NULL;
}

static const char *dm_user(const struct mxad *a, const char *room)
{
    for (size_t i = 0; i < a->ndms; i++)
        if (strcmp(a->dms[i].room, room) == 0)
            return a->dms[i].user;
    return NULL;
}

static void dm_set(struct mxad *a, const char *user, const char *room)
{
    for (size_t i = 0; i < a->ndms; i++)
        if (strcmp(a->dms[i].user, user) == 0) {
            free(a->dms[i].room);
            a->dms[i].room = xstrdup(room);
            return;
        }
    a->dms = xrealloc(a->dms, (a->ndms + 1) * sizeof *a->dms);
    a->dms[a->ndms].user = xstrdup(user);
    a->dms[a->ndms].room = xstrdup(room);
    a->ndms++;
}

static void dm_forget_room(struct mxad *a, const char *room)
{
    for (size_t i = 0; i < a->ndms; i++)
        if (strcmp(a->dms[i].room, room) == 0) {
            free(a->dms[i].user);
            free(a->dms[i].room);
            a->dms[i] = a->dms[--a->ndms];
            return;
        }
}

/* Takes the map the server holds: its first room per person, unless we
 * use another one already. */
static void dm_merge(struct mxad *a, const struct mx_direct *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (d[i].nrooms > 0 && !dm_room(a, d[i].user))
            dm_set(a, d[i].user, d[i].rooms[0]);
}

static char *direct_path(const struct mxad *a)
{
    char *u = enc(a->cfg.user_id);
    char *p = xprintf("/user/%s/account_data/m.direct", u);
    free(u);
    return p;
}

static void direct_record(struct mxad *a, const char *user);

static void direct_put_done(struct mxad *a, struct call *c, long status,
                            const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    a->direct_busy = false;
    if (a->direct_again) {
        a->direct_again = false;
        direct_record(a, c->key);
    }
}

/* GET m.direct answered (or 404: none yet): add every direct room we use,
 * PUT it back whole (a write replaces the map). One read and write at a
 * time: two at once would each write back what the other did not add. */
static void direct_got(struct mxad *a, struct call *c, long status,
                       const char *body, size_t len)
{
    if (status != 200 && status != 404) {
        /* not read: the next room recorded writes this one's too */
        direct_put_done(a, c, status, body, len);
        return;
    }
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok)
        abort();
    struct json_object *map =
        status == 200 ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
    json_tokener_free(tok);
    if (!map || !json_object_is_type(map, json_type_object)) {
        json_object_put(map);
        map = json_object_new_object();
    }
    for (size_t d = 0; d < a->ndms; d++) {
        const char *user = a->dms[d].user, *room = a->dms[d].room;
        struct json_object *rooms;
        if (!json_object_object_get_ex(map, user, &rooms) ||
            !json_object_is_type(rooms, json_type_array)) {
            rooms = json_object_new_array();
            json_object_object_add(map, user, rooms);
        }
        bool have = false;
        for (size_t i = 0; i < json_object_array_length(rooms); i++) {
            struct json_object *r = json_object_array_get_idx(rooms, i);
            have |= json_object_is_type(r, json_type_string) &&
                    strcmp(json_object_get_string(r), room) == 0;
        }
        if (!have)
            json_object_array_add(rooms, json_object_new_string(room));
    }
    char *out = xstrdup(json_object_to_json_string_ext(
        map, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(map);
    call_send(a, call_new(a, "PUT", direct_path(a), out, c->key,
                          direct_put_done, direct_put_done));
}

static void direct_record(struct mxad *a, const char *user)
{
    if (a->direct_busy) {
        a->direct_again = true;
        return;
    }
    a->direct_busy = true;
    call_send(a, call_new(a, "GET", direct_path(a), NULL, user, direct_got,
                          direct_got));
}

static void created(struct mxad *a, struct call *c, long status,
                    const char *body, size_t len)
{
    (void)status;
    set_del(a->creating, &a->ncreating, c->key);
    char *room = body_string(body, len, "room_id", mx_is_room_id);
    if (!room) {
        log_warn("%s: createRoom for %s gave no room ID", a->base.network,
                 c->key);
        drop(a, c->key);
        return;
    }
    log_info("%s: direct room %s for %s", a->base.network, room, c->key);
    dm_set(a, c->key, room);
    mx_outbox_move(a->out, c->key, room);
    /* their lines wait for them to join: a server need not show a newcomer
     * what was said before; the sync may have shown the join before this
     * answer came */
    char *key = xprintf("%s %s", room, c->key);
    if (!set_has(a->joins_seen, a->njoins_seen, key))
        set_add(&a->awaiting, &a->nawaiting, room);
    free(key);
    free(room);
    direct_record(a, c->key);
}

static void create_failed(struct mxad *a, struct call *c, long status,
                          const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->creating, &a->ncreating, c->key);
    drop(a, c->key);
}

static void create_dm(struct mxad *a, const char *user)
{
    if (set_has(a->creating, a->ncreating, user))
        return;
    set_add(&a->creating, &a->ncreating, user);
    struct json_object *o = json_object_new_object();
    struct json_object *inv = json_object_new_array();
    json_object_array_add(inv, json_object_new_string(user));
    json_object_object_add(o, "invite", inv);
    json_object_object_add(o, "is_direct", json_object_new_boolean(1));
    json_object_object_add(o, "preset",
                           json_object_new_string("trusted_private_chat"));
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    call_send(a, call_new(a, "POST", xstrdup("/createRoom"), body, user,
                          created, create_failed));
}

/* ---- configured rooms ------------------------------------------------------
 */

/* The configured room that resolved to room ID `id`, or NULL. */
static struct cfg_room *cfg_by_id(const struct mxad *a, const char *id)
{
    for (int i = 0; id && i < a->cfg.nrooms; i++)
        if (a->rooms[i].id && strcmp(a->rooms[i].id, id) == 0)
            return &a->rooms[i];
    return NULL;
}

/* The configured room named `name` (ID or alias, as in the config). */
static struct cfg_room *cfg_by_name(const struct mxad *a, const char *name)
{
    for (int i = 0; name && i < a->cfg.nrooms; i++)
        if (strcmp(a->cfg.rooms[i].name, name) == 0)
            return &a->rooms[i];
    return NULL;
}

/* How events name room ID `id`: a room configured by alias by its alias
 * (per-room settings, data files and what people read use the name the
 * config gives), any other by its ID. */
static const char *room_shown(const struct mxad *a, const char *id)
{
    const struct cfg_room *r = cfg_by_id(a, id);
    return r ? a->cfg.rooms[r->i].name : id;
}

/* ---- sending ----------------------------------------------------------------
 */

static void flush(struct loop *l, void *ctx);

static void sent(struct mxad *a, struct call *c, long status, const char *body,
                 size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->sending, &a->nsending, c->key);
}

static void unpause(struct loop *l, void *ctx)
{
    struct mxad *a = ctx;
    a->pause_timer = 0;
    flush(l, a);
}

/* Before every sleep: one message per room with lines waiting and none
 * in flight. */
static void flush(struct loop *l, void *ctx)
{
    struct mxad *a = ctx;
    if (!a->token || !mx_outbox_waiting(a->out, NULL))
        return;
    int64_t now = loop_now(l);
    if (now < a->pause_until) {
        if (!a->pause_timer)
            a->pause_timer = loop_timer(l, a->pause_until - now, unpause, a);
        return;
    }
    for (size_t i = 0;;) {
        const char *dest = mx_outbox_dest(a->out, i);
        if (!dest)
            break;
        if (dest[0] == '@' && a->direct_known) {
            /* a person without a direct room when their lines came */
            if (dm_room(a, dest)) {
                char *user = xstrdup(dest);
                mx_outbox_move(a->out, user, dm_room(a, user));
                free(user);
                i = 0;
                continue;
            }
            create_dm(a, dest);
        }
        const struct cfg_room *cr = cfg_by_id(a, dest);
        if (dest[0] != '!' || set_has(a->sending, a->nsending, dest) ||
            set_has(a->awaiting, a->nawaiting, dest) || (cr && cr->out)) {
            i++;
            continue;
        }
        char *room = xstrdup(dest);
        char *content = mx_outbox_take(a->out, room);
        const uint64_t *cookies;
        size_t ncookies = mx_outbox_removed(a->out, &cookies);
        char txn[64];
        mx_txn_next(&a->txn, txn, sizeof txn);
        char *r = enc(room), *t = enc(txn);
        char *path = xprintf("/rooms/%s/send/m.room.message/%s", r, t);
        free(r);
        free(t);
        set_add(&a->sending, &a->nsending, room);
        struct call *c = call_new(a, "PUT", path, content, room, sent, sent);
        if (ncookies) {
            c->cookies = xcalloc(ncookies, sizeof *c->cookies);
            memcpy(c->cookies, cookies, ncookies * sizeof *cookies);
            c->ncookies = ncookies;
        }
        call_send(a, c);
        free(room);
        /* the list changed: look again from the start */
        i = 0;
    }
}

/* Where text for a room or a person waits: the room, the person's
 * direct room, or (until that is found or made in flush, once m.direct
 * is known: a restart must not make new rooms for the players of a
 * resumed game) the person; NULL for nowhere. Priorities are not used:
 * everything waiting for a room goes out as one message anyway. */
static const char *destination(const struct mxad *a, const char *to)
{
    const struct cfg_room *r = cfg_by_name(a, to);
    if (!r)
        r = cfg_by_id(a, to);
    if (r && r->lost)
        return NULL;
    if (r)
        return r->id ? r->id : a->cfg.rooms[r->i].name; /* held till joined */
    if (mx_is_room_id(to))
        return to;
    if (!mx_is_user_id(to) || strcmp(to, a->cfg.user_id) == 0)
        return NULL;
    const char *room = dm_room(a, to);
    return room ? room : to;
}

static void tell_tracked(struct chat_adapter *base, const char *to,
                         const char *text, enum chat_priority prio,
                         uint64_t cookie)
{
    (void)prio;
    struct mxad *a = (struct mxad *)base;
    if (a->stopped)
        return;
    const char *dest = to ? destination(a, to) : NULL;
    if (!dest || !text) {
        report(a, &cookie, cookie ? 1 : 0);
        return;
    }
    mx_outbox_add_tracked(a->out, dest, text, cookie);
}

static void say(struct chat_adapter *base, const char *room, const char *text,
                enum chat_priority prio)
{
    if (room && !mx_is_user_id(room))
        tell_tracked(base, room, text, prio, 0);
}

static void tell(struct chat_adapter *base, const char *nick, const char *text,
                 enum chat_priority prio)
{
    if (nick && mx_is_user_id(nick))
        tell_tracked(base, nick, text, prio, 0);
}

static bool retract(struct chat_adapter *base, uint64_t cookie)
{
    return mx_outbox_retract(((struct mxad *)base)->out, cookie);
}

/* Asked after a reconnect, and for a seat seen leaving when it is to be
 * told something: answered with the ID itself (see answer). */
static void verify(struct chat_adapter *base, const char *nick)
{
    struct mxad *a = (struct mxad *)base;
    if (a->stopped || !nick)
        return;
    a->verifies =
        xrealloc(a->verifies, (a->nverifies + 1) * sizeof *a->verifies);
    a->verifies[a->nverifies++] = xstrdup(nick);
    answer_soon(a);
}

/* ---- joining ----------------------------------------------------------------
 */

static void start_sync(struct mxad *a);

/* The first sync starts once the configured rooms' joins are answered
 * (no event names an alias room by its ID) and, after a restart, the
 * m.direct map is read (see begin); a timer in begin bounds the wait. */
static void first_sync_when_ready(struct mxad *a)
{
    if (a->first_sync_done || a->sync || a->joins_pending > 0 ||
        (a->s.since && !a->direct_known))
        return;
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = 0;
    start_sync(a);
}

/* One of the configured rooms' joins is answered: the first sync starts
 * once all are, so that no event names an alias room by its ID. */
static void join_answered(struct mxad *a, struct call *c)
{
    struct cfg_room *r = cfg_by_name(a, c->key);
    if (!r || a->joins_pending == 0)
        return;
    a->joins_pending--;
    first_sync_when_ready(a);
}

static void joined(struct mxad *a, struct call *c, long status,
                   const char *body, size_t len)
{
    (void)status;
    char *room = body_string(body, len, "room_id", mx_is_room_id);
    log_info("%s: joined %s%s%s", a->base.network, c->key,
             room && strcmp(room, c->key) ? " as " : "",
             room && strcmp(room, c->key) ? room : "");
    struct cfg_room *r = cfg_by_name(a, c->key);
    if (!r) /* invited back to a room configured by alias */
        r = cfg_by_id(a, c->key);
    if (r && room) {
        mx_session_set(&r->id, room);
        r->out = r->lost = false;
        /* what was said to it by its alias before it resolved */
        mx_outbox_move(a->out, c->key, room);
    }
    free(room);
    join_answered(a, c);
}

static void join_failed(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    struct cfg_room *r = cfg_by_name(a, c->key);
    if (r && (r->out || !r->id)) {
        /* the rejoin after a kick refused (not tried again), or an alias
         * that never resolved: what is said there goes nowhere */
        if (r->out)
            log_error("%s: cannot join %s again after the kick: its tables "
                      "go on without it",
                      a->base.network, c->key);
        r->out = false;
        r->lost = true;
        drop(a, c->key);
        if (r->id)
            drop(a, r->id);
    }
    join_answered(a, c);
}

static void join(struct mxad *a, const char *target)
{
    char *t = enc(target);
    char *path = xprintf("/join/%s", t);
    free(t);
    call_send(a, call_new(a, "POST", path, xstrdup("{}"), target, joined,
                          join_failed));
}

static void rejoin(struct loop *l, void *ctx)
{
    (void)l;
    struct cfg_room *r = ctx;
    r->rejoin_timer = 0;
    if (!r->a->stopped)
        join(r->a, r->a->cfg.rooms[r->i].name);
}

#define REJOIN_MAX_MS 3600000
/* Joins remembered for direct rooms being made, at most. */
#define JOINS_SEEN_MAX 64
/* People remembered as last seen leaving (verify), at most. */
#define LEFT_MAX 4096

/* The bot left configured room r by another's hand (it->sender): kicked,
 * it joins again later (the wait doubles for each kick within the hour
 * after the last one); banned, it stays out and says so. */
static void kicked(struct mxad *a, struct cfg_room *r, const struct mx_item *it)
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
        drop(a, it->room);
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

/* ---- sync -----------------------------------------------------------------
 */

static void sync_again(struct loop *l, void *ctx)
{
    (void)l;
    struct mxad *a = ctx;
    a->sync_timer = 0;
    start_sync(a);
}

/* A sync that cannot go on as it is goes again after a backoff (never in
 * a tight loop against a server that keeps answering nonsense). */
static void sync_later(struct mxad *a)
{
    int64_t wait = 0;
    mx_retry_decide(&a->sync_retry, MX_HTTP_ERROR, 0, NULL, 0, &wait);
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = loop_timer(a->loop, wait, sync_again, a);
}

static bool warned(struct mxad *a, const char *room)
{
    if (set_has(a->warned, a->nwarned, room))
        return true;
    set_add(&a->warned, &a->nwarned, room);
    return false;
}

/* ---- display names ----------------------------------------------------
 */

/* Room for a shown name: a display name and " (user ID)". */
#define MX_SHOWN_MAX (MX_NAME_MAX + MX_ID_MAX + 8)

static bool is_dm_room(void *ctx, const char *room)
{
    return dm_user(ctx, room) != NULL;
}

static void renamed(void *ctx, const char *room, const char *user,
                    const char *name)
{
    struct mxad *a = ctx;
    /* a name in a direct room is not the one a table shows */
    if (strcmp(user, a->cfg.user_id) != 0 && !dm_user(a, room))
        emit_person(a, CHAT_RENAME, room_shown(a, room), user, name, NULL,
                    NULL);
}

static void member_got(struct mxad *a, struct call *c, long status,
                       const char *body, size_t len)
{
    (void)status;
    set_del(a->fetching, &a->nfetching, c->key);
    char *membership, *name;
    const char *user = strchr(c->key, ' ');
    if (!user || mx_member_parse(body, len, &membership, &name))
        return;
    char *room = xstrdup(c->key);
    room[user - c->key] = '\0';
    user++;
    bool known = mx_members_shown(a->members, room, user, (char[1]){0}, 1);
    mx_members_set(a->members, room, user, membership, name, renamed, a);
    char now[MX_SHOWN_MAX];
    /* new here: the name is told as a rename (the message came first) */
    if (!known && mx_members_shown(a->members, room, user, now, sizeof now))
        renamed(a, room, user, now);
    free(room);
    free(membership);
    free(name);
}

static void member_failed(struct mxad *a, struct call *c, long status,
                          const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->fetching, &a->nfetching, c->key);
}

/* Asks the server for user's member event in room (lazy loading may not
 * have sent it), unless that is under way. */
static void fetch_member(struct mxad *a, const char *room, const char *user)
{
    char *key = xprintf("%s %s", room, user);
    if (set_has(a->fetching, a->nfetching, key) ||
        a->nfetching >= MX_MEMBERS_MAX) {
        free(key);
        return;
    }
    set_add(&a->fetching, &a->nfetching, key);
    char *r = enc(room), *u = enc(user);
    call_send(a, call_new(a, "GET",
                          xprintf("/rooms/%s/state/m.room.member/%s", r, u),
                          NULL, key, member_got, member_failed));
    free(r);
    free(u);
    free(key);
}

/* The name to show for user in room, in out, or NULL if not known (then
 * it is asked for). For a private message: their name in a room that is
 * not a direct one, else in the direct room. */
static const char *shown(struct mxad *a, const char *room, const char *user,
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

static void on_item(struct mxad *a, const struct mx_item *it)
{
    const char *self = a->cfg.user_id;
    const char *dm = dm_user(a, it->room);
    switch (it->kind) {
    case MX_ITEM_MESSAGE: {
        if (strcmp(it->sender, self) == 0 || strcmp(it->msgtype, "m.text") != 0)
            return; /* our own echo, notices (other bots), media */
        /* a command is one line: a reply's quote or more lines after it
         * are not read */
        char line[MX_BODY_MAX + 1];
        size_t n = strcspn(it->body, "\r\n");
        memcpy(line, it->body, n);
        line[n] = '\0';
        bool private = dm && strcmp(dm, it->sender) == 0;
        set_del(a->left, &a->nleft, it->sender);
        char name[MX_SHOWN_MAX];
        emit_person(a, CHAT_MESSAGE, private ? NULL : room_shown(a, it->room),
                    it->sender,
                    shown(a, it->room, it->sender, private, name, sizeof name),
                    line, NULL);
        return;
    }
    case MX_ITEM_MEMBER:
        mx_members_set(a->members, it->room, it->user, it->membership, it->name,
                       renamed, a);
        if (strcmp(it->user, self) == 0)
            return;
        if (!dm && strcmp(it->membership, "join") == 0 &&
            !cfg_by_id(a, it->room)) {
            /* perhaps a direct room whose createRoom answer is still on
             * its way: its person need not be waited for then */
            char *key = xprintf("%s %s", it->room, it->user);
            if (a->njoins_seen >= JOINS_SEEN_MAX)
                set_del(a->joins_seen, &a->njoins_seen, a->joins_seen[0]);
            set_add(&a->joins_seen, &a->njoins_seen, key);
            free(key);
        }
        if (dm) {
            if (strcmp(dm, it->user) != 0)
                return;
            if (strcmp(it->membership, "join") == 0) {
                set_del(a->awaiting, &a->nawaiting, it->room);
            } else if (strcmp(it->membership, "leave") == 0 ||
                       strcmp(it->membership, "ban") == 0) {
                /* they left (or refused) their direct room: what waits
                 * there is dropped, the next tell makes a new one */
                set_del(a->awaiting, &a->nawaiting, it->room);
                drop(a, it->room);
                dm_forget_room(a, it->room);
            }
            return;
        }
        char name[MX_SHOWN_MAX];
        if (strcmp(it->membership, "join") == 0)
            set_del(a->left, &a->nleft, it->user);
        else if (strcmp(it->membership, "leave") == 0 ||
                 strcmp(it->membership, "ban") == 0) {
            /* bounded: one forgotten is answered as present, as before */
            if (a->nleft >= LEFT_MAX)
                set_del(a->left, &a->nleft, a->left[0]);
            set_add(&a->left, &a->nleft, it->user);
        }
        if (strcmp(it->membership, "join") == 0)
            emit_person(a, CHAT_JOIN, room_shown(a, it->room), it->user,
                        shown(a, it->room, it->user, false, name, sizeof name),
                        NULL, NULL);
        else if ((strcmp(it->membership, "leave") == 0 ||
                  strcmp(it->membership, "ban") == 0) &&
                 strcmp(it->sender, it->user) != 0)
            emit_person(
                a, CHAT_KICK, room_shown(a, it->room), it->sender,
                shown(a, it->room, it->sender, false, name, sizeof name), NULL,
                it->user);
        else if (strcmp(it->membership, "leave") == 0)
            emit(a, CHAT_PART, room_shown(a, it->room), it->user, "", NULL);
        return;
    case MX_ITEM_INVITE:
        if (it->is_direct && !dm_room(a, it->sender)) {
            dm_set(a, it->sender, it->room);
            direct_record(a, it->sender);
        }
        if (a->cfg.auto_join_invites)
            join(a, it->room);
        return;
    case MX_ITEM_LEFT:
        mx_members_forget(a->members, it->room);
        if (cfg_by_id(a, it->room) && it->sender && it->membership &&
            strcmp(it->sender, self) != 0) {
            kicked(a, cfg_by_id(a, it->room), it);
            return;
        }
        set_del(a->awaiting, &a->nawaiting, it->room);
        drop(a, it->room);
        dm_forget_room(a, it->room);
        return;
    case MX_ITEM_ENCRYPTED:
        if (!it->event_id || strcmp(it->sender, self) == 0 ||
            warned(a, it->room))
            return;
        mx_outbox_add(a->out, it->room,
                      "I cannot read encrypted messages, so I cannot see "
                      "commands in this room. To play, turn encryption off "
                      "in a new room (it cannot be turned off here) and "
                      "invite me there, or write to me in a direct chat "
                      "without encryption.");
        return;
    case MX_ITEM_JOINED:
        return;
    }
}

static void synced(struct mxad *a, struct call *c, long status,
                   const char *body, size_t len)
{
    (void)c, (void)status;
    struct mx_sync s;
    char err[128];
    if (mx_sync_parse(body, len, a->cfg.user_id, &s, err, sizeof err)) {
        log_warn("%s: a /sync answer refused: %s", a->base.network, err);
        sync_later(a); /* the same since again */
        return;
    }
    mx_retry_decide(&a->sync_retry, MX_HTTP_OK, 200, NULL, 0, NULL);
    /* the since this answer was for is one the server takes */
    mx_session_set(&a->good_since, c->key);
    if (s.refused)
        log_debug("%s: /sync: %d malformed events skipped", a->base.network,
                  s.refused);
    /* the token first: a crash while the events are handled loses them
     * rather than running commands twice */
    mx_session_set(&a->s.since, s.next_batch);
    save_session(a);
    if (s.has_direct)
        dm_merge(a, s.direct, s.ndirect);
    a->first_sync_done = true;
    if (!a->connected) {
        a->connected = true;
        log_info("%s: connected to %s as %s", a->base.network,
                 a->cfg.homeserver, a->cfg.user_id);
        emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    }
    for (size_t i = 0; i < s.nitems && !a->stopped; i++)
        on_item(a, &s.items[i]);
    mx_sync_free(&s);
    start_sync(a);
}

static void sync_failed(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len)
{
    (void)c, (void)body, (void)len;
    if (status == 401 && !*a->cfg.password)
        return; /* logged: nothing more to do */
    /* a refused since token: the last one the server answered well if
     * that was another (a bad next_batch must not lose what came after
     * it), else start afresh (a server reset) */
    if (status >= 400 && status < 500) {
        bool other = a->good_since && a->s.since &&
                     strcmp(a->good_since, a->s.since) != 0;
        log_warn("%s: the homeserver refuses the sync token: %s",
                 a->base.network,
                 other ? "going back to the last good one" : "starting anew");
        mx_session_set(&a->s.since, other ? a->good_since : NULL);
        save_session(a);
    }
    sync_later(a);
}

static void start_sync(struct mxad *a)
{
    if (a->stopped || a->sync)
        return;
    bool history = a->s.since != NULL;
    char *filter = enc(mx_sync_filter(history));
    char *path;
    if (history) {
        char *since = enc(a->s.since);
        path = xprintf("/sync?filter=%s&timeout=%d&since=%s", filter,
                       a->cfg.sync_timeout_ms, since);
        free(since);
    } else {
        path = xprintf("/sync?filter=%s&timeout=0", filter);
    }
    free(filter);
    a->sync = call_new(a, "GET", path, NULL, a->s.since, synced, sync_failed);
    a->sync->timeout_ms =
        (int64_t)a->cfg.sync_timeout_ms + a->cfg.request_timeout_ms;
    call_send(a, a->sync);
}

static void got_direct(struct mxad *a, struct call *c, long status,
                       const char *body, size_t len)
{
    (void)c;
    struct mx_direct *d = NULL;
    size_t n = 0;
    a->direct_known = true;
    if (status == 200 && mx_direct_parse(body, len, &d, &n) == 0) {
        dm_merge(a, d, n);
        mx_direct_free(d, n);
    }
    /* a restart's first sync waited for the map (see begin) */
    first_sync_when_ready(a);
}

/* With a token: the epoch, the rooms, the direct map, the sync. After a
 * restart (a since token kept) the first sync waits for the direct map:
 * it may hold what people said in their direct rooms while the bot was
 * away, which is only read as private once those rooms are known. */
static void begin(struct mxad *a)
{
    a->s.txn_epoch++;
    a->txn.epoch = a->s.txn_epoch;
    a->txn.n = 0;
    save_session(a);
    a->joins_pending = a->cfg.nrooms;
    for (int i = 0; i < a->cfg.nrooms; i++)
        join(a, a->cfg.rooms[i].name);
    call_send(a, call_new(a, "GET", direct_path(a), NULL, NULL, got_direct,
                          got_direct));
    first_sync_when_ready(a);
    if (!a->first_sync_done && !a->sync)
        /* a join that hangs or keeps failing holds nothing up for long */
        a->sync_timer =
            loop_timer(a->loop, a->cfg.request_timeout_ms, sync_again, a);
}

/* ---- login ----------------------------------------------------------------
 */

static void logged_in(struct mxad *a, struct call *c, long status,
                      const char *body, size_t len)
{
    (void)c, (void)status;
    a->logging_in = false;
    char *token = body_string(body, len, "access_token", is_word);
    char *device = body_string(body, len, "device_id", is_word);
    if (!token) {
        log_error("%s: the login answer holds no usable access token",
                  a->base.network);
        free(device);
        return;
    }
    log_info("%s: logged in as %s (device %s)", a->base.network, a->cfg.user_id,
             device ? device : "?");
    free(a->token);
    a->token = xstrdup(token);
    mx_session_set(&a->s.access_token, token);
    if (device)
        mx_session_set(&a->s.device_id, device);
    free(token);
    free(device);
    save_session(a);
    if (!a->started) {
        a->started = true;
        begin(a);
    }
}

static void login_failed(struct mxad *a, struct call *c, long status,
                         const char *body, size_t len)
{
    (void)c, (void)status, (void)body, (void)len;
    a->logging_in = false;
    log_error("%s: cannot log in as %s: check user_id and password in the "
              "[[matrix]] section",
              a->base.network, a->cfg.user_id);
}

static void start_login(struct mxad *a)
{
    a->logging_in = true;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type",
                           json_object_new_string("m.login.password"));
    struct json_object *id = json_object_new_object();
    json_object_object_add(id, "type", json_object_new_string("m.id.user"));
    json_object_object_add(id, "user", json_object_new_string(a->cfg.user_id));
    json_object_object_add(o, "identifier", id);
    json_object_object_add(o, "password",
                           json_object_new_string(a->cfg.password));
    const char *device = a->s.device_id ? a->s.device_id : a->cfg.device_id;
    if (device && *device)
        json_object_object_add(o, "device_id", json_object_new_string(device));
    json_object_object_add(o, "initial_device_display_name",
                           json_object_new_string("heartsbot"));
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    call_send(a, call_new(a, "POST", xstrdup("/login"), body, NULL, logged_in,
                          login_failed));
}

/* ---- ops --------------------------------------------------------------------
 */

static int start(struct chat_adapter *base)
{
    struct mxad *a = (struct mxad *)base;
    if (a->stopped)
        return -1;
    if (a->started || a->logging_in)
        return 0;
    char err[512];
    if (a->session_path &&
        mx_session_load(a->session_path, &a->s, err, sizeof err)) {
        log_warn("%s: the Matrix session file is unusable (%s): starting "
                 "a new session",
                 a->base.network, err);
        mx_session_free(&a->s);
    }
    uint64_t epoch = a->s.txn_epoch;
    /* a session of another account or server is not ours to reuse */
    if ((a->s.user_id && strcmp(a->s.user_id, a->cfg.user_id) != 0) ||
        (a->s.homeserver && strcmp(a->s.homeserver, a->cfg.homeserver) != 0)) {
        mx_session_free(&a->s);
        a->s.txn_epoch = epoch;
    }
    mx_session_set(&a->s.user_id, a->cfg.user_id);
    mx_session_set(&a->s.homeserver, a->cfg.homeserver);
    if (*a->cfg.access_token) {
        if (a->s.access_token &&
            strcmp(a->s.access_token, a->cfg.access_token) != 0)
            mx_session_set(&a->s.since, NULL);
        mx_session_set(&a->s.access_token, a->cfg.access_token);
        if (*a->cfg.device_id)
            mx_session_set(&a->s.device_id, a->cfg.device_id);
    }
    if (a->s.access_token) {
        a->token = xstrdup(a->s.access_token);
        a->started = true;
        begin(a);
    } else {
        start_login(a);
    }
    return 0;
}

static void stop(struct chat_adapter *base, const char *goodbye)
{
    (void)goodbye; /* Matrix has no QUIT */
    struct mxad *a = (struct mxad *)base;
    if (a->stopped)
        return;
    a->stopped = true;
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = 0;
    /* keep sends and direct-room work; the rest ends now */
    for (struct call *c = a->calls, *next; c; c = next) {
        next = c->next;
        if (c->done != sent && c->done != created && c->done != direct_got &&
            c->done != direct_put_done)
            call_free(a, c);
    }
}

static bool same_nick(const struct chat_adapter *base, const char *x,
                      const char *y)
{
    (void)base;
    return x && y && strcmp(x, y) == 0;
}

static bool idle(const struct chat_adapter *base)
{
    const struct mxad *a = (const struct mxad *)base;
    if (a->stopped)
        return a->nsending == 0 && a->ncreating == 0 &&
               (!a->token || !mx_outbox_waiting(a->out, NULL));
    return a->nsending == 0 && a->ncreating == 0 &&
           !mx_outbox_waiting(a->out, NULL);
}

static void free_config(struct config_matrix *c)
{
    free(c->name);
    free(c->homeserver);
    free(c->user_id);
    free(c->password);
    free(c->access_token);
    free(c->device_id);
    for (int i = 0; i < c->nrooms; i++) {
        free(c->rooms[i].name);
        free(c->rooms[i].rules);
    }
    free(c->rooms);
}

static void adapter_free(struct chat_adapter *base)
{
    struct mxad *a = (struct mxad *)base;
    if (!a)
        return;
    loop_remove_hook(a->loop, flush, a);
    loop_cancel(a->loop, a->pause_timer);
    loop_cancel(a->loop, a->sync_timer);
    a->stopped = true; /* nothing more to report */
    while (a->calls)
        call_free(a, a->calls);
    loop_cancel(a->loop, a->answer_timer);
    for (int i = 0; i < a->cfg.nrooms; i++) {
        loop_cancel(a->loop, a->rooms[i].rejoin_timer);
        free(a->rooms[i].id);
    }
    free(a->rooms);
    free(a->reports);
    set_free(a->verifies, a->nverifies);
    set_free(a->left, a->nleft);
    set_free(a->joins_seen, a->njoins_seen);
    mx_http_free(a->http);
    mx_outbox_free(a->out);
    set_free(a->sending, a->nsending);
    set_free(a->creating, a->ncreating);
    set_free(a->warned, a->nwarned);
    set_free(a->awaiting, a->nawaiting);
    set_free(a->fetching, a->nfetching);
    mx_members_free(a->members);
    for (size_t i = 0; i < a->ndms; i++) {
        free(a->dms[i].user);
        free(a->dms[i].room);
    }
    free(a->dms);
    mx_session_free(&a->s);
    free(a->token);
    free(a->good_since);
    free(a->session_path);
    free(a->session_dir);
    free(a->data_dir);
    free(a->base_url);
    free_config(&a->cfg);
    free(a);
}

static const struct chat_adapter_ops mx_ops = {
    .start = start,
    .stop = stop,
    .say = say,
    .tell = tell,
    .same_nick = same_nick,
    .idle = idle,
    .free = adapter_free,
    .verify = verify,
    .tell_tracked = tell_tracked,
    .retract = retract,
};

struct chat_adapter *mxad_new(struct loop *l, const struct config_matrix *cfg,
                              const char *data_dir, chat_event_fn on_event,
                              void *ctx)
{
    struct mxad *a = xcalloc(1, sizeof *a);
    a->loop = l;
    a->cfg = *cfg;
    a->cfg.name = xstrdup(cfg->name);
    a->cfg.homeserver = xstrdup(cfg->homeserver);
    a->cfg.user_id = xstrdup(cfg->user_id);
    a->cfg.password = xstrdup(cfg->password ? cfg->password : "");
    a->cfg.access_token = xstrdup(cfg->access_token ? cfg->access_token : "");
    a->cfg.device_id = xstrdup(cfg->device_id ? cfg->device_id : "");
    a->cfg.rooms =
        cfg->nrooms ? xcalloc((size_t)cfg->nrooms, sizeof *a->cfg.rooms) : NULL;
    a->rooms =
        cfg->nrooms ? xcalloc((size_t)cfg->nrooms, sizeof *a->rooms) : NULL;
    for (int i = 0; i < cfg->nrooms; i++) {
        a->cfg.rooms[i].name = xstrdup(cfg->rooms[i].name);
        a->cfg.rooms[i].rules = xstrdup(cfg->rooms[i].rules);
        a->rooms[i].a = a;
        a->rooms[i].i = i;
        /* a room given by ID is named so from the start */
        if (mx_is_room_id(cfg->rooms[i].name))
            a->rooms[i].id = xstrdup(cfg->rooms[i].name);
    }
    if (a->cfg.request_timeout_ms <= 0)
        a->cfg.request_timeout_ms = 30000;
    a->base_url = xstrdup(a->cfg.homeserver);
    a->base.ops = &mx_ops;
    a->base.network = a->cfg.name;
    a->base.style = CHAT_STYLE_MARKUP;
    a->base.on_event = on_event;
    a->base.ctx = ctx;
    a->retry_base_ms = MX_RETRY_BASE_MS;
    a->retry_cap_ms = MX_RETRY_CAP_MS;
    a->seed = (uint64_t)loop_now(l) * 2654435761u;
    mx_retry_init(&a->sync_retry, a->retry_base_ms, a->retry_cap_ms, ++a->seed);
    a->http = mx_http_new(
        l, (size_t)(cfg->max_body_bytes > 0 ? cfg->max_body_bytes : 4 << 20));
    a->out = mx_outbox_new();
    a->members = mx_members_new();
    if (data_dir && *data_dir) {
        char net[STORAGE_NAME_MAX + 1], dir[STORAGE_PATH_MAX],
            path[STORAGE_PATH_MAX], err[256];
        storage_name_encode(a->cfg.name, net, sizeof net);
        if (storage_path(dir, sizeof dir, err, sizeof err, data_dir, net,
                         (char *)NULL) == 0 &&
            storage_path(path, sizeof path, err, sizeof err, dir,
                         "matrix-session.json", (char *)NULL) == 0) {
            a->data_dir = xstrdup(data_dir);
            a->session_dir = xstrdup(dir);
            a->session_path = xstrdup(path);
        } else {
            log_error("%s: no place for the Matrix session: %s", a->cfg.name,
                      err);
        }
    }
    loop_before_sleep(l, flush, a);
    return &a->base;
}

void mxad_set_retry(struct chat_adapter *base, int64_t base_ms, int64_t cap_ms)
{
    struct mxad *a = (struct mxad *)base;
    a->retry_base_ms = base_ms;
    a->retry_cap_ms = cap_ms;
    mx_retry_init(&a->sync_retry, base_ms, cap_ms, ++a->seed);
}
