/*
 * A token bucket: `burst` tokens, one back every `interval_ms`. Pure: the
 * clock is passed in. It paces the IRC out-queue (adapters/irc/queue.h)
 * and bounds the invites an adapter acts on.
 */
#ifndef HEARTS_COMMON_BUCKET_H
#define HEARTS_COMMON_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

struct bucket {
    int tokens;
    int burst;
    int64_t interval_ms;
    int64_t stamp; /* when the last token came back (or the bucket filled) */
};

/* A full bucket at `now`. burst and interval_ms must be positive. */
void bucket_init(struct bucket *b, int burst, int64_t interval_ms, int64_t now);

/* Takes one token if there is one at `now`. */
bool bucket_take(struct bucket *b, int64_t now);

/* Milliseconds from `now` until a token is available (0: one is). */
int64_t bucket_wait(struct bucket *b, int64_t now);

#endif
