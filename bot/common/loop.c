/*
 * The event loop (loop.h): a poll() over the watched descriptors, a small
 * binary heap of monotonic timers, and before-sleep hooks. Modelled on
 * Redis's ae: handlers queue their output and the hooks flush it once per
 * round, so a burst of events costs one write per connection.
 *
 * Watches and timers may change inside callbacks: the fd table is copied
 * into the pollfd array each round, a watch removed mid-round is skipped by
 * checking the table again before dispatch, and a cancelled timer is only
 * marked and dropped when it reaches the top of the heap.
 */
#include "bot/common/loop.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bot/common/log.h"
#include "bot/common/xalloc.h"

struct watch {
    int fd;
    int events;
    uint64_t gen; /* which watch of this fd: a reused fd is a new one */
    loop_fd_fn fn;
    void *ctx;
};

struct timer {
    int64_t when;
    uint64_t id;
    loop_timer_fn fn;
    void *ctx;
    bool cancelled;
};

struct hook {
    loop_hook_fn fn;
    void *ctx;
};

struct loop {
    struct watch *watches;
    size_t nwatches, capwatches;
    struct pollfd *pfds;
    uint64_t *pgens; /* the watch each pollfd was made for */
    size_t cappfds, cappgens;
    uint64_t next_gen;
    struct timer *heap;
    size_t ntimers, captimers;
    uint64_t next_id;
    struct hook *hooks;
    size_t nhooks, caphooks;
    bool stopping;
};

/* Grows an array to hold `need` elements of `size` bytes. */
static void grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap * 2 : 8;
    while (c < need)
        c *= 2;
    *arr = xrealloc(*arr, c * size);
    *cap = c;
}

struct loop *loop_new(void)
{
    struct loop *l = xcalloc(1, sizeof *l);
    l->next_id = 1;
    return l;
}

void loop_free(struct loop *l)
{
    if (!l)
        return;
    free(l->watches);
    free(l->pfds);
    free(l->pgens);
    free(l->heap);
    free(l->hooks);
    free(l);
}

int64_t loop_now(const struct loop *l)
{
    (void)l;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct watch *find_watch(struct loop *l, int fd)
{
    for (size_t i = 0; i < l->nwatches; i++)
        if (l->watches[i].fd == fd)
            return &l->watches[i];
    return NULL;
}

int loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *ctx)
{
    struct watch *w = find_watch(l, fd);
    if (!w) {
        grow((void **)&l->watches, &l->capwatches, l->nwatches + 1,
             sizeof *l->watches);
        w = &l->watches[l->nwatches++];
        w->fd = fd;
        w->gen = ++l->next_gen;
    }
    w->events = events;
    w->fn = fn;
    w->ctx = ctx;
    return 0;
}

void loop_unwatch(struct loop *l, int fd)
{
    for (size_t i = 0; i < l->nwatches; i++) {
        if (l->watches[i].fd == fd) {
            l->watches[i] = l->watches[--l->nwatches];
            return;
        }
    }
}

/* ---- Timers: a min-heap on (when, id) --------------------------------- */

static bool earlier(const struct timer *a, const struct timer *b)
{
    return a->when < b->when || (a->when == b->when && a->id < b->id);
}

static void heap_swap(struct loop *l, size_t i, size_t j)
{
    struct timer t = l->heap[i];
    l->heap[i] = l->heap[j];
    l->heap[j] = t;
}

static void heap_up(struct loop *l, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!earlier(&l->heap[i], &l->heap[parent]))
            break;
        heap_swap(l, i, parent);
        i = parent;
    }
}

static void heap_down(struct loop *l, size_t i)
{
    for (;;) {
        size_t a = 2 * i + 1, b = a + 1, m = i;
        if (a < l->ntimers && earlier(&l->heap[a], &l->heap[m]))
            m = a;
        if (b < l->ntimers && earlier(&l->heap[b], &l->heap[m]))
            m = b;
        if (m == i)
            return;
        heap_swap(l, i, m);
        i = m;
    }
}

static void heap_pop(struct loop *l)
{
    l->heap[0] = l->heap[--l->ntimers];
    if (l->ntimers)
        heap_down(l, 0);
}

uint64_t loop_timer(struct loop *l, int64_t ms, loop_timer_fn fn, void *ctx)
{
    grow((void **)&l->heap, &l->captimers, l->ntimers + 1, sizeof *l->heap);
    struct timer *t = &l->heap[l->ntimers];
    t->when = loop_now(l) + (ms > 0 ? ms : 0);
    t->id = l->next_id++;
    t->fn = fn;
    t->ctx = ctx;
    t->cancelled = false;
    /* the id before heap_up moves the timer: t then points elsewhere */
    uint64_t id = t->id;
    heap_up(l, l->ntimers++);
    return id;
}

void loop_cancel(struct loop *l, uint64_t id)
{
    if (!id)
        return;
    for (size_t i = 0; i < l->ntimers; i++) {
        if (l->heap[i].id == id) {
            l->heap[i].cancelled = true;
            return;
        }
    }
}

void loop_before_sleep(struct loop *l, loop_hook_fn fn, void *ctx)
{
    grow((void **)&l->hooks, &l->caphooks, l->nhooks + 1, sizeof *l->hooks);
    l->hooks[l->nhooks].fn = fn;
    l->hooks[l->nhooks++].ctx = ctx;
}

void loop_remove_hook(struct loop *l, loop_hook_fn fn, void *ctx)
{
    for (size_t i = 0; i < l->nhooks; i++) {
        if (l->hooks[i].fn == fn && l->hooks[i].ctx == ctx) {
            memmove(&l->hooks[i], &l->hooks[i + 1],
                    (l->nhooks - i - 1) * sizeof *l->hooks);
            l->nhooks--;
            return;
        }
    }
}

void loop_stop(struct loop *l)
{
    l->stopping = true;
}

/* Fires every timer that is due; new ones a callback adds for "now" wait
 * for the next round, so a timer re-arming itself at 0 cannot starve the
 * descriptors. */
static void run_timers(struct loop *l)
{
    int64_t now = loop_now(l);
    uint64_t last = l->next_id;
    while (l->ntimers && l->heap[0].when <= now && l->heap[0].id < last) {
        struct timer t = l->heap[0];
        heap_pop(l);
        if (!t.cancelled)
            t.fn(l, t.ctx);
    }
    while (l->ntimers && l->heap[0].cancelled)
        heap_pop(l);
}

static int next_timeout(struct loop *l)
{
    while (l->ntimers && l->heap[0].cancelled)
        heap_pop(l);
    if (!l->ntimers)
        return -1;
    int64_t d = l->heap[0].when - loop_now(l);
    if (d < 0)
        return 0;
    return d > 60000 ? 60000 : (int)d;
}

int loop_run(struct loop *l)
{
    l->stopping = false;
    while (!l->stopping) {
        for (size_t i = 0; i < l->nhooks; i++)
            l->hooks[i].fn(l, l->hooks[i].ctx);
        if (l->stopping)
            break;
        size_t n = l->nwatches;
        grow((void **)&l->pfds, &l->cappfds, n, sizeof *l->pfds);
        grow((void **)&l->pgens, &l->cappgens, n, sizeof *l->pgens);
        for (size_t i = 0; i < n; i++) {
            l->pgens[i] = l->watches[i].gen;
            l->pfds[i].fd = l->watches[i].fd;
            l->pfds[i].events =
                (short)(((l->watches[i].events & LOOP_READ) ? POLLIN : 0) |
                        ((l->watches[i].events & LOOP_WRITE) ? POLLOUT : 0));
            l->pfds[i].revents = 0;
        }
        int rc = poll(l->pfds, (nfds_t)n, next_timeout(l));
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            /* the bot stops: said where whoever started it looks */
            log_fatal("poll: %s", strerror(errno));
            return -1;
        }
        for (size_t i = 0; i < n && rc > 0 && !l->stopping; i++) {
            short re = l->pfds[i].revents;
            if (!re)
                continue;
            rc--;
            /* the watch may have gone in an earlier callback, and the fd
             * number been reused by a new one this poll knows nothing of */
            struct watch *w = find_watch(l, l->pfds[i].fd);
            if (!w || w->gen != l->pgens[i])
                continue;
            int ev = 0;
            if (re & (POLLIN | POLLHUP | POLLERR | POLLNVAL))
                ev |= LOOP_READ;
            if (re & (POLLOUT | POLLERR | POLLHUP))
                ev |= LOOP_WRITE;
            w->fn(l, w->fd, ev, w->ctx);
        }
        run_timers(l);
    }
    return 0;
}

/* ---- Wakers ------------------------------------------------------------- */

struct loop_waker {
    struct loop *loop;
    loop_hook_fn fn;
    void *ctx;
    int pipe[2];
};

static void waker_readable(struct loop *l, int fd, int events, void *ctx)
{
    (void)events;
    struct loop_waker *w = ctx;
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0)
        ;
    w->fn(l, w->ctx);
}

struct loop_waker *loop_waker_new(struct loop *l, loop_hook_fn fn, void *ctx)
{
    struct loop_waker *w = xcalloc(1, sizeof *w);
    w->loop = l;
    w->fn = fn;
    w->ctx = ctx;
    if (pipe(w->pipe) < 0) {
        log_error("loop: no pipe for a waker: %s", strerror(errno));
        abort();
    }
    for (int i = 0; i < 2; i++) {
        int fl = fcntl(w->pipe[i], F_GETFL);
        if (fl < 0 || fcntl(w->pipe[i], F_SETFL, fl | O_NONBLOCK) < 0 ||
            fcntl(w->pipe[i], F_SETFD, FD_CLOEXEC) < 0)
            abort();
    }
    loop_watch(l, w->pipe[0], LOOP_READ, waker_readable, w);
    return w;
}

void loop_waker_poke(struct loop_waker *w)
{
    /* EAGAIN: the pipe is full, and the loop reads it anyway */
    ssize_t n = write(w->pipe[1], "", 1);
    (void)n;
}

void loop_waker_free(struct loop_waker *w)
{
    if (!w)
        return;
    loop_unwatch(w->loop, w->pipe[0]);
    close(w->pipe[0]);
    close(w->pipe[1]);
    free(w);
}
