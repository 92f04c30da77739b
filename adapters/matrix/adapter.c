/*
 * The Matrix adapter's lifecycle (matrix_adapter.h): the chat_adapter
 * ops table, a new adapter, start, stop, idle and free. The rest of the
 * adapter, one concern per file, is listed in matrix_internal.h.
 *
 * Start: session file -> (login) -> epoch raised and saved -> joins of
 * the configured rooms, the m.direct map, the device-key check, the
 * first /sync (no history on a new session) -> CHAT_CONNECTED -> /sync
 * long-polls, one after the other (sync_loop.c); in application-service
 * mode the homeserver pushes transactions instead (appservice.c). Stop
 * ends the sync and everything but sends and direct-room work, so that
 * queued messages still go out.
 */
#include "adapters/matrix/matrix_adapter.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/appservice.h"
#include "adapters/matrix/calls.h"
#include "adapters/matrix/direct.h"
#include "adapters/matrix/http.h"
#include "adapters/matrix/items.h"
#include "adapters/matrix/joins.h"
#include "adapters/matrix/listen.h"
#include "adapters/matrix/login.h"
#include "adapters/matrix/matrix_internal.h"
#include "adapters/matrix/members.h"
#include "adapters/matrix/names.h"
#include "adapters/matrix/outbox.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/rooms.h"
#include "adapters/matrix/send.h"
#include "adapters/matrix/strset.h"
#include "adapters/matrix/sync.h"
#include "adapters/matrix/sync_loop.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

/* (Re)arms *timer to call fn(a) at loop time `when` (INT64_MAX: never). */
void mx_timer_at(struct mx_adapter *a, uint64_t *timer, int64_t when,
                 loop_timer_fn fn)
{
    loop_cancel(a->loop, *timer);
    *timer = 0;
    if (when != INT64_MAX) {
        int64_t wait = when - loop_now(a->loop);
        *timer = loop_timer(a->loop, wait > 0 ? wait : 0, fn, a);
    }
}

static void room_label(const struct chat_adapter *base, const char *room,
                       char *out, size_t outlen)
{
    const struct mx_adapter *a = (const struct mx_adapter *)base;
    const char *id = mx_room_id_of(a, room);
    mx_rooms_label(a->facts, id, out, outlen);
    /* a room configured by alias whose name is not known yet: the alias */
    if (strcmp(out, id) != 0 || strcmp(id, room) == 0)
        return;
    snprintf(out, outlen, "%s", room);
}

static int start(struct chat_adapter *base)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (a->stopped)
        return -1;
    if (a->started || a->logging_in)
        return 0;
    if (a->cfg.auto_join_invites && a->cfg.ninvite_from == 0)
        log_warn("%s: auto_join_invites is on and invite_from is empty: "
                 "anyone on Matrix can put the bot in any room (name who "
                 "may in invite_from)",
                 a->base.network);
    char err[512];
    int loaded = a->session_path
                     ? mx_session_load(a->session_path, &a->s, err, sizeof err)
                     : 0;
    if (loaded == -2) {
        /* a downgrade: the file stays as it is for the newer build */
        log_error("%s: %s: kept as it is; this run starts a new session "
                  "and keeps it in memory only",
                  a->base.network, err);
        free(a->session_path);
        a->session_path = NULL;
    } else if (loaded) {
        log_warn("%s: the Matrix session file is unusable (%s): starting "
                 "a new session",
                 a->base.network, err);
    }
    if (loaded)
        mx_session_free(&a->s);
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
        return mx_as_start(a);
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
        mx_begin(a);
    } else {
        mx_start_login(a);
    }
    return 0;
}

static void stop(struct chat_adapter *base, const char *goodbye)
{
    (void)goodbye; /* Matrix has no QUIT */
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (a->stopped)
        return;
    a->stopped = true;
    loop_cancel(a->loop, a->sync_timer);
    a->sync_timer = 0;
    mx_as_drop_queue(a);
    /* keep sends and direct-room work; the rest ends now */
    for (struct mx_call *c = a->calls, *next; c; c = next) {
        next = c->next;
        if (!mx_send_call(c) && !mx_dm_call(c) && !mx_direct_map_call(c))
            mx_call_free(a, c);
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
    const struct mx_adapter *a = (const struct mx_adapter *)base;
    if (a->stopped)
        return a->nsending == 0 && a->ncreating == 0 &&
               (!a->token || !mx_outbox_waiting(a->out, NULL));
    return a->nsending == 0 && a->ncreating == 0 &&
           !mx_outbox_waiting(a->out, NULL);
}

static void adapter_free(struct chat_adapter *base)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    if (!a)
        return;
    loop_remove_hook(a->loop, mx_flush, a);
    loop_cancel(a->loop, a->pace_timer);
    loop_cancel(a->loop, a->await_timer);
    loop_cancel(a->loop, a->hold_timer);
    loop_cancel(a->loop, a->sync_timer);
    a->stopped = true; /* nothing more to report */
    while (a->calls)
        mx_call_free(a, a->calls);
    loop_cancel(a->loop, a->answer_timer);
    for (int i = 0; i < a->cfg.nrooms; i++) {
        loop_cancel(a->loop, a->rooms[i].rejoin_timer);
        free(a->rooms[i].id);
    }
    free(a->rooms);
    free(a->reports);
    mx_set_free(a->verifies, a->nverifies);
    mx_set_free(a->left, a->nleft);
    mx_set_free(a->joins_seen, a->njoins_seen);
    mx_http_free(a->http);
    mx_outbox_free(a->out);
    mx_set_free(a->sending, a->nsending);
    mx_set_free(a->creating, a->ncreating);
    mx_set_free(a->warned, a->nwarned);
    mx_set_free(a->fetching, a->nfetching);
    mx_set_free(a->fetched, a->nfetched);
    mx_set_free(a->dead, a->ndead);
    mx_set_free(a->made, a->nmade);
    mx_set_free(a->warn_joined, a->nwarn_joined);
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
    mx_as_drop_queue(a);
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
    matrix_config_free(&a->cfg);
    free(a);
}

/* A joined member the adapter keeps (members.h). */
static bool present(struct chat_adapter *ca, const char *room, const char *nick)
{
    struct mx_adapter *a = (struct mx_adapter *)ca;
    return room && nick && mx_members_joined(a->members, room, nick);
}

static const struct chat_adapter_ops mx_ops = {
    .start = start,
    .stop = stop,
    .say = mx_say,
    .tell = mx_tell,
    .same_nick = same_nick,
    .idle = idle,
    .free = adapter_free,
    .verify = mx_verify,
    .tell_tracked = mx_tell_tracked,
    .retract = mx_retract,
    .prepare = mx_prepare,
    .room_label = room_label,
    .limited = mx_limited,
    .present = present,
};

struct chat_adapter *mx_adapter_new(struct loop *l,
                                    const struct matrix_config *cfg,
                                    const char *data_dir,
                                    chat_event_fn on_event, void *ctx)
{
    struct mx_adapter *a = xcalloc(1, sizeof *a);
    a->hooks = (struct mx_hooks){.login = mx_start_login,
                                 .begin = mx_begin,
                                 .first_sync = mx_first_sync_when_ready,
                                 .item = mx_on_item};
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
    a->cfg.invite_from = cfg->ninvite_from ? xcalloc((size_t)cfg->ninvite_from,
                                                     sizeof *a->cfg.invite_from)
                                           : NULL;
    for (int i = 0; i < cfg->ninvite_from; i++)
        a->cfg.invite_from[i] = xstrdup(cfg->invite_from[i]);
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
    bucket_init(&a->invite_rate, MX_INVITE_BURST, MX_INVITE_INTERVAL_MS,
                loop_now(l));
    if (data_dir && *data_dir) {
        char net[FILE_NAME_MAX + 1], dir[FILE_PATH_MAX], path[FILE_PATH_MAX],
            err[256];
        file_name_encode(a->cfg.name, net, sizeof net);
        if (file_path(dir, sizeof dir, err, sizeof err, data_dir, net,
                      (char *)NULL) == 0 &&
            file_path(path, sizeof path, err, sizeof err, dir,
                      "matrix-session.json", (char *)NULL) == 0) {
            a->data_dir = xstrdup(data_dir);
            a->session_dir = xstrdup(dir);
            a->session_path = xstrdup(path);
        } else {
            log_error("%s: no place for the Matrix session: %s", a->cfg.name,
                      err);
        }
    }
    loop_before_sleep(l, mx_flush, a);
    return &a->base;
}

void mx_adapter_set_retry(struct chat_adapter *base, int64_t base_ms,
                          int64_t cap_ms)
{
    struct mx_adapter *a = (struct mx_adapter *)base;
    a->retry_base_ms = base_ms;
    a->retry_cap_ms = cap_ms;
    mx_retry_init(&a->sync_retry, base_ms, cap_ms, ++a->seed);
}
