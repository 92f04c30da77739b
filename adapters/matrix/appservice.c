/*
 * The application-service mode (appservice.h).
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
#include "adapters/matrix/appservice.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/calls.h"
#include "adapters/matrix/items.h"
#include "adapters/matrix/listen.h"
#include "adapters/matrix/login.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/retry.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

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
const char *mx_as_txn_id(const char *rest)
{
    size_t n = strlen(rest);
    if (n == 0 || n > MX_TXN_ID_MAX)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (rest[i] <= 0x20 || rest[i] >= 0x7f || rest[i] == '/')
            return NULL;
    return rest;
}

static bool recent_seen(const struct mx_adapter *a, const char *id)
{
    for (size_t i = 0; i < a->nrecent; i++)
        if (strcmp(a->recent[i], id) == 0)
            return true;
    return false;
}

static void recent_add(struct mx_adapter *a, const char *id)
{
    if (a->nrecent == MX_AS_RECENT) {
        free(a->recent[0]);
        memmove(a->recent, a->recent + 1,
                (MX_AS_RECENT - 1) * sizeof *a->recent);
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
static void as_handle(struct mx_adapter *a, struct mx_request *r,
                      const char *id)
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
    mx_save_session(a);
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
        mx_sync_item(a, it);
    }
    mx_sync_free(&s);
    mx_request_answer(r, 200, AS_OK);
}

/* A transaction: handled now, answered at once if it was before, or held
 * until the start is done. */
static void as_transaction(struct mx_adapter *a, struct mx_request *r,
                           const char *id)
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

static void refuse(struct mx_as_route *out, int status, const char *code,
                   const char *why)
{
    *out = (struct mx_as_route){
        .kind = MX_AS_REFUSE, .status = status, .code = code, .why = why};
}

void mx_as_route(const char *method, const char *path, struct mx_as_route *out)
{
    const char *p = path;
    bool v1 = strncmp(p, AS_PREFIX "/", sizeof AS_PREFIX) == 0;
    if (v1)
        p += sizeof AS_PREFIX - 1;
    bool get = strcmp(method, "GET") == 0;
    *out = (struct mx_as_route){.kind = MX_AS_REFUSE};
    if (strncmp(p, "/transactions/", 14) == 0) {
        const char *id = mx_as_txn_id(p + 14);
        if (strcmp(method, "PUT") != 0)
            refuse(out, 405, "M_UNRECOGNIZED", "PUT a transaction");
        else if (!id)
            refuse(out, 400, "M_INVALID_PARAM", "not a transaction ID");
        else
            *out = (struct mx_as_route){.kind = MX_AS_TRANSACTION, .id = id};
    } else if (strncmp(p, "/users/", 7) == 0 || strncmp(p, "/rooms/", 7) == 0) {
        /* no user or room alias is the bot's to make */
        if (get)
            refuse(out, 404, "M_NOT_FOUND", "not one of the bot's");
        else
            refuse(out, 405, "M_UNRECOGNIZED", "GET it");
    } else if (v1 && strcmp(p, "/ping") == 0) {
        if (strcmp(method, "POST") == 0)
            out->kind = MX_AS_PONG;
        else
            refuse(out, 405, "M_UNRECOGNIZED", "POST a ping");
    } else {
        refuse(out, 404, "M_UNRECOGNIZED", "not served here");
    }
}

/* Every request that carries the homeserver's token (the listener
 * refused the others). */
static void as_request(void *ctx, struct mx_request *r)
{
    struct mx_adapter *a = ctx;
    struct mx_as_route rt;
    mx_as_route(r->method, r->path, &rt);
    if (rt.kind == MX_AS_TRANSACTION)
        as_transaction(a, r, rt.id);
    else if (rt.kind == MX_AS_PONG)
        mx_request_answer(r, 200, AS_OK);
    else
        as_error(r, rt.status, rt.code, rt.why);
}

static void pinged(struct mx_adapter *a, struct mx_call *c, long status,
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
static void as_ping(struct mx_adapter *a)
{
    char *id = mx_url_encode(a->reg.id);
    struct mx_call *c =
        mx_call_new(a, "POST", mx_printf("/appservice/%s/ping", id),
                    xstrdup("{}"), NULL, pinged, pinged);
    free(id);
    c->api = "/_matrix/client/v1";
    mx_call_send(a, c);
}

/* The start is done: what waited is handled, in order. */
void mx_as_ready(struct mx_adapter *a)
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
    mx_emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL);
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
void mx_as_drop_queue(struct mx_adapter *a)
{
    for (size_t i = 0; i < a->ntxq; i++)
        mx_request_answer(a->txq[i], 503, AS_STOPPING);
    free(a->txq);
    a->txq = NULL;
    a->ntxq = 0;
}

static void registered(struct mx_adapter *a, struct mx_call *c, long status,
                       const char *body, size_t len)
{
    (void)c, (void)body, (void)len;
    if (status == 200)
        log_info("%s: registered %s with the homeserver", a->base.network,
                 a->cfg.user_id);
    /* M_USER_IN_USE: it was; anything else shows in what follows */
    a->hooks.begin(a);
}

/* The registration file, the listener, then the bot's user: the start of
 * the application-service mode. -1 (logged) if it cannot listen. */
int mx_as_start(struct mx_adapter *a)
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
    mx_call_send(a, mx_call_new(a, "POST", xstrdup("/register"), body, NULL,
                                registered, registered));
    return 0;
}
