/*
 * The Matrix adapter's lifecycle and protocol flow (matrix_adapter.h).
 *
 * Every request is a `call`: method, path, body, and what to do with a
 * 2xx answer or a final refusal. The retry policy (retry.c) is applied in
 * one place, call_done: waits, backoff, logging in again.
 *
 * What the homeserver's rate limit counts (sends, room creations, joins,
 * leaves) is a paced call: it waits in one queue until the pacer (pace.h)
 * lets it go, most urgent first (a player's deal or prompt, then the
 * rooms' lines, then the rest; the oldest first among equals). Lines for
 * a room are taken off the out-queue only when their message goes, so
 * everything that waited for a room meanwhile goes as one message. A
 * refusal (429) teaches the pacer and puts the call back in the queue; a
 * room creation, charged twice, waits for two slots and backs off if it
 * is refused again.
 *
 * Direct rooms: a person's is found (m.direct, an invite marked direct,
 * a room the bot made for them) or made (one creation at a time) when
 * they sit down, or when a line for them comes first. One not made in
 * this run is checked (its whole state) before anything private goes
 * into it: only the two of them in it, not encrypted. A line sent there
 * before the person joined counts as sent (CHAT_SENT) when they join, or
 * after MX_AWAIT_JOIN_MS.
 *
 * Start: session file -> (login) -> epoch raised and saved -> joins of
 * the configured rooms, the m.direct map, the device-key check, the
 * first /sync (no history on a new session) -> CHAT_CONNECTED -> /sync
 * long-polls, one after the other. The first message read in a room
 * (not a direct one) in this run holds that room's events until its
 * members, name and alias are fetched, so that people with the same
 * display name are told apart from their first line.
 */
#include "adapters/matrix/matrix_adapter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/http.h"
#include "adapters/matrix/listen.h"
#include "bot/common/log.h"
#include "adapters/matrix/members.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/pace.h"
#include "adapters/matrix/registration.h"
#include "adapters/matrix/retry.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/session.h"
#include "storage/storage.h"
#include "adapters/matrix/sync.h"
#include "bot/common/xalloc.h"

#define API "/_matrix/client/v3"

/* Message event IDs remembered against a homeserver that pushes one
 * twice in two transactions. */
#define AS_RECENT 256

struct mxad;
struct call;

typedef void (*call_fn)(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len);

struct call {
    struct mxad *a;
    char *method;
    const char *api; /* API, or another version's prefix */
    char *path;      /* after api, already encoded */
    char *body;      /* JSON or NULL */
    char *key;       /* what it is about: a room, a person */
    int64_t timeout_ms;
    uint64_t req, timer;
    struct mx_retry retry;
    call_fn done;   /* 2xx */
    call_fn failed; /* a refusal retrying cannot change (status 0: gave up) */
    uint64_t *cookies; /* a send's tracked texts, reported when it ends */
    size_t ncookies;
    /* a paced call (one the homeserver's rate limit counts): cost in
     * slots, place in the queue, and how it went */
    bool paced;
    bool parked;  /* waits in the queue */
    bool probe;   /* went as a probe (pace.h) */
    bool teaches; /* a send: its 429 teaches the pacer the interval */
    int cost;
    enum chat_priority prio;
    uint64_t seq;
    int64_t started;    /* when it last went (loop time) */
    int64_t not_before; /* a refused creation's backoff */
    int refusals;
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

/* A person's direct room. One not made in this run is checked before
 * anything private goes into it. */
enum dm_state { DM_UNCHECKED, DM_CHECKING, DM_READY };

struct dm {
    char *user;
    char *room;
    enum dm_state state;
    bool awaiting;   /* the person is invited and has not joined */
    int64_t invited; /* since when (loop time) */
    uint64_t *held;  /* texts sent there meanwhile: CHAT_SENT when */
    size_t nheld;    /* they join, or MX_AWAIT_JOIN_MS after `invited` */
};

/* Someone who needs a direct room though no line waits for them yet. */
struct want {
    char *user;
    uint64_t seq;
};

/* A room's events held while its members are fetched. */
struct hold {
    char *room;
    struct mx_item *items;
    size_t n;
    int64_t until; /* loop time: handled then at the latest */
};

struct mxad {
    struct chat_adapter base;
    struct loop *loop;
    struct mx_http *http;
    struct matrix_config cfg; /* strings owned */
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
    bool told_limited;      /* the note on rate limits is in the log */
    struct mx_pace pace;    /* the homeserver's rate limit, as learned */
    uint64_t pace_timer;    /* the queue's next turn */
    int64_t pace_timer_at;

    struct mx_outbox *out;
    char **sending; /* rooms with a message in flight */
    size_t nsending;
    char **creating; /* people whose direct room is being created */
    size_t ncreating;
    struct dm *dms;
    size_t ndms;
    struct want *wants;
    size_t nwants;
    char **dead; /* rooms that are no direct room any more: not taken from
                    m.direct again, and taken out of it */
    size_t ndead;
    char **made; /* rooms the bot created, not (yet) anyone's direct room */
    size_t nmade;
    char **warn_joined; /* encrypted direct rooms to say so in, once joined */
    size_t nwarn_joined;
    uint64_t await_timer;
    char **joins_seen; /* "room user": joins in rooms not (yet) known as
                          direct, the last JOINS_SEEN_MAX */
    size_t njoins_seen;
    char **warned; /* rooms told about encryption */
    size_t nwarned;
    struct mx_members *members; /* display names per room (members.h) */
    struct mx_rooms *facts;     /* names, creators, encryption (rooms.h) */
    char **fetching;            /* "room user": member events being fetched */
    size_t nfetching;
    char **fetched; /* rooms whose members, name and alias were asked for */
    size_t nfetched;
    struct hold *holds; /* rooms whose events wait for that answer */
    size_t nholds;
    uint64_t hold_timer;

    /* answers to the ops, given from a timer (never from inside an op) */
    uint64_t *reports; /* CHAT_SENT cookies */
    size_t nreports;
    char **verifies; /* CHAT_IDENTITY questions */
    size_t nverifies;
    char **left; /* people last seen leaving a room (verify: gone) */
    size_t nleft;
    uint64_t answer_timer;

    /* application-service mode */
    struct mx_registration reg;
    struct mx_listen *listen;
    struct mx_request **txq; /* transactions that wait for the start */
    size_t ntxq;
    char *recent[AS_RECENT]; /* the last message events handled */
    size_t nrecent;
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

/* (Re)arms *timer to call fn(a) at loop time `when` (INT64_MAX: never). */
static void timer_at(struct mxad *a, uint64_t *timer, int64_t when,
                     loop_timer_fn fn)
{
    loop_cancel(a->loop, *timer);
    *timer = 0;
    if (when != INT64_MAX) {
        int64_t wait = when - loop_now(a->loop);
        *timer = loop_timer(a->loop, wait > 0 ? wait : 0, fn, a);
    }
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
static void pump(struct mxad *a);

static void call_free(struct mxad *a, struct call *c)
{
    for (struct call **p = &a->calls; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
    if (a->sync == c)
        a->sync = NULL;
    if (c->req && c->paced)
        mx_pace_ended(&a->pace); /* cut short: its slots stay spent */
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
    c->api = API;
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

/* Queues a call the rate limit counts (cost slots): pump starts it. */
static void call_paced(struct call *c, int cost, enum chat_priority prio,
                       uint64_t seq)
{
    c->paced = true;
    c->parked = true;
    c->cost = cost;
    c->prio = prio;
    c->seq = seq;
}

static void start_login(struct mxad *a);

static void on_retry_timer(struct loop *l, void *ctx)
{
    (void)l;
    struct call *c = ctx;
    c->timer = 0;
    if (c->paced)
        c->parked = true; /* the queue decides when */
    else
        call_send(c->a, c);
}

/* A paced call refused with 429 and wait ms: the pacer learns, the call
 * goes back in the queue. A creation (two slots) refused again backs off
 * beyond what the pacer asks. */
static void refused(struct mxad *a, struct call *c, int64_t wait)
{
    int64_t now = loop_now(a->loop);
    mx_pace_refused(&a->pace, wait, c->teaches, now);
    c->refusals++;
    c->parked = true;
    c->not_before = 0;
    if (c->cost > 1 && c->refusals > 1) {
        int64_t step = a->pace.interval > wait ? a->pace.interval : wait;
        int shift = c->refusals - 2 < 6 ? c->refusals - 2 : 6;
        int64_t back = step << shift;
        if (back > MX_RETRY_CAP_MS)
            back = MX_RETRY_CAP_MS;
        c->not_before = now + wait + back;
    }
}

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
    if (c->paced) {
        if (act == MX_RETRY_DONE &&
            mx_pace_accepted(&a->pace, c->cost, c->probe, c->started))
            log_info("%s: the homeserver no longer limits the bot as it "
                     "did: sending as fast as it takes again",
                     a->base.network);
        else if (act != MX_RETRY_WAIT || status != 429)
            mx_pace_ended(&a->pace);
    }
    switch (act) {
    case MX_RETRY_DONE:
        c->done(a, c, status, body, len);
        call_free(a, c);
        return;
    case MX_RETRY_WAIT:
        if (status == 429) {
            log_info("%s: rate-limited on %s %s: waiting %" PRId64 " ms",
                     a->base.network, c->method, c->path, wait);
            if (!a->told_limited && c->paced) {
                a->told_limited = true;
                log_warn("%s: the homeserver rate-limits %s, so tables will "
                         "be slow: the bot paces itself to the limit and "
                         "loses nothing. Ask its admin to exempt the account "
                         "(Synapse: override_ratelimit; see "
                         "docs/hosting.md, \"Rate limits\")",
                         a->base.network, a->cfg.user_id);
            }
            if (c->paced) {
                refused(a, c, wait);
                return;
            }
        } else if (result == MX_HTTP_OK) {
            log_warn("%s: %s %s: HTTP %ld; again in %" PRId64 " ms",
                     a->base.network, c->method, c->path, status, wait);
        } else {
            log_warn("%s: %s %s: %s; again in %" PRId64 " ms", a->base.network,
                     c->method, c->path, mx_http_result_name(result), wait);
        }
        if (status != 429 && c == a->sync && a->connected) {
            a->connected = false;
            emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
        }
        c->timer = loop_timer(a->loop, wait, on_retry_timer, c);
        return;
    case MX_RETRY_LOGIN:
        if (*a->cfg.password && !a->cfg.appservice) {
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
        if (a->cfg.appservice)
            log_error("%s: the homeserver refuses the application "
                      "service's as_token: is %s the registration file it "
                      "was given (docs/hosting.md)?",
                      a->base.network, a->cfg.registration);
        else
            log_error("%s: the homeserver refuses the access token and no "
                      "password is configured: set a new access_token (or "
                      "a password) in the [[matrix]] section and restart",
                      a->base.network);
        break;
    case MX_RETRY_FAIL:
        break;
    }
    char code[64];
    mx_errcode(body, len, code, sizeof code);
    /* a 404 is an answer too (no m.direct yet, no room name), and so is
     * an endpoint the homeserver does not know (Synapse: 400
     * M_UNRECOGNIZED) */
    bool answer = status == 404 || strcmp(code, "M_UNRECOGNIZED") == 0;
    log_msg(answer ? LOG_DEBUG : LOG_WARN, "%s: %s %s refused: HTTP %ld %s",
            a->base.network, c->method, c->path, status, code);
    if (c->failed)
        c->failed(a, c, status, body, len);
    call_free(a, c);
}

static void call_send(struct mxad *a, struct call *c)
{
    if (!a->token && strcmp(c->path, "/login") != 0) {
        /* waiting for a login */
        if (c->paced)
            mx_pace_ended(&a->pace);
        c->timer = loop_timer(a->loop, a->retry_base_ms, on_retry_timer, c);
        return;
    }
    char *url = xprintf("%s%s%s", a->base_url, c->api, c->path);
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
        if (c->paced)
            mx_pace_ended(&a->pace);
        call_free(a, c);
    }
}

/* ---- direct rooms ---------------------------------------------------------
 */

/* A line sent into a direct room its person has not joined counts as
 * sent when they join, or this long after they were invited: a person
 * who never takes the invite must not hold a table up for ever. */
#define MX_AWAIT_JOIN_MS 120000

/* Dead rooms remembered, at most (the oldest is forgotten first). */
#define DEAD_MAX 4096

/* room is no direct room any more (see struct mxad's `dead`). */
static void mark_dead(struct mxad *a, const char *room)
{
    if (a->ndead >= DEAD_MAX && !set_has(a->dead, a->ndead, room)) {
        free(a->dead[0]);
        memmove(a->dead, a->dead + 1, (a->ndead - 1) * sizeof *a->dead);
        a->ndead--;
    }
    set_add(&a->dead, &a->ndead, room);
}

static struct dm *dm_find(const struct mxad *a, const char *user)
{
    for (size_t i = 0; user && i < a->ndms; i++)
        if (strcmp(a->dms[i].user, user) == 0)
            return &a->dms[i];
    return NULL;
}

static struct dm *dm_of_room(const struct mxad *a, const char *room)
{
    for (size_t i = 0; room && i < a->ndms; i++)
        if (strcmp(a->dms[i].room, room) == 0)
            return &a->dms[i];
    return NULL;
}

/* The person whose direct room `room` is (checked or not), or NULL. */
static const char *dm_user(const struct mxad *a, const char *room)
{
    const struct dm *d = dm_of_room(a, room);
    return d ? d->user : NULL;
}

/* user's direct room if private lines may go into it now, else NULL. */
static const char *dm_room(const struct mxad *a, const char *user)
{
    const struct dm *d = dm_find(a, user);
    return d && d->state == DM_READY ? d->room : NULL;
}

/* What was sent to d while its person had not joined counts as sent. */
static void dm_release(struct mxad *a, struct dm *d)
{
    report(a, d->held, d->nheld);
    free(d->held);
    d->held = NULL;
    d->nheld = 0;
}

static void dm_remove(struct mxad *a, struct dm *d)
{
    dm_release(a, d);
    free(d->user);
    free(d->room);
    *d = a->dms[--a->ndms];
}

static void want_del(struct mxad *a, const char *user)
{
    for (size_t i = 0; i < a->nwants; i++)
        if (strcmp(a->wants[i].user, user) == 0) {
            free(a->wants[i].user);
            a->wants[i] = a->wants[--a->nwants];
            return;
        }
}

/* user's direct room is `room` from now, in `state`. */
static struct dm *dm_set(struct mxad *a, const char *user, const char *room,
                         enum dm_state state)
{
    struct dm *d = dm_find(a, user);
    if (d && strcmp(d->room, room) != 0) {
        dm_remove(a, d);
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
    set_del(a->made, &a->nmade, room);
    return d;
}

/* d may take private lines; `invite`: its person has not joined yet. */
static void dm_ready(struct mxad *a, struct dm *d, bool invited)
{
    d->state = DM_READY;
    if (invited && !d->awaiting) {
        d->awaiting = true;
        d->invited = loop_now(a->loop);
    } else if (!invited && d->awaiting) {
        d->awaiting = false;
        dm_release(a, d);
    }
    want_del(a, d->user);
}

/* Takes the map the server holds: per person the first of their rooms
 * that is not dead, unless they have one already. Checked before use. */
static void dm_merge(struct mxad *a, const struct mx_direct *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (dm_find(a, d[i].user) || strcmp(d[i].user, a->cfg.user_id) == 0)
            continue;
        for (size_t k = 0; k < d[i].nrooms; k++)
            if (!set_has(a->dead, a->ndead, d[i].rooms[k]) &&
                !dm_of_room(a, d[i].rooms[k])) {
                dm_set(a, d[i].user, d[i].rooms[k], DM_UNCHECKED);
                break;
            }
    }
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

/* The rooms of one person in the m.direct map: `room` first (the one in
 * use), then the others that are not dead. */
static void direct_entry(struct mxad *a, struct json_object *map,
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
                !set_has(a->dead, a->ndead, id))
                json_object_array_add(rooms, json_object_new_string(id));
        }
    json_object_object_add(map, user, rooms);
}

/* GET m.direct answered (or 404: none yet): every direct room we use
 * goes first in its person's list, dead ones go; PUT back whole (a write
 * replaces the map). One read and write at a time: two at once would
 * each write back what the other did not add. */
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
    for (size_t d = 0; d < a->ndms; d++)
        direct_entry(a, map, a->dms[d].user, a->dms[d].room);
    /* the others' lists lose their dead rooms */
    char **users = NULL;
    size_t nusers = 0;
    json_object_object_foreach(map, user, rooms)
    {
        (void)rooms;
        if (!dm_find(a, user))
            set_add(&users, &nusers, user);
    }
    for (size_t i = 0; i < nusers; i++)
        direct_entry(a, map, users[i], NULL);
    set_free(users, nusers);
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

/* Tells room (once) why it is no direct room of the bot's any more. */
static void say_once(struct mxad *a, const char *room, const char *text);

/*
 * d's room may not take private lines (encrypted, or others in it): it
 * is no direct room any more (dead: not taken from m.direct again). What
 * waited for it goes back to its person, for a new direct room; the room
 * is told why, in `why`.
 */
static void dm_unusable(struct mxad *a, struct dm *d, const char *why)
{
    char *room = xstrdup(d->room), *user = xstrdup(d->user);
    log_warn("%s: %s is no longer a private room for %s: %s", a->base.network,
             room, user, why);
    mx_outbox_move(a->out, room, user);
    mark_dead(a, room);
    dm_remove(a, d);
    say_once(a, room,
             strcmp(why, "encrypted") == 0
                 ? "This chat is encrypted, and I can neither read nor write "
                   "encrypted messages, so your cards will not come here: I "
                   "am starting a direct chat with you without encryption."
                 : "Someone else is in this chat now, so your cards will not "
                   "come here any more: I am starting a new direct chat with "
                   "you.");
    direct_record(a, user);
    free(room);
    free(user);
}

/* What the room's facts say of d: usable (ready, perhaps still waiting
 * for its person), unusable, or gone (the person left it). */
static void dm_judge(struct mxad *a, struct dm *d)
{
    const char *m = mx_rooms_membership(a->facts, d->room, d->user);
    if (mx_rooms_encrypted(a->facts, d->room)) {
        dm_unusable(a, d, "encrypted");
    } else if (mx_rooms_others(a->facts, d->room, a->cfg.user_id, d->user)) {
        dm_unusable(a, d, "someone else is in it");
    } else if (m && (strcmp(m, "join") == 0 || strcmp(m, "invite") == 0)) {
        dm_ready(a, d, strcmp(m, "invite") == 0);
    } else {
        /* they left it (or never were in it): a new one when needed */
        log_info("%s: %s has left the direct room %s", a->base.network, d->user,
                 d->room);
        mark_dead(a, d->room);
        dm_remove(a, d);
    }
}

static void feed_item(struct mxad *a, const struct mx_item *it);

/* A room's whole state (GET /rooms/{room}/state) into what is known of
 * it, replacing that if `anew`. Whether it was taken. */
static bool feed_state(struct mxad *a, const char *room, const char *body,
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
        feed_item(a, &st.items[i]);
    mx_sync_free(&st);
    return true;
}

static void dm_checked(struct mxad *a, struct call *c, long status,
                       const char *body, size_t len)
{
    (void)status;
    struct dm *d = dm_of_room(a, c->key);
    if (!d || d->state != DM_CHECKING)
        return;
    /* what the state says replaces what was known */
    if (feed_state(a, c->key, body, len, true))
        dm_judge(a, d);
    else
        d->state = DM_UNCHECKED; /* asked again when next needed */
}

static void dm_check_failed(struct mxad *a, struct call *c, long status,
                            const char *body, size_t len)
{
    (void)body, (void)len;
    struct dm *d = dm_of_room(a, c->key);
    if (!d || d->state != DM_CHECKING)
        return;
    if (status == 403 || status == 404) {
        /* the bot is not in it (any more): not a room to use */
        mark_dead(a, d->room);
        dm_remove(a, d);
    } else {
        d->state = DM_UNCHECKED;
    }
}

/* Asks for the whole state of d's room (not made in this run). */
static void dm_check(struct mxad *a, struct dm *d)
{
    if (d->state != DM_UNCHECKED)
        return;
    d->state = DM_CHECKING;
    char *r = enc(d->room);
    call_send(a, call_new(a, "GET", xprintf("/rooms/%s/state", r), NULL,
                          d->room, dm_checked, dm_check_failed));
    free(r);
}

static void await_check(struct loop *l, void *ctx);

/* Arms the timer for the first awaiting direct room whose wait ends. */
static void await_arm(struct mxad *a)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < a->ndms; i++)
        if (a->dms[i].awaiting && a->dms[i].nheld &&
            a->dms[i].invited + MX_AWAIT_JOIN_MS < first)
            first = a->dms[i].invited + MX_AWAIT_JOIN_MS;
    timer_at(a, &a->await_timer, first, await_check);
}

static void await_check(struct loop *l, void *ctx)
{
    struct mxad *a = ctx;
    a->await_timer = 0;
    int64_t now = loop_now(l);
    for (size_t i = 0; i < a->ndms; i++)
        if (a->dms[i].awaiting && a->dms[i].nheld &&
            now - a->dms[i].invited >= MX_AWAIT_JOIN_MS) {
            log_info("%s: %s has not joined %s yet: its lines count as sent",
                     a->base.network, a->dms[i].user, a->dms[i].room);
            dm_release(a, &a->dms[i]);
        }
    await_arm(a);
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
    /* made just now, as asked: the bot and the person, not encrypted */
    struct dm *d = dm_set(a, c->key, room, DM_READY);
    /* the sync may have shown their join before this answer came */
    char *key = xprintf("%s %s", room, c->key);
    dm_ready(a, d, !set_has(a->joins_seen, a->njoins_seen, key));
    free(key);
    mx_outbox_move(a->out, c->key, room);
    free(room);
    direct_record(a, c->key);
}

static void create_failed(struct mxad *a, struct call *c, long status,
                          const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->creating, &a->ncreating, c->key);
    want_del(a, c->key);
    drop(a, c->key);
}

/* A direct room for user, through the queue (a creation costs two slots:
 * the request and the bot's join). history_visibility "invited": the
 * person reads what was sent from their invite on, though they join
 * later. */
static struct call *create_dm(struct mxad *a, const char *user,
                              enum chat_priority prio, uint64_t seq)
{
    set_add(&a->creating, &a->ncreating, user);
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
    struct call *c = call_new(a, "POST", xstrdup("/createRoom"), body, user,
                              created, create_failed);
    call_paced(c, 2, prio, seq);
    return c;
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

/* A room the bot made that is nobody's direct room (its createRoom's
 * answer was lost, or the bot stopped before it came): the direct room
 * of its one other person if they have none, else left. Settled when no
 * creation is under way (whose answer may still name it). */
static void leave_room(struct mxad *a, const char *room);

static void made_settle(struct mxad *a)
{
    if (!a->direct_known || a->ncreating > 0)
        return;
    while (a->nmade > 0) {
        char *room = xstrdup(a->made[a->nmade - 1]);
        set_del(a->made, &a->nmade, room);
        size_t others = 0;
        const char *other =
            mx_rooms_other(a->facts, room, a->cfg.user_id, &others);
        if (dm_of_room(a, room) || cfg_by_id(a, room)) {
            /* in use */
        } else if (others == 1 && !dm_find(a, other) &&
                   !mx_rooms_encrypted(a->facts, room)) {
            const char *m = mx_rooms_membership(a->facts, room, other);
            log_info("%s: taking %s, a room the bot made, as the direct "
                     "room of %s",
                     a->base.network, room, other);
            struct dm *d = dm_set(a, other, room, DM_READY);
            dm_ready(a, d, m && strcmp(m, "invite") == 0);
            direct_record(a, d->user);
        } else {
            log_info("%s: leaving %s, a room the bot made that nobody needs",
                     a->base.network, room);
            mark_dead(a, room);
            leave_room(a, room);
        }
        free(room);
    }
}

/* ---- sending ----------------------------------------------------------------
 */

static void sent(struct mxad *a, struct call *c, long status, const char *body,
                 size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->sending, &a->nsending, c->key);
    struct dm *d = dm_of_room(a, c->key);
    if (d && d->awaiting && c->ncookies) {
        /* read once they join: counted as sent then */
        d->held = xrealloc(d->held, (d->nheld + c->ncookies) * sizeof *d->held);
        memcpy(d->held + d->nheld, c->cookies, c->ncookies * sizeof *d->held);
        d->nheld += c->ncookies;
        c->ncookies = 0;
        await_arm(a);
    }
}

static void send_failed(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    set_del(a->sending, &a->nsending, c->key);
}

static bool not_for_two(void *ctx, const char *room)
{
    struct mxad *a = ctx;
    return cfg_by_id(a, room) || dm_of_room(a, room) ||
           set_has(a->dead, a->ndead, room) ||
           set_has(a->fetched, a->nfetched, room);
}

/* A room `user` made with only them and the bot in it, where nobody has
 * written to the bot as in a room, is taken as their direct room (and
 * checked before use). Whether one was. */
static bool adopt(struct mxad *a, const char *user)
{
    const char *room =
        mx_rooms_made_for_two(a->facts, user, a->cfg.user_id, not_for_two, a);
    if (!room)
        return false;
    log_info("%s: taking %s, which %s made with only the bot in it, as "
             "their direct room",
             a->base.network, room, user);
    char *r = xstrdup(room);
    struct dm *d = dm_set(a, user, r, DM_UNCHECKED);
    free(r);
    direct_record(a, d->user);
    dm_check(a, d);
    return true;
}

/* Lines for people whose direct room is ready go into it; a direct room
 * known but not checked is checked; someone without one may have made
 * one (adopt). */
static void route_people(struct mxad *a)
{
    if (!a->direct_known)
        return;
    for (size_t i = 0;;) {
        const char *dest = mx_outbox_dest(a->out, i);
        if (!dest)
            break;
        if (dest[0] == '@' && !dm_find(a, dest) && adopt(a, dest)) {
            i = 0;
            continue;
        }
        struct dm *d = dest[0] == '@' ? dm_find(a, dest) : NULL;
        if (d && d->state == DM_READY) {
            char *user = xstrdup(dest);
            mx_outbox_move(a->out, user, d->room);
            free(user);
            i = 0; /* the list changed */
            continue;
        }
        if (d)
            dm_check(a, d);
        i++;
    }
    for (size_t i = 0; i < a->nwants;) {
        if (!dm_find(a, a->wants[i].user))
            adopt(a, a->wants[i].user);
        struct dm *d = dm_find(a, a->wants[i].user);
        if (d && d->state == DM_READY) {
            want_del(a, a->wants[i].user);
            continue;
        }
        if (d)
            dm_check(a, d);
        i++;
    }
}

/* The longest a room's lines wait behind people's (pick). */
#define MX_ROOM_LAG_MS 60000

/* What the queue serves next. */
struct next {
    enum { NEXT_NONE, NEXT_CALL, NEXT_ROOM, NEXT_CREATE } kind;
    struct call *call;
    const char *dest; /* NEXT_ROOM: the room; NEXT_CREATE: the person */
    int rank;         /* smaller first: see rank() */
    uint64_t seq;
    int cost;
};

/* The order of the queue (smaller first): a person's lines (what they
 * need to act on: a deal, a prompt, the cards they received) before a
 * room's (what everyone reads), and among a person's lines those that
 * are not LOW in the order they came (a deal is NORMAL for IRC's sake,
 * and must not wait behind another's HIGH pass confirmation); then by
 * priority. */
static int rank(enum chat_priority prio, bool private)
{
    if (private)
        return prio == CHAT_LOW ? 4 : 0;
    return (int)prio * 2 + 1;
}

static void consider(struct next *n, int kind, struct call *c, const char *dest,
                     int rk, uint64_t seq, int cost)
{
    if (n->kind != NEXT_NONE &&
        (rk > n->rank || (rk == n->rank && seq >= n->seq)))
        return;
    n->kind = kind;
    n->call = c;
    n->dest = dest;
    n->rank = rk;
    n->seq = seq;
    n->cost = cost;
}

/* Whether a message for room may go: none in flight there, the bot in
 * it, and, for a direct room, ready. */
static bool room_open(const struct mxad *a, const char *room)
{
    if (room[0] != '!' || set_has(a->sending, a->nsending, room))
        return false;
    const struct cfg_room *cr = cfg_by_id(a, room);
    const struct dm *d = dm_of_room(a, room);
    return !(cr && cr->out) && !(d && d->state != DM_READY);
}

/* The most urgent thing that may start now (the oldest among equals):
 * a queued call, a room's next message, or a direct room to make (one
 * at a time, for someone with lines waiting or sitting down). Nothing
 * starts while something more urgent waits for its turn (a room's
 * message behind the one in flight, a creation behind another): should
 * the homeserver's limit be near, its slots go to what matters first, and
 * what waits meanwhile coalesces. */
/* The rank of what waits for dest in the out-queue, into *rk (with the
 * order of its oldest line in *seq), if anything waits there: a room's
 * lines wait behind people's at most MX_ROOM_LAG_MS, so what the table
 * reads stays at most a minute behind under a limit. */
static bool waiting_rank(const struct mxad *a, const char *dest, int64_t now,
                         int *rk, uint64_t *seq)
{
    enum chat_priority prio;
    int64_t since;
    if (!mx_outbox_urgency(a->out, dest, &prio, seq, &since))
        return false;
    bool room = dest[0] != '@' && !dm_of_room(a, dest);
    *rk = rank(prio, !room);
    if (room && now - since >= MX_ROOM_LAG_MS)
        *rk = 0;
    return true;
}

static void pick(struct mxad *a, int64_t now, struct next *n)
{
    *n = (struct next){.kind = NEXT_NONE};
    int barrier = INT32_MAX;
    uint64_t seq;
    int rk, waiting;
    for (struct call *c = a->calls; c; c = c->next) {
        if (!c->parked)
            continue;
        rk = rank(c->prio, c->done == created ||
                               (c->done == sent && dm_of_room(a, c->key)));
        /* a send or a creation is as urgent as the lines that wait
         * behind it (its room's, its person's): else those would hold
         * back the very call they wait for */
        if ((c->done == created || c->done == sent) &&
            waiting_rank(a, c->key, now, &waiting, &seq) && waiting < rk)
            rk = waiting;
        if (c->not_before > now)
            barrier = rk < barrier ? rk : barrier; /* its timer comes */
        else
            consider(n, NEXT_CALL, c, NULL, rk, c->seq, c->cost);
    }
    bool create = a->direct_known && a->ncreating == 0;
    for (size_t i = 0;; i++) {
        const char *dest = mx_outbox_dest(a->out, i);
        if (!dest)
            break;
        if (!waiting_rank(a, dest, now, &rk, &seq))
            continue;
        bool person = dest[0] == '@';
        if (room_open(a, dest))
            consider(n, NEXT_ROOM, NULL, dest, rk, seq, 1);
        else if (person && create && !dm_find(a, dest))
            consider(n, NEXT_CREATE, NULL, dest, rk, seq, 2);
        else if ((person && a->direct_known && !dm_find(a, dest)) ||
                 (dest[0] == '!' && set_has(a->sending, a->nsending, dest)))
            barrier = rk < barrier ? rk : barrier; /* its turn comes */
    }
    for (size_t i = 0; a->direct_known && i < a->nwants; i++) {
        if (dm_find(a, a->wants[i].user))
            continue;
        /* before a room's lines: the deal must not wait for it */
        rk = rank(CHAT_NORMAL, true);
        if (create)
            consider(n, NEXT_CREATE, NULL, a->wants[i].user, rk,
                     a->wants[i].seq, 2);
        else
            barrier = rk < barrier ? rk : barrier;
    }
    if (n->kind != NEXT_NONE && n->rank > barrier)
        n->kind = NEXT_NONE;
}

static void pace_due(struct loop *l, void *ctx)
{
    (void)l;
    struct mxad *a = ctx;
    a->pace_timer = 0;
    pump(a);
}

/* The queue's next turn at `when` (an earlier one stays). */
static void pace_arm(struct mxad *a, int64_t when)
{
    if (a->pace_timer && a->pace_timer_at <= when)
        return;
    loop_cancel(a->loop, a->pace_timer);
    int64_t wait = when - loop_now(a->loop);
    a->pace_timer_at = when;
    a->pace_timer = loop_timer(a->loop, wait > 0 ? wait : 0, pace_due, a);
}

/* Starts what pick chose. */
static void go(struct mxad *a, const struct next *n, bool probe, int64_t now)
{
    struct call *c = n->call;
    if (n->kind == NEXT_ROOM) {
        char *room = xstrdup(n->dest);
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
        c = call_new(a, "PUT", path, content, room, sent, send_failed);
        c->teaches = true;
        call_paced(c, 1, n->rank / 2, n->seq);
        if (ncookies) {
            c->cookies = xcalloc(ncookies, sizeof *c->cookies);
            memcpy(c->cookies, cookies, ncookies * sizeof *cookies);
            c->ncookies = ncookies;
        }
        free(room);
    } else if (n->kind == NEXT_CREATE) {
        c = create_dm(a, n->dest, n->rank / 2, n->seq);
    }
    c->parked = false;
    c->probe = probe;
    c->started = now;
    mx_pace_start(&a->pace, c->cost, probe, now);
    call_send(a, c);
}

/* Starts what may start: everything that may while the homeserver has
 * not limited the bot (a message per room in flight, one creation);
 * after that, one thing at a time, when the pacer says. */
static void pump(struct mxad *a)
{
    if (!a->token)
        return;
    route_people(a);
    made_settle(a);
    int64_t now = loop_now(a->loop);
    for (int guard = 0; guard < 100000; guard++) {
        struct next n;
        pick(a, now, &n);
        if (n.kind == NEXT_NONE)
            break;
        int64_t when = mx_pace_when(&a->pace, n.cost, now);
        bool probe = false;
        if (when > now) {
            if (when == INT64_MAX)
                break; /* one under way: its answer comes first */
            if (n.cost == 1 && mx_pace_probe_due(&a->pace, now)) {
                probe = true;
            } else {
                pace_arm(a, when);
                break;
            }
        }
        go(a, &n, probe, now);
    }
    /* a creation backing off goes again at its time */
    int64_t first = INT64_MAX;
    for (struct call *c = a->calls; c; c = c->next)
        if (c->parked && c->not_before > now && c->not_before < first)
            first = c->not_before;
    if (first != INT64_MAX)
        pace_arm(a, first);
}

/* Before every sleep. */
static void flush(struct loop *l, void *ctx)
{
    (void)l;
    pump(ctx);
}

/* Where text for a room or a person waits: the room, the person's
 * direct room, or (until that is found, checked or made in pump, once
 * m.direct is known: a restart must not make new rooms for the players
 * of a resumed game) the person; NULL for nowhere. */
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

static void fetch_room(struct mxad *a, const char *room, bool hold);

static void tell_tracked(struct chat_adapter *base, const char *to,
                         const char *text, enum chat_priority prio,
                         uint64_t cookie)
{
    struct mxad *a = (struct mxad *)base;
    if (a->stopped)
        return;
    const char *dest = to ? destination(a, to) : NULL;
    if (!dest || !text) {
        report(a, &cookie, cookie ? 1 : 0);
        return;
    }
    if (dest[0] == '!' && !dm_of_room(a, dest))
        fetch_room(a, dest, false); /* its name, for direct messages */
    mx_outbox_add_prio(a->out, dest, text, cookie, prio, loop_now(a->loop));
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

static void say_once(struct mxad *a, const char *room, const char *text)
{
    if (!set_has(a->warned, a->nwarned, room)) {
        set_add(&a->warned, &a->nwarned, room);
        mx_outbox_add(a->out, room, text);
    }
}

static bool retract(struct chat_adapter *base, uint64_t cookie)
{
    return mx_outbox_retract(((struct mxad *)base)->out, cookie);
}

/* Someone sat down: their direct room is found, checked or made now. */
static void prepare(struct chat_adapter *base, const char *nick)
{
    struct mxad *a = (struct mxad *)base;
    if (a->stopped || !mx_is_user_id(nick) || strcmp(nick, a->cfg.user_id) == 0)
        return;
    struct dm *d = dm_find(a, nick);
    if (d) {
        if (a->token)
            dm_check(a, d);
        return;
    }
    for (size_t i = 0; i < a->nwants; i++)
        if (strcmp(a->wants[i].user, nick) == 0)
            return;
    a->wants = xrealloc(a->wants, (a->nwants + 1) * sizeof *a->wants);
    a->wants[a->nwants].user = xstrdup(nick);
    a->wants[a->nwants].seq = mx_outbox_tick(a->out);
    a->nwants++;
}

/* A configured room's ID if it resolved, else what was asked. */
static const char *room_id_of(const struct mxad *a, const char *room)
{
    const struct cfg_room *r = cfg_by_name(a, room);
    return r && r->id ? r->id : room;
}

/* The homeserver rate-limits the bot now (pace.h). */
static bool limited(const struct chat_adapter *base)
{
    return ((const struct mxad *)base)->pace.limited;
}

static void room_label(const struct chat_adapter *base, const char *room,
                       char *out, size_t outlen)
{
    const struct mxad *a = (const struct mxad *)base;
    const char *id = room_id_of(a, room);
    mx_rooms_label(a->facts, id, out, outlen);
    /* a room configured by alias whose name is not known yet: the alias */
    if (strcmp(out, id) != 0 || strcmp(id, room) == 0)
        return;
    snprintf(out, outlen, "%s", room);
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
        ((a->s.since || a->cfg.appservice) && !a->direct_known))
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
    if (room && set_has(a->warn_joined, a->nwarn_joined, room)) {
        set_del(a->warn_joined, &a->nwarn_joined, room);
        say_once(a, room,
                 "This chat is encrypted, and I can neither read nor write "
                 "encrypted messages, so I will not answer or send your cards "
                 "here: I will write to you in a direct chat without "
                 "encryption.");
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

/* Joins a room (a configured one, or one the bot is invited to); a join
 * counts against the rate limit (and Synapse's join limit). */
static void join(struct mxad *a, const char *target)
{
    char *t = enc(target);
    char *path = xprintf("/join/%s", t);
    free(t);
    struct call *c =
        call_new(a, "POST", path, xstrdup("{}"), target, joined, join_failed);
    call_paced(c, 1, CHAT_HIGH, mx_outbox_tick(a->out));
}

static void left(struct mxad *a, struct call *c, long status, const char *body,
                 size_t len)
{
    (void)a, (void)c, (void)status, (void)body, (void)len;
}

static void leave_room(struct mxad *a, const char *room)
{
    char *r = enc(room);
    struct call *c = call_new(a, "POST", xprintf("/rooms/%s/leave", r),
                              xstrdup("{}"), room, left, left);
    free(r);
    call_paced(c, 1, CHAT_LOW, mx_outbox_tick(a->out));
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

/* ---- what a room is: its members, name and alias, fetched once ---------- */

/* How long a room's events wait for its members at most. */
#define MX_HOLD_MS 5000

static void on_item(struct mxad *a, const struct mx_item *it);

static struct hold *hold_of(const struct mxad *a, const char *room)
{
    for (size_t i = 0; room && i < a->nholds; i++)
        if (strcmp(a->holds[i].room, room) == 0)
            return &a->holds[i];
    return NULL;
}

/* The room's held events are handled now, in order. */
static void release(struct mxad *a, const char *room)
{
    struct hold *h = hold_of(a, room);
    if (!h)
        return;
    struct hold mine = *h;
    *h = a->holds[--a->nholds];
    for (size_t i = 0; i < mine.n; i++) {
        if (!a->stopped)
            on_item(a, &mine.items[i]);
        mx_item_free(&mine.items[i]);
    }
    free(mine.items);
    free(mine.room);
}

static void hold_expired(struct loop *l, void *ctx);

static void hold_arm(struct mxad *a)
{
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < a->nholds; i++)
        if (a->holds[i].until < first)
            first = a->holds[i].until;
    timer_at(a, &a->hold_timer, first, hold_expired);
}

static void hold_expired(struct loop *l, void *ctx)
{
    struct mxad *a = ctx;
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
    struct mxad *a = pair[0];
    mx_members_set(a->members, pair[1], user, "join", name, renamed, a);
}

static void members_got(struct mxad *a, struct call *c, long status,
                        const char *body, size_t len)
{
    (void)status;
    void *pair[2] = {a, c->key};
    if (mx_joined_parse(body, len, joined_member, pair, MX_MEMBERS_MAX))
        log_warn("%s: the members of %s refused", a->base.network, c->key);
    release(a, c->key);
}

static void members_failed(struct mxad *a, struct call *c, long status,
                           const char *body, size_t len)
{
    (void)status, (void)body, (void)len;
    release(a, c->key);
}

/* A room name: valid UTF-8 without control characters, at most
 * MX_NAME_MAX bytes. */
static bool is_name(const char *s)
{
    size_t n = strlen(s);
    if (n > MX_NAME_MAX || !mx_utf8_valid(s, n))
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}

static void name_got(struct mxad *a, struct call *c, long status,
                     const char *body, size_t len)
{
    (void)status;
    char *name = body_string(body, len, "name", is_name);
    mx_rooms_set_name(a->facts, c->key, name);
    free(name);
}

static void alias_got(struct mxad *a, struct call *c, long status,
                      const char *body, size_t len)
{
    (void)status;
    char *alias = body_string(body, len, "alias", mx_is_alias);
    mx_rooms_set_alias(a->facts, c->key, alias);
    free(alias);
}

/* Asks once per run what a room (not a direct one) is: its members (so
 * that a display name shared with someone who has not spoken yet is told
 * apart), its name and canonical alias (to name it in direct messages).
 * With `hold`, its events wait for the members (at most MX_HOLD_MS). */
static void fetch_room(struct mxad *a, const char *room, bool hold)
{
    if (set_has(a->fetched, a->nfetched, room) || a->nfetched >= MX_ROOMS_MAX)
        return;
    set_add(&a->fetched, &a->nfetched, room);
    char *r = enc(room);
    call_send(a, call_new(a, "GET", xprintf("/rooms/%s/joined_members", r),
                          NULL, room, members_got, members_failed));
    call_send(a, call_new(a, "GET", xprintf("/rooms/%s/state/m.room.name", r),
                          NULL, room, name_got, NULL));
    call_send(a, call_new(a, "GET",
                          xprintf("/rooms/%s/state/m.room.canonical_alias", r),
                          NULL, room, alias_got, NULL));
    free(r);
    if (hold && !hold_of(a, room)) {
        a->holds = xrealloc(a->holds, (a->nholds + 1) * sizeof *a->holds);
        a->holds[a->nholds++] = (struct hold){
            .room = xstrdup(room), .until = loop_now(a->loop) + MX_HOLD_MS};
        hold_arm(a);
    }
}

/* The room's facts (rooms.h) take in a state item. */
static void feed_item(struct mxad *a, const struct mx_item *it)
{
    switch (it->kind) {
    case MX_ITEM_MEMBER:
        mx_rooms_set_member(a->facts, it->room, it->user, it->membership);
        return;
    case MX_ITEM_ENCRYPTED:
        if (!it->event_id)
            mx_rooms_set_encrypted(a->facts, it->room);
        return;
    case MX_ITEM_NAME:
        mx_rooms_set_name(a->facts, it->room, it->name);
        return;
    case MX_ITEM_ALIAS:
        mx_rooms_set_alias(a->facts, it->room, it->name);
        return;
    case MX_ITEM_CREATE:
        mx_rooms_set_creator(a->facts, it->room, it->sender);
        return;
    default:
        return;
    }
}

/* A member event in a direct room: its person joined or left; anyone
 * else makes it no private room any more. */
static void dm_member(struct mxad *a, struct dm *d, const struct mx_item *it)
{
    bool present = strcmp(it->membership, "join") == 0 ||
                   strcmp(it->membership, "invite") == 0;
    if (strcmp(it->user, d->user) != 0) {
        if (present && strcmp(it->user, a->cfg.user_id) != 0)
            dm_unusable(a, d, "someone else is in it");
        return;
    }
    if (strcmp(it->membership, "join") == 0) {
        if (d->state == DM_READY)
            dm_ready(a, d, false);
    } else if (strcmp(it->membership, "leave") == 0 ||
               strcmp(it->membership, "ban") == 0) {
        /* they left (or refused) their direct room: what waits there is
         * dropped, the next line for them makes a new one */
        char *room = xstrdup(d->room);
        mark_dead(a, room);
        dm_remove(a, d);
        drop(a, room);
        free(room);
    }
}

/* The state of a room the bot joined, as a sync's would come with the
 * join (a transaction holds only what happens after it): who made it and
 * who is in it, for a room a person made for the two of them. */
static void state_got(struct mxad *a, struct call *c, long status,
                      const char *body, size_t len)
{
    (void)status;
    feed_state(a, c->key, body, len, false);
}

static void as_joined(struct mxad *a, const char *room)
{
    char *r = enc(room);
    call_send(a, call_new(a, "GET", xprintf("/rooms/%s/state", r), NULL, room,
                          state_got, NULL));
    free(r);
}

static void on_item(struct mxad *a, const struct mx_item *it)
{
    const char *self = a->cfg.user_id;
    struct dm *dmr = dm_of_room(a, it->room);
    const char *dm = dmr ? dmr->user : NULL;
    feed_item(a, it);
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
        if (dmr) {
            dm_member(a, dmr, it);
            return;
        }
        if (strcmp(it->user, self) == 0)
            return;
        if (strcmp(it->membership, "join") == 0 && !cfg_by_id(a, it->room)) {
            /* perhaps a direct room whose createRoom answer is still on
             * its way: its person need not be waited for then */
            char *key = xprintf("%s %s", it->room, it->user);
            if (a->njoins_seen >= JOINS_SEEN_MAX)
                set_del(a->joins_seen, &a->njoins_seen, a->joins_seen[0]);
            set_add(&a->joins_seen, &a->njoins_seen, key);
            free(key);
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
        if (it->encrypted) {
            /* never a room for cards: say so once in it, if it is joined */
            if (it->is_direct && a->cfg.auto_join_invites)
                set_add(&a->warn_joined, &a->nwarn_joined, it->room);
        } else if (it->is_direct && !dm_find(a, it->sender) &&
                   !set_has(a->dead, a->ndead, it->room)) {
            /* checked once joined: the check asks for its state */
            dm_set(a, it->sender, it->room, DM_UNCHECKED);
            direct_record(a, it->sender);
        }
        if (a->cfg.auto_join_invites)
            join(a, it->room);
        return;
    case MX_ITEM_LEFT:
        mx_members_forget(a->members, it->room);
        mx_rooms_forget(a->facts, it->room);
        set_del(a->fetched, &a->nfetched, it->room);
        if (cfg_by_id(a, it->room) && it->sender && it->membership &&
            strcmp(it->sender, self) != 0) {
            kicked(a, cfg_by_id(a, it->room), it);
            return;
        }
        drop(a, it->room);
        if (dmr)
            dm_remove(a, dmr);
        return;
    case MX_ITEM_ENCRYPTED:
        if (!it->event_id) {
            if (dmr)
                dm_unusable(a, dmr, "encrypted");
            return;
        }
        if (strcmp(it->sender, self) == 0 || warned(a, it->room))
            return;
        mx_outbox_add(a->out, it->room,
                      "I cannot read encrypted messages, so I cannot see "
                      "commands in this room. To play, turn encryption off "
                      "in a new room (it cannot be turned off here) and "
                      "invite me there, or write to me in a direct chat "
                      "without encryption.");
        return;
    case MX_ITEM_CREATE:
        if (strcmp(it->sender, self) == 0 && !dmr && !cfg_by_id(a, it->room) &&
            !set_has(a->dead, a->ndead, it->room))
            set_add(&a->made, &a->nmade, it->room);
        return;
    case MX_ITEM_JOINED:
        if (a->cfg.appservice && !cfg_by_id(a, it->room))
            as_joined(a, it->room);
        return;
    case MX_ITEM_NAME:
    case MX_ITEM_ALIAS:
        return;
    }
}

/* An item of a sync: held while its room's members are fetched (the
 * first message read in a room not a direct one starts that). */
static void sync_item(struct mxad *a, const struct mx_item *it)
{
    struct hold *h = hold_of(a, it->room);
    if (!h && it->kind == MX_ITEM_MESSAGE && !dm_of_room(a, it->room) &&
        !set_has(a->fetched, a->nfetched, it->room)) {
        fetch_room(a, it->room, true);
        h = hold_of(a, it->room);
    }
    if (!h) {
        on_item(a, it);
        return;
    }
    h->items = xrealloc(h->items, (h->n + 1) * sizeof *h->items);
    mx_item_copy(&h->items[h->n++], it);
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
        sync_item(a, &s.items[i]);
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

static void as_ready(struct mxad *a);

static void start_sync(struct mxad *a)
{
    if (a->stopped || a->sync)
        return;
    if (a->cfg.appservice) { /* the homeserver pushes: no sync */
        as_ready(a);
        return;
    }
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

/* The bot's own device keys, as POST /keys/query answered: Element
 * encrypts a new direct room when every invitee has device keys, and the
 * bot cannot read what is encrypted. */
static void keys_got(struct mxad *a, struct call *c, long status,
                     const char *body, size_t len)
{
    (void)c, (void)status;
    struct json_tokener *tok = json_tokener_new_ex(8);
    if (!tok)
        abort();
    struct json_object *o =
        json_tokener_parse_ex(tok, body, len > INT32_MAX ? 0 : (int)len);
    json_tokener_free(tok);
    struct json_object *keys, *mine;
    int n = 0;
    if (o && json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, "device_keys", &keys) &&
        json_object_is_type(keys, json_type_object) &&
        json_object_object_get_ex(keys, a->cfg.user_id, &mine) &&
        json_object_is_type(mine, json_type_object))
        n = json_object_object_length(mine);
    json_object_put(o);
    if (n > 0)
        log_warn("%s: the account %s has device keys (%d device%s): people's "
                 "clients will encrypt the direct chats they start with the "
                 "bot, which it cannot read. Give the bot an account that no "
                 "client has logged into (docs/hosting.md, \"The bot's "
                 "account\")",
                 a->base.network, a->cfg.user_id, n, n == 1 ? "" : "s");
    else
        log_info("%s: the account %s has no device keys", a->base.network,
                 a->cfg.user_id);
}

static void check_keys(struct mxad *a)
{
    struct json_object *o = json_object_new_object();
    struct json_object *dk = json_object_new_object();
    json_object_object_add(dk, a->cfg.user_id, json_object_new_array());
    json_object_object_add(o, "device_keys", dk);
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    call_send(a, call_new(a, "POST", xstrdup("/keys/query"), body, NULL,
                          keys_got, NULL));
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
    check_keys(a);
    first_sync_when_ready(a);
    if (!a->first_sync_done && !a->sync)
        /* a join that hangs or keeps failing holds nothing up for long */
        a->sync_timer =
            loop_timer(a->loop, a->cfg.request_timeout_ms, sync_again, a);
}

/* ---- application service ---------------------------------------------
 *
 * The homeserver pushes the events of the bot's rooms to the listener
 * (listen.h) as transactions, instead of the bot polling /sync; what they
 * hold goes the way a sync's items go. A transaction is handled once: its
 * ID is kept in the session file before it is handled, so one the
 * homeserver sends again (it did not see the answer, or either side
 * restarted) is answered without being handled again; one refused as
 * malformed is answered as taken when it comes again, so that it does not
 * hold up the homeserver's queue for good. Until the bot has
 * joined its rooms and read its direct rooms (the first sync's moment),
 * transactions wait, their connections held.
 */

#define AS_PREFIX "/_matrix/app/v1"
/* A transaction's body at most: Synapse sends up to 100 events of up to
 * 64 KiB each, and one refused is sent again forever. */
#define AS_BODY_MAX (8u << 20)
/* Connections from the homeserver at once, and transactions waiting. */
#define AS_CONN_MAX 8
#define AS_QUEUE_MAX 16

static const char AS_OK[] = "{}";
static const char AS_STOPPING[] =
    "{\"errcode\":\"M_UNKNOWN\",\"error\":\"the bot is stopping\"}";

/* The transaction ID in a path after "/transactions/": printable ASCII,
 * no spaces or slashes. NULL if it is none. */
static const char *txn_id(const char *rest)
{
    size_t n = strlen(rest);
    if (n == 0 || n > MX_TXN_ID_MAX)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (rest[i] <= 0x20 || rest[i] >= 0x7f || rest[i] == '/')
            return NULL;
    return rest;
}

static bool recent_seen(const struct mxad *a, const char *id)
{
    for (size_t i = 0; i < a->nrecent; i++)
        if (strcmp(a->recent[i], id) == 0)
            return true;
    return false;
}

static void recent_add(struct mxad *a, const char *id)
{
    if (a->nrecent == AS_RECENT) {
        free(a->recent[0]);
        memmove(a->recent, a->recent + 1, (AS_RECENT - 1) * sizeof *a->recent);
        a->nrecent--;
    }
    a->recent[a->nrecent++] = xstrdup(id);
}

static void as_error(struct mx_request *r, int status, const char *code,
                     const char *why)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "errcode", json_object_new_string(code));
    json_object_object_add(o, "error", json_object_new_string(why));
    mx_request_answer(
        r, status, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
}

/* Handles transaction `id` (not handled before) and answers it. */
static void as_handle(struct mxad *a, struct mx_request *r, const char *id)
{
    struct mx_sync s;
    char err[128];
    bool bad =
        mx_txn_parse(r->body, r->len, a->cfg.user_id, &s, err, sizeof err);
    /* the ID first: a crash while its events are handled loses them
     * rather than running commands twice (as a sync's token); and a body
     * refused now would be refused again, so the homeserver's retry (it
     * sends a refused transaction again, and nothing after it, until it
     * is taken) is answered as taken */
    mx_session_txn_add(&a->s, id);
    save_session(a);
    if (bad) {
        log_error("%s: transaction %s from the homeserver refused (%s): "
                  "its events are lost",
                  a->base.network, id, err);
        as_error(r, 400,
                 strncmp(err, "not JSON", 8) == 0 ? "M_NOT_JSON" : "M_BAD_JSON",
                 err);
        return;
    }
    if (s.refused)
        log_debug("%s: transaction %s: %d malformed events skipped",
                  a->base.network, id, s.refused);
    for (size_t i = 0; i < s.nitems && !a->stopped; i++) {
        const struct mx_item *it = &s.items[i];
        if (it->kind == MX_ITEM_MESSAGE) {
            if (recent_seen(a, it->event_id))
                continue;
            recent_add(a, it->event_id);
        }
        sync_item(a, it);
    }
    mx_sync_free(&s);
    mx_request_answer(r, 200, AS_OK);
}

/* A transaction: handled now, answered at once if it was before, or held
 * until the start is done. */
static void as_transaction(struct mxad *a, struct mx_request *r, const char *id)
{
    if (mx_session_txn_seen(&a->s, id)) {
        log_debug("%s: transaction %s again: handled before", a->base.network,
                  id);
        mx_request_answer(r, 200, AS_OK);
    } else if (a->stopped) {
        mx_request_answer(r, 503, AS_STOPPING);
    } else if (a->first_sync_done) {
        as_handle(a, r, id);
    } else if (a->ntxq >= AS_QUEUE_MAX) {
        as_error(r, 503, "M_UNKNOWN", "the bot is starting");
    } else {
        a->txq = xrealloc(a->txq, (a->ntxq + 1) * sizeof *a->txq);
        a->txq[a->ntxq++] = r;
    }
}

/* Every request that carries the homeserver's token (the listener
 * refused the others): the v1 paths and Synapse 1.67's unprefixed ones. */
static void as_request(void *ctx, struct mx_request *r)
{
    struct mxad *a = ctx;
    const char *p = r->path;
    bool v1 = strncmp(p, AS_PREFIX "/", sizeof AS_PREFIX) == 0;
    if (v1)
        p += sizeof AS_PREFIX - 1;
    bool get = strcmp(r->method, "GET") == 0;
    if (strncmp(p, "/transactions/", 14) == 0) {
        const char *id = txn_id(p + 14);
        if (strcmp(r->method, "PUT") != 0)
            as_error(r, 405, "M_UNRECOGNIZED", "PUT a transaction");
        else if (!id)
            as_error(r, 400, "M_INVALID_PARAM", "not a transaction ID");
        else
            as_transaction(a, r, id);
    } else if (strncmp(p, "/users/", 7) == 0 || strncmp(p, "/rooms/", 7) == 0) {
        /* no user or room alias is the bot's to make */
        if (get)
            as_error(r, 404, "M_NOT_FOUND", "not one of the bot's");
        else
            as_error(r, 405, "M_UNRECOGNIZED", "GET it");
    } else if (v1 && strcmp(p, "/ping") == 0) {
        if (strcmp(r->method, "POST") == 0)
            mx_request_answer(r, 200, AS_OK);
        else
            as_error(r, 405, "M_UNRECOGNIZED", "POST a ping");
    } else {
        as_error(r, 404, "M_UNRECOGNIZED", "not served here");
    }
}

static void pinged(struct mxad *a, struct call *c, long status,
                   const char *body, size_t len)
{
    (void)c;
    char code[64];
    mx_errcode(body, len, code, sizeof code);
    if (status == 200)
        log_info("%s: the homeserver reached the bot's listener (ping)",
                 a->base.network);
    else if (status == 404 || strcmp(code, "M_UNRECOGNIZED") == 0)
        log_info("%s: the homeserver has no ping for application services "
                 "(Synapse before 1.84): after an outage of the bot it sends "
                 "what waited when its own retry comes",
                 a->base.network);
}

/* Asks the homeserver to ping the listener (Matrix 1.7): a homeserver
 * that backed off from a bot that was down (Synapse: up to 512 s) sends
 * what waits at once when the ping reaches the bot. One that does not
 * know the endpoint (Synapse before 1.84) answers 404: nothing lost, its
 * own retry comes in time. */
static void as_ping(struct mxad *a)
{
    char *id = enc(a->reg.id);
    struct call *c = call_new(a, "POST", xprintf("/appservice/%s/ping", id),
                              xstrdup("{}"), NULL, pinged, pinged);
    free(id);
    c->api = "/_matrix/client/v1";
    call_send(a, c);
}

/* The start is done: what waited is handled, in order. */
static void as_ready(struct mxad *a)
{
    if (a->first_sync_done)
        return;
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = 0;
    a->first_sync_done = true;
    a->connected = true;
    log_info("%s: connected to %s as %s, an application service: the "
             "homeserver pushes events to port %d and does not rate-limit "
             "the bot",
             a->base.network, a->cfg.homeserver, a->cfg.user_id,
             mx_listen_port(a->listen));
    emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    as_ping(a);
    struct mx_request **q = a->txq;
    size_t n = a->ntxq;
    a->txq = NULL;
    a->ntxq = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = q[i]->path;
        as_transaction(a, q[i], strstr(p, "/transactions/") + 14);
    }
    free(q);
}

/* Transactions held are answered "not now": the homeserver sends them
 * again, to the next run. */
static void as_drop_queue(struct mxad *a)
{
    for (size_t i = 0; i < a->ntxq; i++)
        mx_request_answer(a->txq[i], 503, AS_STOPPING);
    free(a->txq);
    a->txq = NULL;
    a->ntxq = 0;
}

static void registered(struct mxad *a, struct call *c, long status,
                       const char *body, size_t len)
{
    (void)c, (void)body, (void)len;
    if (status == 200)
        log_info("%s: registered %s with the homeserver", a->base.network,
                 a->cfg.user_id);
    /* M_USER_IN_USE: it was; anything else shows in what follows */
    begin(a);
}

/* The registration file, the listener, then the bot's user: the start of
 * the application-service mode. -1 (logged) if it cannot listen. */
static int as_start(struct mxad *a)
{
    char err[512];
    if (mx_registration_load(a->cfg.registration, &a->reg, err, sizeof err)) {
        log_error("%s: %s", a->base.network, err);
        return -1;
    }
    if (mx_registration_check(&a->reg, &a->cfg, err, sizeof err)) {
        log_error("%s: %s", a->base.network, err);
        return -1;
    }
    struct mx_listen_limits lim = {.body_max = AS_BODY_MAX,
                                   .conn_max = AS_CONN_MAX,
                                   .request_ms = a->cfg.request_timeout_ms};
    a->listen =
        mx_listen_new(a->loop, a->cfg.listen_host, a->cfg.listen_port,
                      a->reg.hs_token, &lim, as_request, a, err, sizeof err);
    if (!a->listen) {
        log_error("%s: %s", a->base.network, err);
        return -1;
    }
    log_info("%s: listening for the homeserver on %s port %d", a->base.network,
             a->cfg.listen_host, mx_listen_port(a->listen));
    a->token = xstrdup(a->reg.as_token);
    a->started = true;
    struct json_object *o = json_object_new_object();
    json_object_object_add(
        o, "type", json_object_new_string("m.login.application_service"));
    json_object_object_add(o, "username",
                           json_object_new_string(a->reg.sender_localpart));
    char *body = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    call_send(a, call_new(a, "POST", xstrdup("/register"), body, NULL,
                          registered, registered));
    return 0;
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
    if (a->cfg.appservice)
        return as_start(a);
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
    as_drop_queue(a);
    /* keep sends and direct-room work; the rest ends now */
    for (struct call *c = a->calls, *next; c; c = next) {
        next = c->next;
        if (c->done != sent && c->done != created && c->done != direct_got &&
            c->done != direct_put_done && c->done != dm_checked)
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

static void free_config(struct matrix_config *c)
{
    free(c->name);
    free(c->homeserver);
    free(c->user_id);
    free(c->password);
    free(c->access_token);
    free(c->device_id);
    free(c->registration);
    free(c->listen_host);
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
    loop_cancel(a->loop, a->pace_timer);
    loop_cancel(a->loop, a->await_timer);
    loop_cancel(a->loop, a->hold_timer);
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
    set_free(a->fetching, a->nfetching);
    set_free(a->fetched, a->nfetched);
    set_free(a->dead, a->ndead);
    set_free(a->made, a->nmade);
    set_free(a->warn_joined, a->nwarn_joined);
    for (size_t i = 0; i < a->nholds; i++) {
        for (size_t k = 0; k < a->holds[i].n; k++)
            mx_item_free(&a->holds[i].items[k]);
        free(a->holds[i].items);
        free(a->holds[i].room);
    }
    free(a->holds);
    mx_members_free(a->members);
    mx_rooms_free(a->facts);
    for (size_t i = 0; i < a->ndms; i++) {
        free(a->dms[i].user);
        free(a->dms[i].room);
        free(a->dms[i].held);
    }
    free(a->dms);
    for (size_t i = 0; i < a->nwants; i++)
        free(a->wants[i].user);
    free(a->wants);
    as_drop_queue(a);
    mx_listen_free(a->listen);
    mx_registration_free(&a->reg);
    for (size_t i = 0; i < a->nrecent; i++)
        free(a->recent[i]);
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
    .prepare = prepare,
    .room_label = room_label,
    .limited = limited,
};

struct chat_adapter *mxad_new(struct loop *l, const struct matrix_config *cfg,
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
    a->cfg.registration = xstrdup(cfg->registration ? cfg->registration : "");
    a->cfg.listen_host =
        xstrdup(cfg->listen_host ? cfg->listen_host : "127.0.0.1");
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
    a->facts = mx_rooms_new();
    mx_pace_init(&a->pace);
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
