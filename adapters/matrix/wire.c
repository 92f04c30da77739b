/*
 * Small pure helpers for what goes over the wire (wire.h).
 */
#include "adapters/matrix/wire.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/sync.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"

char *mx_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort();
    char *p = xcalloc(1, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* Percent-encodes s for a URL path segment or query value. */
char *mx_url_encode(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = xcalloc(1, strlen(s) * 3 + 1), *o = out;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || strchr("-._~", c)) {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    return out;
}

/* A string field of a JSON body that passes `ok`, copied; else NULL. */
char *mx_body_string(const char *body, size_t len, const char *key,
                     bool (*ok)(const char *))
{
    struct json_tokener *tok = xjson_tokener(16);
    struct json_object *o =
        json_tokener_parse_ex(tok, body, len > INT32_MAX ? 0 : (int)len);
    json_tokener_free(tok);
    struct json_object *v;
    char *out = NULL;
    if (o && json_object_is_type(o, json_type_object) &&
        json_object_object_get_ex(o, key, &v) &&
        json_object_is_type(v, json_type_string) &&
        strlen(json_object_get_string(v)) ==
            (size_t)json_object_get_string_len(v) &&
        ok(json_object_get_string(v)))
        out = xstrdup(json_object_get_string(v));
    json_object_put(o);
    return out;
}

/* Printable ASCII without spaces, 1..1024 bytes: tokens, device IDs. */
bool mx_is_word(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 1024)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return false;
    return true;
}

/* A room name: valid UTF-8 without control characters, at most
 * MX_NAME_MAX bytes. */
bool mx_is_name(const char *s)
{
    size_t n = strlen(s);
    if (n > MX_NAME_MAX || !mx_utf8_valid(s, n))
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return false;
    return true;
}
