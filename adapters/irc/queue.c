/*
 * The out-queue and its token bucket (queue.h). Lines are kept in one
 * doubly linked FIFO per priority so that the cap can drop the newest line
 * of a level in O(1) and the sender always takes the oldest line of the
 * highest non-empty level.
 */
#include "queue.h"

#include <stdlib.h>
#include <string.h>

struct ircad_qline {
    struct ircad_qline *prev, *next;
    size_t len;
    char text[];
};

/* ---- Token bucket ------------------------------------------------------ */

void ircad_bucket_init(struct ircad_bucket *b, int burst, int64_t interval_ms,
                       int64_t now)
{
    b->burst = burst > 0 ? burst : 1;
    b->tokens = b->burst;
    b->interval_ms = interval_ms > 0 ? interval_ms : 1;
    b->stamp = now;
}

/* Credits the tokens earned since the stamp. The stamp moves by whole
 * intervals so that fractions of an interval are not lost between calls. */
static void refill(struct ircad_bucket *b, int64_t now)
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

bool ircad_bucket_take(struct ircad_bucket *b, int64_t now)
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

int64_t ircad_bucket_wait(struct ircad_bucket *b, int64_t now)
{
    refill(b, now);
    if (b->tokens > 0)
        return 0;
    int64_t w = b->stamp + b->interval_ms - now;
    return w > 0 ? w : 1;
}

/* ---- Queue ------------------------------------------------------------- */

void ircad_queue_init(struct ircad_queue *q, int burst, int64_t interval_ms,
                      size_t max_bytes, int64_t now)
{
    memset(q, 0, sizeof *q);
    q->max_bytes = max_bytes;
    ircad_bucket_init(&q->bucket, burst, interval_ms, now);
}

/* Removes the oldest (head) or the newest (tail) line of a level. */
static void drop_line(struct ircad_queue *q, int lv, bool newest)
{
    struct ircad_qline *l = newest ? q->lv[lv].tail : q->lv[lv].head;
    if (!l)
        return;
    if (newest) {
        q->lv[lv].tail = l->prev;
        if (l->prev)
            l->prev->next = NULL;
        else
            q->lv[lv].head = NULL;
    } else {
        q->lv[lv].head = l->next;
        if (l->next)
            l->next->prev = NULL;
        else
            q->lv[lv].tail = NULL;
    }
    q->lines--;
    q->bytes -= l->len;
    free(l);
}

void ircad_queue_clear_prio(struct ircad_queue *q, enum ircad_prio prio)
{
    while (q->lv[prio].head)
        drop_line(q, (int)prio, false);
}

void ircad_queue_clear(struct ircad_queue *q)
{
    for (int lv = 0; lv < IRCAD_NPRIO; lv++)
        ircad_queue_clear_prio(q, (enum ircad_prio)lv);
}

int ircad_queue_push(struct ircad_queue *q, enum ircad_prio prio,
                     const char *line)
{
    size_t len = strlen(line);
    int dropped = 0;
    if (prio != IRCAD_URGENT) {
        while (q->bytes + len > q->max_bytes) {
            int lv = IRCAD_NPRIO - 1;
            while (lv > (int)prio && !q->lv[lv].tail)
                lv--;
            if (lv <= (int)prio)
                return -1;
            drop_line(q, lv, true);
            dropped++;
        }
    }
    struct ircad_qline *l = malloc(sizeof *l + len + 1);
    if (!l)
        abort();
    memcpy(l->text, line, len + 1);
    l->len = len;
    l->next = NULL;
    l->prev = q->lv[prio].tail;
    if (l->prev)
        l->prev->next = l;
    else
        q->lv[prio].head = l;
    q->lv[prio].tail = l;
    q->lines++;
    q->bytes += len;
    return dropped;
}

static int front_level(const struct ircad_queue *q, enum ircad_prio max)
{
    /* protocol lines (URGENT) always first; among the chat levels, one
     * that has waited its fair turn, the higher first; else by priority */
    if (q->lv[IRCAD_URGENT].head)
        return IRCAD_URGENT;
    for (int lv = IRCAD_HIGH + 1; lv <= (int)max && lv < IRCAD_NPRIO; lv++)
        if (q->lv[lv].head && q->passed_over[lv] >= IRCAD_FAIR_TURN)
            return lv;
    for (int lv = 0; lv <= (int)max && lv < IRCAD_NPRIO; lv++)
        if (q->lv[lv].head)
            return lv;
    return -1;
}

const char *ircad_queue_front(const struct ircad_queue *q, enum ircad_prio max)
{
    int lv = front_level(q, max);
    return lv < 0 ? NULL : q->lv[lv].head->text;
}

void ircad_queue_pop(struct ircad_queue *q, enum ircad_prio max)
{
    int lv = front_level(q, max);
    if (lv < 0)
        return;
    drop_line(q, lv, false);
    if (lv == IRCAD_URGENT)
        return;
    q->passed_over[lv] = 0;
    for (int o = lv + 1; o < IRCAD_NPRIO; o++)
        if (q->lv[o].head)
            q->passed_over[o]++;
}

bool ircad_queue_empty(const struct ircad_queue *q)
{
    return q->lines == 0;
}

enum ircad_flush ircad_queue_flush(struct ircad_queue *q, int64_t now,
                                   enum ircad_prio max, ircad_send_fn send,
                                   void *ctx, int64_t *wait_ms)
{
    for (;;) {
        const char *line = ircad_queue_front(q, max);
        if (!line)
            return IRCAD_FLUSH_EMPTY;
        int64_t w = ircad_bucket_wait(&q->bucket, now);
        if (w > 0) {
            *wait_ms = w;
            return IRCAD_FLUSH_WAIT;
        }
        int rc = send(ctx, line);
        if (rc == IRCAD_FULL)
            return IRCAD_FLUSH_FULL;
        if (rc != IRCAD_SENT)
            return IRCAD_FLUSH_ERROR;
        ircad_bucket_take(&q->bucket, now);
        ircad_queue_pop(q, max);
    }
}
