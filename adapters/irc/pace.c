/*
 * The lag-driven pacing controller (pace.h).
 */
#include "pace.h"

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void ircad_pace_init(struct ircad_pace *p, int64_t start_ms, int64_t min_ms,
                     int64_t max_ms)
{
    p->min_ms = min_ms > 0 ? min_ms : 1;
    p->max_ms = max_ms > p->min_ms ? max_ms : p->min_ms;
    p->token = 0;
    ircad_pace_reset(p, start_ms);
}

void ircad_pace_reset(struct ircad_pace *p, int64_t start_ms)
{
    p->interval_ms = clamp(start_ms, p->min_ms, p->max_ms);
    p->base_ms = -1;
    p->out = false;
    p->overdue_seen = false;
    p->probe_sent = 0;
    p->last_probe = 0;
    p->lines = 0;
}

bool ircad_pace_adaptive(const struct ircad_pace *p)
{
    return p->min_ms < p->max_ms;
}

/* Slower at once: twice the interval. */
static void slow_down(struct ircad_pace *p)
{
    int64_t v = p->interval_ms > p->max_ms / 2 ? p->max_ms : p->interval_ms * 2;
    p->interval_ms = clamp(v, p->min_ms, p->max_ms);
}

void ircad_pace_lag(struct ircad_pace *p, int64_t rtt_ms)
{
    if (rtt_ms < 0)
        rtt_ms = 0;
    if (p->base_ms < 0 || rtt_ms < p->base_ms)
        p->base_ms = rtt_ms;
    int64_t lag = rtt_ms - p->base_ms;
    if (lag > IRCAD_PACE_HIGH_MS) {
        slow_down(p);
    } else if (lag < IRCAD_PACE_LOW_MS) {
        int64_t step = p->interval_ms / 8;
        p->interval_ms =
            clamp(p->interval_ms - (step > 0 ? step : 1), p->min_ms, p->max_ms);
    }
}

void ircad_pace_line_sent(struct ircad_pace *p)
{
    if (p->lines < 1000000)
        p->lines++;
}

bool ircad_pace_want_probe(const struct ircad_pace *p, int64_t now,
                           bool waiting)
{
    /* a probe never answered (lost with a server's hiccup) is given up
     * after a while, or we would never measure again */
    bool lost = p->out && p->probe_sent >= 0 &&
                now - p->probe_sent > 20 * IRCAD_PACE_HIGH_MS;
    return ircad_pace_adaptive(p) && waiting && (!p->out || lost) &&
           p->lines >= IRCAD_PACE_PROBE_LINES &&
           now - p->last_probe >= IRCAD_PACE_PROBE_MS;
}

unsigned ircad_pace_next_token(struct ircad_pace *p)
{
    p->token++;
    p->out = true;
    p->overdue_seen = false;
    p->probe_sent = -1; /* queued, not yet written */
    p->lines = 0;
    return p->token;
}

void ircad_pace_probe_sent(struct ircad_pace *p, int64_t now)
{
    p->probe_sent = now;
    p->last_probe = now;
}

bool ircad_pace_pong(struct ircad_pace *p, unsigned token, int64_t now)
{
    if (!p->out || token != p->token || p->probe_sent < 0)
        return false;
    p->out = false;
    int64_t rtt = now - p->probe_sent;
    if (p->overdue_seen) {
        /* it slowed us down already; still learn the base from it */
        if (p->base_ms < 0 || rtt < p->base_ms)
            p->base_ms = rtt;
        return true;
    }
    ircad_pace_lag(p, rtt);
    return true;
}

void ircad_pace_tick(struct ircad_pace *p, int64_t now)
{
    if (!p->out || p->overdue_seen || p->probe_sent < 0)
        return;
    int64_t base = p->base_ms < 0 ? 0 : p->base_ms;
    if (now - p->probe_sent > base + IRCAD_PACE_HIGH_MS) {
        p->overdue_seen = true;
        slow_down(p);
    }
}
