/*
 * The game manager's side of storage/ (store.h).
 */
#include "bot/manager/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/msg.h"
#include "bot/common/strbuf.h"
#include "bot/common/xalloc.h"
#include "bot/manager/lang.h"
#include "bot/manager/results.h"
#include "storage/record/record.h"
#include "storage/storage.h"

/* storage/ reports torn or damaged lines dropped, temporary files
 * removed, and failed cut-backs here: lost or damaged data, never
 * routine. */
static void store_log(bool error, const char *msg)
{
    if (error)
        log_error("%s", msg);
    else
        log_warn("%s", msg);
}

/* The room's name as the network folds it. */
static void fold_room(const struct table *t, char *out, size_t outlen)
{
    if (t->a->ops->fold)
        t->a->ops->fold(t->a, t->room, out, outlen);
    else
        snprintf(out, outlen, "%s", t->room);
}

/* Makes the data directory, takes its lock (if this manager keeps one)
 * and checks it can be written: 0, -2 (another bot holds the lock) or -1,
 * errno the cause, err the message. */
static int storage_try(struct manager *m, char *err, size_t errlen)
{
    const char *data = m->cfg->data_dir;
    if (file_mkdirs(data, data, err, errlen))
        return -1;
    if (m->storage_locking && !storage_locked()) {
        int rc = storage_lock(data, err, errlen);
        if (rc)
            return rc;
    }
    return storage_check(data, err, errlen);
}

void mgr_store_init(struct manager *m)
{
    m->storage_ok = true;
    storage_set_log(store_log);
}

void mgr_store_free(struct manager *m)
{
    for (int i = 0; i < m->ntold; i++)
        free(m->storage_told[i]);
    free(m->storage_told);
    m->storage_told = NULL;
    m->ntold = 0;
}

int mgr_store_start(struct manager *m, char *err, size_t errlen)
{
    char why[FILE_PATH_MAX + 200];
    m->storage_locking = true;
    int rc = storage_try(m, why, sizeof why);
    if (rc == -2) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    m->storage_ok = rc == 0;
    if (rc)
        log_error("results can't be saved: %s (the bot runs on, and tries "
                  "again when a table needs it)",
                  why);
    mgr_results_start(m);
    return 0;
}

/* The key that names what was said in t's channel in the "said once"
 * list: kind 'r' results can't be saved, 'j' a game can't be kept. */
static void told_key(const struct table *t, char kind, char *key, size_t len)
{
    char folded[sizeof t->room];
    fold_room(t, folded, sizeof folded);
    snprintf(key, len, "%c%s\n%s", kind, t->a->network ? t->a->network : "",
             folded);
}

/* Whether text is to be said in t's channel: once per channel, until
 * storage works again (why results or a game are not kept). Copies text
 * into say (sized `len`) if so. */
static bool tell_once(struct table *t, char kind, const char *text, char *say,
                      size_t len)
{
    struct manager *m = t->m;
    char key[FILE_NAME_MAX + sizeof t->room + 3];
    told_key(t, kind, key, sizeof key);
    for (int i = 0; i < m->ntold; i++)
        if (!strcmp(m->storage_told[i], key))
            return false;
    m->storage_told = xrealloc(m->storage_told, sizeof *m->storage_told *
                                                    (size_t)(m->ntold + 1));
    m->storage_told[m->ntold++] = xstrdup(key);
    snprintf(say, len, "%s", text);
    return true;
}

void mgr_store_works(struct table *t)
{
    struct manager *m = t->m;
    char key[FILE_NAME_MAX + sizeof t->room + 3];
    told_key(t, 'j', key, sizeof key);
    for (int i = 0; i < m->ntold; i++) {
        if (!strcmp(m->storage_told[i], key)) {
            free(m->storage_told[i]);
            m->storage_told[i] = m->storage_told[--m->ntold];
            return;
        }
    }
}

static void tell_unsaved(struct table *t, int cause, bool game_over, char *say,
                         size_t len)
{
    int lang = mgr_lang_room(t->m, t->a, t->room);
    char text[300];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    const char *reason = msg_template(lang, storage_reason(cause));
    if (game_over)
        msg_add(&sb, lang, M("Results can't be saved: {reason}."),
                MSG_S("reason", reason), MSG_END);
    else
        msg_add(&sb, lang,
                M("Results can't be saved: {reason}. The game goes on."),
                MSG_S("reason", reason), MSG_END);
    tell_once(t, 'r', text, say, len);
}

bool mgr_store_journal_lost(struct table *t, int cause, char *say, size_t len)
{
    int lang = mgr_lang_room(t->m, t->a, t->room);
    char text[300];
    struct strbuf sb;
    strbuf_init(&sb, text, sizeof text);
    msg_add(&sb, lang,
            M("This game can't be kept: {reason}. It goes on, but will not "
              "survive a restart."),
            MSG_S("reason", msg_template(lang, storage_reason(cause))),
            MSG_END);
    /* once, until a journal is written here again; while storage is
     * known not to work, "Results can't be saved" says it already */
    return t->m->storage_ok && tell_once(t, 'j', text, say, len);
}

bool mgr_store_ok(struct table *t, bool game_over, char *say, size_t len)
{
    struct manager *m = t->m;
    if (m->storage_ok)
        return true;
    char why[FILE_PATH_MAX + 200];
    if (storage_try(m, why, sizeof why)) {
        int cause = errno;
        log_error("table %s: results can't be saved: %s", t->room, why);
        tell_unsaved(t, cause, game_over, say, len);
        return false;
    }
    log_info("the data directory %s can be written again", m->cfg->data_dir);
    m->storage_ok = true;
    mgr_store_free(m); /* a later failure is told again */
    return true;
}

char *mgr_store_record(struct table *t)
{
    if (!t->rec) {
        log_error("table %s: no record of this game to write", t->room);
        return NULL;
    }
    char *json = record_writer_json(t->rec);
    if (!json)
        log_error("table %s: the game's record is lost: it is longer than "
                  "a record holds (%d hands)",
                  t->room, RECORD_MAX_HANDS);
    return json;
}

void mgr_store_archive(struct table *t, const char *json, bool finished,
                       bool now, char *say, size_t len)
{
    char dir[FILE_PATH_MAX];
    char err[FILE_PATH_MAX + 200] = "";
    int rc = now ? mgr_table_dir(t, dir, sizeof dir, err, sizeof err) : 0;
    bool keep = false;
    if (rc == 0)
        rc = mgr_results_archive(t, now ? dir : NULL, json, finished,
                                 t->m->restoring, &keep, err, sizeof err);
    if (keep) /* the journal stays for the next start: not removed */
        t->journal[0] = '\0';
    if (rc == 0) {
        log_info("table %s: game record written to %s/archive.jsonl (%s)",
                 t->room, dir, finished ? "finished" : "stopped");
    } else {
        int cause = errno;
        log_error("table %s: game record not written, tried again at the "
                  "next game's end here%s%s%s",
                  t->room,
                  keep ? " and from its journal at the next start" : "",
                  *err ? ": " : "", err);
        if (*err) {
            /* it failed now, not before: the next need checks again */
            t->m->storage_ok = false;
            tell_unsaved(t, cause, true, say, len);
        }
        /* a game's record is the only trace it leaves: keep it in the log */
        log_error("table %s: the record not written: %s", t->room, json);
    }
}
