/*
 * A set of strings as an array the caller holds (char **set, size_t n):
 * rooms with a message in flight, people being served, rooms told about
 * encryption. Small sets, linear search; the order is not kept on
 * removal. Out of memory aborts.
 */
#ifndef HEARTS_MX_STRSET_H
#define HEARTS_MX_STRSET_H

#include <stdbool.h>
#include <stddef.h>

bool mx_set_has(char **set, size_t n, const char *s);

/* Adds a copy of s unless it is there. */
void mx_set_add(char ***set, size_t *n, const char *s);

/* Removes s if it is there. */
void mx_set_del(char **set, size_t *n, const char *s);

/* Frees every string and the array. */
void mx_set_free(char **set, size_t n);

#endif
