/*
 * Every request of the Matrix adapter is a call: method, path, body, and
 * what to do with a 2xx answer or a final refusal. The retry policy
 * (retry.h) is applied in one place, when a call ends: waits, backoff,
 * logging in again. A paced call (one the homeserver's rate limit
 * counts) waits in the out-queue (send.h) until the pacer lets it go.
 */
#ifndef HEARTS_MX_CALLS_H
#define HEARTS_MX_CALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/matrix_internal.h"
#include "adapters/matrix/retry.h"
#include "bot/common/chat.h"

typedef void (*mx_call_fn)(struct mx_adapter *a, struct mx_call *c, long status,
                           const char *body, size_t len);

struct mx_call {
    struct mx_adapter *a;
    char *method;
    const char *api; /* MX_API, or another version's prefix */
    char *path;      /* after api, already encoded */
    char *body;      /* JSON or NULL */
    char *key;       /* what it is about: a room, a person */
    int64_t timeout_ms;
    uint64_t req, timer;
    struct mx_retry retry;
    mx_call_fn done; /* 2xx */
    mx_call_fn
        failed; /* a refusal retrying cannot change (status 0: gave up) */
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
    struct mx_call *next;
};

/* A new call (path and body taken, key copied), not yet sent. */
struct mx_call *mx_call_new(struct mx_adapter *a, const char *method,
                            char *path, char *body, const char *key,
                            mx_call_fn done, mx_call_fn failed);

/* Queues a call the rate limit counts (cost slots): mx_pump starts it. */
void mx_call_paced(struct mx_call *c, int cost, enum chat_priority prio,
                   uint64_t seq);

/* Sends c now (or once a login gave a token). */
void mx_call_send(struct mx_adapter *a, struct mx_call *c);

/* Ends c: cancelled if under way, its tracked texts reported. */
void mx_call_free(struct mx_adapter *a, struct mx_call *c);

#endif
