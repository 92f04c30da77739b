/*
 * The event loop: one thread, one poll(), monotonic timers, and hooks that
 * run before every sleep (where adapters flush queued output). Handlers
 * never block; everything the bot does happens in a callback of this loop.
 *
 * Times are milliseconds on the monotonic clock. Callbacks may add and
 * remove watches and timers, including their own.
 */
#ifndef HEARTS_BOT_LOOP_H
#define HEARTS_BOT_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#define LOOP_READ 1
#define LOOP_WRITE 2

struct loop;

typedef void (*loop_fd_fn)(struct loop *l, int fd, int events, void *ctx);
typedef void (*loop_timer_fn)(struct loop *l, void *ctx);
typedef void (*loop_hook_fn)(struct loop *l, void *ctx);

/* A new loop; aborts if out of memory. */
struct loop *loop_new(void);

/* Frees the loop (watches and timers are dropped); NULL is a no-op. */
void loop_free(struct loop *l);

/* Watches fd for `events` (LOOP_READ | LOOP_WRITE), replacing an earlier
 * watch of the same fd. events 0 keeps the watch but asks for nothing.
 * Returns 0. */
int loop_watch(struct loop *l, int fd, int events, loop_fd_fn fn, void *ctx);

/* Stops watching fd; unknown fds are ignored. */
void loop_unwatch(struct loop *l, int fd);

/* Calls fn once, `ms` milliseconds from now. Returns the timer's id
 * (never 0). */
uint64_t loop_timer(struct loop *l, int64_t ms, loop_timer_fn fn, void *ctx);

/* Cancels a timer that has not fired; 0 and spent ids are ignored. */
void loop_cancel(struct loop *l, uint64_t id);

/* Adds a hook that runs before every sleep, in the order added. */
void loop_before_sleep(struct loop *l, loop_hook_fn fn, void *ctx);

/* Removes a hook added with these fn and ctx (a no-op if none). May be
 * called from a hook. */
void loop_remove_hook(struct loop *l, loop_hook_fn fn, void *ctx);

/* The monotonic clock, in milliseconds. */
int64_t loop_now(const struct loop *l);

/* Runs until loop_stop; returns 0, or -1 if poll fails for good. */
int loop_run(struct loop *l);

/* Makes loop_run return after the current round (from a callback). */
void loop_stop(struct loop *l);

/*
 * A waker: how another thread gets the loop's attention. fn runs on the
 * loop thread, in a round of its own, after one or more loop_waker_poke
 * calls (several pokes before it runs may make one call). The waker is a
 * non-blocking, close-on-exec pipe watched by the loop; new and free
 * abort if no pipe can be made (a bot without one cannot work).
 */
struct loop_waker;
struct loop_waker *loop_waker_new(struct loop *l, loop_hook_fn fn, void *ctx);
/* From any thread. */
void loop_waker_poke(struct loop_waker *w);
/* On the loop thread; NULL is a no-op. */
void loop_waker_free(struct loop_waker *w);

#endif
