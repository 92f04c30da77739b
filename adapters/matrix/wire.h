/*
 * Small pure helpers of the Matrix adapter for what goes over the wire:
 * a formatted string on the heap, percent-encoding for a URL, one string
 * field of a JSON answer, and the shapes of tokens and names it takes.
 * Out of memory aborts.
 */
#ifndef HEARTS_MX_WIRE_H
#define HEARTS_MX_WIRE_H

#include <stdbool.h>
#include <stddef.h>

/* printf into a new string. */
char *mx_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* s percent-encoded for a URL path segment or query value (RFC 3986
 * unreserved characters stay), new. */
char *mx_url_encode(const char *s);

/* A string field `key` of a JSON object body that passes `ok` (and holds
 * no NUL), copied; else NULL. */
char *mx_body_string(const char *body, size_t len, const char *key,
                     bool (*ok)(const char *));

/* Printable ASCII without spaces, 1..1024 bytes: tokens, device IDs. */
bool mx_is_word(const char *s);

/* A room name: valid UTF-8 without control characters, at most
 * MX_NAME_MAX bytes. */
bool mx_is_name(const char *s);

#endif
