/*
 * Inside the game manager: languages and people's settings (lang.h).
 */
#include "bot/manager/lang.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/manager/render.h"
#include "storage/people.h"

/* The file, or "" when there is no data directory (memory only). */
static void people_path(const struct manager *m, char *path, size_t len)
{
    path[0] = '\0';
    const char *dir = m->cfg->data_dir;
    char err[256];
    if (dir && *dir &&
        file_path(path, len, err, sizeof err, dir, PEOPLE_FILE, NULL))
        path[0] = '\0';
}

void mgr_people_start(struct manager *m)
{
    m->people = people_new();
    m->people_writable = true;
    char path[FILE_PATH_MAX];
    people_path(m, path, sizeof path);
    if (!path[0])
        return;
    char err[FILE_PATH_MAX + 200];
    int skipped = 0;
    if (people_load(m->people, path, &skipped, err, sizeof err)) {
        log_error("people's settings: %s", err);
        /* a newer bot's file, or one that cannot be read: left alone */
        m->people_writable = false;
        return;
    }
    if (skipped)
        log_warn("people's settings: %d line(s) of %s skipped", skipped, path);
}

void mgr_people_free(struct manager *m)
{
    people_free(m->people);
    m->people = NULL;
}

int mgr_lang_default(const struct manager *m)
{
    int l = msg_lang_find(m->cfg->lang ? m->cfg->lang : "en");
    return l < 0 ? MSG_EN : l;
}

int mgr_lang_room(const struct manager *m, const struct chat_adapter *a,
                  const char *room)
{
    const char *code = room ? config_room_lang(m->cfg, a, room) : NULL;
    int l = code ? msg_lang_find(code) : -1;
    return l >= 0 ? l : mgr_lang_default(m);
}

/* One of u's settings (NULL: none). */
static const char *person_setting(struct manager *m, struct chat_adapter *a,
                                  const struct chat_user *u, const char *name)
{
    if (!m->people)
        mgr_people_start(m);
    char key[200];
    mgr_seat_key(a, u, key, sizeof key);
    return people_get(m->people, a->network ? a->network : "", key, name);
}

/* One of the settings of a seat's person (NULL: none, or a computer). */
static const char *seat_setting(struct table *t, int seat, const char *name)
{
    struct manager *m = t->m;
    const struct seat *s =
        seat >= 0 && seat < ENGINE_MAX_PLAYERS ? &t->seats[seat] : NULL;
    if (!s || !s->human || !s->key[0])
        return NULL;
    if (!m->people)
        mgr_people_start(m);
    return people_get(m->people, t->a->network ? t->a->network : "", s->key,
                      name);
}

const char *mgr_room_of_person(struct manager *m, struct chat_adapter *a,
                               const struct chat_user *u, const char *room)
{
    if (room)
        return room;
    int seat;
    struct table *t = mgr_table_of_person(m, a, u->nick, &seat);
    /* a seat of someone else who had the nick is not theirs */
    return t && mgr_same_person(t, seat, u) ? t->room : NULL;
}

int mgr_lang_person(struct manager *m, struct chat_adapter *a,
                    const struct chat_user *u, const char *room)
{
    const char *code = person_setting(m, a, u, "lang");
    int l = code ? msg_lang_find(code) : -1;
    return l >= 0 ? l : mgr_lang_room(m, a, mgr_room_of_person(m, a, u, room));
}

int mgr_lang_seat(struct table *t, int seat)
{
    const char *code = seat_setting(t, seat, "lang");
    int l = code ? msg_lang_find(code) : -1;
    return l >= 0 ? l : mgr_lang_room(t->m, t->a, t->room);
}

int mgr_cards_find(const char *word)
{
    static const char *const modes[] = {"symbols", "ascii", "words"};
    for (int i = 0; word && i < 3; i++)
        if (strcasecmp(word, modes[i]) == 0)
            return i;
    return -1;
}

const char *mgr_cards_name(enum render_cards cards)
{
    return cards == RENDER_CARDS_ASCII   ? "ascii"
           : cards == RENDER_CARDS_WORDS ? "words"
                                         : "symbols";
}

/* A setting's card mode; none (or one this bot does not know) is
 * symbols. */
static enum render_cards cards_of(const char *value)
{
    int c = mgr_cards_find(value);
    return c < 0 ? RENDER_CARDS_SYMBOLS : (enum render_cards)c;
}

enum render_cards mgr_cards_person(struct manager *m, struct chat_adapter *a,
                                   const struct chat_user *u)
{
    return cards_of(person_setting(m, a, u, "cards"));
}

enum render_cards mgr_cards_seat(struct table *t, int seat)
{
    return cards_of(seat_setting(t, seat, "cards"));
}

struct render_look mgr_look_room(struct table *t)
{
    struct render_look look = render_look_style(mgr_table_style(t));
    look.lang = mgr_lang_room(t->m, t->a, t->room);
    return look;
}

struct render_look mgr_look_seat(struct table *t, int seat)
{
    struct render_look look = render_look_style(mgr_table_style(t));
    look.lang = mgr_lang_seat(t, seat);
    look.cards = mgr_cards_seat(t, seat);
    return look;
}

struct render_look mgr_look_person(struct manager *m, struct chat_adapter *a,
                                   const struct chat_user *u, const char *room)
{
    struct render_look look = render_look_style(mgr_style(m, a));
    look.lang = mgr_lang_person(m, a, u, room);
    look.cards = mgr_cards_person(m, a, u);
    return look;
}

int mgr_people_set(struct manager *m, struct chat_adapter *a,
                   const struct chat_user *u, const char *name,
                   const char *value, char *err, size_t errlen)
{
    if (!m->people)
        mgr_people_start(m);
    char key[200];
    mgr_seat_key(a, u, key, sizeof key);
    const char *net = a->network ? a->network : "";
    char path[FILE_PATH_MAX];
    people_path(m, path, sizeof path);
    if (path[0] && !m->people_writable) {
        /* for this run only: the file is not the bot's to write */
        if (people_set(m->people, NULL, net, key, name, value, err, errlen))
            return -1;
        err_set(err, errlen, "the settings file is not the bot's to write");
        return 1;
    }
    if (people_set(m->people, path[0] ? path : NULL, net, key, name, value, err,
                   errlen) == 0)
        return 0;
    /* the file failed: held for this run */
    char why[256];
    snprintf(why, sizeof why, "%s", err);
    if (people_set(m->people, NULL, net, key, name, value, err, errlen))
        return -1;
    log_error("people's settings: %s", why);
    err_set(err, errlen, "%s", why);
    return 1;
}

enum chat_style mgr_style(const struct manager *m, const struct chat_adapter *a)
{
    if (a->style == CHAT_STYLE_IRC && !m->cfg->colors)
        return CHAT_STYLE_PLAIN;
    return a->style;
}

enum chat_style mgr_table_style(const struct table *t)
{
    return mgr_style(t->m, t->a);
}
