/*
 * The out-queue and its token bucket (queue.h). Every line is on two
 * doubly linked lists: its level's list in the order pushed (so the cap
 * drops the newest line of a level in O(1)) and its destination's FIFO
 * (so the sender takes a destination's oldest line). The destinations
 * with lines waiting form a round-robin list; picking scans it, which is
 * cheap for the few hundred people and channels a bot talks to at once.
 */
#include "adapters/irc/queue.h"

#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"

struct ircad_qline {
    struct ircad_qline *prev, *next;   /* in the destination's FIFO */
    struct ircad_qline *lprev, *lnext; /* in the level's list */
    struct ircad_qtarget *t;           /* NULL for URGENT */
    enum ircad_prio prio;
    uint64_t cookie;
    uint64_t seq; /* push order, for merging two destinations' FIFOs */
    bool whole;   /* the cookie's text is this one line */
    /* where the destination's name is in text ("PRIVMSG bob :..."), so
     * that a destination renamed is written under its new name; tlen 0:
     * the line has no name there and cannot be renamed */
    size_t toff, tlen;
    size_t len;
    char text[];
};

struct ircad_qtarget {
    struct ircad_qtarget *prev, *next; /* round-robin order */
    struct ircad_qline *head, *tail;
    size_t count[IRCAD_NPRIO];
    size_t lines;
    int waited; /* chat lines sent to others since it was served */
    char key[];
};
/* ---- Queue ------------------------------------------------------------- */

void ircad_queue_init(struct ircad_queue *q, int burst, int64_t interval_ms,
                      size_t max_bytes, int64_t now)
{
    memset(q, 0, sizeof *q);
    q->max_bytes = max_bytes;
    bucket_init(&q->bucket, burst, interval_ms, now);
}

static struct ircad_qtarget *find_target(const struct ircad_queue *q,
                                         const char *key)
{
    for (struct ircad_qtarget *t = q->rr_head; t; t = t->next)
        if (strcmp(t->key, key) == 0)
            return t;
    return NULL;
}

static void rr_unlink(struct ircad_queue *q, struct ircad_qtarget *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else
        q->rr_head = t->next;
    if (t->next)
        t->next->prev = t->prev;
    else
        q->rr_tail = t->prev;
    t->prev = t->next = NULL;
}

static void rr_append(struct ircad_queue *q, struct ircad_qtarget *t)
{
    t->next = NULL;
    t->prev = q->rr_tail;
    if (q->rr_tail)
        q->rr_tail->next = t;
    else
        q->rr_head = t;
    q->rr_tail = t;
}

/* Takes a line off both its lists and frees it; a destination left empty
 * goes too. */
static void remove_line(struct ircad_queue *q, struct ircad_qline *l,
                        bool report)
{
    int lv = (int)l->prio;
    if (l->lprev)
        l->lprev->lnext = l->lnext;
    else
        q->lv[lv].head = l->lnext;
    if (l->lnext)
        l->lnext->lprev = l->lprev;
    else
        q->lv[lv].tail = l->lprev;
    struct ircad_qtarget *t = l->t;
    if (t) {
        if (l->prev)
            l->prev->next = l->next;
        else
            t->head = l->next;
        if (l->next)
            l->next->prev = l->prev;
        else
            t->tail = l->prev;
        t->count[lv]--;
        if (--t->lines == 0) {
            rr_unlink(q, t);
            free(t);
        }
    }
    if (q->last == l)
        q->last = NULL;
    q->lines--;
    q->bytes -= l->len;
    if (report && l->cookie && q->dropped)
        q->dropped(q->dropped_ctx, l->cookie);
    free(l);
}

void ircad_queue_clear_prio(struct ircad_queue *q, enum ircad_prio prio)
{
    while (q->lv[prio].head)
        remove_line(q, q->lv[prio].head, true);
}

void ircad_queue_clear(struct ircad_queue *q)
{
    for (int lv = 0; lv < IRCAD_NPRIO; lv++)
        ircad_queue_clear_prio(q, (enum ircad_prio)lv);
}

void ircad_queue_clear_targets(struct ircad_queue *q,
                               bool (*drop)(void *ctx, const char *key),
                               void *ctx)
{
    struct ircad_qtarget *t = q->rr_head;
    while (t) {
        struct ircad_qtarget *next = t->next;
        if (drop(ctx, t->key)) {
            /* the last line frees the destination */
            size_t n = t->lines;
            for (size_t i = 0; i < n; i++)
                remove_line(q, t->head, true);
        }
        t = next;
    }
}

size_t ircad_queue_drop_target(struct ircad_queue *q, const char *target)
{
    struct ircad_qtarget *t = find_target(q, target ? target : "");
    if (!t)
        return 0;
    /* the last line frees the destination */
    size_t n = t->lines;
    for (size_t i = 0; i < n; i++)
        remove_line(q, t->head, true);
    return n;
}

/* Puts `nw` where `old` is on both its lists and frees `old`. */
static void replace_line(struct ircad_queue *q, struct ircad_qline *old,
                         struct ircad_qline *nw)
{
    struct ircad_qtarget *t = old->t;
    int lv = (int)old->prio;
    nw->prev = old->prev;
    nw->next = old->next;
    nw->lprev = old->lprev;
    nw->lnext = old->lnext;
    if (nw->prev)
        nw->prev->next = nw;
    else
        t->head = nw;
    if (nw->next)
        nw->next->prev = nw;
    else
        t->tail = nw;
    if (nw->lprev)
        nw->lprev->lnext = nw;
    else
        q->lv[lv].head = nw;
    if (nw->lnext)
        nw->lnext->lprev = nw;
    else
        q->lv[lv].tail = nw;
    if (q->last == old)
        q->last = nw;
    q->bytes = q->bytes - old->len + nw->len;
    free(old);
}

/* Rewrites a line to be addressed to `name`. */
static void rename_line(struct ircad_queue *q, struct ircad_qline *l,
                        const char *name)
{
    size_t nlen = strlen(name);
    if (l->tlen == nlen && memcmp(l->text + l->toff, name, nlen) == 0)
        return;
    size_t rest = l->len - l->toff - l->tlen;
    size_t len = l->toff + nlen + rest;
    struct ircad_qline *n = xmalloc(sizeof *n + len + 1);
    *n = *l;
    memcpy(n->text, l->text, l->toff);
    memcpy(n->text + l->toff, name, nlen);
    memcpy(n->text + l->toff + nlen, l->text + l->toff + l->tlen, rest + 1);
    n->len = len;
    n->tlen = nlen;
    replace_line(q, l, n);
}

/* A new empty destination in the round-robin place of `at`. */
static struct ircad_qtarget *
new_target_at(struct ircad_queue *q, struct ircad_qtarget *at, const char *key)
{
    size_t klen = strlen(key);
    struct ircad_qtarget *t = xmalloc(sizeof *t + klen + 1);
    memset(t, 0, sizeof *t);
    memcpy(t->key, key, klen + 1);
    t->waited = at->waited;
    t->prev = at->prev;
    t->next = at;
    if (at->prev)
        at->prev->next = t;
    else
        q->rr_head = t;
    at->prev = t;
    return t;
}

size_t ircad_queue_retarget(struct ircad_queue *q, const char *from,
                            const char *to, const char *name)
{
    struct ircad_qtarget *f = find_target(q, from ? from : "");
    if (!f || !to || !name || !*name || strchr(name, ' '))
        return 0;
    struct ircad_qtarget *d = f;
    if (strcmp(from, to) != 0) {
        d = find_target(q, to);
        if (!d)
            d = new_target_at(q, f, to);
        else if (f->waited > d->waited)
            d->waited = f->waited;
        /* merge the two FIFOs by push order */
        struct ircad_qline *a = d->head, *b = f->head, *tail = NULL;
        d->head = d->tail = NULL;
        while (a || b) {
            struct ircad_qline *l;
            if (!b || (a && a->seq < b->seq)) {
                l = a;
                a = a->next;
            } else {
                l = b;
                b = b->next;
            }
            l->t = d;
            l->prev = tail;
            l->next = NULL;
            if (tail)
                tail->next = l;
            else
                d->head = l;
            tail = l;
        }
        d->tail = tail;
        for (int lv = 0; lv < IRCAD_NPRIO; lv++)
            d->count[lv] += f->count[lv];
        d->lines += f->lines;
        rr_unlink(q, f);
        free(f);
    }
    /* a line that cannot be readdressed goes: it must not reach whoever
     * holds the old name */
    size_t moved = 0;
    for (struct ircad_qline *l = d->head, *next; l; l = next) {
        next = l->next;
        if (!l->tlen) {
            remove_line(q, l, true); /* the last one frees d: no more use */
            continue;
        }
        rename_line(q, l, name);
        moved++;
    }
    return moved;
}

/* The second word of "COMMAND target :text": where the name the line is
 * addressed to is. */
static void target_span(const char *line, size_t *off, size_t *len)
{
    const char *sp = strchr(line, ' ');
    *off = *len = 0;
    if (!sp || sp[1] == ' ' || sp[1] == ':' || sp[1] == '\0')
        return;
    *off = (size_t)(sp + 1 - line);
    *len = strcspn(sp + 1, " ");
}

int ircad_queue_push(struct ircad_queue *q, enum ircad_prio prio,
                     const char *target, const char *line)
{
    size_t len = strlen(line);
    int dropped = 0;
    q->last = NULL;
    if (prio != IRCAD_URGENT) {
        while (q->bytes + len > q->max_bytes) {
            int lv = IRCAD_NPRIO - 1;
            while (lv > (int)prio && !q->lv[lv].tail)
                lv--;
            if (lv <= (int)prio)
                return -1;
            remove_line(q, q->lv[lv].tail, true);
            dropped++;
        }
    }
    struct ircad_qline *l = xmalloc(sizeof *l + len + 1);
    memcpy(l->text, line, len + 1);
    l->len = len;
    l->prio = prio;
    l->cookie = 0;
    l->seq = ++q->seq;
    l->whole = false;
    target_span(line, &l->toff, &l->tlen);
    l->t = NULL;
    l->prev = l->next = NULL;
    if (prio != IRCAD_URGENT) {
        const char *key = target ? target : "";
        struct ircad_qtarget *t = find_target(q, key);
        if (!t) {
            size_t klen = strlen(key);
            t = xmalloc(sizeof *t + klen + 1);
            memset(t, 0, sizeof *t);
            memcpy(t->key, key, klen + 1);
            /* a newcomer waits for its turn behind the others */
            rr_append(q, t);
        }
        l->t = t;
        l->prev = t->tail;
        if (t->tail)
            t->tail->next = l;
        else
            t->head = l;
        t->tail = l;
        t->count[prio]++;
        t->lines++;
    }
    l->lnext = NULL;
    l->lprev = q->lv[prio].tail;
    if (l->lprev)
        l->lprev->lnext = l;
    else
        q->lv[prio].head = l;
    q->lv[prio].tail = l;
    q->lines++;
    q->bytes += len;
    q->last = l;
    return dropped;
}

bool ircad_queue_tag_last(struct ircad_queue *q, uint64_t cookie, bool whole)
{
    if (!q->last)
        return false;
    q->last->cookie = cookie;
    q->last->whole = whole;
    return true;
}

bool ircad_queue_retract(struct ircad_queue *q, uint64_t cookie)
{
    if (!cookie)
        return false;
    for (int lv = IRCAD_HIGH; lv < IRCAD_NPRIO; lv++)
        for (struct ircad_qline *l = q->lv[lv].head; l; l = l->lnext)
            if (l->cookie == cookie) {
                if (!l->whole)
                    return false;
                remove_line(q, l, false);
                return true;
            }
    return false;
}

static int rank(const struct ircad_qtarget *t)
{
    int best = IRCAD_NPRIO - 1;
    for (int lv = IRCAD_HIGH; lv < IRCAD_NPRIO; lv++) {
        if (t->count[lv]) {
            best = lv;
            break;
        }
    }
    return best * IRCAD_FAIR_TURN - t->waited;
}

/* The line to send next: protocol lines first; then the head of the
 * destination of the lowest rank, the earliest in round-robin order on a
 * tie. */
static struct ircad_qline *next_line(const struct ircad_queue *q, bool chat)
{
    if (q->lv[IRCAD_URGENT].head)
        return q->lv[IRCAD_URGENT].head;
    if (!chat)
        return NULL;
    struct ircad_qtarget *pick = NULL;
    int best = 0;
    for (struct ircad_qtarget *t = q->rr_head; t; t = t->next) {
        int r = rank(t);
        if (!pick || r < best) {
            pick = t;
            best = r;
        }
    }
    return pick ? pick->head : NULL;
}

const char *ircad_queue_front(const struct ircad_queue *q, bool chat)
{
    const struct ircad_qline *l = next_line(q, chat);
    return l ? l->text : NULL;
}

/* Removes the line sent; returns its cookie. */
static uint64_t pop(struct ircad_queue *q, bool chat)
{
    struct ircad_qline *l = next_line(q, chat);
    if (!l)
        return 0;
    uint64_t cookie = l->cookie;
    struct ircad_qtarget *t = l->t;
    if (t) {
        for (struct ircad_qtarget *o = q->rr_head; o; o = o->next)
            if (o != t && o->waited < 1000000)
                o->waited++;
        t->waited = 0;
        if (t->lines > 1) {
            /* served: to the back of the round */
            rr_unlink(q, t);
            rr_append(q, t);
        }
    }
    remove_line(q, l, false);
    return cookie;
}

bool ircad_queue_empty(const struct ircad_queue *q)
{
    return q->lines == 0;
}

size_t ircad_queue_pending(const struct ircad_queue *q, const char *target)
{
    const struct ircad_qtarget *t = find_target(q, target ? target : "");
    return t ? t->lines : 0;
}

enum ircad_flush ircad_queue_flush(struct ircad_queue *q, int64_t now,
                                   bool chat, ircad_send_fn send,
                                   ircad_sent_fn sent, void *ctx,
                                   int64_t *wait_ms)
{
    for (;;) {
        const char *line = ircad_queue_front(q, chat);
        if (!line)
            return IRCAD_FLUSH_EMPTY;
        int64_t w = bucket_wait(&q->bucket, now);
        if (w > 0) {
            *wait_ms = w;
            return IRCAD_FLUSH_WAIT;
        }
        int rc = send(ctx, line);
        if (rc == IRCAD_FULL)
            return IRCAD_FLUSH_FULL;
        if (rc != IRCAD_SENT)
            return IRCAD_FLUSH_ERROR;
        bucket_take(&q->bucket, now);
        uint64_t cookie = pop(q, chat);
        if (cookie && sent)
            sent(ctx, cookie);
    }
}
