/*
 * Tables and seats (table.h): finding them, the names seats show, sitting
 * down and standing up, and where a room's files live.
 */
#include "bot/manager/table.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/common/file.h"
#include "bot/common/utf8.h"
#include "bot/manager/render.h"
#include "storage/record/record.h"

const char *mgr_seat_name(const struct table *t, int seat)
{
    return t->seats[seat].shown;
}

bool mgr_seat_is_you(const struct table *t, int seat)
{
    return t->a->solo && t->seats[seat].human;
}

/* What a seat's name is made from: the display name, else the nick. */
static const char *seat_source(const struct seat *st)
{
    return st->display[0] ? st->display : st->nick;
}

void mgr_seat_set_name(struct seat *st, const char *nick, const char *display)
{
    if (nick != st->nick)
        snprintf(st->nick, sizeof st->nick, "%s", nick);
    size_t n = display ? strlen(display) : 0;
    if (n >= sizeof st->display)
        n = utf8_cut(display, n, sizeof st->display - 1);
    memcpy(st->display, display ? display : "", n);
    st->display[n] = '\0';
    render_name(st->shown, sizeof st->shown, seat_source(st));
}

void mgr_seat_set_nick(struct seat *st, const char *nick)
{
    mgr_seat_set_name(st, nick, NULL);
}

void mgr_display(struct manager *m, struct chat_adapter *a, const char *room,
                 const struct chat_user *u, bool clear, bool if_unknown)
{
    if (!u->display && !clear)
        return;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing ||
            (room && !a->ops->same_nick(a, t->room, room)))
            continue;
        bool changed = false;
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !mgr_same_person(t, s, u) ||
                (if_unknown && st->display[0]) ||
                strcmp(st->display, u->display ? u->display : "") == 0)
                continue;
            mgr_seat_set_name(st, st->nick, u->display);
            changed = true;
        }
        if (changed)
            mgr_table_names_unique(t);
    }
}

bool mgr_seat_computer(const struct table *t, int seat)
{
    const struct seat *s = &t->seats[seat];
    return !s->human || s->away;
}

/* Whether `account` names the seat's account; false if either is not
 * known. Accounts compare case aside (services fold them). */
bool mgr_seat_account_is(const struct seat *s, const char *account)
{
    return s->account[0] && account && *account &&
           strcasecmp(s->account, account) == 0;
}

/* Whether (id, account) is the seat's person, the nick aside: with both
 * accounts known the account decides, else the user@host. A person who
 * logged out (no account) is still known by their user@host. */
bool mgr_seat_holder(const struct seat *s, const char *id, const char *account)
{
    if (s->account[0] && account && *account)
        return mgr_seat_account_is(s, account);
    return id && strcmp(s->id, id) == 0;
}

bool mgr_same_person(const struct table *t, int seat, const struct chat_user *u)
{
    const struct seat *s = &t->seats[seat];
    return s->human && t->a->ops->same_nick(t->a, s->nick, u->nick) &&
           mgr_seat_holder(s, u->id, u->account);
}

struct table *mgr_table_find(struct manager *m, struct chat_adapter *a,
                             const char *room)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a == a && !t->closing && t->m == m &&
            a->ops->same_nick(a, t->room, room))
            return t;
    }
    return NULL;
}

struct table *mgr_table_of_person(struct manager *m, struct chat_adapter *a,
                                  const char *nick, int *seat)
{
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->a != a || t->closing)
            continue;
        for (int s = 0; s < t->capacity; s++) {
            if (t->seats[s].used && t->seats[s].human &&
                a->ops->same_nick(a, t->seats[s].nick, nick)) {
                *seat = s;
                return t;
            }
        }
    }
    return NULL;
}

void mgr_table_cancel_turn(struct table *t)
{
    t->turn_deferred = false;
    loop_cancel(t->m->loop, t->turn_timer);
    loop_cancel(t->m->loop, t->reminder_timer);
    loop_cancel(t->m->loop, t->slow_timer);
    t->turn_timer = t->reminder_timer = t->slow_timer = 0;
}

void mgr_table_cancel_all(struct table *t)
{
    mgr_table_cancel_turn(t);
    loop_cancel(t->m->loop, t->lobby_timer);
    loop_cancel(t->m->loop, t->deal_timer);
    loop_cancel(t->m->loop, t->unattended_timer);
    t->lobby_timer = t->deal_timer = t->unattended_timer = 0;
    for (int s = 0; s < ENGINE_MAX_PLAYERS; s++) {
        loop_cancel(t->m->loop, t->seats[s].grace_timer);
        loop_cancel(t->m->loop, t->seats[s].verify_timer);
        t->seats[s].grace_timer = t->seats[s].verify_timer = 0;
    }
}

void mgr_table_free(struct table *t)
{
    record_writer_free(t->rec);
    free(t->journal_seats);
    free(t->hist);
    free(t);
}

int mgr_table_seated(const struct table *t)
{
    int k = 0;
    for (int s = 0; s < t->capacity; s++)
        k += t->seats[s].used;
    return k;
}

int mgr_table_humans(const struct table *t)
{
    int k = 0;
    for (int s = 0; s < t->capacity; s++)
        k += t->seats[s].used && t->seats[s].human;
    return k;
}

/* The first free seat, cleared and taken, or -1 if the table is full. */
static int claim_seat(struct table *t)
{
    for (int s = 0; s < t->capacity; s++) {
        struct seat *st = &t->seats[s];
        if (st->used)
            continue;
        memset(st, 0, sizeof *st);
        st->used = true;
        return s;
    }
    return -1;
}

/* A host too long for a key is named by this hash (64-bit FNV-1a). */
static uint64_t host_hash(const char *host)
{
    uint64_t h = 14695981039346656037ull;
    for (; *host; host++)
        h = (h ^ (uint8_t)*host) * 1099511628211ull;
    return h;
}

void mgr_seat_key(struct chat_adapter *a, const struct chat_user *u, char *out,
                  size_t outlen)
{
    if (u->account && *u->account) {
        snprintf(out, outlen, "a:%s", u->account);
        return;
    }
    char folded[160];
    if (a->ops->fold)
        a->ops->fold(a, u->nick, folded, sizeof folded);
    else
        snprintf(folded, sizeof folded, "%s", u->nick);
    /* one person at a terminal: nobody else can take the nick, and the
     * console's records stay the ones it always kept */
    if (a->solo) {
        snprintf(out, outlen, "n:%s", folded);
        return;
    }
    /* the host the network showed (user@host: not the user part, which
     * the client chooses), ASCII case aside; it holds no '@', so the
     * key's last '@' ends the nick, whatever the nick holds */
    const char *at = u->id ? strrchr(u->id, '@') : NULL;
    const char *host = at ? at + 1 : u->id ? u->id : "";
    char low[192];
    size_t n = 0;
    for (; host[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)host[n]);
    low[n] = '\0';
    if (host[n] || strlen(folded) + strlen(low) + 4 > outlen)
        snprintf(low, sizeof low, "~%016llx",
                 (unsigned long long)host_hash(host));
    snprintf(out, outlen, "n:%s@%s", folded, low);
}

int mgr_table_sit(struct table *t, const struct chat_user *u)
{
    int s = claim_seat(t);
    if (s < 0)
        return -1;
    struct seat *st = &t->seats[s];
    st->human = true;
    mgr_seat_set_name(st, u->nick, u->display);
    snprintf(st->id, sizeof st->id, "%s", u->id);
    if (u->account && strlen(u->account) < sizeof st->account)
        snprintf(st->account, sizeof st->account, "%s", u->account);
    mgr_seat_key(t->a, u, st->key, sizeof st->key);
    if (t->opener < 0)
        t->opener = s;
    mgr_table_names_unique(t);
    /* the deal must not wait for a private line's room to be made */
    if (t->a->ops->prepare)
        t->a->ops->prepare(t->a, st->nick);
    return s;
}

/* Whether two display names read the same (case aside). */
static bool same_name(const struct table *t, const char *x, const char *y)
{
    return strcasecmp(x, y) == 0 || t->a->ops->same_nick(t->a, x, y);
}

/* Whether another seat than `except` shows `name`. */
static bool name_taken(const struct table *t, int except, const char *name)
{
    for (int o = 0; o < t->capacity; o++)
        if (o != except && t->seats[o].used &&
            same_name(t, t->seats[o].shown, name))
            return true;
    return false;
}

/* Names a computer seat "botN", the lowest N no other seat shows. */
static void name_computer(struct table *t, int s)
{
    for (int k = 1; k < 1000; k++) {
        char name[16];
        snprintf(name, sizeof name, "bot%d", k);
        if (!name_taken(t, s, name)) {
            mgr_seat_set_nick(&t->seats[s], name);
            return;
        }
    }
}

/* Whether a person's name shows as it is (nothing invisible stripped). */
static bool plain_nick(const struct seat *st)
{
    return strcmp(st->shown, seat_source(st)) == 0;
}

/* Gives the person at s a name no seat in done[] (or computer) shows:
 * their nick, else the nick with "(2)", "(3)" ... (never a nick on IRC). */
static void name_person(struct table *t, int s, const bool *done)
{
    struct seat *st = &t->seats[s];
    /* room for "(NN)" after the name, cut on a UTF-8 boundary */
    size_t n = strlen(st->shown);
    if (n > sizeof st->shown - 5)
        n = utf8_cut(st->shown, n, sizeof st->shown - 5);
    for (int k = 2; k < 100; k++) {
        bool clash = false;
        for (int o = 0; o < t->capacity; o++)
            if (o != s && t->seats[o].used && (done[o] || !t->seats[o].human) &&
                same_name(t, t->seats[o].shown, st->shown))
                clash = true;
        if (!clash)
            return;
        snprintf(st->shown + n, 5, "(%d)", k);
    }
}

void mgr_table_names_unique(struct table *t)
{
    bool done[ENGINE_MAX_PLAYERS] = {false};
    for (int s = 0; s < t->capacity; s++)
        if (t->seats[s].used && t->seats[s].human)
            render_name(t->seats[s].shown, sizeof t->seats[s].shown,
                        seat_source(&t->seats[s]));
    /* before the game a computer gives way to a person of its name */
    for (int s = 0; s < t->capacity && !t->playing; s++) {
        struct seat *st = &t->seats[s];
        if (st->used && !st->human && name_taken(t, s, st->shown)) {
            st->shown[0] = '\0';
            name_computer(t, s);
        }
    }
    /* people whose nick shows as it is first: a look-alike gets the
     * suffix, never the plain nick */
    for (int pass = 0; pass < 2; pass++) {
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            if (!st->used || !st->human || done[s] ||
                plain_nick(st) != (pass == 0))
                continue;
            name_person(t, s, done);
            done[s] = true;
        }
    }
}

int mgr_table_add_computer(struct table *t, int level)
{
    int s = claim_seat(t);
    if (s < 0)
        return -1;
    struct seat *st = &t->seats[s];
    st->level = level;
    name_computer(t, s);
    return s;
}

void mgr_table_stand(struct table *t, int seat)
{
    /* its timers point into this table: none may outlive the seat */
    loop_cancel(t->m->loop, t->seats[seat].grace_timer);
    loop_cancel(t->m->loop, t->seats[seat].verify_timer);
    memset(&t->seats[seat], 0, sizeof t->seats[seat]);
    if (t->opener == seat) {
        t->opener = -1;
        for (int s = 0; s < t->capacity; s++)
            if (t->seats[s].used && t->seats[s].human) {
                t->opener = s;
                break;
            }
    }
}

int mgr_room_dir(const struct manager *m, struct chat_adapter *a,
                 const char *room, bool make, char *out, size_t outlen,
                 char *err, size_t errlen)
{
    const char *data = m->cfg->data_dir;
    char folded[64];
    if (a->ops->fold)
        a->ops->fold(a, room, folded, sizeof folded);
    else
        snprintf(folded, sizeof folded, "%s", room);
    char net[FILE_NAME_MAX + 1], name[FILE_NAME_MAX + 1];
    file_name_encode(a->network ? a->network : "", net, sizeof net);
    file_name_encode(folded, name, sizeof name);
    char dir[FILE_PATH_MAX];
    if (file_path(dir, sizeof dir, err, errlen, data, net, name,
                  (char *)NULL) ||
        (make && file_mkdirs(data, dir, err, errlen)))
        return -1;
    if (strlen(dir) >= outlen) {
        errno = ENAMETOOLONG;
        snprintf(err, errlen, "%s: longer than %zu bytes", dir, outlen - 1);
        return -1;
    }
    memcpy(out, dir, strlen(dir) + 1);
    return 0;
}

int mgr_table_dir(const struct table *t, char *out, size_t outlen, char *err,
                  size_t errlen)
{
    return mgr_room_dir(t->m, t->a, t->room, true, out, outlen, err, errlen);
}
