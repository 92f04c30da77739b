/*
 * The start sequence and the /sync loop (sync_loop.h).
 */
#include "adapters/matrix/sync_loop.h"

#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/appservice.h"
#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/items.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/login.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"

/* The first sync starts once the configured rooms' joins are answered
 * (no event names an alias room by its ID) and, after a restart, the
 * m.direct map is read (see mx_begin); a timer there bounds the wait. */
void mx_first_sync_when_ready(struct mx_adapter *a)
{
    if (a->first_sync_done || a->sync || a->joins_pending > 0 ||
        ((a->s.since || a->cfg.appservice) && !a->direct_known))
        return;
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = 0;
    mx_start_sync(a);
}

static void sync_again(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_adapter *a = ctx;
    a->sync_timer = 0;
    mx_start_sync(a);
}

/* A sync that cannot go on as it is goes again after a backoff (never in
 * a tight loop against a server that keeps answering nonsense). */
static void sync_later(struct mx_adapter *a)
{
    int64_t wait = 0;
    mx_retry_decide(&a->sync_retry, MX_HTTP_ERROR, 0, NULL, 0, &wait);
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = loop_timer(a->loop, wait, sync_again, a);
}

static void synced(struct mx_adapter *a, struct mx_call *c, long status,
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
    mx_save_session(a);
    if (s.has_direct)
        mx_direct_map_merge(a, s.direct, s.ndirect);
    a->first_sync_done = true;
    if (!a->connected) {
        a->connected = true;
        log_info("%s: connected to %s as %s", a->base.network,
                 a->cfg.homeserver, a->cfg.user_id);
        mx_emit(a, CHAT_CONNECTED, NULL, NULL, NULL, NULL);
    }
    for (size_t i = 0; i < s.nitems && !a->stopped; i++)
        mx_sync_item(a, &s.items[i]);
    mx_sync_free(&s);
    mx_start_sync(a);
}

static void sync_failed(struct mx_adapter *a, struct mx_call *c, long status,
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
        mx_save_session(a);
    }
    sync_later(a);
}

void mx_start_sync(struct mx_adapter *a)
{
    if (a->stopped || a->sync)
        return;
    if (a->cfg.appservice) { /* the homeserver pushes: no sync */
        mx_as_ready(a);
        return;
    }
    bool history = a->s.since != NULL;
    char *filter = mx_url_encode(mx_sync_filter(history));
    char *path;
    if (history) {
        char *since = mx_url_encode(a->s.since);
        path = mx_printf("/sync?filter=%s&timeout=%d&since=%s", filter,
                         a->cfg.sync_timeout_ms, since);
        free(since);
    } else {
        path = mx_printf("/sync?filter=%s&timeout=0", filter);
    }
    free(filter);
    a->sync =
        mx_call_new(a, "GET", path, NULL, a->s.since, synced, sync_failed);
    a->sync->timeout_ms =
        (int64_t)a->cfg.sync_timeout_ms + a->cfg.request_timeout_ms;
    mx_call_send(a, a->sync);
}

/* With a token: the epoch, the rooms, the direct map, the sync. After a
 * restart (a since token kept) the first sync waits for the direct map:
 * it may hold what people said in their direct rooms while the bot was
 * away, which is only read as private once those rooms are known. */
void mx_begin(struct mx_adapter *a)
{
    a->s.txn_epoch++;
    a->txn.epoch = a->s.txn_epoch;
    a->txn.n = 0;
    mx_save_session(a);
    a->joins_pending = a->cfg.nrooms;
    for (int i = 0; i < a->cfg.nrooms; i++)
        mx_join(a, a->cfg.rooms[i].name);
    mx_direct_map_read(a);
    mx_check_keys(a);
    mx_first_sync_when_ready(a);
    if (!a->first_sync_done && !a->sync)
        /* a join that hangs or keeps failing holds nothing up for long */
        a->sync_timer =
            loop_timer(a->loop, a->cfg.request_timeout_ms, sync_again, a);
}
