/*
 * The vocabulary the record's writer, reader and replay share
 * (record_internal.h).
 */
#include "storage/record/record_internal.h"
#include "bot/common/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const record_dir_names[RECORD_NDIRS] = {
    "left", "right", "across", "hold", "scatter", "left2", "right2"};

bool record_integer_text(const char *s, long long *v)
{
    char *end;
    if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
        return false;
    *v = strtoll(s, &end, 10);
    return *end == '\0';
}

char *record_strndup(const char *s, size_t n)
{
    char *p = xcalloc(n + 1, 1);
    memcpy(p, s, n);
    return p;
}

void record_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
