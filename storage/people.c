/*
 * What people chose for themselves (people.h).
 */
#include "storage/people.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/common/xjson.h"
#include "storage/storage.h"

/* The longest network name and person key. */
#define NET_MAX 64
#define KEY_MAX 200

struct setting {
    char name[PEOPLE_NAME_MAX + 1];
    char value[PEOPLE_VALUE_MAX + 1];
};

struct person {
    char *net, *key;
    int n;
    struct setting s[PEOPLE_SETTINGS_MAX];
};

struct people {
    struct person *v; /* sorted by net, then key */
    size_t n, cap;
    long lines; /* lines read or written since the file was last whole */
};

struct people *people_new(void)
{
    return xcalloc(1, sizeof(struct people));
}

static void person_clear(struct person *q)
{
    free(q->net);
    free(q->key);
}

void people_free(struct people *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        person_clear(&p->v[i]);
    free(p->v);
    free(p);
}

size_t people_count(const struct people *p)
{
    return p->n;
}

static int cmp(const char *net, const char *key, const struct person *q)
{
    int c = strcmp(net, q->net);
    return c ? c : strcmp(key, q->key);
}

/* The index of the person, or where they would go (*found false). */
static size_t locate(const struct people *p, const char *net, const char *key,
                     bool *found)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp(net, key, &p->v[mid]);
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

const char *people_get(const struct people *p, const char *net, const char *key,
                       const char *name)
{
    bool found;
    size_t i = locate(p, net, key, &found);
    if (!found)
        return NULL;
    for (int k = 0; k < p->v[i].n; k++)
        if (strcmp(p->v[i].s[k].name, name) == 0)
            return p->v[i].s[k].value;
    return NULL;
}

/* ---- Checking --------------------------------------------------------- */

static bool good_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > PEOPLE_NAME_MAX)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || *s == '_'))
            return false;
    return true;
}

static bool good_value(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > PEOPLE_VALUE_MAX)
        return false;
    for (; *s; s++)
        if (*s <= ' ' || *s >= 0x7f || *s == '"' || *s == '\\')
            return false;
    return true;
}

static int check_person(const char *net, const char *key, char *err,
                        size_t errlen)
{
    if (!storage_text_ok(net, NET_MAX))
        return err_set(err, errlen, "not a network name");
    if (!storage_text_ok(key, KEY_MAX))
        return err_set(err, errlen, "not a person's key");
    return 0;
}

/* ---- Changing in memory ----------------------------------------------- */

/* Puts q (taken) in the place of the person it names; no settings: the
 * person is forgotten. -1 if that would pass PEOPLE_MAX. */
static int put(struct people *p, struct person *q)
{
    bool found;
    size_t i = locate(p, q->net, q->key, &found);
    if (found) {
        person_clear(&p->v[i]);
        if (q->n) {
            p->v[i] = *q;
            return 0;
        }
        person_clear(q);
        memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
        p->n--;
        return 0;
    }
    if (!q->n) {
        person_clear(q);
        return 0;
    }
    if (p->n >= PEOPLE_MAX) {
        person_clear(q);
        return -1;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        p->v = xrealloc(p->v, p->cap * sizeof *p->v);
    }
    memmove(&p->v[i + 1], &p->v[i], (p->n - i) * sizeof *p->v);
    p->v[i] = *q;
    p->n++;
    return 0;
}

/* A copy of the person's settings (none if unknown). */
static struct person copy(const struct people *p, const char *net,
                          const char *key)
{
    struct person q;
    memset(&q, 0, sizeof q);
    q.net = xstrdup(net);
    q.key = xstrdup(key);
    bool found;
    size_t i = locate(p, net, key, &found);
    if (found) {
        q.n = p->v[i].n;
        memcpy(q.s, p->v[i].s, sizeof q.s);
    }
    return q;
}

/* Sets or (value NULL) removes a setting of q; -1 if there are too many. */
static int set_in(struct person *q, const char *name, const char *value)
{
    for (int k = 0; k < q->n; k++) {
        if (strcmp(q->s[k].name, name) != 0)
            continue;
        if (value)
            snprintf(q->s[k].value, sizeof q->s[k].value, "%s", value);
        else
            q->s[k] = q->s[--q->n];
        return 0;
    }
    if (!value)
        return 0;
    if (q->n == PEOPLE_SETTINGS_MAX)
        return -1;
    snprintf(q->s[q->n].name, sizeof q->s[q->n].name, "%s", name);
    snprintf(q->s[q->n].value, sizeof q->s[q->n].value, "%s", value);
    q->n++;
    return 0;
}

/* ---- The file --------------------------------------------------------- */

/* The person's line, without '\n' (the caller frees it). */
static char *line_of(const struct person *q)
{
    struct json_object *o = xjson(json_object_new_object());
    xjson_set(o, "format", json_object_new_string(PEOPLE_FORMAT));
    xjson_set(o, "net", json_object_new_string(q->net));
    xjson_set(o, "key", json_object_new_string(q->key));
    for (int k = 0; k < q->n; k++)
        xjson_set(o, q->s[k].name, json_object_new_string(q->s[k].value));
    char *s = xstrdup(json_object_to_json_string_ext(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(o);
    return s;
}

/* The person of one object of the file, put in place (0), or -1: it
 * says none, or one too many. */
static int on_object(void *ctx, struct json_object *o)
{
    struct people *p = ctx;
    struct json_object *net, *key;
    if (!json_object_object_get_ex(o, "net", &net) ||
        !json_object_object_get_ex(o, "key", &key) ||
        !json_object_is_type(net, json_type_string) ||
        !json_object_is_type(key, json_type_string) ||
        check_person(json_object_get_string(net), json_object_get_string(key),
                     NULL, 0))
        return -1;
    struct person q;
    memset(&q, 0, sizeof q);
    q.net = xstrdup(json_object_get_string(net));
    q.key = xstrdup(json_object_get_string(key));
    json_object_object_foreach(o, name, v)
    {
        if (strcmp(name, "format") == 0 || strcmp(name, "net") == 0 ||
            strcmp(name, "key") == 0)
            continue;
        const char *value = json_object_get_string(v);
        if (!json_object_is_type(v, json_type_string) || !good_name(name) ||
            !good_value(value) || set_in(&q, name, value)) {
            person_clear(&q);
            return -1;
        }
    }
    return put(p, &q);
}

/* The whole file anew: one line per person. */
static int rewrite(struct people *p, const char *path, char *err, size_t errlen)
{
    struct strbuf sb;
    strbuf_init_heap(&sb, STRBUF_NO_CAP);
    for (size_t i = 0; i < p->n; i++) {
        char *line = line_of(&p->v[i]);
        strbuf_addstr(&sb, line);
        strbuf_addc(&sb, '\n');
        free(line);
    }
    int rc = file_replace(path, sb.buf ? sb.buf : "", sb.len, err, errlen);
    strbuf_free(&sb);
    if (rc == 0)
        p->lines = (long)p->n;
    return rc;
}

int people_load(struct people *p, const char *path, int *skipped, char *err,
                size_t errlen)
{
    struct people fresh = {0};
    int n = 0;
    long lines = 0;
    int rc = storage_read_objects(
        path, PEOPLE_LINE_MAX, PEOPLE_FORMAT, "a person's settings",
        "people's settings are", on_object, &fresh, &n, &lines, err, errlen);
    if (rc) {
        for (size_t i = 0; i < fresh.n; i++)
            person_clear(&fresh.v[i]);
        free(fresh.v);
        return -1;
    }
    for (size_t i = 0; i < p->n; i++)
        person_clear(&p->v[i]);
    free(p->v);
    *p = fresh;
    p->lines = lines;
    *skipped = n;
    /* mostly replaced lines, and none skipped (those stay for a person
     * to see): the file anew */
    if (n == 0 && p->lines > 2 * (long)p->n + 64 && !storage_read_only()) {
        char why[256];
        if (rewrite(p, path, why, sizeof why))
            storage_log(true, "%s", why);
    }
    return 0;
}

int people_set(struct people *p, const char *path, const char *net,
               const char *key, const char *name, const char *value, char *err,
               size_t errlen)
{
    if (check_person(net, key, err, errlen))
        return -1;
    if (!good_name(name))
        return err_set(err, errlen, "not a setting's name");
    if (value && !good_value(value))
        return err_set(err, errlen, "not a setting's value");
    struct person q = copy(p, net, key);
    if (set_in(&q, name, value)) {
        person_clear(&q);
        /* TRANSLATORS: why a person's setting (their language) is
         * refused */
        return err_set(err, errlen, M("too many settings"));
    }
    bool found;
    locate(p, net, key, &found);
    if (!found && q.n && p->n >= PEOPLE_MAX) {
        person_clear(&q);
        /* TRANSLATORS: why a person's setting (their language) is
         * refused: the bot remembers the settings of 100,000 people at
         * most */
        return err_set(err, errlen, M("too many people remembered"));
    }
    if (path) {
        char *line = line_of(&q);
        size_t len = strlen(line);
        line = xrealloc(line, len + 2);
        line[len] = '\n';
        line[len + 1] = '\0';
        int rc = storage_append(path, line, len + 1, err, errlen);
        free(line);
        if (rc) {
            person_clear(&q);
            return -1;
        }
        p->lines++;
    }
    put(p, &q);
    return 0;
}
