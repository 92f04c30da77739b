/*
 * The syncer's thread (syncer.h). One mutex guards the queue, the
 * failures and the flags; it is never held during an fsync.
 */
#include "bot/syncer.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bot/common/file.h"
#include "bot/common/log.h"
#include "bot/common/xalloc.h"
#include "storage/storage.h"

struct sync_node {
    struct sync_node *next;
    bool remove; /* remove the file (syncer_remove), not sync it */
    bool created;
    int cause; /* a failure's errno (failed list) */
    char err[FILE_PATH_MAX + 100];
    char path[FILE_PATH_MAX];
};

struct syncer {
    syncer_failed_fn fn;
    void *ctx;
    struct loop_waker *waker;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t wake, idle;
    /* under mu */
    struct sync_node *todo, **todo_end; /* one node a path */
    struct sync_node *failed, **failed_end;
    int waiting; /* files in todo or being synced */
    bool stop;
    bool failed_once; /* the thread's: an fsync failed, removals wait */
};

static void free_list(struct sync_node *n)
{
    while (n) {
        struct sync_node *next = n->next;
        free(n);
        n = next;
    }
}

/* A removal, once every fsync before it is done: none failed, or the
 * file is kept for the next start (what it would replay is then
 * archived again, found there, and not written twice). */
static void remove_now(struct syncer *s, const struct sync_node *n)
{
    char err[FILE_PATH_MAX + 100];
    if (s->failed_once)
        log_warn("%s kept for the next start: an fsync before its removal "
                 "failed",
                 n->path);
    else if (storage_remove(n->path, err, sizeof err))
        log_error("%s", err);
}

/* Syncs and removes a batch in order; returns the failures (logged). */
static struct sync_node *sync_batch(struct syncer *s, struct sync_node *batch)
{
    struct sync_node *failed = NULL, **failed_end = &failed;
    while (batch) {
        struct sync_node *n = batch;
        batch = n->next;
        if (n->remove)
            remove_now(s, n);
        if (n->remove || storage_sync_path(n->path, n->created, n->err,
                                           sizeof n->err) == 0) {
            free(n);
            continue;
        }
        n->cause = errno;
        s->failed_once = true;
        log_error("not synced to disk: %s", n->err);
        n->next = NULL;
        *failed_end = n;
        failed_end = &n->next;
    }
    return failed;
}

static void *run(void *arg)
{
    struct syncer *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->todo && !s->stop)
            pthread_cond_wait(&s->wake, &s->mu);
        if (!s->todo)
            break; /* stopped, and nothing waits */
        struct sync_node *batch = s->todo;
        int n = 0;
        for (struct sync_node *x = batch; x; x = x->next)
            n++;
        s->todo = NULL;
        s->todo_end = &s->todo;
        pthread_mutex_unlock(&s->mu);
        struct sync_node *failed = sync_batch(s, batch);
        pthread_mutex_lock(&s->mu);
        s->waiting -= n;
        if (failed) {
            *s->failed_end = failed;
            while (*s->failed_end)
                s->failed_end = &(*s->failed_end)->next;
            loop_waker_poke(s->waker);
        }
        if (s->waiting == 0)
            pthread_cond_broadcast(&s->idle);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* The loop: failures are in. */
static void on_failed(struct loop *l, void *ctx)
{
    (void)l;
    struct syncer *s = ctx;
    pthread_mutex_lock(&s->mu);
    struct sync_node *n = s->failed;
    s->failed = NULL;
    s->failed_end = &s->failed;
    pthread_mutex_unlock(&s->mu);
    for (struct sync_node *x = n; x; x = x->next)
        s->fn(s->ctx, x->path, x->cause, x->err);
    free_list(n);
}

struct syncer *syncer_new(struct loop *l, syncer_failed_fn fn, void *ctx)
{
    struct syncer *s = xcalloc(1, sizeof *s);
    s->fn = fn;
    s->ctx = ctx;
    s->todo_end = &s->todo;
    s->failed_end = &s->failed;
    s->waker = loop_waker_new(l, on_failed, s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->idle, NULL);
    int rc = pthread_create(&s->thread, NULL, run, s);
    if (rc) {
        log_error("syncer: cannot start: %s", strerror(rc));
        abort();
    }
    return s;
}

/* Queues a node for path: 0, or -1 (the path does not fit, or
 * SYNCER_MAX wait). A sync of a path already waiting to be synced is
 * that one. */
static int add(struct syncer *s, const char *path, bool created, bool remove)
{
    size_t len = strlen(path);
    if (len >= FILE_PATH_MAX)
        return -1;
    pthread_mutex_lock(&s->mu);
    /* named again before its turn: the one fsync covers both */
    for (struct sync_node *x = s->todo; x && !remove; x = x->next) {
        if (!x->remove && !strcmp(x->path, path)) {
            x->created |= created;
            pthread_mutex_unlock(&s->mu);
            return 0;
        }
    }
    if (s->waiting >= SYNCER_MAX) {
        pthread_mutex_unlock(&s->mu);
        return -1;
    }
    struct sync_node *n = xcalloc(1, sizeof *n);
    n->remove = remove;
    n->created = created;
    memcpy(n->path, path, len + 1);
    *s->todo_end = n;
    s->todo_end = &n->next;
    s->waiting++;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

int syncer_add(struct syncer *s, const char *path, bool created)
{
    return add(s, path, created, false);
}

int syncer_remove(struct syncer *s, const char *path)
{
    return add(s, path, false, true);
}

void syncer_wait(struct syncer *s)
{
    pthread_mutex_lock(&s->mu);
    while (s->waiting > 0)
        pthread_cond_wait(&s->idle, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

void syncer_free(struct syncer *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    free_list(s->failed); /* logged by the thread */
    loop_waker_free(s->waker);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->wake);
    pthread_cond_destroy(&s->idle);
    free(s);
}
