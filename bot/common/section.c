/*
 * A table of the config as a list of keys (section.h).
 */
#include "bot/common/section.h"
#include "bot/common/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What "must be ..." says, per type. */
static const char *const want_name[] = {"a string", "an integer",
                                        "true or false", "an array of strings"};

static bool is_alnum(int ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch >= '0' && ch <= '9');
}

bool section_has_control(const char *s)
{
    for (; *s; s++)
        if (((unsigned char)*s < 0x20) || *s == 0x7f)
            return true;
    return false;
}

void section_begin(struct section *s, struct toml_reader *r, const char *header,
                   const struct section_key *keys, int nkeys, void *base,
                   size_t pos, const struct section_hooks *hooks)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    s->header = header;
    s->keys = keys;
    s->nkeys = nkeys;
    s->base = base;
    s->pos = pos;
    s->hooks = hooks;
}

int section_index(const struct section *s, const char *key, size_t n)
{
    for (int i = 0; i < s->nkeys; i++)
        if (strlen(s->keys[i].name) == n &&
            memcmp(s->keys[i].name, key, n) == 0)
            return i;
    return -1;
}

int section_mark(struct section *s, int idx, size_t pos)
{
    if (s->set[idx])
        return TOML_FAIL(s->r, pos, "duplicate key '%s' (first set at line %d)",
                         s->keys[idx].name, toml_line(s->r, s->set_pos[idx]));
    s->set[idx] = true;
    s->set_pos[idx] = pos;
    return 0;
}

int section_store(struct section *s, int idx, struct toml_value *v)
{
    const struct section_key *k = &s->keys[idx];
    if (v->type != k->type)
        return TOML_FAIL(s->r, v->pos, "'%s' must be %s, not %s", k->name,
                         want_name[k->type], toml_type_name(v->type));
    char *base = s->base;
    switch (k->type) {
    case TOML_INT:
        if (v->i < k->min || v->i > k->max)
            return TOML_FAIL(s->r, v->pos, "'%s' must be between %d and %d",
                             k->name, k->min, k->max);
        *(int *)(void *)(base + k->off) = (int)v->i;
        return 0;
    case TOML_BOOL:
        *(bool *)(void *)(base + k->off) = v->b;
        return 0;
    case TOML_STRING:
        /* nothing the bot sends or stores may carry a line break */
        if (section_has_control(v->s))
            return TOML_FAIL(s->r, v->pos, "'%s' contains a control character",
                             k->name);
        if (k->check && k->check(s, k, v))
            return -1;
        if (k->off == SECTION_NO_FIELD)
            return 0;
        *(char **)(void *)(base + k->off) = v->s;
        v->s = NULL;
        return 0;
    case TOML_ARRAY:
        return k->check(s, k, v);
    }
    return 0;
}

bool section_was_set(const struct section *s, const char *name)
{
    int i = section_index(s, name, strlen(name));
    return i >= 0 && s->set[i];
}

size_t section_where(const struct section *s, const char *name)
{
    int i = section_index(s, name, strlen(name));
    return i >= 0 && s->set[i] ? s->set_pos[i] : s->pos;
}

void section_default(char **field, const char *value)
{
    if (!*field)
        *field = xstrdup(value);
}

/* ---- Checks ----------------------------------------------------------- */

int section_check_nonempty(struct section *s, const struct section_key *k,
                           struct toml_value *v)
{
    if (!*v->s)
        return TOML_FAIL(s->r, v->pos, "'%s' is empty", k->name);
    return 0;
}

int section_check_text(struct section *s, const struct section_key *k,
                       const struct toml_value *v, size_t max)
{
    if (section_has_control(v->s))
        return TOML_FAIL(s->r, v->pos, "'%s' contains a control character",
                         k->name);
    if (strlen(v->s) > max)
        return TOML_FAIL(s->r, v->pos, "'%s' is longer than %zu bytes", k->name,
                         max);
    return 0;
}

int section_check_path(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    return section_check_text(s, k, v, 1024);
}

int section_check_one_of(struct section *s, const struct section_key *k,
                         const struct toml_value *v, const char *const *names,
                         int n)
{
    char all[256] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(v->s, names[i]) == 0)
            return 0;
        const char *sep = i == 0 ? "" : i == n - 1 ? " or " : ", ";
        int w = snprintf(all + len, sizeof all - len, "%s%s", sep, names[i]);
        if (w > 0 && (size_t)w < sizeof all - len)
            len += (size_t)w;
    }
    return TOML_FAIL(s->r, v->pos, "'%s' must be %s", k->name, all);
}

int section_check_name(struct section *s, const struct section_key *k,
                       struct toml_value *v)
{
    size_t n = strlen(v->s);
    if (n == 0)
        return TOML_FAIL(s->r, v->pos, "'%s' is empty", k->name);
    /* it names the network in logs and in leaderboard files */
    if (n > 32)
        return TOML_FAIL(s->r, v->pos, "'%s' is longer than 32 characters",
                         k->name);
    for (size_t i = 0; i < n; i++) {
        int ch = (unsigned char)v->s[i];
        if (!is_alnum(ch) && ch != '-' && ch != '_' && ch != '.')
            return TOML_FAIL(s->r, v->pos,
                             "'%s' may hold only letters, digits, '-', '_' "
                             "and '.'",
                             k->name);
    }
    if (v->s[0] == '.')
        return TOML_FAIL(s->r, v->pos, "'%s' may not start with '.'", k->name);
    if (s->hooks && s->hooks->name_taken)
        return s->hooks->name_taken(s->hooks->ctx, s, v);
    return 0;
}

/* ---- Channels and rooms ----------------------------------------------- */

int section_room_rules(struct section *s, const struct toml_value *it, size_t n,
                       struct protocol_room *out)
{
    const char *text = it->s;
    int shown = n > 50 ? 50 : (int)n;
    const char *rules = text + n;
    while (*rules == ' ')
        rules++;
    size_t rlen = strlen(rules);
    while (rlen && rules[rlen - 1] == ' ')
        rlen--;
    char *r = rlen ? xstrndup(rules, rlen) : NULL;
    /* "lang=CODE", a word of its own, is the room's language, not a rule:
     * cut out with the blanks after it */
    char *lang = NULL;
    for (char *w = r; w && *w;) {
        size_t k = strcspn(w, " ");
        char *next = w + k;
        while (*next == ' ')
            next++;
        if (k > 5 && strncmp(w, "lang=", 5) == 0) {
            if (lang) {
                free(lang);
                free(r);
                return TOML_FAIL(s->r, it->pos, "%.*s: lang= is given twice",
                                 shown, text);
            }
            lang = xstrndup(w + 5, k - 5);
            memmove(w, next, strlen(next) + 1);
            continue;
        }
        w = next;
    }
    if (r) {
        rlen = strlen(r);
        while (rlen && r[rlen - 1] == ' ')
            r[--rlen] = '\0';
        if (!rlen) {
            free(r);
            r = NULL;
        }
    }
    if (lang && s->hooks && s->hooks->lang_check) {
        char msg[256];
        if (s->hooks->lang_check(s->hooks->ctx, lang, msg, sizeof msg)) {
            free(lang);
            free(r);
            return TOML_FAIL(s->r, it->pos, "the language of %.*s: %s", shown,
                             text, msg);
        }
    }
    if (r && s->hooks && s->hooks->rules_check) {
        /* rules are checked by the game that will use them; its message
         * names the option and the nearest valid word */
        char msg[256];
        if (s->hooks->rules_check(s->hooks->ctx, r, msg, sizeof msg)) {
            free(r);
            free(lang);
            return TOML_FAIL(s->r, it->pos, "the rules of %.*s: %s", shown,
                             text, msg);
        }
    }
    out->name = xstrndup(text, n);
    out->rules = r;
    out->lang = lang;
    return 0;
}

int section_rooms(struct section *s, struct toml_value *v,
                  section_room_fn parse, const char *what,
                  struct protocol_room **out, int *nout)
{
    struct protocol_room *list = NULL;
    int n = 0;
    if (v->n)
        list = xcalloc(
            (size_t)(v->n < SECTION_MAX_ROOMS ? v->n : SECTION_MAX_ROOMS),
            sizeof *list);
    for (int i = 0; i < v->n; i++) {
        struct protocol_room one = {NULL, NULL, NULL};
        int rc = i < SECTION_MAX_ROOMS
                     ? parse(s, &v->items[i], list, n, &one)
                     : TOML_FAIL(s->r, v->items[i].pos,
                                 "more than %d %s on one network",
                                 SECTION_MAX_ROOMS, what);
        if (rc) {
            section_rooms_free(list, n);
            return -1;
        }
        list[n++] = one;
    }
    *out = list;
    *nout = n;
    return 0;
}

void section_rooms_free(struct protocol_room *rooms, int n)
{
    for (int i = 0; i < n; i++) {
        free(rooms[i].name);
        free(rooms[i].rules);
        free(rooms[i].lang);
    }
    free(rooms);
}

void section_take_strings(struct toml_value *v, char ***out, int *nout)
{
    char **list = v->n ? xcalloc((size_t)v->n, sizeof *list) : NULL;
    for (int i = 0; i < v->n; i++) {
        list[i] = v->items[i].s;
        v->items[i].s = NULL;
    }
    *out = list;
    *nout = v->n;
}
