/*
 * The site's writer thread (site_writer.h). One mutex guards the queue
 * and the flags; it is never held while pages are written. The loop
 * thread only copies a game in and signals.
 */
#include "bot/site_writer.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "bot/common/err.h"
#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"
#include "bot/site/site.h"

#define SECRET_FILE "site-secret"
#define SECRET_HEX 32

struct site_job {
    struct site_job *next;
    char *net, *room, *record;
    size_t len;
    struct archive_result res;
};

struct site_writer {
    struct site *site;
    char *dir;
    char **hide; /* NULL-terminated, for site_options */
    int nhide;
    char secret[SECRET_HEX + 1];
    pthread_t thread;
    bool started;
    pthread_mutex_t mu;
    pthread_cond_t wake, idle;
    /* under mu */
    struct site_job *todo, **todo_end;
    int queued;
    bool whole;  /* the whole site is to be written (at start, after drops) */
    bool opened; /* site_open done: after it, whole means site_write_all */
    bool busy;   /* the thread is writing */
    bool stop;
    int last_rc;
};

int site_secret(const char *data_dir, char *out, size_t outlen, char *err,
                size_t errlen)
{
    char path[FILE_PATH_MAX];
    if (outlen < SECRET_HEX + 1)
        return err_set(err, errlen, "site secret: no room");
    if (file_path(path, sizeof path, err, errlen, data_dir, SECRET_FILE,
                  (char *)NULL))
        return -1;
    char *text = NULL;
    size_t len = 0;
    bool missing = false;
    if (file_read(path, 256, &text, &len, &missing, err, errlen) == 0) {
        /* 32 hex digits, a line end allowed */
        while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
            len--;
        bool good = len == SECRET_HEX;
        for (size_t i = 0; good && i < len; i++)
            good = (text[i] >= '0' && text[i] <= '9') ||
                   (text[i] >= 'a' && text[i] <= 'f');
        if (good)
            memcpy(out, text, SECRET_HEX);
        out[SECRET_HEX] = '\0';
        free(text);
        if (!good)
            return err_set(err, errlen,
                           "%s is not 32 lower-case hex digits: mend it or "
                           "delete it (a new one renames every person's "
                           "page)",
                           path);
        return 0;
    }
    if (!missing)
        return -1;
    unsigned char raw[SECRET_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return err_set(err, errlen, "site secret: getrandom: %s",
                           strerror(errno));
        got += (size_t)r;
    }
    static const char hex[] = "0123456789abcdef";
    char line[SECRET_HEX + 1];
    for (size_t i = 0; i < sizeof raw; i++) {
        line[2 * i] = hex[raw[i] >> 4];
        line[2 * i + 1] = hex[raw[i] & 15];
    }
    line[SECRET_HEX] = '\n';
    if (file_replace(path, line, sizeof line, err, errlen))
        return -1;
    memcpy(out, line, SECRET_HEX);
    out[SECRET_HEX] = '\0';
    log_info("site: made %s (the key person pages are named with)", path);
    return 0;
}

static void job_free(struct site_job *j)
{
    free(j->net);
    free(j->room);
    free(j->record);
    free(j);
}

/* The thread: the whole site when asked, else the next game. */
static void *run(void *arg)
{
    struct site_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && !w->whole && !w->todo) {
            w->busy = false;
            pthread_cond_broadcast(&w->idle);
            pthread_cond_wait(&w->wake, &w->mu);
        }
        if (w->stop)
            break;
        w->busy = true;
        char err[512];
        int rc;
        if (w->whole) {
            /* the games queued meanwhile are in the files it reads */
            w->whole = false;
            while (w->todo) {
                struct site_job *j = w->todo;
                w->todo = j->next;
                job_free(j);
            }
            w->todo_end = &w->todo;
            w->queued = 0;
            bool opened = w->opened;
            w->opened = true;
            pthread_mutex_unlock(&w->mu);
            char warn[512] = "";
            int channels = 0;
            bool all = true;
            /* at start only what is missing, unless the site is not there
             * or was written otherwise */
            rc = opened ? site_write_all(w->site, &channels, warn, sizeof warn,
                                         err, sizeof err)
                        : site_open(w->site, &all, &channels, warn, sizeof warn,
                                    err, sizeof err);
            if (rc)
                log_error("site: not written: %s", err);
            else
                log_info("site: %d channel%s %s in %s%s%s", channels,
                         channels == 1 ? "" : "s",
                         all ? "written whole" : "brought up to date", w->dir,
                         *warn ? "; " : "", warn);
        } else {
            struct site_job *j = w->todo;
            w->todo = j->next;
            if (!w->todo)
                w->todo_end = &w->todo;
            w->queued--;
            pthread_mutex_unlock(&w->mu);
            rc = site_game(w->site, j->net, j->room, &j->res, j->record, j->len,
                           err, sizeof err);
            if (rc)
                log_error("site: game %s of %s %s: %s", j->res.game, j->net,
                          j->room, err);
            job_free(j);
        }
        pthread_mutex_lock(&w->mu);
        w->last_rc = rc;
    }
    w->busy = false;
    pthread_cond_broadcast(&w->idle);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

struct site_writer *site_writer_start(const struct config *cfg,
                                      const char *data_dir, char *err,
                                      size_t errlen)
{
    struct site_writer *w = xcalloc(1, sizeof *w);
    if (site_secret(data_dir, w->secret, sizeof w->secret, err, errlen)) {
        free(w);
        return NULL;
    }
    w->dir = xstrdup(cfg->site_dir);
    w->nhide = cfg->nsite_hide_hands;
    w->hide = xcalloc((size_t)w->nhide + 1, sizeof *w->hide);
    for (int i = 0; i < w->nhide; i++)
        w->hide[i] = xstrdup(cfg->site_hide_hands[i]);
    struct site_options o = {.data_dir = data_dir,
                             .out_dir = w->dir,
                             .hide_hands = (const char *const *)w->hide,
                             .secret = w->secret};
    w->site = site_new(&o);
    w->todo_end = &w->todo;
    w->whole = true;
    w->busy = true;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->wake, NULL);
    pthread_cond_init(&w->idle, NULL);
    int rc = pthread_create(&w->thread, NULL, run, w);
    if (rc) {
        err_set(err, errlen, "site: no thread: %s", strerror(rc));
        site_writer_stop(w);
        return NULL;
    }
    w->started = true;
    return w;
}

void site_writer_archived(void *ctx, const char *room_dir, const char *network,
                          const char *room, const struct archive_result *res,
                          const char *record)
{
    (void)room_dir;
    struct site_writer *w = ctx;
    if (!res->finished)
        return;
    pthread_mutex_lock(&w->mu);
    if (w->whole) {
        /* the whole site is written next, from the files: this game too */
    } else if (w->queued >= SITE_WRITER_QUEUE_MAX) {
        log_warn("site: %d games wait for the writer: the whole site is "
                 "written again once it has caught up",
                 w->queued);
        w->whole = true;
    } else {
        struct site_job *j = xcalloc(1, sizeof *j);
        j->net = xstrdup(network);
        j->room = xstrdup(room);
        j->len = strlen(record);
        j->record = xstrdup(record);
        j->res = *res;
        *w->todo_end = j;
        w->todo_end = &j->next;
        w->queued++;
    }
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->mu);
}

bool site_writer_same(const struct site_writer *w, const struct config *cfg)
{
    if (strcmp(w->dir, cfg->site_dir) != 0 || w->nhide != cfg->nsite_hide_hands)
        return false;
    for (int i = 0; i < w->nhide; i++)
        if (strcmp(w->hide[i], cfg->site_hide_hands[i]) != 0)
            return false;
    return true;
}

const char *site_writer_secret(const struct site_writer *w)
{
    return w->secret;
}

int site_writer_flush(struct site_writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->busy || w->whole || w->todo)
        pthread_cond_wait(&w->idle, &w->mu);
    int rc = w->last_rc;
    pthread_mutex_unlock(&w->mu);
    return rc ? -1 : 0;
}

void site_writer_stop(struct site_writer *w)
{
    if (!w)
        return;
    if (w->started) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        pthread_cond_signal(&w->wake);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    while (w->todo) {
        struct site_job *j = w->todo;
        w->todo = j->next;
        job_free(j);
    }
    if (w->site)
        site_free(w->site);
    for (int i = 0; i < w->nhide; i++)
        free(w->hide[i]);
    free(w->hide);
    free(w->dir);
    pthread_cond_destroy(&w->idle);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
