/*
 * The error convention of the whole tree: a function that can fail returns
 * 0 or -1 and, on -1, says why in the caller's `char *err, size_t errlen`
 * buffer. err_set writes that text (err may be NULL or errlen 0: the
 * caller does not want it; a long text is cut) and returns -1, so a
 * failure is one line:
 *
 *     if (n > max)
 *         return err_set(err, errlen, "%s: too long", key);
 *
 * errno is kept, so that the caller may still read the cause.
 */
#ifndef HEARTS_COMMON_ERR_H
#define HEARTS_COMMON_ERR_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline int err_vset(char *err, size_t errlen, const char *fmt,
                           va_list ap) __attribute__((format(printf, 3, 0)));
static inline int err_set(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int err_vset(char *err, size_t errlen, const char *fmt,
                           va_list ap)
{
    int e = errno;
    if (err && errlen > 0)
        vsnprintf(err, errlen, fmt, ap);
    errno = e;
    return -1;
}

static inline int err_set(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vset(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

#endif
