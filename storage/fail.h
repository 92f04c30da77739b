/*
 * Inside storage/: the error text of a failing call (the caller's err
 * buffer may be NULL), for archive.c, journal.c and stats.c.
 */
#ifndef HEARTS_STORAGE_FAIL_H
#define HEARTS_STORAGE_FAIL_H

#include <stdarg.h>
#include <stdio.h>

static inline int store_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes the message into err and returns -1. */
static inline int store_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

#endif
