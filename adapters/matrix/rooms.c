/*
 * Room facts (rooms.h): an array of rooms, each with a few strings and a
 * short list of the people in it; every lookup is a linear walk.
 */
#include "adapters/matrix/rooms.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/sync.h"
#include "bot/common/xalloc.h"

struct froom {
    char *id;
    char *name, *alias, *creator;
    bool encrypted;
    bool crowded; /* more people than kept came: not private */
    char *people[MX_ROOMS_PEOPLE_MAX];
    char *membership[MX_ROOMS_PEOPLE_MAX];
    size_t npeople;
    uint64_t used;
};

struct mx_rooms {
    struct froom *v;
    size_t n;
    uint64_t tick;
};

struct mx_rooms *mx_rooms_new(void)
{
    return xcalloc(1, sizeof(struct mx_rooms));
}

static void froom_free(struct froom *f)
{
    free(f->id);
    free(f->name);
    free(f->alias);
    free(f->creator);
    for (size_t i = 0; i < f->npeople; i++) {
        free(f->people[i]);
        free(f->membership[i]);
    }
}

void mx_rooms_free(struct mx_rooms *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        froom_free(&r->v[i]);
    free(r->v);
    free(r);
}

static struct froom *find(const struct mx_rooms *r, const char *room)
{
    for (size_t i = 0; room && i < r->n; i++)
        if (strcmp(r->v[i].id, room) == 0)
            return &r->v[i];
    return NULL;
}

/* The room's entry, made if new (the one used longest ago goes when
 * there is no room for it). */
static struct froom *get(struct mx_rooms *r, const char *room)
{
    struct froom *f = find(r, room);
    if (!f) {
        if (r->n == MX_ROOMS_MAX) {
            size_t old = 0;
            for (size_t i = 1; i < r->n; i++)
                if (r->v[i].used < r->v[old].used)
                    old = i;
            froom_free(&r->v[old]);
            r->v[old] = r->v[--r->n];
        }
        if (!r->v)
            r->v = xcalloc(MX_ROOMS_MAX, sizeof *r->v);
        f = &r->v[r->n++];
        memset(f, 0, sizeof *f);
        f->id = xstrdup(room);
    }
    f->used = ++r->tick;
    return f;
}

static void set(char **field, const char *value)
{
    free(*field);
    *field = value && *value ? xstrdup(value) : NULL;
}

void mx_rooms_set_name(struct mx_rooms *r, const char *room, const char *name)
{
    set(&get(r, room)->name, name);
}

void mx_rooms_set_alias(struct mx_rooms *r, const char *room, const char *alias)
{
    set(&get(r, room)->alias, alias);
}

void mx_rooms_set_creator(struct mx_rooms *r, const char *room,
                          const char *user)
{
    set(&get(r, room)->creator, user);
}

void mx_rooms_set_encrypted(struct mx_rooms *r, const char *room)
{
    get(r, room)->encrypted = true;
}

static bool present(const char *membership)
{
    return strcmp(membership, "join") == 0 || strcmp(membership, "invite") == 0;
}

void mx_rooms_set_member(struct mx_rooms *r, const char *room, const char *user,
                         const char *membership)
{
    struct froom *f = get(r, room);
    for (size_t i = 0; i < f->npeople; i++) {
        if (strcmp(f->people[i], user) != 0)
            continue;
        /* someone gone stays, as gone, while there is room */
        free(f->membership[i]);
        f->membership[i] = xstrdup(membership);
        return;
    }
    if (f->npeople == MX_ROOMS_PEOPLE_MAX) {
        /* make room from someone gone; with none gone, it is crowded */
        size_t gone = f->npeople;
        for (size_t i = 0; i < f->npeople && gone == f->npeople; i++)
            if (!present(f->membership[i]))
                gone = i;
        if (gone == f->npeople) {
            if (present(membership))
                f->crowded = true;
            return;
        }
        free(f->people[gone]);
        free(f->membership[gone]);
        f->people[gone] = f->people[--f->npeople];
        f->membership[gone] = f->membership[f->npeople];
    }
    f->people[f->npeople] = xstrdup(user);
    f->membership[f->npeople] = xstrdup(membership);
    f->npeople++;
}

void mx_rooms_label(const struct mx_rooms *r, const char *room, char *out,
                    size_t outlen)
{
    if (outlen == 0)
        return;
    const struct froom *f = find(r, room);
    const char *label = f && f->name    ? f->name
                        : f && f->alias ? f->alias
                                        : room;
    snprintf(out, outlen, "%s", label ? label : "");
    mx_utf8_trim(out);
}

const char *mx_rooms_creator(const struct mx_rooms *r, const char *room)
{
    const struct froom *f = find(r, room);
    return f ? f->creator : NULL;
}

bool mx_rooms_encrypted(const struct mx_rooms *r, const char *room)
{
    const struct froom *f = find(r, room);
    return f && f->encrypted;
}

bool mx_rooms_others(const struct mx_rooms *r, const char *room, const char *a,
                     const char *b)
{
    const struct froom *f = find(r, room);
    if (!f)
        return false;
    if (f->crowded)
        return true;
    for (size_t i = 0; i < f->npeople; i++)
        if (present(f->membership[i]) && strcmp(f->people[i], a) != 0 &&
            strcmp(f->people[i], b) != 0)
            return true;
    return false;
}

const char *mx_rooms_other(const struct mx_rooms *r, const char *room,
                           const char *self, size_t *n)
{
    const struct froom *f = find(r, room);
    const char *other = NULL;
    *n = 0;
    for (size_t i = 0; f && i < f->npeople; i++)
        if (present(f->membership[i]) && strcmp(f->people[i], self) != 0) {
            other = f->people[i];
            (*n)++;
        }
    if (f && f->crowded)
        (*n)++;
    return other;
}

const char *mx_rooms_made_for_two(const struct mx_rooms *r, const char *user,
                                  const char *self,
                                  bool (*skip)(void *ctx, const char *room),
                                  void *ctx)
{
    for (size_t i = 0; i < r->n; i++) {
        const struct froom *f = &r->v[i];
        size_t n;
        const char *other;
        if (!f->creator || strcmp(f->creator, user) != 0 || f->encrypted ||
            mx_rooms_others(r, f->id, user, self))
            continue;
        other = mx_rooms_other(r, f->id, self, &n);
        if (n != 1 || strcmp(other, user) != 0 ||
            !mx_rooms_membership(r, f->id, self) ||
            strcmp(mx_rooms_membership(r, f->id, self), "join") != 0)
            continue;
        if (!skip || !skip(ctx, f->id))
            return f->id;
    }
    return NULL;
}

const char *mx_rooms_membership(const struct mx_rooms *r, const char *room,
                                const char *user)
{
    const struct froom *f = find(r, room);
    for (size_t i = 0; f && i < f->npeople; i++)
        if (strcmp(f->people[i], user) == 0)
            return f->membership[i];
    return NULL;
}

bool mx_rooms_known(const struct mx_rooms *r, const char *room)
{
    return find(r, room) != NULL;
}

void mx_rooms_forget(struct mx_rooms *r, const char *room)
{
    struct froom *f = find(r, room);
    if (!f)
        return;
    froom_free(f);
    *f = r->v[--r->n];
}

void mx_rooms_feed(struct mx_rooms *r, const struct mx_item *it)
{
    switch (it->kind) {
    case MX_ITEM_MEMBER:
        mx_rooms_set_member(r, it->room, it->user, it->membership);
        return;
    case MX_ITEM_ENCRYPTED:
        if (!it->event_id)
            mx_rooms_set_encrypted(r, it->room);
        return;
    case MX_ITEM_NAME:
        mx_rooms_set_name(r, it->room, it->name);
        return;
    case MX_ITEM_ALIAS:
        mx_rooms_set_alias(r, it->room, it->name);
        return;
    case MX_ITEM_CREATE:
        mx_rooms_set_creator(r, it->room, it->sender);
        return;
    default:
        return;
    }
}

size_t mx_rooms_count(const struct mx_rooms *r)
{
    return r->n;
}
