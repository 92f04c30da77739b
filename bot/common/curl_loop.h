/*
 * libcurl's multi interface on the bot's loop, for the adapters that use
 * curl (the Matrix HTTP client, the IRC transport's connection): curl's
 * sockets become loop watches, its timeout one loop timer, and after each
 * action curl took the owner's `progress` runs to read what finished
 * (curl_multi_info_read). Nothing blocks: name resolution runs in curl's
 * resolver thread, connects are non-blocking.
 */
#ifndef HEARTS_CURL_LOOP_H
#define HEARTS_CURL_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include <curl/curl.h>

#include "bot/common/loop.h"

struct curl_loop {
    struct loop *loop;
    CURLM *multi;
    uint64_t timer;
    bool detached; /* curl's sockets and timer are no longer acted on */
    void (*progress)(void *ctx);
    void *ctx;
};

/* Sets cl up with a new multi handle (libcurl initialised on first use);
 * aborts if out of memory. 0, or -1 if libcurl would not start. */
int curl_loop_init(struct curl_loop *cl, struct loop *l,
                   void (*progress)(void *ctx), void *ctx);

/* From now on curl's socket and timer requests are ignored: the owner
 * has taken the socket over (CURLOPT_CONNECT_ONLY). The multi handle
 * stays, with its easy handles (removing one would close its socket). */
void curl_loop_detach(struct curl_loop *cl);

/* Cancels the timer and frees the multi handle; remove the easy handles
 * first. A zeroed struct is fine. */
void curl_loop_free(struct curl_loop *cl);

#endif
