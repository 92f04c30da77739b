/*
 * A set of strings in an array (strset.h).
 */
#include "adapters/matrix/strset.h"

#include <stdlib.h>
#include <string.h>

#include "bot/common/xalloc.h"

/* Set of strings (rooms in flight, people being served). */
bool mx_set_has(char **set, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(set[i], s) == 0)
            return true;
    return false;
}

void mx_set_add(char ***set, size_t *n, const char *s)
{
    if (mx_set_has(*set, *n, s))
        return;
    *set = xrealloc(*set, (*n + 1) * sizeof **set);
    (*set)[(*n)++] = xstrdup(s);
}

void mx_set_del(char **set, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(set[i], s) == 0) {
            free(set[i]);
            set[i] = set[--*n];
            return;
        }
}

void mx_set_free(char **set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(set[i]);
    free(set);
}
