/*
 * Reconnect delays: exponential backoff (base, 2 base, 4 base ... up to a
 * cap) with +-20% random jitter, so a network outage does not bring every
 * bot back at the same second. The randomness is the common layer's
 * seeded generator (bot/common/random.h), never rand(). Pure
 * (tests/unit/adapters/irc/test_backoff.c).
 */
#ifndef HEARTS_IRC_BACKOFF_H
#define HEARTS_IRC_BACKOFF_H

#include <stdint.h>

#include "bot/common/random.h"

#define IRCAD_BACKOFF_BASE_MS 1000
#define IRCAD_BACKOFF_CAP_MS 300000

struct ircad_backoff {
    int64_t base_ms;
    int64_t cap_ms;
    int64_t nominal_ms; /* the next delay before jitter */
    struct random_state rng;
};

/* A fresh backoff: the first delay is about base_ms (base_ms >= 1,
 * cap_ms >= base_ms). */
void ircad_backoff_init(struct ircad_backoff *b, int64_t base_ms,
                        int64_t cap_ms, uint64_t seed);

/* The next delay: the nominal delay +-20%, never above the cap; then the
 * nominal delay doubles, up to the cap. */
int64_t ircad_backoff_next(struct ircad_backoff *b);

/* Back to base_ms (after a successful registration). */
void ircad_backoff_reset(struct ircad_backoff *b);

#endif
