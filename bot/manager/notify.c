/*
 * Inside the game manager: calls when a table opens (notify.h).
 */
#include "bot/manager/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/cmd.h"
#include "bot/manager/lang.h"
#include "bot/manager/say.h"
#include "bot/manager/text.h"
#include "storage/notify.h"

/* The names of one line of a call at most (bytes): an IRC line holds them
 * with the words around them. */
#define CALL_LINE_NAMES 300

/* One channel's list, as loaded. */
struct notify_room {
    char id[FILE_NAME_MAX + 80]; /* network "\n" folded room */
    char path[FILE_PATH_MAX];    /* its file, "": kept in memory only */
    struct notify *list;
    bool writable; /* the file is ours to write */
};

/* The room's key among the lists: the network and the room as the
 * network folds it. */
static void room_id(struct chat_adapter *a, const char *room, char *out,
                    size_t outlen)
{
    char folded[64];
    if (a->ops->fold)
        a->ops->fold(a, room, folded, sizeof folded);
    else
        snprintf(folded, sizeof folded, "%s", room);
    snprintf(out, outlen, "%s\n%s", a->network ? a->network : "", folded);
}

/* The room's list, loaded the first time it is asked for. */
static struct notify_room *room_list(struct manager *m, struct chat_adapter *a,
                                     const char *room)
{
    char id[sizeof((struct notify_room *)0)->id];
    room_id(a, room, id, sizeof id);
    for (int i = 0; i < m->nnotify_rooms; i++)
        if (strcmp(m->notify_rooms[i]->id, id) == 0)
            return m->notify_rooms[i];
    struct notify_room *r = xcalloc(1, sizeof *r);
    snprintf(r->id, sizeof r->id, "%s", id);
    r->list = notify_new();
    r->writable = true;
    const char *data = m->cfg->data_dir;
    char dir[FILE_PATH_MAX], err[FILE_PATH_MAX + 200];
    if (data && *data &&
        (mgr_room_dir(m, a, room, false, dir, sizeof dir, err, sizeof err) ||
         file_path(r->path, sizeof r->path, err, sizeof err, dir, NOTIFY_FILE,
                   (char *)NULL))) {
        /* a room whose files cannot be named: memory only */
        log_error("calls at %s: %s", room, err);
        r->path[0] = '\0';
        r->writable = false;
    }
    int skipped = 0;
    bool missing = false;
    if (r->path[0] && (file_dir_check(data, dir, &missing, err, sizeof err) ||
                       (!missing && notify_load(r->list, r->path, &skipped, err,
                                                sizeof err)))) {
        log_error("calls at %s: %s", room, err);
        /* a newer bot's file, or one that cannot be read: left alone */
        r->writable = false;
    } else if (skipped) {
        log_warn("calls at %s: %d line(s) of %s skipped", room, skipped,
                 r->path);
    }
    m->notify_rooms =
        xrealloc(m->notify_rooms,
                 sizeof *m->notify_rooms * (size_t)(m->nnotify_rooms + 1));
    m->notify_rooms[m->nnotify_rooms++] = r;
    return r;
}

void mgr_notify_free(struct manager *m)
{
    for (int i = 0; i < m->nnotify_rooms; i++) {
        notify_free(m->notify_rooms[i]->list);
        free(m->notify_rooms[i]);
    }
    free(m->notify_rooms);
    m->notify_rooms = NULL;
    m->nnotify_rooms = 0;
}

bool mgr_notify_is_on(struct manager *m, struct chat_adapter *a,
                      const char *room, const struct chat_user *u)
{
    char key[200];
    mgr_seat_key(a, u, key, sizeof key);
    return notify_find(room_list(m, a, room)->list, key) != NULL;
}

int mgr_notify_set(struct manager *m, struct chat_adapter *a, const char *room,
                   const struct chat_user *u, bool on, bool *full, char *err,
                   size_t errlen)
{
    struct notify_room *r = room_list(m, a, room);
    char key[200];
    mgr_seat_key(a, u, key, sizeof key);
    const char *nick = on ? u->nick : NULL;
    *full =
        on && !notify_find(r->list, key) && notify_count(r->list) >= NOTIFY_MAX;
    if (*full)
        return err_set(err, errlen, "%d people are called here already",
                       NOTIFY_MAX);
    if (!r->path[0])
        return notify_set(r->list, NULL, key, nick, err, errlen);
    if (!r->writable) {
        if (notify_set(r->list, NULL, key, nick, err, errlen))
            return -1;
        snprintf(err, errlen, "the file is not the bot's to write");
        return 1;
    }
    /* the directory is made for the first line */
    char dir[FILE_PATH_MAX];
    if (mgr_room_dir(m, a, room, true, dir, sizeof dir, err, errlen) == 0 &&
        notify_set(r->list, r->path, key, nick, err, errlen) == 0)
        return 0;
    char why[256];
    snprintf(why, sizeof why, "%s", err);
    if (notify_set(r->list, NULL, key, nick, err, errlen))
        return -1;
    log_error("calls at %s: %s", room, why);
    snprintf(err, errlen, "%s", why);
    return 1;
}

void mgr_notify_nick(struct manager *m, struct chat_adapter *a,
                     const struct chat_user *u, const char *nick)
{
    /* an "n:" key holds the nick it was made with: a new nick is a new
     * key, and no call follows it */
    if (!u->account || !*u->account || !nick)
        return;
    char key[200], net[80];
    mgr_seat_key(a, u, key, sizeof key);
    int netlen =
        snprintf(net, sizeof net, "%s\n", a->network ? a->network : "");
    for (int i = 0; i < m->nnotify_rooms; i++) {
        struct notify_room *r = m->notify_rooms[i];
        struct notify_entry *e = notify_find(r->list, key);
        if (strncmp(r->id, net, (size_t)netlen) != 0 || !e ||
            strcmp(e->nick, nick) == 0)
            continue;
        char err[FILE_PATH_MAX + 200];
        const char *path = r->writable && r->path[0] ? r->path : NULL;
        int rc =
            path ? notify_set(r->list, path, key, nick, err, sizeof err) : -1;
        if (rc && path)
            log_error("calls at %s: %s", r->id + netlen, err);
        if (rc && notify_set(r->list, NULL, key, nick, err, sizeof err))
            log_error("calls at %s: %s", r->id + netlen, err);
    }
}

/* Whether the person of e sits at t (by key, or by nick). */
static bool seated(const struct table *t, const struct notify_entry *e)
{
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        if (st->used && st->human &&
            (strcmp(st->key, e->key) == 0 ||
             t->a->ops->same_nick(t->a, st->nick, e->nick)))
            return true;
    }
    return false;
}

/* Those called least lately first; then by key. */
static int by_called(const void *x, const void *y)
{
    const struct notify_entry *a = *(const struct notify_entry *const *)x;
    const struct notify_entry *b = *(const struct notify_entry *const *)y;
    if (a->called != b->called)
        return a->called < b->called ? -1 : 1;
    return strcmp(a->key, b->key);
}

/* Says one line of the call: the first with who opened, the others the
 * names that did not fit. */
static void say_call(struct table *t, int lang, bool first, const char *player,
                     const char *rules, const char *names)
{
    char text[MGR_TEXT_SIZE];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    if (first)
        /* TRANSLATORS: a call to people who asked to hear when a table
         * opens ({prefix}notify on). {player} opened it, {rules} are its
         * rules in a few words ("standard for 4"), {names} the people
         * called ("bob, carol"); {prefix} is the command prefix ("!"):
         * keep "{prefix}join". */
        msg_add(&sb, lang,
                M("{player} opens a Hearts table ({rules}): {names} — you "
                  "asked to be called. {prefix}join to sit down."),
                MSG_S("player", player), MSG_S("rules", rules),
                MSG_S("names", names), MSG_S("prefix", mgr_cmd_prefix(t->m)),
                MSG_END);
    else
        /* TRANSLATORS: the rest of a call that did not fit on one line:
         * {names} are more people called ("dave, erin"). */
        msg_add(&sb, lang, M("Also called: {names}."), MSG_S("names", names),
                MSG_END);
    mgr_table_say(t, text);
}

void mgr_notify_opened(struct table *t, const struct chat_user *opener,
                       const char *player, const char *rules)
{
    struct manager *m = t->m;
    struct chat_adapter *a = t->a;
    if (a->solo || !a->ops->present)
        return;
    struct notify *list = room_list(m, a, t->room)->list;
    size_t n = notify_count(list);
    if (n == 0)
        return;
    char opener_key[200];
    mgr_seat_key(a, opener, opener_key, sizeof opener_key);
    int64_t now = loop_now(m->loop);
    struct notify_entry **due = xcalloc(n, sizeof *due);
    size_t ndue = 0;
    for (size_t i = 0; i < n; i++) {
        struct notify_entry *e = notify_at(list, i);
        if (strcmp(e->key, opener_key) == 0 ||
            a->ops->same_nick(a, e->nick, opener->nick) || seated(t, e) ||
            (e->called && now - e->called < m->notify_interval_ms) ||
            !a->ops->present(a, t->room, e->nick))
            continue;
        due[ndue++] = e;
    }
    qsort(due, ndue, sizeof *due, by_called);
    size_t ncall = ndue < MGR_NOTIFY_CALL_MAX ? ndue : MGR_NOTIFY_CALL_MAX;
    int lang = mgr_lang_room(m, a, t->room);
    struct render_look look = mgr_look_room(t);
    char names[CALL_LINE_NAMES + 600];
    struct strbuf sb;
    strbuf_init(&sb, names, sizeof names);
    bool first = true;
    for (size_t i = 0; i < ncall; i++) {
        char one[512];
        render_mention(one, sizeof one, due[i]->nick, due[i]->nick, true, look);
        if (sb.len && sb.len + strlen(one) > CALL_LINE_NAMES) {
            say_call(t, lang, first, player, rules, names);
            first = false;
            strbuf_reset(&sb);
        }
        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", one);
        due[i]->called = now ? now : 1;
    }
    if (ndue > ncall) {
        strbuf_addstr(&sb, ", ");
        /* TRANSLATORS: after the people a call names, how many more asked
         * to be called and are not named (there were too many). */
        msg_addn(&sb, lang, MN("and {n} more", "and {n} more"),
                 (unsigned long)(ndue - ncall), MSG_I("n", (int)(ndue - ncall)),
                 MSG_END);
    }
    if (sb.len)
        say_call(t, lang, first, player, rules, names);
    if (ncall)
        log_info("table %s: %zu called who asked to be (%zu more not)", t->room,
                 ncall, ndue - ncall);
    free(due);
}
