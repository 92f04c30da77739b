/*
 * Allocation that cannot fail: out of memory aborts (the bot cannot play
 * on without memory, and a half-built structure would be worse). The one
 * allocator of the tree, for every part but the engine (engine/ and its
 * computer players allocate nothing). Where a large allocation should
 * fail softly instead (a file too large to read), call malloc itself.
 */
#ifndef HEARTS_BOT_XALLOC_H
#define HEARTS_BOT_XALLOC_H

#include <stdlib.h>
#include <string.h>

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        abort();
    return p;
}

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

/* The first n bytes of s (fewer if it ends before), NUL-terminated. */
static inline char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        abort();
    return p;
}

#endif
