/*
 * json-c that cannot fail, as xalloc.h: json-c returns NULL (or nonzero)
 * only when out of memory, and then these abort. Header-only, for every
 * part that builds or parses JSON with json-c (and links it).
 */
#ifndef HEARTS_COMMON_XJSON_H
#define HEARTS_COMMON_XJSON_H

#include <json-c/json.h>
#include <stdlib.h>

/* o itself; aborts if it is NULL (a json_object_new_* that failed). */
static inline struct json_object *xjson(struct json_object *o)
{
    if (!o)
        abort();
    return o;
}

/* obj[key] = v, a value just made (NULL: out of memory); obj takes v. */
static inline void xjson_set(struct json_object *obj, const char *key,
                             struct json_object *v)
{
    if (json_object_object_add(obj, key, xjson(v)))
        abort();
}

/* Appends v, a value just made (NULL: out of memory), to the array arr,
 * which takes it. A JSON null is json_object_array_add(arr, NULL). */
static inline void xjson_push(struct json_object *arr, struct json_object *v)
{
    if (json_object_array_add(arr, xjson(v)))
        abort();
}

/* A tokener nesting at most depth (JSON_TOKENER_DEFAULT_DEPTH: json-c's
 * default); free it with json_tokener_free. */
static inline struct json_tokener *xjson_tokener(int depth)
{
    struct json_tokener *tok = json_tokener_new_ex(depth);
    if (!tok)
        abort();
    return tok;
}

/* o as compact text without escaped slashes, owned by o. */
static inline const char *xjson_plain(struct json_object *o)
{
    const char *s = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s)
        abort();
    return s;
}

#endif
