/*
 * The Matrix adapter's calls (calls.h): every request, and the retry
 * policy (retry.c) applied in one place, call_done: waits, backoff,
 * logging in again; a paced call refused with 429 teaches the pacer and
 * goes back in the queue.
 */
#include "adapters/matrix/calls.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/http.h"
#include "adapters/matrix/report.h"
#include "adapters/matrix/wire.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"

void mx_call_free(struct mx_adapter *a, struct mx_call *c)
{
    for (struct mx_call **p = &a->calls; *p; p = &(*p)->next)
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
    mx_report(a, c->cookies, c->ncookies);
    free(c->cookies);
    free(c->method);
    free(c->path);
    free(c->body);
    free(c->key);
    free(c);
}

struct mx_call *mx_call_new(struct mx_adapter *a, const char *method,
                            char *path, char *body, const char *key,
                            mx_call_fn done, mx_call_fn failed)
{
    struct mx_call *c = xcalloc(1, sizeof *c);
    c->a = a;
    c->method = xstrdup(method);
    c->api = MX_API;
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

/* Queues a call the rate limit counts (cost slots): mx_pump starts it. */
void mx_call_paced(struct mx_call *c, int cost, enum chat_priority prio,
                   uint64_t seq)
{
    c->paced = true;
    c->parked = true;
    c->cost = cost;
    c->prio = prio;
    c->seq = seq;
}

static void on_retry_timer(struct loop *l, void *ctx)
{
    (void)l;
    struct mx_call *c = ctx;
    c->timer = 0;
    if (c->paced)
        c->parked = true; /* the queue decides when */
    else
        mx_call_send(c->a, c);
}

/* A paced call refused with 429 and wait ms: the pacer learns, the call
 * goes back in the queue. A creation (two slots) refused again backs off
 * beyond what the pacer asks. */
static void refused(struct mx_adapter *a, struct mx_call *c, int64_t wait)
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
    struct mx_call *c = ctx;
    struct mx_adapter *a = c->a;
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
        mx_call_free(a, c);
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
            mx_emit(a, CHAT_DISCONNECTED, NULL, NULL, NULL, NULL);
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
                a->hooks.login(a);
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
    mx_call_free(a, c);
}

void mx_call_send(struct mx_adapter *a, struct mx_call *c)
{
    if (!a->token && strcmp(c->path, "/login") != 0) {
        /* waiting for a login */
        if (c->paced)
            mx_pace_ended(&a->pace);
        c->timer = loop_timer(a->loop, a->retry_base_ms, on_retry_timer, c);
        return;
    }
    char *url = mx_printf("%s%s%s", a->base_url, c->api, c->path);
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
        mx_call_free(a, c);
    }
}
