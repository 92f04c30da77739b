/*
 * A token bucket (bucket.h).
 */
#include "bot/common/bucket.h"

void bucket_init(struct bucket *b, int burst, int64_t interval_ms, int64_t now)
{
    b->burst = burst > 0 ? burst : 1;
    b->tokens = b->burst;
    b->interval_ms = interval_ms > 0 ? interval_ms : 1;
    b->stamp = now;
}

/* Credits the tokens earned since the stamp. The stamp moves by whole
 * intervals so that fractions of an interval are not lost between calls. */
static void refill(struct bucket *b, int64_t now)
{
    if (b->tokens >= b->burst || now <= b->stamp) {
        if (b->tokens >= b->burst)
            b->stamp = now;
        return;
    }
    int64_t n = (now - b->stamp) / b->interval_ms;
    if (n <= 0)
        return;
    if (n >= b->burst - b->tokens) {
        b->tokens = b->burst;
        b->stamp = now;
    } else {
        b->tokens += (int)n;
        b->stamp += n * b->interval_ms;
    }
}

bool bucket_take(struct bucket *b, int64_t now)
{
    refill(b, now);
    if (b->tokens <= 0)
        return false;
    /* a full bucket starts counting the interval from this first use */
    if (b->tokens == b->burst)
        b->stamp = now;
    b->tokens--;
    return true;
}

int64_t bucket_wait(struct bucket *b, int64_t now)
{
    refill(b, now);
    if (b->tokens > 0)
        return 0;
    int64_t w = b->stamp + b->interval_ms - now;
    return w > 0 ? w : 1;
}
