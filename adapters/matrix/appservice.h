/*
 * The Matrix adapter as an application service: the homeserver pushes
 * the events of the bot's rooms to the listener (listen.h) as
 * transactions instead of the bot polling /sync. A transaction is
 * handled once (its ID kept in the session file first); transactions
 * wait, their connections held, until the start is done.
 */
#ifndef HEARTS_MX_APPSERVICE_H
#define HEARTS_MX_APPSERVICE_H

#include "adapters/matrix/matrix_internal.h"

/* The transaction ID in a path after "/transactions/": printable ASCII,
 * no spaces or slashes, at most MX_TXN_ID_MAX bytes. NULL if it is none. */
const char *mx_as_txn_id(const char *rest);

/* What a request from the homeserver asks for. */
struct mx_as_route {
    enum {
        MX_AS_TRANSACTION, /* a transaction: id */
        MX_AS_PONG,        /* a ping: answered {} */
        MX_AS_REFUSE       /* answered status, code and why */
    } kind;
    const char *id; /* in the path */
    int status;
    const char *code, *why;
};

/* The route of a request (method, path without the query): the v1 paths
 * and Synapse 1.67's unprefixed ones. */
void mx_as_route(const char *method, const char *path, struct mx_as_route *out);

/* The registration file, the listener, then the bot's user: the start of
 * the application-service mode. -1 (logged) if it cannot listen. */
int mx_as_start(struct mx_adapter *a);

/* The start is done: CHAT_CONNECTED, and what waited is handled. */
void mx_as_ready(struct mx_adapter *a);

/* Transactions held are answered "not now". */
void mx_as_drop_queue(struct mx_adapter *a);

#endif
