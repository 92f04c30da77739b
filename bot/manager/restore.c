/*
 * Rebuilding every table from its journal at start (restore.h): the
 * journals storage/journal.h reads, replayed into tables as they were.
 */
#include "bot/manager/restore.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/rule_words.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/journaling.h"
#include "bot/manager/lang.h"
#include "bot/manager/life.h"
#include "bot/manager/manager.h"
#include "storage/journal.h"
#include "storage/record/record.h"
#include "storage/storage.h"

struct restore {
    struct manager *m;
    struct chat_adapter *a;
    const char *path;
    char room[64]; /* from the header, even one refused */
    struct table *t;
    struct record *rec;
    struct journal_line line;
    char err[400];
    bool elsewhere; /* its room is not the adapter's: left as it is */
    bool newer;     /* of a newer heartsbot: left as it is */
};

/* Takes a seats line: the seats become what it says. */
static int restore_seats(struct restore *r, const struct journal_line *l)
{
    struct table *t = r->t;
    if (l->nseats != t->capacity) {
        snprintf(r->err, sizeof r->err, "seats: %d at a table of %d", l->nseats,
                 t->capacity);
        return -1;
    }
    for (int s = 0; s < t->capacity; s++) {
        const struct journal_seat *js = &l->seats[s];
        struct seat *st = &t->seats[s];
        if (t->playing && !js->used) {
            snprintf(r->err, sizeof r->err, "seats: seat %d empty in a game",
                     s);
            return -1;
        }
        memset(st, 0, sizeof *st);
        if (!js->used)
            continue;
        st->used = true;
        st->human = js->human;
        st->away = js->away;
        st->level = js->level;
        st->autoplay = (enum seat_autoplay)js->autoplay;
        mgr_seat_set_name(st, js->nick, js->display);
        snprintf(st->id, sizeof st->id, "%s", js->id);
        snprintf(st->key, sizeof st->key, "%s", js->key);
        /* the account is not journaled apart: an "a:" key names it */
        if (strncmp(js->key, "a:", 2) == 0)
            snprintf(st->account, sizeof st->account, "%s", js->key + 2);
    }
    t->opener = l->opener;
    if (t->opener >= 0 && !t->seats[t->opener].used)
        t->opener = -1;
    mgr_table_names_unique(t);
    mgr_journal_keep_seats(t, l->seats, l->nseats, l->opener);
    return 0;
}

/* What a header says of its game, checked: its rules (and their text,
 * sized 1024) and its game ID. 0, or -1 with why in err (400 bytes). */
static int header_rules(const struct journal_line *l,
                        struct engine_rules *rules, char *text, size_t textlen,
                        char *err)
{
    struct engine_error e = {0};
    char why[300] = "too long";
    /* a text journaled before an option could be named only once ("omnibus
     * target=50 target=89": the channel's, then the table's) reads as it
     * did, the last one counting */
    if (engine_rules_over(l->rules, "", text, textlen) ||
        engine_rules_parse(rules, text, 0, &e)) {
        if (e.code)
            rule_words_error_text(why, sizeof why, MSG_EN, &e);
        snprintf(err, 400, "rules \"%.60s\": %.250s", l->rules, why);
        return -1;
    }
    if (strlen(l->game) != 16 || strspn(l->game, "0123456789abcdef") != 16) {
        snprintf(err, 400, "game: not a game id");
        return -1;
    }
    return 0;
}

static int restore_header(struct restore *r, const struct journal_line *l,
                          const char *path)
{
    struct engine_rules rules;
    char text[1024];
    if (header_rules(l, &rules, text, sizeof text, r->err))
        return -1;
    if (mgr_table_find(r->m, r->a, l->room)) {
        snprintf(r->err, sizeof r->err, "%s has a table already", l->room);
        return -1;
    }
    r->t = mgr_table_open(r->m, r->a, l->room, &rules, text, l->turn_timeout,
                          l->hints);
    snprintf(r->t->game_id, sizeof r->t->game_id, "%s", l->game);
    snprintf(r->t->journal, sizeof r->t->journal, "%s", path);
    return 0;
}

static int restore_start(struct restore *r)
{
    struct table *t = r->t;
    for (int s = 0; s < t->capacity; s++) {
        if (!t->seats[s].used) {
            snprintf(r->err, sizeof r->err, "start: seat %d is empty", s);
            return -1;
        }
    }
    mgr_table_begin(t);
    r->rec = xcalloc(1, sizeof *r->rec);
    r->rec->rules = t->rules;
    r->rec->n = t->capacity;
    for (int s = 0; s < t->capacity; s++) {
        r->rec->names[s] = xstrdup(t->seats[s].nick);
    }
    return 0;
}

/* Parses line `lineno` of a journal into *l: a header first, and only
 * first. 0, or -1 with why in err (400 bytes); room (64 bytes) the
 * header's room, even of a header refused. */
static int journal_line_read(const char *text, size_t len, long lineno,
                             struct journal_line *l, char *room, char *err)
{
    char why[300];
    memset(l, 0, sizeof *l);
    int parsed = journal_parse(text, len, l, why, sizeof why);
    if (lineno == 1 && l->kind == JOURNAL_HEADER)
        snprintf(room, 64, "%s", l->room);
    if (parsed) {
        snprintf(err, 400, "line %ld: %s", lineno, why);
        return -1;
    }
    if ((lineno == 1) != (l->kind == JOURNAL_HEADER)) {
        snprintf(err, 400, "line %ld: %s", lineno,
                 lineno == 1 ? "no header" : "a second header");
        return -1;
    }
    return 0;
}

/* A line's failure: err (400 bytes) gets "line N: " before it; 1, to
 * stop the reading. */
static int line_failed(char *err, long lineno)
{
    char why[400];
    snprintf(why, sizeof why, "line %ld: %.360s", lineno, err);
    snprintf(err, 400, "%s", why);
    return 1;
}

static int restore_line(void *ctx, char *text, size_t len, long lineno)
{
    struct restore *r = ctx;
    struct journal_line *l = &r->line;
    if (journal_line_read(text, len, lineno, l, r->room, r->err)) {
        r->newer = lineno == 1 && l->kind == JOURNAL_HEADER && l->newer;
        return 1;
    }
    int rc = 0;
    switch (l->kind) {
    case JOURNAL_HEADER:
        if (r->a->ops->serves && !r->a->ops->serves(r->a, l->room)) {
            r->elsewhere = true;
            return 1;
        }
        rc = restore_header(r, l, r->path);
        break;
    case JOURNAL_SEATS:
        rc = restore_seats(r, l);
        break;
    case JOURNAL_TURN:
        /* the last one counts, if it is still the game's turn once
         * replayed (mgr_slow_arm compares) */
        r->t->slow_key = l->turn;
        r->t->slow_deadline = l->deadline;
        r->t->slow_reminded = l->reminded;
        r->t->slow_channel = l->channel;
        break;
    case JOURNAL_START:
        if (r->rec) {
            snprintf(r->err, sizeof r->err, "started twice");
            rc = -1;
        } else {
            rc = restore_start(r);
        }
        break;
    default:
        if (!r->rec) {
            snprintf(r->err, sizeof r->err, "a game line before the start");
            rc = -1;
        } else {
            rc = journal_record_add(r->rec, l, r->err, sizeof r->err);
        }
        break;
    }
    return rc ? line_failed(r->err, lineno) : 0;
}

/* Replays the game part into the table's game. */
static int restore_game(struct restore *r)
{
    struct table *t = r->t;
    char err[300];
    if (record_replay(r->rec, &t->sink, NULL, NULL, &t->game, err,
                      sizeof err)) {
        snprintf(r->err, sizeof r->err, "%s", err);
        return -1;
    }
    t->game.rules = &t->rules;
    /* hands still to come may be dealt from a fresh seed */
    uint64_t seed;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = engine_prng_next(&t->rng) ^ (uint64_t)time(NULL);
    engine_prng_seed(&t->game.rng, seed);
    return 0;
}

/* The journal that cannot be replayed is kept aside for a person. */
static void refuse(struct restore *r, const char *path)
{
    char err[300];
    log_error("journal %s cannot be replayed, moved aside: %s", path, r->err);
    if (storage_move_aside(path, err, sizeof err))
        log_error("%s", err);
    if (r->t) {
        r->t->journal[0] = '\0';
        r->t->restored = false;
        mgr_table_close(r->t);
    }
    if (!r->room[0])
        return; /* no room known: the log says it */
    /* said once the bot is in the room (mgr_restore_connected) */
    struct manager *m = r->m;
    struct notice *nt =
        xrealloc(m->notices, sizeof *nt * (size_t)(m->nnotices + 1));
    m->notices = nt;
    nt += m->nnotices++;
    nt->a = r->a;
    snprintf(nt->room, sizeof nt->room, "%s", r->room);
    char why[201];
    snprintf(why, sizeof why, "%.200s", r->err);
    struct strbuf sb;
    strbuf_init(&sb, nt->text, sizeof nt->text);
    msg_add(&sb, mgr_lang_room(m, r->a, r->room),
            /* TRANSLATORS: {why}: what is wrong with the journal, in
             * English, for the host (the bot's operator) */
            M("The game here could not be restored after a restart; its "
              "journal is kept aside for the host ({why})."),
            MSG_S("why", why), MSG_END);
}

void mgr_restore_connected(struct manager *m, struct chat_adapter *a)
{
    int k = 0;
    for (int i = 0; i < m->nnotices; i++) {
        if (m->notices[i].a == a)
            a->ops->say(a, m->notices[i].room, m->notices[i].text, CHAT_NORMAL);
        else
            m->notices[k++] = m->notices[i];
    }
    m->nnotices = k;
}

static void restore_file(struct manager *m, struct chat_adapter *a,
                         const char *path)
{
    struct restore *r = xcalloc(1, sizeof *r);
    r->m = m;
    r->a = a;
    r->path = path;
    char err[300];
    int rc = storage_read_lines(path, JOURNAL_MAX_LINE, restore_line, r, NULL,
                                err, sizeof err);
    if (r->elsewhere) {
        log_warn("journal %s kept as it is: %s is not among this network's "
                 "rooms; the game goes on when it is back in the config",
                 path, r->room);
        free(r);
        return;
    }
    if (r->newer) {
        /* a downgrade: the newer build it came from resumes it */
        log_error("journal %s kept as it is: %s; this game goes on when "
                  "that heartsbot runs again",
                  path, r->err);
        free(r);
        return;
    }
    if (rc < 0)
        snprintf(r->err, sizeof r->err, "%s", err);
    else if (rc == 0 && !r->t)
        snprintf(r->err, sizeof r->err, "empty");
    if (rc == 0 && r->t && r->rec && restore_game(r))
        rc = 1;
    if (rc != 0 || !r->t) {
        refuse(r, path);
    } else if (r->t->playing &&
               engine_phase(&r->t->game) == ENGINE_PHASE_GAME_OVER) {
        /* the bot died between the game's end and its archive */
        log_info("table %s: a finished game found in %s: archived", r->t->room,
                 path);
        mgr_table_game_over(r->t);
    } else {
        struct table *t = r->t;
        t->restored = true;
        t->online = false;
        t->prompted_seat = -1;
        for (int s = 0; s < t->capacity; s++) {
            struct seat *st = &t->seats[s];
            st->deal_unread = false;
            if (st->used && st->human) {
                st->restored = true;
                st->unconfirmed = a->ops->verify != NULL;
                /* their private lines' room, ready for the game's return */
                if (a->ops->prepare)
                    a->ops->prepare(a, st->nick);
            }
        }
        log_info("table %s: rebuilt from %s (%s)", t->room, path,
                 t->playing ? "a game" : "its lobby");
    }
    record_free(r->rec);
    free(r);
}

static bool journal_name(const char *name)
{
    size_t n = strlen(name);
    return n > 14 && strncmp(name, "journal-", 8) == 0 &&
           strcmp(name + n - 6, ".jsonl") == 0;
}

/* A journal found at start, by when it was last written. */
struct found {
    char path[FILE_PATH_MAX];
    struct timespec mtime;
};

static int by_mtime(const void *x, const void *y)
{
    const struct found *a = x, *b = y;
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
    if (a->mtime.tv_nsec != b->mtime.tv_nsec)
        return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* Whether path is a directory (not a link to one). */
static bool real_dir(const char *path)
{
    struct stat sb;
    return !lstat(path, &sb) && S_ISDIR(sb.st_mode);
}

void mgr_restore(struct manager *m, struct chat_adapter *a)
{
    if (!m->cfg->data_dir || !*m->cfg->data_dir)
        return;
    char net[FILE_NAME_MAX + 1], dir[FILE_PATH_MAX], err[300];
    file_name_encode(a->network ? a->network : "", net, sizeof net);
    if (file_path(dir, sizeof dir, err, sizeof err, m->cfg->data_dir, net,
                  (char *)NULL) ||
        !real_dir(dir))
        return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    m->restoring = true;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char room[FILE_PATH_MAX];
        if (file_path(room, sizeof room, err, sizeof err, dir, e->d_name,
                      (char *)NULL))
            continue;
        if (!real_dir(room)) { /* a link is never followed */
            struct stat sb;
            if (!lstat(room, &sb) && S_ISLNK(sb.st_mode))
                log_warn("%s: a link, not a directory: not read", room);
            continue;
        }
        DIR *rd = opendir(room);
        if (!rd)
            continue;
        /* oldest first: a finished game whose archiving failed is
         * archived before the table that opened after it is rebuilt */
        struct found *found = NULL;
        size_t n = 0;
        struct dirent *f;
        while ((f = readdir(rd))) {
            char path[FILE_PATH_MAX];
            struct stat sb;
            if (!journal_name(f->d_name) ||
                file_path(path, sizeof path, err, sizeof err, room, f->d_name,
                          (char *)NULL) ||
                lstat(path, &sb))
                continue;
            found = xrealloc(found, sizeof *found * (n + 1));
            snprintf(found[n].path, sizeof found[n].path, "%s", path);
            found[n++].mtime = sb.st_mtim;
        }
        closedir(rd);
        if (n)
            qsort(found, n, sizeof *found, by_mtime);
        for (size_t i = 0; i < n; i++)
            restore_file(m, a, found[i].path);
        free(found);
    }
    closedir(d);
    m->restoring = false;
}

/* ---- Checking a journal without a table (manager_journal_check) ------- */

struct journal_check {
    struct journal_line line;
    struct engine_rules rules;
    struct journal_seat seats[ENGINE_MAX_PLAYERS]; /* the last seats line */
    int nseats;
    struct record *rec; /* from the start on */
    char room[64];
    char err[400];
};

/* One line, as restore_line takes it, with what a table would refuse. */
static int check_line(void *ctx, char *text, size_t len, long lineno)
{
    struct journal_check *c = ctx;
    struct journal_line *l = &c->line;
    char text_rules[1024];
    int rc = 0;
    if (journal_line_read(text, len, lineno, l, c->room, c->err))
        return 1;
    switch (l->kind) {
    case JOURNAL_HEADER:
        rc = header_rules(l, &c->rules, text_rules, sizeof text_rules, c->err);
        break;
    case JOURNAL_SEATS:
        if (l->nseats != c->rules.players) {
            snprintf(c->err, sizeof c->err, "seats: %d at a table of %d",
                     l->nseats, c->rules.players);
            rc = -1;
            break;
        }
        for (int s = 0; c->rec && s < l->nseats; s++)
            if (!l->seats[s].used) {
                snprintf(c->err, sizeof c->err,
                         "seats: seat %d empty in a game", s);
                rc = -1;
            }
        memcpy(c->seats, l->seats, sizeof c->seats);
        c->nseats = l->nseats;
        break;
    case JOURNAL_TURN:
        break;
    case JOURNAL_START:
        if (c->rec) {
            snprintf(c->err, sizeof c->err, "started twice");
            rc = -1;
            break;
        }
        for (int s = 0; s < c->rules.players && rc == 0; s++)
            if (s >= c->nseats || !c->seats[s].used) {
                snprintf(c->err, sizeof c->err, "start: seat %d is empty", s);
                rc = -1;
            }
        if (rc)
            break;
        c->rec = xcalloc(1, sizeof *c->rec);
        c->rec->rules = c->rules;
        c->rec->n = c->rules.players;
        for (int s = 0; s < c->rec->n; s++)
            c->rec->names[s] = xstrdup(c->seats[s].nick);
        break;
    default:
        if (!c->rec) {
            snprintf(c->err, sizeof c->err, "a game line before the start");
            rc = -1;
        } else {
            rc = journal_record_add(c->rec, l, c->err, sizeof c->err);
        }
        break;
    }
    return rc ? line_failed(c->err, lineno) : 0;
}

int manager_journal_check(const char *path, char *room, size_t roomlen,
                          char *err, size_t errlen)
{
    struct journal_check *c = xcalloc(1, sizeof *c);
    char why[300];
    int rc = storage_read_lines(path, JOURNAL_MAX_LINE, check_line, c, NULL,
                                why, sizeof why);
    if (rc < 0)
        snprintf(c->err, sizeof c->err, "%s", why);
    else if (rc == 0 && !c->room[0] && !c->rules.players)
        snprintf(c->err, sizeof c->err, "empty");
    else if (rc == 0 && c->rec &&
             record_replay(c->rec, NULL, NULL, NULL, NULL, why, sizeof why)) {
        snprintf(c->err, sizeof c->err, "%s", why);
        rc = 1;
    }
    if (rc != 0 || c->err[0])
        rc = err_set(err, errlen, "%s", c->err);
    if (room && roomlen)
        snprintf(room, roomlen, "%s", c->room);
    record_free(c->rec);
    free(c);
    return rc;
}
