/*
 * What to do after a Matrix request ended: done, wait and retry (429
 * M_LIMIT_EXCEEDED waits the retry_after_ms the JSON body names; 5xx,
 * timeouts, refused or dropped connections back off exponentially with
 * jitter, capped), log in again (401 M_UNKNOWN_TOKEN), or give up (other
 * 4xx: retrying cannot help). And transaction IDs for sends: unique per
 * access token across restarts, the same for every retry of one send, so
 * the homeserver deduplicates a retry whose first attempt did arrive.
 * Pure (tests/unit/adapters/matrix/test_retry.c).
 */
#ifndef HEARTS_MX_RETRY_H
#define HEARTS_MX_RETRY_H

#include <stddef.h>
#include <stdint.h>

#include "adapters/matrix/http.h"
#include "bot/common/random.h"

#define MX_RETRY_BASE_MS 1000
#define MX_RETRY_CAP_MS 60000
/* A retry_after_ms past this is taken as this (a server cannot park the
 * bot for a day). */
#define MX_RETRY_AFTER_MAX_MS 300000

enum mx_retry_action {
    MX_RETRY_DONE,  /* 2xx: use the answer */
    MX_RETRY_WAIT,  /* try the same request again after *wait_ms */
    MX_RETRY_LOGIN, /* the access token is no longer valid */
    MX_RETRY_FAIL   /* a refusal that a retry would only repeat */
};

struct mx_retry {
    int64_t base_ms, cap_ms;
    int64_t nominal_ms; /* the next backoff before jitter */
    struct random_state rng;
};

/* A fresh state: the first backoff is about base_ms (>= 1), never more
 * than cap_ms (>= base_ms). */
void mx_retry_init(struct mx_retry *r, int64_t base_ms, int64_t cap_ms,
                   uint64_t seed);

/*
 * The action for a request that ended with result and, for MX_HTTP_OK,
 * status and body. For MX_RETRY_WAIT, *wait_ms is set: retry_after_ms
 * from a 429's body (0..MX_RETRY_AFTER_MAX_MS; a 429 without one backs
 * off), or the next backoff: between half and all of the nominal delay,
 * which then doubles up to the cap. DONE resets the backoff.
 */
enum mx_retry_action mx_retry_decide(struct mx_retry *r,
                                     enum mx_http_result result, long status,
                                     const char *body, size_t len,
                                     int64_t *wait_ms);

/* The errcode of a Matrix error body ("M_FORBIDDEN") into out, or ""
 * when there is none of a sane shape. */
void mx_errcode(const char *body, size_t len, char *out, size_t outlen);

/*
 * Transaction IDs: "<epoch>.<n>". The epoch is kept in the session file
 * and raised (and saved) on every start before the first send, so a
 * restart never repeats an ID under the same access token; n counts the
 * sends of this run. Take one ID per send and keep it for its retries.
 */
struct mx_txn {
    uint64_t epoch;
    uint64_t n;
};

/* Writes the next ID into out (at least 48 bytes). */
void mx_txn_next(struct mx_txn *t, char *out, size_t outlen);

#endif
