/*
 * Who asked to be called when a table opens in a channel (notify.h).
 */
#include "storage/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"
#include "storage/storage.h"

struct notify {
    struct notify_entry *v; /* sorted by key */
    size_t n, cap;
    long lines; /* lines read or written since the file was last whole */
};

struct notify *notify_new(void)
{
    return xcalloc(1, sizeof(struct notify));
}

void notify_free(struct notify *n)
{
    if (!n)
        return;
    free(n->v);
    free(n);
}

size_t notify_count(const struct notify *n)
{
    return n->n;
}

struct notify_entry *notify_at(struct notify *n, size_t i)
{
    return i < n->n ? &n->v[i] : NULL;
}

/* The index of key, or where it would go (*found false). */
static size_t locate(const struct notify *n, const char *key, bool *found)
{
    size_t lo = 0, hi = n->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(key, n->v[mid].key);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    *found = false;
    return lo;
}

struct notify_entry *notify_find(struct notify *n, const char *key)
{
    bool found;
    size_t i = locate(n, key, &found);
    return found ? &n->v[i] : NULL;
}

/* Puts key on the list with nick (NULL: off); -1 if that would pass
 * NOTIFY_MAX. The caller has checked both. */
static int put(struct notify *n, const char *key, const char *nick)
{
    bool found;
    size_t i = locate(n, key, &found);
    if (found) {
        if (nick) {
            snprintf(n->v[i].nick, sizeof n->v[i].nick, "%s", nick);
        } else {
            memmove(&n->v[i], &n->v[i + 1], (n->n - i - 1) * sizeof *n->v);
            n->n--;
        }
        return 0;
    }
    if (!nick)
        return 0;
    if (n->n >= NOTIFY_MAX)
        return -1;
    if (n->n == n->cap) {
        n->cap = n->cap ? n->cap * 2 : 16;
        n->v = xrealloc(n->v, n->cap * sizeof *n->v);
    }
    memmove(&n->v[i + 1], &n->v[i], (n->n - i) * sizeof *n->v);
    memset(&n->v[i], 0, sizeof n->v[i]);
    snprintf(n->v[i].key, sizeof n->v[i].key, "%s", key);
    snprintf(n->v[i].nick, sizeof n->v[i].nick, "%s", nick);
    n->n++;
    return 0;
}

/* ---- The file --------------------------------------------------------- */

/* A person's line, '\n' included (the caller frees it). */
static char *line_of(const char *key, const char *nick)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "format", json_object_new_string(NOTIFY_FORMAT));
    xjson_set(o, "key", json_object_new_string(key));
    if (nick)
        xjson_set(o, "nick", json_object_new_string(nick));
    const char *s = json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen(s);
    char *line = xcalloc(1, len + 2);
    memcpy(line, s, len);
    line[len] = '\n';
    json_object_put(o);
    return line;
}

/* A string member of o that is good text of at most max bytes, or NULL
 * (absent or bad: *bad set if present and bad). */
static const char *member(struct json_object *o, const char *name, size_t max,
                          bool *bad)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, name, &v))
        return NULL;
    const char *s = json_object_is_type(v, json_type_string)
                        ? json_object_get_string(v)
                        : NULL;
    if (!s || !storage_text_ok(s, max)) {
        *bad = true;
        return NULL;
    }
    return s;
}

/* The person of one object of the file, put in place (0), or -1: it
 * says none, or one too many. */
static int on_object(void *ctx, struct json_object *o)
{
    bool bad = false;
    const char *key = member(o, "key", NOTIFY_KEY_MAX, &bad);
    const char *nick = member(o, "nick", NOTIFY_NICK_MAX, &bad);
    return key && !bad ? put(ctx, key, nick) : -1;
}

/* The whole file anew: one line per person. */
static int rewrite(struct notify *n, const char *path, char *err, size_t errlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    for (size_t i = 0; i < n->n; i++) {
        char *line = line_of(n->v[i].key, n->v[i].nick);
        strbuf_addstr(&sb, line);
        free(line);
    }
    int rc = file_replace(path, sb.buf ? sb.buf : "", sb.len, err, errlen);
    strbuf_free(&sb);
    if (rc == 0)
        n->lines = (long)n->n;
    return rc;
}

int notify_load(struct notify *n, const char *path, int *skipped, char *err,
                size_t errlen)
{
    struct notify fresh = {0};
    int bad = 0;
    long lines = 0;
    if (storage_read_objects(path, NOTIFY_LINE_MAX, NOTIFY_FORMAT,
                             "a person to call",
                             "who asked to be called here is", on_object,
                             &fresh, &bad, &lines, err, errlen)) {
        free(fresh.v);
        return -1;
    }
    free(n->v);
    *n = fresh;
    n->lines = lines;
    *skipped = bad;
    /* mostly replaced lines, and none skipped (those stay for a person
     * to see): the file anew */
    if (bad == 0 && n->lines > 2 * (long)n->n + 64 && !storage_read_only()) {
        char why[256];
        if (rewrite(n, path, why, sizeof why))
            storage_log(true, "%s", why);
    }
    return 0;
}

int notify_set(struct notify *n, const char *path, const char *key,
               const char *nick, char *err, size_t errlen)
{
    if (!key || !storage_text_ok(key, NOTIFY_KEY_MAX))
        return err_set(err, errlen, "not a person's key");
    if (nick && !storage_text_ok(nick, NOTIFY_NICK_MAX))
        return err_set(err, errlen, "not a nick to call");
    bool found;
    locate(n, key, &found);
    if (!found && nick && n->n >= NOTIFY_MAX)
        return err_set(err, errlen, "%d people are called here already",
                       NOTIFY_MAX);
    if (path) {
        char *line = line_of(key, nick);
        int rc = storage_append(path, line, strlen(line), err, errlen);
        free(line);
        if (rc)
            return -1;
        n->lines++;
    }
    put(n, key, nick);
    return 0;
}
