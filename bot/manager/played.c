/*
 * The keys people played under this session, as played.h says: a small
 * array searched in full (PLAYED_PEOPLE per network), since it changes
 * only when a game ends or a known person changes nick or quits.
 */
#include "bot/manager/played.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"

struct person {
    const struct chat_adapter *a;
    char nick[64];
    char id[192];
    char keys[PLAYED_KEYS][200];
    int nkeys;
    uint64_t seen; /* when last added to or renamed: the lowest goes */
};

struct played {
    struct person *p;
    int n, cap;
    uint64_t clock;
};

struct played *played_new(void)
{
    return xcalloc(1, sizeof(struct played));
}

void played_free(struct played *pl)
{
    if (!pl)
        return;
    free(pl->p);
    free(pl);
}

static bool is(const struct person *p, const struct chat_adapter *a,
               const char *nick, const char *id)
{
    return p->a == a && a->ops->same_nick(a, p->nick, nick) &&
           (!id || strcmp(p->id, id) == 0);
}

static void drop(struct played *pl, int i)
{
    pl->p[i] = pl->p[--pl->n];
}

void played_add(struct played *pl, const struct chat_adapter *a,
                const char *nick, const char *id, const char *key)
{
    if (!nick || !id || !key || !*key || strlen(nick) >= 64 ||
        strlen(id) >= 192 || strlen(key) >= 200)
        return;
    struct person *p = NULL;
    int mine = 0, oldest = -1;
    for (int i = 0; i < pl->n && !p; i++) {
        if (is(&pl->p[i], a, nick, id)) {
            p = &pl->p[i];
        } else if (pl->p[i].a == a) {
            mine++;
            if (oldest < 0 || pl->p[i].seen < pl->p[oldest].seen)
                oldest = i;
        }
    }
    if (!p) {
        if (mine >= PLAYED_PEOPLE)
            drop(pl, oldest);
        if (pl->n == pl->cap) {
            pl->cap = pl->cap ? pl->cap * 2 : 16;
            pl->p = xrealloc(pl->p, sizeof *pl->p * (size_t)pl->cap);
        }
        p = &pl->p[pl->n++];
        memset(p, 0, sizeof *p);
        p->a = a;
        snprintf(p->nick, sizeof p->nick, "%s", nick);
        snprintf(p->id, sizeof p->id, "%s", id);
    }
    /* the key goes first; an older copy of it, or the oldest key, goes */
    int k = 0;
    while (k < p->nkeys && strcmp(p->keys[k], key))
        k++;
    if (k == p->nkeys && p->nkeys < PLAYED_KEYS)
        p->nkeys++;
    if (k == PLAYED_KEYS)
        k--;
    memmove(p->keys[1], p->keys[0], sizeof p->keys[0] * (size_t)k);
    snprintf(p->keys[0], sizeof p->keys[0], "%s", key);
    p->seen = ++pl->clock;
}

void played_nick(struct played *pl, const struct chat_adapter *a,
                 const char *nick, const char *id, const char *to)
{
    if (!nick || !id || !to || strlen(to) >= 64)
        return;
    for (int i = 0; i < pl->n; i++)
        if (is(&pl->p[i], a, nick, id)) {
            snprintf(pl->p[i].nick, sizeof pl->p[i].nick, "%s", to);
            pl->p[i].seen = ++pl->clock;
        }
}

void played_quit(struct played *pl, const struct chat_adapter *a,
                 const char *nick, const char *id)
{
    if (!nick || !id)
        return;
    for (int i = pl->n - 1; i >= 0; i--)
        if (is(&pl->p[i], a, nick, id))
            drop(pl, i);
}

void played_forget(struct played *pl, const struct chat_adapter *a)
{
    for (int i = pl->n - 1; i >= 0; i--)
        if (pl->p[i].a == a)
            drop(pl, i);
}

int played_keys(const struct played *pl, const struct chat_adapter *a,
                const char *nick, const char *id, const char **keys, int max)
{
    const struct person *best = NULL;
    for (int i = 0; pl && i < pl->n; i++)
        if (is(&pl->p[i], a, nick, id) && (!best || pl->p[i].seen > best->seen))
            best = &pl->p[i];
    int n = 0;
    for (int k = 0; best && k < best->nkeys && n < max; k++)
        keys[n++] = best->keys[k];
    return n;
}
