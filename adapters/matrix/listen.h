/*
 * The HTTP listener of the application-service mode: libmicrohttpd in its
 * external-poll mode (one epoll descriptor watched by the bot's loop, no
 * thread), serving whole requests to one handler.
 *
 * Hostile-input territory: it binds only where it is told; every request
 * must carry the homeserver's token (the Authorization header's Bearer
 * token or the access_token argument), compared in constant time, or it is
 * refused (401 without one, 403 with another) before its body is read; a
 * body over the cap is refused with 413 when its Content-Length says so,
 * and its connection closed when it grows past the cap (MHD queues no
 * answer in the middle of a body); connections are capped, and one that
 * has not delivered a whole request within request_ms of connecting or of
 * its last answer is closed (slow senders, half-open peers, idle
 * keep-alives).
 *
 * The handler gets a whole request and answers it with mx_request_answer,
 * then or later (from any callback of the loop): until then the connection
 * waits, suspended, and its time does not run. Answer each request once.
 */
#ifndef HEARTS_MX_LISTEN_H
#define HEARTS_MX_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/common/loop.h"

struct mx_listen;

/* A whole request, lent to the handler until it is answered. */
struct mx_request {
    const char *method;
    const char *path; /* decoded, without the query */
    const char *body; /* NUL-terminated too; "" when none */
    size_t len;
};

struct mx_listen_limits {
    size_t body_max;    /* bytes of a request's body */
    unsigned conn_max;  /* connections open at once */
    int64_t request_ms; /* a whole request within this */
};

typedef void (*mx_request_fn)(void *ctx, struct mx_request *r);

/*
 * Listens on host:port (a numeric IPv4 or IPv6 address; port 0 picks a
 * free one) for requests carrying `token`. NULL with the reason in err if
 * it cannot (the address is in use, not local, ...).
 */
struct mx_listen *mx_listen_new(struct loop *l, const char *host, int port,
                                const char *token,
                                const struct mx_listen_limits *lim,
                                mx_request_fn fn, void *ctx, char *err,
                                size_t errlen);

/* The port it listens on. */
int mx_listen_port(const struct mx_listen *s);

/* Answers r with `status` and the JSON text `json` (copied). r is gone
 * after it. */
void mx_request_answer(struct mx_request *r, int status, const char *json);

/* Whether a and b are the same string, in a time that depends only on
 * the length of b (the secret). */
bool mx_token_equal(const char *a, const char *b);

/* Closes every connection and the listening socket. Requests not answered
 * are dropped with their connections. NULL is a no-op. */
void mx_listen_free(struct mx_listen *s);

#endif
