/*
 * The session file (session.h): one JSON object, version 1.
 */
#include "adapters/matrix/session.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/sync.h"
#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/xalloc.h"

#define SESSION_MAX 65536

void mx_session_set(char **field, const char *value)
{
    char *copy = xstrdup(value); /* NULL stays NULL */
    free(*field);
    *field = copy;
}

void mx_session_free(struct mx_session *s)
{
    if (!s)
        return;
    free(s->homeserver);
    free(s->user_id);
    free(s->access_token);
    free(s->device_id);
    free(s->since);
    for (size_t i = 0; i < s->nas_txns; i++)
        free(s->as_txns[i]);
    memset(s, 0, sizeof *s);
}

/* A JSON string that is printable ASCII without spaces (it goes into a
 * header or a URL), at most max bytes; else NULL. */
static const char *word_of(struct json_object *v, size_t max)
{
    if (!json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    if (n == 0 || n > max || strlen(s) != n)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= 0x20 || s[i] >= 0x7f)
            return NULL;
    return s;
}

/* Such a string field of o. */
static const char *word(struct json_object *o, const char *key, size_t max)
{
    struct json_object *v;
    return json_object_object_get_ex(o, key, &v) ? word_of(v, max) : NULL;
}

int mx_session_load(const char *path, struct mx_session *s, char *err,
                    size_t errlen)
{
    memset(s, 0, sizeof *s);
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    if (file_read(path, SESSION_MAX, &text, &len, &missing, err, errlen))
        return missing ? 0 : -1;
    struct json_object *o = json_tokener_parse(text);
    free(text);
    if (!o || !json_object_is_type(o, json_type_object)) {
        json_object_put(o);
        return err_set(err, errlen, "%s: not a JSON object", path);
    }
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, "version", &v) ||
        !json_object_is_type(v, json_type_int) ||
        json_object_get_int64(v) != MX_SESSION_VERSION) {
        bool newer = v && json_object_is_type(v, json_type_int) &&
                     json_object_get_int64(v) > MX_SESSION_VERSION;
        if (newer)
            err_set(err, errlen,
                    "%s: version %lld, of a newer heartsbot (this one reads "
                    "version %d)",
                    path, (long long)json_object_get_int64(v),
                    MX_SESSION_VERSION);
        else
            err_set(err, errlen, "%s: not a version %d session", path,
                    MX_SESSION_VERSION);
        json_object_put(o);
        return newer ? -2 : -1;
    }
    mx_session_set(&s->homeserver, word(o, "homeserver", 1024));
    mx_session_set(&s->user_id, word(o, "user_id", MX_ID_MAX));
    mx_session_set(&s->access_token, word(o, "access_token", 1024));
    mx_session_set(&s->device_id, word(o, "device_id", 1024));
    mx_session_set(&s->since, word(o, "since", MX_TOKEN_MAX));
    if (json_object_object_get_ex(o, "txn_epoch", &v) &&
        json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
        s->txn_epoch = (uint64_t)json_object_get_int64(v);
    if (json_object_object_get_ex(o, "appservice_txns", &v) &&
        json_object_is_type(v, json_type_array)) {
        size_t n = json_object_array_length(v);
        for (size_t i = n > MX_AS_TXNS ? n - MX_AS_TXNS : 0; i < n; i++) {
            const char *id =
                word_of(json_object_array_get_idx(v, i), MX_TXN_ID_MAX);
            if (id && !mx_session_txn_seen(s, id))
                mx_session_txn_add(s, id);
        }
    }
    json_object_put(o);
    return 0;
}

bool mx_session_txn_seen(const struct mx_session *s, const char *id)
{
    for (size_t i = 0; i < s->nas_txns; i++)
        if (strcmp(s->as_txns[i], id) == 0)
            return true;
    return false;
}

void mx_session_txn_add(struct mx_session *s, const char *id)
{
    if (s->nas_txns == MX_AS_TXNS) {
        free(s->as_txns[0]);
        memmove(s->as_txns, s->as_txns + 1,
                (MX_AS_TXNS - 1) * sizeof *s->as_txns);
        s->nas_txns--;
    }
    s->as_txns[s->nas_txns++] = xstrdup(id);
}

static void add(struct json_object *o, const char *key, const char *value)
{
    if (value)
        json_object_object_add(o, key, json_object_new_string(value));
}

int mx_session_save(const char *path, const struct mx_session *s, char *err,
                    size_t errlen)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "version",
                           json_object_new_int(MX_SESSION_VERSION));
    add(o, "homeserver", s->homeserver);
    add(o, "user_id", s->user_id);
    add(o, "access_token", s->access_token);
    add(o, "device_id", s->device_id);
    add(o, "since", s->since);
    json_object_object_add(o, "txn_epoch",
                           json_object_new_int64((int64_t)s->txn_epoch));
    if (s->nas_txns) {
        struct json_object *a = json_object_new_array();
        for (size_t i = 0; i < s->nas_txns; i++)
            json_object_array_add(a, json_object_new_string(s->as_txns[i]));
        json_object_object_add(o, "appservice_txns", a);
    }
    size_t n;
    const char *text = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &n);
    char *line = xmalloc(n + 2);
    memcpy(line, text, n);
    line[n] = '\n';
    int rc = file_replace(path, line, n + 1, err, errlen);
    free(line);
    json_object_put(o);
    return rc;
}
