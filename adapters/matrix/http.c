/*
 * libcurl's multi interface on the bot's loop (http.h), through
 * bot/common/curl_loop.c: curl's sockets and timer become loop
 * watches and a loop timer, and after each action we collect finished
 * transfers. Nothing here blocks: DNS runs in curl's resolver, connects
 * are non-blocking.
 */
#include "adapters/matrix/http.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "bot/common/curl_loop.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"

struct mx_req {
    struct mx_http *h;
    uint64_t id;
    CURL *easy;
    struct curl_slist *headers;
    char *body_out;     /* what we send (curl does not copy POSTFIELDS) */
    struct strbuf body; /* what we receive, up to the http's max_body */
    bool toobig;
    mx_http_done_fn fn;
    void *ctx;
    struct mx_req *next;
};

struct mx_http {
    struct curl_loop cl;
    size_t max_body;
    uint64_t next_id;
    struct mx_req *reqs;
    int pending;
};

static void check_done(struct mx_http *h);

/* curl_loop's progress: collect finished transfers. */
static void on_progress(void *ctx)
{
    check_done(ctx);
}

static size_t write_cb(char *data, size_t size, size_t n, void *userp)
{
    struct mx_req *r = userp;
    size_t add = size * n;
    if (!strbuf_add_whole(&r->body, data, add)) {
        r->toobig = true;
        return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
    }
    return add;
}

struct mx_http *mx_http_new(struct loop *l, size_t max_body)
{
    struct mx_http *h = xcalloc(1, sizeof *h);
    h->max_body = max_body;
    if (curl_loop_init(&h->cl, l, on_progress, h) != 0)
        abort();
    return h;
}

/* Unlinks r, takes it out of curl and frees it. */
static void req_free(struct mx_req *r)
{
    struct mx_http *h = r->h;
    for (struct mx_req **p = &h->reqs; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    h->pending--;
    curl_multi_remove_handle(h->cl.multi, r->easy);
    curl_easy_cleanup(r->easy);
    curl_slist_free_all(r->headers);
    free(r->body_out);
    strbuf_free(&r->body);
    free(r);
}

void mx_http_free(struct mx_http *h)
{
    if (!h)
        return;
    while (h->reqs)
        req_free(h->reqs);
    curl_loop_free(&h->cl);
    free(h);
}

static enum mx_http_result classify(CURLcode rc, const struct mx_req *r)
{
    if (rc == CURLE_OK)
        return MX_HTTP_OK;
    if (r->toobig)
        return MX_HTTP_TOOBIG;
    switch (rc) {
    case CURLE_OPERATION_TIMEDOUT:
        return MX_HTTP_TIMEOUT;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return MX_HTTP_CONNECT;
    default:
        return MX_HTTP_ERROR;
    }
}

static void check_done(struct mx_http *h)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(h->cl.multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        struct mx_req *r = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&r);
        if (!r)
            continue;
        enum mx_http_result res = classify(msg->data.result, r);
        long status = 0;
        if (res == MX_HTTP_OK)
            curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &status);
        mx_http_done_fn fn = r->fn;
        void *ctx = r->ctx;
        /* the body outlives the request for the callback's sake */
        size_t len = res == MX_HTTP_OK ? r->body.len : 0;
        char *body = res == MX_HTTP_OK ? strbuf_take(&r->body) : NULL;
        req_free(r);
        fn(ctx, res, status, body ? body : "", len);
        free(body);
    }
}

static bool has_line_break(const char *s)
{
    return s && strpbrk(s, "\r\n") != NULL;
}

uint64_t mx_http_start(struct mx_http *h, const struct mx_http_request *rq,
                       mx_http_done_fn fn, void *ctx)
{
    if (!rq->method || !rq->url ||
        (strncmp(rq->url, "http://", 7) != 0 &&
         strncmp(rq->url, "https://", 8) != 0) ||
        has_line_break(rq->url) || has_line_break(rq->token) ||
        has_line_break(rq->method) || rq->timeout_ms <= 0)
        return 0;
    struct mx_req *r = xcalloc(1, sizeof *r);
    strbuf_init_heap(&r->body, h->max_body);
    r->h = h;
    r->fn = fn;
    r->ctx = ctx;
    r->easy = curl_easy_init();
    if (!r->easy)
        abort();
    CURL *e = r->easy;
    bool ok = true;
    ok &= curl_easy_setopt(e, CURLOPT_URL, rq->url) == CURLE_OK;
    ok &= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK;
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)rq->timeout_ms);
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "heartsbot");
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, write_cb);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)r);
    /* no "Expect: 100-continue" round trip for bodies */
    r->headers = curl_slist_append(r->headers, "Expect:");
    if (rq->body) {
        r->body_out = xstrdup(rq->body);
        r->headers =
            curl_slist_append(r->headers, "Content-Type: application/json");
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, r->body_out);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(r->body_out));
    }
    if (rq->token) {
        size_t n = strlen(rq->token) + 32;
        char *line = xcalloc(1, n);
        snprintf(line, n, "Authorization: Bearer %s", rq->token);
        r->headers = curl_slist_append(r->headers, line);
        free(line);
    }
    if (!r->headers)
        abort();
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    if (strcmp(rq->method, "GET") == 0)
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    else if (strcmp(rq->method, "POST") != 0 || !rq->body)
        ok &=
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, rq->method) == CURLE_OK;
    if (!ok || curl_multi_add_handle(h->cl.multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        curl_slist_free_all(r->headers);
        free(r->body_out);
        free(r);
        return 0;
    }
    r->id = ++h->next_id;
    r->next = h->reqs;
    h->reqs = r;
    h->pending++;
    return r->id;
}

void mx_http_cancel(struct mx_http *h, uint64_t id)
{
    if (id == 0)
        return;
    for (struct mx_req *r = h->reqs; r; r = r->next)
        if (r->id == id) {
            req_free(r);
            return;
        }
}

int mx_http_pending(const struct mx_http *h)
{
    return h->pending;
}

const char *mx_http_result_name(enum mx_http_result r)
{
    switch (r) {
    case MX_HTTP_OK:
        return "ok";
    case MX_HTTP_TOOBIG:
        return "response too large";
    case MX_HTTP_TIMEOUT:
        return "timed out";
    case MX_HTTP_CONNECT:
        return "cannot connect";
    default:
        return "transfer failed";
    }
}
