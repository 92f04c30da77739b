/*
 * Writing the game journals as the table goes (journaling.h).
 */
#include "bot/manager/journaling.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"
#include "bot/manager/say.h"
#include "bot/manager/store.h"
#include "bot/syncer.h"
#include "storage/journal.h"
#include "storage/storage.h"

/* Whether the table's journal is written now. */
static bool journaling(const struct table *t)
{
    return t->journal[0] && !t->m->restoring;
}

/* The table's journal cannot be written (err): it is given up, since a
 * gap would replay as another game. */
static void give_up(struct table *t, const char *err)
{
    log_error("table %s: journal given up, this game will not survive a "
              "restart: %s",
              t->room, err);
    char why[300];
    if (storage_remove(t->journal, why, sizeof why))
        log_error("table %s: %s", t->room, why);
    t->journal[0] = '\0';
}

/* The syncer (syncer.h): a file's fsync failed after it was written
 * (and what it records announced). A journal's table gives it up, and
 * says so; any other file's failure is only logged (by the syncer). */
static void sync_failed(void *ctx, const char *path, int cause, const char *err)
{
    struct manager *m = ctx;
    for (int i = 0; i < m->ntables; i++) {
        struct table *t = m->tables[i];
        if (t->journal[0] && !strcmp(t->journal, path)) {
            give_up(t, err);
            mgr_table_journal_lost(t, cause);
        }
    }
}

/* The storage's sync fn (storage_set_sync): the manager's syncer, made
 * when first needed. */
static int sync_later(void *ctx, const char *path, bool created)
{
    struct manager *m = ctx;
    if (!m->syncer)
        m->syncer = syncer_new(m->loop, sync_failed, m);
    return syncer_add(m->syncer, path, created);
}

void mgr_sync_start(struct manager *m)
{
    storage_set_sync(sync_later, m);
}

void mgr_sync_stop(struct manager *m)
{
    storage_unset_sync(m);
    syncer_free(m->syncer);
    m->syncer = NULL;
}

void mgr_sync_wait(struct manager *m)
{
    if (m->syncer)
        syncer_wait(m->syncer);
}

void mgr_journal_remove(struct manager *m, const char *path)
{
    if (m->syncer) {
        if (syncer_remove(m->syncer, path) == 0)
            return;
        /* too much waits: what waits first */
        syncer_wait(m->syncer);
    }
    char err[300];
    if (storage_remove(path, err, sizeof err))
        log_error("%s", err);
}

/* Appends a line (ending in '\n') and frees it. A journal that cannot be
 * written is given up. -1 then, the cause in *lost unless an earlier
 * failure of the same call set it (`failed`). */
static int append(struct table *t, char *line, int *lost, bool failed)
{
    int rc = 0;
    if (!line)
        return 0;
    char err[300];
    /* written before anything it records is announced; its fsync is
     * the syncer's (storage_set_sync) */
    if (storage_append(t->journal, line, strlen(line), err, sizeof err)) {
        int cause = errno;
        give_up(t, err);
        if (!failed)
            *lost = cause;
        rc = -1;
    }
    free(line);
    return rc;
}

int mgr_journal_opened(struct table *t, int *lost)
{
    t->journal[0] = '\0';
    /* a console table lives as long as its terminal */
    if (t->m->restoring || t->a->solo || !t->m->cfg->data_dir ||
        !*t->m->cfg->data_dir)
        return 0;
    char dir[FILE_PATH_MAX], name[64], err[300];
    snprintf(name, sizeof name, "journal-%s.jsonl", t->game_id);
    if (mgr_table_dir(t, dir, sizeof dir, err, sizeof err) ||
        file_path(t->journal, sizeof t->journal, err, sizeof err, dir, name,
                  (char *)NULL)) {
        int cause = errno;
        t->journal[0] = '\0';
        log_error("table %s: no journal, this game will not survive a "
                  "restart: %s",
                  t->room, err);
        *lost = cause;
        return -1;
    }
    int rc =
        append(t,
               journal_header(t->game_id, t->a->network ? t->a->network : "",
                              t->room, t->rules_text, (long long)time(NULL),
                              t->turn_timeout, t->hints),
               lost, false);
    if (t->journal[0])
        mgr_store_works(t);
    return rc;
}

/* Whether two snapshots of n seats make the same seats line: what
 * journal_seats writes of them. */
static bool same_seats(const struct journal_seat *x,
                       const struct journal_seat *y, int n)
{
    for (int s = 0; s < n; s++) {
        const struct journal_seat *a = &x[s], *b = &y[s];
        if (a->used != b->used)
            return false;
        if (!a->used)
            continue;
        if (a->human != b->human || a->away != b->away ||
            a->autoplay != b->autoplay || (!a->human && a->level != b->level) ||
            strcmp(a->nick, b->nick) || strcmp(a->display, b->display) ||
            strcmp(a->id, b->id) || strcmp(a->key, b->key))
            return false;
    }
    return true;
}

/* Notes the seats the journal's last seats line says. */
void mgr_journal_keep_seats(struct table *t, const struct journal_seat *seats,
                            int n, int opener)
{
    if (!t->journal_seats)
        t->journal_seats = xcalloc(ENGINE_MAX_PLAYERS, sizeof *seats);
    memcpy(t->journal_seats, seats, sizeof *seats * (size_t)n);
    t->journal_opener = opener;
}

/* Called before every sleep for every table: the seats are compared as
 * they are, and a line is made only when they changed. */
int mgr_journal_sync_seats(struct table *t, int *lost)
{
    if (!journaling(t) || t->closing)
        return 0;
    struct journal_seat seats[ENGINE_MAX_PLAYERS];
    memset(seats, 0, sizeof seats);
    for (int s = 0; s < t->capacity; s++) {
        const struct seat *st = &t->seats[s];
        struct journal_seat *js = &seats[s];
        js->used = st->used;
        js->human = st->human;
        js->away = st->away;
        js->level = st->human ? 0 : st->level;
        js->autoplay = (int)st->autoplay;
        snprintf(js->nick, sizeof js->nick, "%s", st->nick);
        snprintf(js->display, sizeof js->display, "%s", st->display);
        snprintf(js->id, sizeof js->id, "%s", st->id);
        snprintf(js->key, sizeof js->key, "%s", st->key);
    }
    if (t->journal_seats && t->journal_opener == t->opener &&
        same_seats(seats, t->journal_seats, t->capacity))
        return 0;
    mgr_journal_keep_seats(t, seats, t->capacity, t->opener);
    return append(t, journal_seats(seats, t->capacity, t->opener), lost, false);
}

int mgr_journal_started(struct table *t, int *lost)
{
    if (!journaling(t))
        return 0;
    int rc = mgr_journal_sync_seats(t, lost);
    return append(t, journal_start(), lost, rc != 0) | rc;
}

int mgr_journal_event(struct table *t, const struct engine_game *g,
                      const struct engine_event *ev, int *lost)
{
    if (!journaling(t))
        return 0;
    char *line = journal_event(g, ev);
    if (!line)
        return 0;
    int rc = mgr_journal_sync_seats(t, lost);
    return append(t, line, lost, rc != 0) | rc;
}

int mgr_journal_turn(struct table *t, int *lost)
{
    if (!journaling(t) || t->closing)
        return 0;
    return append(t,
                  journal_turn(t->slow_key, t->slow_deadline, t->slow_reminded,
                               t->slow_channel),
                  lost, false);
}

void mgr_journal_closed(struct table *t)
{
    free(t->journal_seats);
    t->journal_seats = NULL;
    if (!t->journal[0] || t->m->keep_journals)
        return;
    /* after the game's record is on the disk (results.c wrote it) */
    mgr_journal_remove(t->m, t->journal);
    t->journal[0] = '\0';
}
