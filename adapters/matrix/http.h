/*
 * HTTP requests for the Matrix adapter on libcurl's multi interface, driven
 * by the bot's one loop (loop.h): curl's sockets become loop watches and
 * its timeout a loop timer, so a request never blocks the loop. A request
 * is a method, a URL, an optional JSON body and an optional access token
 * (sent as "Authorization: Bearer"); its completion callback gets the
 * HTTP status and the body, which is capped: a longer body is an error,
 * never a partial answer.
 */
#ifndef HEARTS_MX_HTTP_H
#define HEARTS_MX_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "bot/common/loop.h"

/* How a request ended. Only MX_HTTP_OK carries a status and a body. */
enum mx_http_result {
    MX_HTTP_OK,      /* an HTTP response arrived (any status) */
    MX_HTTP_TOOBIG,  /* the body went past the cap */
    MX_HTTP_TIMEOUT, /* no whole answer within the request's timeout */
    MX_HTTP_CONNECT, /* the server could not be reached or resolved */
    MX_HTTP_ERROR    /* anything else (a dropped connection, bad reply) */
};

struct mx_http;

/* A client on loop l whose response bodies may hold at most max_body
 * bytes. Never NULL; aborts if out of memory. */
struct mx_http *mx_http_new(struct loop *l, size_t max_body);

/* Cancels every request (no callbacks) and frees; NULL is a no-op. Not
 * from a completion callback. */
void mx_http_free(struct mx_http *h);

struct mx_http_request {
    const char *method; /* "GET", "POST", "PUT" */
    const char *url;
    const char *body;   /* JSON, or NULL for none */
    const char *token;  /* access token, or NULL */
    int64_t timeout_ms; /* the whole request at most (> 0) */
};

/*
 * Called once when a request ends: `status` is the HTTP status (0 unless
 * MX_HTTP_OK) and body (NUL-terminated, len bytes, lent for the call)
 * what the server sent. The callback may start and cancel requests.
 */
typedef void (*mx_http_done_fn)(void *ctx, enum mx_http_result result,
                                long status, const char *body, size_t len);

/*
 * Starts a request (copied: r's strings may go after the call). Returns
 * its id (never 0), or 0 if curl refused it (a bad URL, a token with a
 * line break): then fn is never called.
 */
uint64_t mx_http_start(struct mx_http *h, const struct mx_http_request *r,
                       mx_http_done_fn fn, void *ctx);

/* Drops a request that has not ended: its callback is never called.
 * 0 and finished ids are ignored. */
void mx_http_cancel(struct mx_http *h, uint64_t id);

/* How many requests are under way. */
int mx_http_pending(const struct mx_http *h);

/* A short text for a result, for logs. */
const char *mx_http_result_name(enum mx_http_result r);

#endif
