/*
 * The vocabulary the record's writer, reader and replay share
 * (record_internal.h).
 */
#include "storage/record/record_internal.h"

#include <stdlib.h>

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
