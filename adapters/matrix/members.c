/*
 * Room members and their shown names (members.h). Each room keeps a small
 * array of the members seen last; every lookup is a linear walk of at
 * most MX_MEMBERS_MAX entries.
 */
#include "adapters/matrix/members.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/sync.h"
#include "bot/common/xalloc.h"

struct member {
    char *user;
    char *name;  /* NULL: none */
    bool joined; /* else invited */
    uint64_t seen;
};

struct mroom {
    char *room;
    struct member *v;
    size_t n;
};

struct mx_members {
    struct mroom *rooms;
    size_t nrooms;
    uint64_t tick;
};

struct mx_members *mx_members_new(void)
{
    return xcalloc(1, sizeof(struct mx_members));
}

static void member_free(struct member *p)
{
    free(p->user);
    free(p->name);
}

static void room_free(struct mroom *r)
{
    for (size_t i = 0; i < r->n; i++)
        member_free(&r->v[i]);
    free(r->v);
    free(r->room);
}

void mx_members_free(struct mx_members *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nrooms; i++)
        room_free(&m->rooms[i]);
    free(m->rooms);
    free(m);
}

static struct mroom *find_room(const struct mx_members *m, const char *room)
{
    for (size_t i = 0; i < m->nrooms; i++)
        if (strcmp(m->rooms[i].room, room) == 0)
            return &m->rooms[i];
    return NULL;
}

static struct member *find(const struct mroom *r, const char *user)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (strcmp(r->v[i].user, user) == 0)
            return &r->v[i];
    return NULL;
}

/* The spec's shown name of p among r's members, into out. */
static void shown_of(const struct mroom *r, const struct member *p, char *out,
                     size_t outlen)
{
    if (outlen == 0)
        return;
    if (!p->name || !*p->name) {
        snprintf(out, outlen, "%s", p->user);
        return;
    }
    bool clash = mx_is_user_id(p->name) && strcmp(p->name, p->user) != 0;
    for (size_t i = 0; i < r->n && !clash; i++)
        clash =
            &r->v[i] != p && r->v[i].name && strcmp(r->v[i].name, p->name) == 0;
    if (clash)
        snprintf(out, outlen, "%s (%s)", p->name, p->user);
    else
        snprintf(out, outlen, "%s", p->name);
    mx_utf8_trim(out);
}

static bool present(const char *membership)
{
    return strcmp(membership, "join") == 0 || strcmp(membership, "invite") == 0;
}

static bool same(const char *x, const char *y)
{
    return x && y && strcmp(x, y) == 0;
}

/* Room for one more member in r: the one seen longest ago goes. */
static struct member *add(struct mx_members *m, struct mroom *r,
                          const char *user)
{
    if (r->n == MX_MEMBERS_MAX) {
        size_t old = 0;
        for (size_t i = 1; i < r->n; i++)
            if (r->v[i].seen < r->v[old].seen)
                old = i;
        member_free(&r->v[old]);
        r->v[old] = r->v[--r->n];
    }
    if (!r->v)
        r->v = xcalloc(MX_MEMBERS_MAX, sizeof *r->v);
    struct member *p = &r->v[r->n++];
    p->user = xstrdup(user);
    p->name = NULL;
    p->seen = ++m->tick;
    return p;
}

/* A member whose shown name may change, and what it was. */
struct before {
    char *user;
    char shown[2 * MX_NAME_MAX + 8];
};

void mx_members_set(struct mx_members *m, const char *room, const char *user,
                    const char *membership, const char *name,
                    mx_members_fn changed, void *ctx)
{
    struct mroom *r = find_room(m, room);
    bool stays = present(membership);
    if (!r) {
        if (!stays)
            return;
        m->rooms = xrealloc(m->rooms, (m->nrooms + 1) * sizeof *m->rooms);
        r = &m->rooms[m->nrooms++];
        memset(r, 0, sizeof *r);
        r->room = xstrdup(room);
    }
    struct member *p = find(r, user);
    const char *old = p ? p->name : NULL;
    /* those sharing the old or the new name may be told apart anew; the
     * user first */
    struct before *b = xcalloc(r->n + 1, sizeof *b);
    size_t nb = 0;
    if (p) {
        b[nb].user = xstrdup(user);
        shown_of(r, p, b[nb++].shown, sizeof b->shown);
    }
    for (size_t i = 0; i < r->n; i++) {
        struct member *q = &r->v[i];
        if (q != p && (same(q->name, old) || same(q->name, name))) {
            b[nb].user = xstrdup(q->user);
            shown_of(r, q, b[nb++].shown, sizeof b->shown);
        }
    }
    if (stays) {
        if (!p)
            p = add(m, r, user);
        free(p->name);
        p->name = name && *name ? xstrdup(name) : NULL;
        p->joined = strcmp(membership, "join") == 0;
        p->seen = ++m->tick;
    } else if (p) {
        member_free(p);
        *p = r->v[--r->n];
    }
    for (size_t i = 0; i < nb; i++) {
        const struct member *q = find(r, b[i].user);
        char now[sizeof b->shown];
        if (q) {
            shown_of(r, q, now, sizeof now);
            if (strcmp(now, b[i].shown) != 0 && changed)
                changed(ctx, room, q->user, now);
        }
        free(b[i].user);
    }
    free(b);
}

bool mx_members_joined(const struct mx_members *m, const char *room,
                       const char *user)
{
    const struct member *p = find(find_room(m, room), user);
    return p && p->joined;
}

bool mx_members_shown(struct mx_members *m, const char *room, const char *user,
                      char *out, size_t outlen)
{
    const struct mroom *r = find_room(m, room);
    struct member *p = find(r, user);
    if (!p)
        return false;
    p->seen = ++m->tick;
    shown_of(r, p, out, outlen);
    return true;
}

bool mx_members_shown_anywhere(struct mx_members *m, const char *user,
                               bool (*skip)(void *ctx, const char *room),
                               void *ctx, char *out, size_t outlen)
{
    for (size_t i = 0; i < m->nrooms; i++)
        if (!(skip && skip(ctx, m->rooms[i].room)) &&
            mx_members_shown(m, m->rooms[i].room, user, out, outlen))
            return true;
    return false;
}

void mx_members_forget(struct mx_members *m, const char *room)
{
    struct mroom *r = find_room(m, room);
    if (!r)
        return;
    room_free(r);
    *r = m->rooms[--m->nrooms];
}

size_t mx_members_count(const struct mx_members *m, const char *room)
{
    const struct mroom *r = find_room(m, room);
    return r ? r->n : 0;
}
