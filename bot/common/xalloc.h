/*
 * Allocation that cannot fail: out of memory aborts (the bot cannot play
 * on without memory, and a half-built structure would be worse). For every
 * part of the bot; the engine allocates nothing.
 */
#ifndef HEARTS_BOT_XALLOC_H
#define HEARTS_BOT_XALLOC_H

#include <stdlib.h>
#include <string.h>

static inline void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        abort();
    return p;
}

static inline void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        abort();
    return p;
}

/* NULL stays NULL. */
static inline char *xstrdup(const char *s)
{
    if (!s)
        return NULL;
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

#endif
