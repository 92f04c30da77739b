/*
 * Reconnect backoff with jitter (backoff.h).
 */
#include "adapters/irc/backoff.h"

void ircad_backoff_init(struct ircad_backoff *b, int64_t base_ms,
                        int64_t cap_ms, uint64_t seed)
{
    b->base_ms = base_ms > 0 ? base_ms : 1;
    b->cap_ms = cap_ms >= b->base_ms ? cap_ms : b->base_ms;
    b->nominal_ms = b->base_ms;
    random_init(&b->rng, seed);
}

int64_t ircad_backoff_next(struct ircad_backoff *b)
{
    int64_t d = b->nominal_ms;
    int64_t j = d / 5;
    int64_t delay = d;
    if (j > 0 && 2 * j + 1 <= (int64_t)UINT32_MAX)
        delay = d - j + (int64_t)random_below(&b->rng, (uint32_t)(2 * j + 1));
    if (delay > b->cap_ms)
        delay = b->cap_ms;
    if (delay < 1)
        delay = 1;
    b->nominal_ms = d > b->cap_ms / 2 ? b->cap_ms : d * 2;
    return delay;
}

void ircad_backoff_reset(struct ircad_backoff *b)
{
    b->nominal_ms = b->base_ms;
}
