/*
 * The rate-limit model (pace.h).
 */
#include "adapters/matrix/pace.h"

#include <string.h>

void mx_pace_init(struct mx_pace *p)
{
    memset(p, 0, sizeof *p);
}

/* The interval to plan with: what was learned, else nothing better than
 * the wait of the refusal that limited the pacer (free_at's). */
static int64_t interval(const struct mx_pace *p)
{
    return p->interval > 0 ? p->interval : MX_PACE_MARGIN_MS;
}

int64_t mx_pace_when(const struct mx_pace *p, int cost, int64_t now)
{
    if (!p->limited)
        return now;
    if (p->busy > 0)
        return INT64_MAX;
    if (cost <= 1)
        return p->free_at;
    if (cost > MX_PACE_BURST)
        cost = MX_PACE_BURST;
    int64_t step = interval(p);
    return p->free_at + (int64_t)(cost - 1) * step + step / 10;
}

bool mx_pace_probe_due(const struct mx_pace *p, int64_t now)
{
    return p->limited && p->busy == 0 &&
           now - p->last_probe >= MX_PACE_PROBE_MS;
}

void mx_pace_start(struct mx_pace *p, int cost, bool probe, int64_t now)
{
    p->busy++;
    if (probe)
        p->last_probe = now;
    int64_t step = interval(p);
    /* idle long enough for the bucket to drain: no measure across it */
    if (p->anchored && now - p->last_start > 2 * step + 1000 && now > p->anchor)
        p->anchored = false;
    p->last_start = now;
    if (!p->limited)
        return;
    if (cost < 1)
        cost = 1;
    /* what saved up while idle counts up to the model's burst */
    int64_t base = now - (int64_t)(MX_PACE_BURST - 1) * step;
    if (base < p->free_at)
        base = p->free_at;
    p->free_at = base + (int64_t)cost * step;
}

static void end(struct mx_pace *p)
{
    if (p->busy > 0)
        p->busy--;
}

bool mx_pace_accepted(struct mx_pace *p, int cost, bool probe, int64_t started)
{
    end(p);
    /* one that started before the refusal was in the bucket already */
    if (p->anchored && started >= p->refused_at)
        p->charges += cost > 0 ? cost : 1;
    if (!probe || !p->limited)
        return false;
    /* the model said no: the limit is looser than learned */
    p->limited = false;
    p->interval = 0;
    p->anchored = false;
    return true;
}

static void learn(struct mx_pace *p, int64_t learned)
{
    if (learned > MX_PACE_INTERVAL_MAX_MS)
        learned = MX_PACE_INTERVAL_MAX_MS;
    if (learned > 0)
        p->interval = learned;
}

void mx_pace_refused(struct mx_pace *p, int64_t wait, bool teaches, int64_t now)
{
    end(p);
    if (wait < 0)
        wait = 0;
    p->limited = true;
    /* a refusal tells as much as a probe would: the next one is a period
     * later */
    p->last_probe = now;
    int64_t at = now + wait;
    p->free_at = at + MX_PACE_MARGIN_MS;
    if (!teaches) {
        /* another limit, or a slot charged before the refusal: the count
         * since the last send's refusal is not known any more */
        p->anchored = false;
        if (p->interval == 0)
            learn(p, wait);
        return;
    }
    if (p->anchored && p->charges > 0 && at > p->anchor) {
        int64_t measured = (at - p->anchor) / p->charges;
        learn(p, measured > wait ? measured : wait);
    } else if (wait > p->interval) {
        learn(p, wait);
    }
    p->anchored = true;
    p->anchor = at;
    p->refused_at = now;
    p->charges = 0;
}

void mx_pace_ended(struct mx_pace *p)
{
    end(p);
}
