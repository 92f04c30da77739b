/*
 * Retry decisions and transaction IDs (retry.h).
 */
#include "adapters/matrix/retry.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

void mx_retry_init(struct mx_retry *r, int64_t base_ms, int64_t cap_ms,
                   uint64_t seed)
{
    r->base_ms = base_ms > 0 ? base_ms : 1;
    r->cap_ms = cap_ms >= r->base_ms ? cap_ms : r->base_ms;
    r->nominal_ms = r->base_ms;
    random_init(&r->rng, seed);
}

/* Between half and all of the nominal delay ("equal jitter"): bots that
 * lost the server together do not come back in step. */
static int64_t backoff(struct mx_retry *r)
{
    int64_t d = r->nominal_ms;
    int64_t half = d / 2;
    int64_t delay = d - half;
    if (half > 0 && half < (int64_t)UINT32_MAX)
        delay += (int64_t)random_below(&r->rng, (uint32_t)half + 1);
    r->nominal_ms = d > r->cap_ms / 2 ? r->cap_ms : d * 2;
    return delay > 0 ? delay : 1;
}

static struct json_object *parse(const char *body, size_t len)
{
    if (!body || len == 0 || len > 65536)
        return NULL;
    struct json_tokener *tok = json_tokener_new_ex(8);
    if (!tok)
        return NULL;
    struct json_object *o = json_tokener_parse_ex(tok, body, (int)len);
    json_tokener_free(tok);
    if (o && !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        o = NULL;
    }
    return o;
}

void mx_errcode(const char *body, size_t len, char *out, size_t outlen)
{
    out[0] = '\0';
    struct json_object *o = parse(body, len), *v;
    if (o && json_object_object_get_ex(o, "errcode", &v) &&
        json_object_is_type(v, json_type_string)) {
        const char *s = json_object_get_string(v);
        size_t n = strlen(s);
        bool sane = n > 0 && n < outlen;
        for (size_t i = 0; sane && i < n; i++)
            sane = (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_' ||
                   (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
                   (s[i] >= 'a' && s[i] <= 'z');
        if (sane)
            memcpy(out, s, n + 1);
    }
    json_object_put(o);
}

/* retry_after_ms of a 429 body, or -1 if it has none. */
static int64_t retry_after(const char *body, size_t len)
{
    struct json_object *o = parse(body, len), *v;
    int64_t ms = -1;
    if (o && json_object_object_get_ex(o, "retry_after_ms", &v) &&
        json_object_is_type(v, json_type_int)) {
        ms = json_object_get_int64(v);
        if (ms < 0)
            ms = 0;
        if (ms > MX_RETRY_AFTER_MAX_MS)
            ms = MX_RETRY_AFTER_MAX_MS;
    }
    json_object_put(o);
    return ms;
}

enum mx_retry_action mx_retry_decide(struct mx_retry *r,
                                     enum mx_http_result result, long status,
                                     const char *body, size_t len,
                                     int64_t *wait_ms)
{
    if (result == MX_HTTP_OK && status >= 200 && status < 300) {
        r->nominal_ms = r->base_ms;
        return MX_RETRY_DONE;
    }
    if (result == MX_HTTP_OK && status == 429) {
        int64_t ms = retry_after(body, len);
        *wait_ms = ms >= 0 ? ms : backoff(r);
        return MX_RETRY_WAIT;
    }
    if (result == MX_HTTP_OK && status == 401) {
        char code[64];
        mx_errcode(body, len, code, sizeof code);
        if (strcmp(code, "M_UNKNOWN_TOKEN") == 0 ||
            strcmp(code, "M_MISSING_TOKEN") == 0)
            return MX_RETRY_LOGIN;
        return MX_RETRY_FAIL;
    }
    if (result == MX_HTTP_OK && status >= 400 && status < 500 && status != 408)
        return MX_RETRY_FAIL;
    /* 5xx, 408, anything odd, no answer at all: the server may recover */
    *wait_ms = backoff(r);
    return MX_RETRY_WAIT;
}

void mx_txn_next(struct mx_txn *t, char *out, size_t outlen)
{
    snprintf(out, outlen, "hb%" PRIu64 ".%" PRIu64, t->epoch, ++t->n);
}
