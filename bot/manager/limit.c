/*
 * The per-person answer limit (limit.h). The bucket is kept as the time it
 * would be full again (a "theoretical arrival time", as in the generic
 * cell rate algorithm): one integer per person, no refill arithmetic.
 */
#include "bot/manager/limit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"

struct person {
    bool used;
    bool warned;     /* told to slow down since the bucket was last full */
    char key[320];   /* "network\nid" */
    int64_t seen;    /* last message: the least recent is replaced */
    int64_t full_at; /* when the bucket is full again */
    uint64_t text;   /* hash of the last message */
    int64_t text_at; /* when it (or its last repeat) came */
    bool hinted;     /* given a hint nobody asked for, at hint_at */
    int64_t hint_at;
    bool shared_told;       /* told the shared bucket drops their answers, */
    uint64_t shared_filled; /* ... since it was last full (its count) */
};

struct limit {
    struct person people[LIMIT_PEOPLE];
    int64_t shared_full_at; /* the shared bucket, as a person's */
    uint64_t shared_filled; /* how many times it was found full */
};

struct limit *limit_new(void)
{
    struct limit *l = xcalloc(1, sizeof *l);
    return l;
}

void limit_free(struct limit *l)
{
    free(l);
}

int limit_people(const struct limit *l)
{
    int k = 0;
    for (int i = 0; i < LIMIT_PEOPLE; i++)
        k += l->people[i].used;
    return k;
}

static uint64_t hash(const char *s)
{
    uint64_t h = 14695981039346656037u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

/* The person's entry: found, else a free one, else the least recent. */
static struct person *find(struct limit *l, const char *key, bool *created)
{
    *created = false;
    struct person *free_one = NULL, *oldest = NULL;
    for (int i = 0; i < LIMIT_PEOPLE; i++) {
        struct person *p = &l->people[i];
        if (!p->used) {
            if (!free_one)
                free_one = p;
            continue;
        }
        if (strcmp(p->key, key) == 0)
            return p;
        if (!oldest || p->seen < oldest->seen)
            oldest = p;
    }
    struct person *p = free_one ? free_one : oldest;
    *created = true;
    memset(p, 0, sizeof *p);
    p->used = true;
    snprintf(p->key, sizeof p->key, "%s", key);
    return p;
}

/* Takes a token from a bucket kept as the time it is full again. */
static bool take(int64_t *full_at, int burst, int64_t interval_ms, int64_t now)
{
    if (*full_at < now)
        *full_at = now;
    if (burst < 1)
        burst = 1;
    if (*full_at - now > (int64_t)(burst - 1) * interval_ms)
        return false;
    *full_at += interval_ms;
    return true;
}

bool limit_shared(struct limit *l, int burst, int64_t interval_ms, int64_t now)
{
    if (interval_ms <= 0)
        return true;
    return take(&l->shared_full_at, burst, interval_ms, now);
}

bool limit_echo_heard(struct limit_echo *e, const char *text, int64_t window_ms,
                      int64_t now)
{
    uint64_t h = hash(text);
    int oldest = 0;
    for (int i = 0; i < LIMIT_ECHO_KEEP; i++) {
        if (!e->used[i]) {
            oldest = i;
            break;
        }
        if (e->hash[i] == h && now - e->at[i] < window_ms)
            return true;
        if (e->at[i] < e->at[oldest])
            oldest = i;
    }
    if (window_ms <= 0)
        return false;
    /* the same text heard before the window is replaced, never kept
     * twice */
    for (int i = 0; i < LIMIT_ECHO_KEEP; i++)
        if (e->used[i] && e->hash[i] == h)
            oldest = i;
    e->used[oldest] = true;
    e->hash[oldest] = h;
    e->at[oldest] = now;
    return false;
}

/* The person's entry, seen now. */
static struct person *person(struct limit *l, const char *network,
                             const char *id, int64_t now, bool *fresh)
{
    char key[320];
    snprintf(key, sizeof key, "%s\n%s", network ? network : "", id);
    struct person *p = find(l, key, fresh);
    p->seen = now;
    return p;
}

enum limit_verdict limit_shared_for(struct limit *l, const char *network,
                                    const char *id, int burst,
                                    int64_t interval_ms, int64_t now)
{
    if (interval_ms <= 0)
        return LIMIT_ANSWER;
    if (l->shared_full_at <= now)
        l->shared_filled++; /* a new flood, if any, is told anew */
    if (take(&l->shared_full_at, burst, interval_ms, now))
        return LIMIT_ANSWER;
    bool fresh;
    struct person *p = person(l, network, id, now, &fresh);
    if (p->shared_told && p->shared_filled == l->shared_filled)
        return LIMIT_QUIET;
    /* the telling is a line too: from the same bucket, which may go one
     * more burst into debt for it (many identities are not told each) */
    if (!take(&l->shared_full_at, 2 * (burst < 1 ? 1 : burst), interval_ms,
              now))
        return LIMIT_QUIET;
    p->shared_told = true;
    p->shared_filled = l->shared_filled;
    return LIMIT_WARN;
}

bool limit_hint(struct limit *l, const char *network, const char *id,
                int64_t interval_ms, int64_t now)
{
    bool fresh;
    struct person *p = person(l, network, id, now, &fresh);
    if (p->hinted && now - p->hint_at < interval_ms)
        return false;
    p->hinted = true;
    p->hint_at = now;
    return true;
}

enum limit_verdict limit_check(struct limit *l, const struct limit_rules *r,
                               const char *network, const char *id,
                               const char *text, int64_t now)
{
    bool fresh;
    struct person *p = person(l, network, id, now, &fresh);
    uint64_t h = hash(text);
    if (r->quiet_ms > 0 && !fresh && p->text == h &&
        now - p->text_at < r->quiet_ms) {
        p->text_at = now; /* a steady repeat stays quiet */
        return LIMIT_QUIET;
    }
    p->text = h;
    p->text_at = now;
    if (r->interval_ms <= 0)
        return LIMIT_ANSWER;
    if (p->full_at <= now)
        p->warned = false;
    if (take(&p->full_at, r->burst, r->interval_ms, now))
        return LIMIT_ANSWER;
    if (p->warned)
        return LIMIT_QUIET;
    p->warned = true;
    return LIMIT_WARN;
}

bool limit_take(struct limit *l, const struct limit_rules *r,
                const char *network, const char *id, int64_t now)
{
    if (r->interval_ms <= 0)
        return true;
    bool fresh;
    struct person *p = person(l, network, id, now, &fresh);
    return take(&p->full_at, r->burst, r->interval_ms, now);
}
